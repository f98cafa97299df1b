#include "store/connection_pool.h"

#include <utility>

namespace verdict {
namespace {

// How stale the database file watch's answer may be: a fault is noticed within this long, at a
// cost of about 10 us per interval (store/database_file_watch.h).
constexpr absl::Duration kFileCheckInterval = absl::Milliseconds(100);

}  // namespace

ConnectionPool::ConnectionPool(std::string path, ConnectionOptions options, int size)
    : path_(std::move(path)),
      options_(options),
      watch_(path_, kFileCheckInterval),
      free_slots_(size) {}

absl::StatusOr<ConnectionPool::Lease> ConnectionPool::Checkout() {
  const bool opened_once = opened_once_.load();
  absl::StatusOr<uint64_t> file = watch_.Check(/*must_exist=*/opened_once);
  if (!file.ok()) return file.status();
  const uint64_t generation = *file;
  std::unique_ptr<SqliteConnection> connection;
  // Connections from before a fault or a replacement of the file: closed once the lock is
  // released, since closing may checkpoint.
  std::vector<IdleConnection> retired;
  {
    absl::MutexLock lock(&mutex_);
    mutex_.Await(absl::Condition(
        +[](int* free_slots) { return *free_slots > 0; }, &free_slots_));
    --free_slots_;
    while (connection == nullptr && !idle_.empty()) {
      IdleConnection idle = std::move(idle_.back());
      idle_.pop_back();
      if (idle.generation == generation) {
        connection = std::move(idle.connection);
      } else {
        retired.push_back(std::move(idle));
      }
    }
  }
  if (connection == nullptr) {
    ConnectionOptions open_options = options_;
    if (opened_once) open_options.create_if_missing = false;
    // Opened outside the lock: opening may wait on another process's migration.
    absl::StatusOr<std::unique_ptr<SqliteConnection>> opened =
        SqliteConnection::Open(path_, open_options);
    if (!opened.ok()) {
      Return(nullptr, generation);
      return opened.status();
    }
    connection = *std::move(opened);
    opened_once_.store(true);
  }
  return Lease(this, std::move(connection), generation);
}

void ConnectionPool::Return(std::unique_ptr<SqliteConnection> connection, uint64_t generation) {
  if (connection != nullptr && connection->broken()) connection.reset();
  absl::MutexLock lock(&mutex_);
  if (connection != nullptr) idle_.push_back({std::move(connection), generation});
  ++free_slots_;
}

ConnectionPool::Lease::Lease(Lease&& other) noexcept
    : pool_(other.pool_),
      connection_(std::move(other.connection_)),
      generation_(other.generation_) {}

ConnectionPool::Lease& ConnectionPool::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    Release();
    pool_ = other.pool_;
    connection_ = std::move(other.connection_);
    generation_ = other.generation_;
  }
  return *this;
}

ConnectionPool::Lease::~Lease() { Release(); }

void ConnectionPool::Lease::Release() {
  if (connection_ != nullptr) pool_->Return(std::move(connection_), generation_);
}

}  // namespace verdict
