#include "store/connection_pool.h"

#include <exception>
#include <utility>

#include "absl/strings/str_cat.h"

namespace verdict {

ConnectionPool::ConnectionPool(std::unique_ptr<ConnectionSource> source, PoolOptions options)
    : source_(std::move(source)), options_(options), free_slots_(options.size) {}

absl::Status ConnectionPool::OpenAll() {
  // Every slot leased at once: a checkout reuses an idle connection only while one is idle, so
  // the rest are opened, and all go back to the pool together.
  std::vector<Lease> held;
  held.reserve(options_.size);
  for (int i = 0; i < options_.size; ++i) {
    absl::StatusOr<Lease> lease = Checkout();
    if (!lease.ok()) return lease.status();
    held.push_back(*std::move(lease));
  }
  return absl::OkStatus();
}

absl::StatusOr<ConnectionPool::Lease> ConnectionPool::Checkout(Reuse reuse) {
  const uint64_t breaks = breaks_.load();
  std::optional<IdleConnection> idle;
  {
    absl::MutexLock lock(&mutex_);
    const absl::Condition slot_free(
        +[](int* free_slots) { return *free_slots > 0; }, &free_slots_);
    if (options_.wait_limit == absl::InfiniteDuration()) {
      mutex_.Await(slot_free);
    } else if (!mutex_.AwaitWithTimeout(slot_free, options_.wait_limit)) {
      return absl::UnavailableError(
          "policy store unavailable: every connection stayed busy for the statement timeout");
    }
    --free_slots_;
    if (reuse == Reuse::kIdle && !idle_.empty()) {
      idle = std::move(idle_.back());
      idle_.pop_back();
      // Leased from here: Reuse may wait for the database's answer, which BreakLeased ends.
      if (options_.breakable) leased_.insert(idle->connection.get());
    }
  }
  std::unique_ptr<Connection> connection;
  uint64_t epoch = 0;
  if (idle.has_value()) {
    absl::StatusOr<std::optional<uint64_t>> reusable =
        source_->Reuse(*idle->connection, idle->epoch);
    if (!reusable.ok()) {
      GiveBack(std::move(idle->connection));
      return reusable.status();
    }
    if (reusable->has_value()) {
      connection = std::move(idle->connection);
      epoch = **reusable;
    } else {
      // One the database has ended since, or from before a fault: dropped here, not left to
      // fail the call.
      if (options_.breakable) {
        absl::MutexLock lock(&mutex_);
        leased_.erase(idle->connection.get());
      }
      idle->connection.reset();
    }
  }
  const bool reused = connection != nullptr;
  if (connection == nullptr) {
    // Opened outside the lock: opening may wait on the network or on another process's
    // migration. Given up as soon as BreakLeased says the database stopped answering, since this
    // call began: a call that waited for a slot the break freed must not wait on it again.
    absl::StatusOr<ConnectionSource::Opened> opened =
        source_->Open([this, breaks] { return breaks_.load() != breaks; });
    if (!opened.ok()) {
      GiveBack(nullptr);
      return opened.status();
    }
    connection = std::move(opened->connection);
    epoch = opened->epoch;
    if (options_.breakable) {
      absl::MutexLock lock(&mutex_);
      leased_.insert(connection.get());
    }
  }
  return Lease(this, std::move(connection), epoch, reused);
}

absl::StatusOr<ConnectionPool::Lease> ConnectionPool::CheckoutInTransaction(TransactionKind kind) {
  absl::StatusOr<Lease> lease = Checkout();
  if (!lease.ok()) return lease.status();
  absl::Status begun = (*lease)->Begin(kind);
  if (begun.ok()) return lease;
  if (!lease->LostWhileIdle()) return begun;
  lease->Release();  // its slot, for the fresh connection
  absl::StatusOr<Lease> fresh = Checkout(Reuse::kFresh);
  if (!fresh.ok()) return fresh.status();
  begun = (*fresh)->Begin(kind);
  if (!begun.ok()) return begun;
  return fresh;
}

absl::Status ConnectionPool::InTransaction(TransactionKind kind,
                                           absl::FunctionRef<absl::Status(Connection&)> body) {
  absl::StatusOr<Lease> lease = CheckoutInTransaction(kind);
  if (!lease.ok()) return lease.status();
  // Exceptions stop here (connections never throw; the standard library may).
  auto run = [&] {
    try {
      return body(**lease);
    } catch (const std::exception& e) {
      return absl::InternalError(absl::StrCat("policy store error: ", e.what()));
    }
  };
  absl::Status status = run();
  if (!status.ok() && kind == TransactionKind::kRead && lease->LostWhileIdle()) {
    lease->Release();  // its slot, for the fresh connection
    absl::StatusOr<Lease> fresh = Checkout(Reuse::kFresh);
    if (!fresh.ok()) return fresh.status();
    (*fresh)->Begin(kind).IgnoreError();  // a read sends nothing before its first statement
    *lease = *std::move(fresh);
    status = run();
  }
  Connection& connection = **lease;
  if (status.ok()) status = connection.Commit();
  if (!status.ok()) connection.Rollback();
  return status;
}

void ConnectionPool::BreakLeased() {
  breaks_.fetch_add(1);
  absl::MutexLock lock(&mutex_);
  for (Connection* connection : leased_) connection->Interrupt();
}

void ConnectionPool::GiveBack(std::unique_ptr<Connection> connection) {
  if (connection != nullptr && options_.breakable) {
    absl::MutexLock lock(&mutex_);
    leased_.erase(connection.get());
  }
  connection.reset();
  absl::MutexLock lock(&mutex_);
  ++free_slots_;
}

void ConnectionPool::Return(std::unique_ptr<Connection> connection, uint64_t epoch) {
  if (options_.breakable) {
    absl::MutexLock lock(&mutex_);
    leased_.erase(connection.get());
  }
  if (!connection->Reusable()) connection.reset();
  absl::MutexLock lock(&mutex_);
  if (connection != nullptr) idle_.push_back({std::move(connection), epoch});
  ++free_slots_;
}

ConnectionPool::Lease::Lease(Lease&& other) noexcept
    : pool_(other.pool_),
      connection_(std::move(other.connection_)),
      epoch_(other.epoch_),
      reused_(other.reused_) {}

ConnectionPool::Lease& ConnectionPool::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    Release();
    pool_ = other.pool_;
    connection_ = std::move(other.connection_);
    epoch_ = other.epoch_;
    reused_ = other.reused_;
  }
  return *this;
}

void ConnectionPool::Lease::Release() {
  if (connection_ != nullptr) pool_->Return(std::move(connection_), epoch_);
}

}  // namespace verdict
