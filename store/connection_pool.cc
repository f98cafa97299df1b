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
      watch_(SharedDatabaseFileWatch(path_, kFileCheckInterval)),
      free_slots_(size) {}

absl::StatusOr<ConnectionPool::Lease> ConnectionPool::Checkout() {
  std::optional<IdleConnection> idle;
  {
    absl::MutexLock lock(&mutex_);
    mutex_.Await(absl::Condition(
        +[](int* free_slots) { return *free_slots > 0; }, &free_slots_));
    --free_slots_;
    if (!idle_.empty()) {
      idle = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  const bool opened_once = watch_->opened_once();
  std::unique_ptr<SqliteConnection> connection;
  if (idle.has_value()) connection = std::move(idle->connection);
  if (connection == nullptr) {
    absl::StatusOr<std::unique_ptr<SqliteConnection>> opened = Open(opened_once);
    if (!opened.ok()) {
      Return(nullptr, 0);
      return opened.status();
    }
    connection = *std::move(opened);
  }
  absl::StatusOr<uint64_t> file =
      watch_->Check(/*must_exist=*/opened_once, connection->database().getHandle());
  if (!file.ok()) {
    Return(nullptr, 0);  // closes it: the fault retires every connection opened before it
    return file.status();
  }
  // One from before a fault or a replacement of the file may hold another file or stale pages.
  if (idle.has_value() && idle->generation != *file) {
    connection.reset();
    absl::StatusOr<std::unique_ptr<SqliteConnection>> opened = Open(opened_once);
    if (!opened.ok()) {
      Return(nullptr, 0);
      return opened.status();
    }
    connection = *std::move(opened);
  }
  return Lease(this, std::move(connection), *file);
}

absl::StatusOr<std::unique_ptr<SqliteConnection>> ConnectionPool::Open(bool opened_once) {
  ConnectionOptions options = options_;
  if (opened_once) {
    // A missing or replaced file is a fault, never opened: a new file would be created empty,
    // and a replacement read with the old file's write-ahead log.
    if (absl::Status fault = watch_->CheckBeforeOpen(/*must_exist=*/true); !fault.ok()) {
      return fault;
    }
    options.create_if_missing = false;
  }
  // Outside the pool's lock: opening may wait on another process's migration.
  absl::StatusOr<std::unique_ptr<SqliteConnection>> opened = SqliteConnection::Open(path_, options);
  if (opened.ok()) {
    watch_->NoteConnectionOpened();
    (*opened)->OnClosing([watch = watch_] { watch->NoteConnectionClosing(); });
  }
  return opened;
}

absl::Status ConnectionPool::InTransaction(TransactionKind kind,
                                           absl::FunctionRef<absl::Status(Connection&)> body) {
  absl::StatusOr<Lease> lease = Checkout();
  if (!lease.ok()) return lease.status();
  SqliteConnection& connection = **lease;
  absl::Status status = connection.Begin(kind);
  if (!status.ok()) return status;
  status = CatchSqlite(connection, [&] { return body(connection); });
  if (status.ok()) status = connection.Commit();
  if (!status.ok()) connection.Rollback();
  return status;
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
