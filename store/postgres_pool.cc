#include "store/postgres_pool.h"

#include <utility>

#include "store/postgres_schema.h"

namespace verdict {

PostgresPool::PostgresPool(const LibPq& pq, std::string conninfo, PostgresConnectionOptions options,
                           int size)
    : pq_(pq), conninfo_(std::move(conninfo)), options_(options), free_slots_(size) {}

absl::StatusOr<PostgresPool::Lease> PostgresPool::Checkout(Reuse reuse) {
  const uint64_t breaks = breaks_.load();
  std::unique_ptr<PostgresConnection> connection;
  {
    absl::MutexLock lock(&mutex_);
    // Every connection held by a call that waits on a silent server must not stall the callers
    // behind it past what a statement may take: they are told UNAVAILABLE instead.
    if (!mutex_.AwaitWithTimeout(
            absl::Condition(
                +[](int* free_slots) { return *free_slots > 0; }, &free_slots_),
            options_.statement_timeout)) {
      return absl::UnavailableError(
          "policy store unavailable: every PostgreSQL connection stayed busy for the statement "
          "timeout");
    }
    --free_slots_;
    if (!idle_.empty() && reuse == Reuse::kIdle) {
      connection = std::move(idle_.back());
      idle_.pop_back();
      // Leased from here: StillUsable may wait for a COMMIT's answer, which BreakLeased ends.
      leased_.insert(connection.get());
    }
  }
  // An idle connection the server has ended since is dropped here, not left to fail the call.
  if (connection != nullptr && !connection->StillUsable()) {
    absl::MutexLock lock(&mutex_);
    leased_.erase(connection.get());
    connection.reset();
  }
  const bool reused = connection != nullptr;
  if (connection == nullptr) {
    // Opened outside the lock: connecting may wait on the network or on another migration.
    // Given up as soon as BreakLeased says the server stopped answering, since this call began:
    // a call that waited for a slot the break freed must not wait on the frozen server again.
    absl::StatusOr<std::unique_ptr<PostgresConnection>> opened = PostgresConnection::Open(
        pq_, conninfo_, options_, [this, breaks] { return breaks_.load() != breaks; });
    absl::Status migrated = opened.ok() ? MigratePostgresSchema(**opened) : opened.status();
    if (!migrated.ok()) {
      Return(nullptr);
      return migrated;
    }
    connection = *std::move(opened);
  }
  connection->StartLease();
  {
    absl::MutexLock lock(&mutex_);
    leased_.insert(connection.get());
  }
  return Lease(this, std::move(connection), reused);
}

absl::StatusOr<PostgresPool::Lease> PostgresPool::CheckoutInTransaction(TransactionKind kind) {
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

absl::Status PostgresPool::InTransaction(TransactionKind kind,
                                         absl::FunctionRef<absl::Status(Connection&)> body) {
  absl::StatusOr<Lease> lease = CheckoutInTransaction(kind);
  if (!lease.ok()) return lease.status();
  absl::Status status = body(**lease);
  if (!status.ok() && kind == TransactionKind::kRead && lease->LostWhileIdle()) {
    lease->Release();  // its slot, for the fresh connection
    absl::StatusOr<Lease> fresh = Checkout(Reuse::kFresh);
    if (!fresh.ok()) return fresh.status();
    (*fresh)->Begin(kind).IgnoreError();  // deferred: cannot fail
    *lease = *std::move(fresh);
    status = body(**lease);
  }
  PostgresConnection& connection = **lease;
  if (status.ok()) status = connection.Commit();
  if (!status.ok()) connection.Rollback();
  return status;
}

void PostgresPool::Return(std::unique_ptr<PostgresConnection> connection) {
  if (connection != nullptr) {
    absl::MutexLock lock(&mutex_);
    leased_.erase(connection.get());
  }
  if (connection != nullptr && (connection->broken() || connection->InTransaction())) {
    connection.reset();
  }
  absl::MutexLock lock(&mutex_);
  if (connection != nullptr) idle_.push_back(std::move(connection));
  ++free_slots_;
}

void PostgresPool::BreakLeased() {
  breaks_.fetch_add(1);
  absl::MutexLock lock(&mutex_);
  for (PostgresConnection* connection : leased_) connection->Interrupt();
}

PostgresPool::Lease::Lease(Lease&& other) noexcept
    : pool_(other.pool_), connection_(std::move(other.connection_)), reused_(other.reused_) {}

PostgresPool::Lease& PostgresPool::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    Release();
    pool_ = other.pool_;
    connection_ = std::move(other.connection_);
    reused_ = other.reused_;
  }
  return *this;
}

PostgresPool::Lease::~Lease() { Release(); }

void PostgresPool::Lease::Release() {
  if (connection_ != nullptr) pool_->Return(std::move(connection_));
}

}  // namespace verdict
