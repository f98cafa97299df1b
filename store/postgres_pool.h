// A fixed number of PostgreSQL connections shared by the threads of one process: the pooling a
// sidecar needs, so it holds a few connections however many calls it serves.
//
// A checkout blocks while every connection is in use. Connections open lazily, each brought to
// the current schema as it opens; one that lost its server or was left inside a transaction is
// closed when returned, and a later checkout opens a fresh one, so the store recovers by itself
// once the server is back.
//
//   absl::StatusOr<PostgresPool::Lease> lease = pool.Checkout();
//   if (!lease.ok()) return lease.status();  // UNAVAILABLE: the server cannot be reached
//   (*lease)->Execute(Statement::kFindAgent, Params().Text(id)) ...
#ifndef VERDICT_STORE_POSTGRES_POOL_H_
#define VERDICT_STORE_POSTGRES_POOL_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "store/postgres_connection.h"
#include "store/postgres_libpq.h"

namespace verdict {

class PostgresPool final : public Database {
 public:
  // Opens nothing yet. `size` >= 1.
  PostgresPool(const LibPq& pq, std::string conninfo, PostgresConnectionOptions options, int size);
  PostgresPool(const PostgresPool&) = delete;
  PostgresPool& operator=(const PostgresPool&) = delete;

  // One connection for the lifetime of the lease; the pool must outlive its leases.
  class Lease {
   public:
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&& other) noexcept;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();

    PostgresConnection& operator*() const { return *connection_; }
    PostgresConnection* operator->() const { return connection_.get(); }
    // True when the server ended the connection, idle in the pool, before this lease got any
    // answer: a server restart, a failover or pg_terminate_backend that StillUsable could not
    // see yet. What was sent may be sent again on a fresh connection (Checkout(kFresh)).
    bool LostWhileIdle() const {
      return connection_ != nullptr && reused_ && connection_->LostBeforeAnyAnswer();
    }
    // False once released.
    bool has_connection() const { return connection_ != nullptr; }
    // Gives the connection back to the pool now (closed when broken).
    void Release();

   private:
    friend class PostgresPool;
    Lease(PostgresPool* pool, std::unique_ptr<PostgresConnection> connection, bool reused)
        : pool_(pool), connection_(std::move(connection)), reused_(reused) {}

    PostgresPool* pool_;
    std::unique_ptr<PostgresConnection> connection_;
    bool reused_ = false;  // the connection was idle in the pool, not opened for this lease
  };

  // Blocks until a connection is free; opens and migrates one when none is open (or, with
  // kFresh, always). The error of the open otherwise (UNAVAILABLE, or FAILED_PRECONDITION for a
  // schema newer than verdict).
  enum class Reuse { kIdle, kFresh };
  absl::StatusOr<Lease> Checkout(Reuse reuse = Reuse::kIdle);

  // A leased connection with its transaction of `kind` begun (a read's BEGIN is sent with its
  // first statement). A pooled connection that the server ended while it sat idle, and that
  // failed before answering anything, is replaced once by a fresh one.
  absl::StatusOr<Lease> CheckoutInTransaction(TransactionKind kind);

  // Database. A read whose first statement found its pooled connection ended by the server (so
  // nothing was done) runs once more on a fresh connection.
  absl::Status InTransaction(TransactionKind kind,
                             absl::FunctionRef<absl::Status(Connection&)> body) override;

  // Shuts the socket of every leased connection: a call waiting for its server's answer fails
  // at once (UNAVAILABLE) and its connection is closed when returned; a connection being opened
  // stops within 50 ms (UNAVAILABLE). For a server that stopped answering; thread-safe.
  void BreakLeased();

 private:
  void Return(std::unique_ptr<PostgresConnection> connection);

  const LibPq& pq_;
  const std::string conninfo_;
  const PostgresConnectionOptions options_;
  absl::Mutex mutex_;
  std::vector<std::unique_ptr<PostgresConnection>> idle_ ABSL_GUARDED_BY(mutex_);
  absl::flat_hash_set<PostgresConnection*> leased_ ABSL_GUARDED_BY(mutex_);
  int free_slots_ ABSL_GUARDED_BY(mutex_);  // connections not leased: idle or not yet open
  std::atomic<uint64_t> breaks_{0};         // BreakLeased calls: connections being opened stop
};

}  // namespace verdict

#endif  // VERDICT_STORE_POSTGRES_POOL_H_
