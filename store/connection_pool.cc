#include "store/connection_pool.h"

#include <utility>

namespace verdict {

ConnectionPool::ConnectionPool(std::string path, ConnectionOptions options, int size)
    : path_(std::move(path)), options_(options), free_slots_(size) {}

absl::StatusOr<ConnectionPool::Lease> ConnectionPool::Checkout() {
  std::unique_ptr<SqliteConnection> connection;
  {
    absl::MutexLock lock(&mutex_);
    mutex_.Await(absl::Condition(
        +[](int* free_slots) { return *free_slots > 0; }, &free_slots_));
    --free_slots_;
    if (!idle_.empty()) {
      connection = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  if (connection == nullptr) {
    // Opened outside the lock: opening may wait on another process's migration.
    absl::StatusOr<std::unique_ptr<SqliteConnection>> opened =
        SqliteConnection::Open(path_, options_);
    if (!opened.ok()) {
      Return(nullptr);
      return opened.status();
    }
    connection = *std::move(opened);
  }
  return Lease(this, std::move(connection));
}

void ConnectionPool::Return(std::unique_ptr<SqliteConnection> connection) {
  if (connection != nullptr && connection->broken()) connection.reset();
  absl::MutexLock lock(&mutex_);
  if (connection != nullptr) idle_.push_back(std::move(connection));
  ++free_slots_;
}

ConnectionPool::Lease::Lease(Lease&& other) noexcept
    : pool_(other.pool_), connection_(std::move(other.connection_)) {}

ConnectionPool::Lease& ConnectionPool::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    Release();
    pool_ = other.pool_;
    connection_ = std::move(other.connection_);
  }
  return *this;
}

ConnectionPool::Lease::~Lease() { Release(); }

void ConnectionPool::Lease::Release() {
  if (connection_ != nullptr) pool_->Return(std::move(connection_));
}

}  // namespace verdict
