// A fixed number of connections to one database shared by the threads of one process, whichever
// the database: each backend supplies only how to open a connection and whether one that sat
// idle may serve again (a ConnectionSource: store/sqlite/sqlite_source.h,
// store/postgres/postgres_source.h).
//
// A checkout blocks while every connection is in use (at most `wait_limit`, then UNAVAILABLE).
// Connections open lazily; one that is not Reusable() when returned is closed and a later
// checkout opens a fresh one, so a store recovers by itself once a fault (a missing directory,
// a full disk, a server restart) is fixed.
//
//   ConnectionPool pool(SqliteSource(path, ConnectionOptions{}), PoolOptions{.size = 4});
//   absl::StatusOr<ConnectionPool::Lease> lease = pool.Checkout();
//   if (!lease.ok()) return lease.status();  // UNAVAILABLE: the database cannot be used
//   (*lease)->Execute(Statement::kFindAgent, Params().Text(id)) ...
//   // the connection goes back to the pool when the lease is destroyed
#ifndef VERDICT_STORE_CONNECTION_POOL_H_
#define VERDICT_STORE_CONNECTION_POOL_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "store/connection.h"

namespace verdict {

// What a backend supplies to the pool. Thread-safe: several checkouts call it at once.
class ConnectionSource {
 public:
  struct Opened {
    std::unique_ptr<Connection> connection;
    uint64_t epoch = 0;  // see Reuse
  };

  virtual ~ConnectionSource() = default;

  // A new connection, ready to lease (the schema brought up to date). An open in progress
  // should give up (UNAVAILABLE) as soon as `given_up()` says true: the pool's BreakLeased was
  // called since the checkout began.
  virtual absl::StatusOr<Opened> Open(const std::function<bool()>& given_up) = 0;

  // Whether `idle`, which sat in the pool since it was leased in `epoch`, may be leased again:
  // the epoch it is leased in, nullopt to close it and open a fresh one instead, or an error
  // that fails the checkout (the connection is closed).
  virtual absl::StatusOr<std::optional<uint64_t>> Reuse(Connection& idle, uint64_t epoch) = 0;
};

struct PoolOptions {
  // Connections at most, >= 1.
  int size = 1;
  // How long a checkout waits for a free connection before UNAVAILABLE: every connection held
  // by a call that waits on a silent server must not stall the callers behind it forever.
  absl::Duration wait_limit = absl::InfiniteDuration();
  // Whether BreakLeased may interrupt the leased connections (they are then tracked).
  bool breakable = false;
};

class ConnectionPool final : public Database {
 public:
  // Opens nothing yet.
  ConnectionPool(std::unique_ptr<ConnectionSource> source, PoolOptions options);
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;

  // One connection for the lifetime of the lease; the pool must outlive its leases.
  class Lease {
   public:
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&& other) noexcept;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { Release(); }

    Connection& operator*() const { return *connection_; }
    Connection* operator->() const { return connection_.get(); }
    // The connection as its backend's type (the source's connections are all of one type).
    template <typename C>
    C& As() const {
      return static_cast<C&>(*connection_);
    }
    // True when the database ended the connection, idle in the pool, before this lease got any
    // answer: a server restart, a failover or pg_terminate_backend that the source's Reuse could
    // not see yet. What was sent may be sent again on a fresh connection (Checkout(kFresh)).
    bool LostWhileIdle() const {
      return connection_ != nullptr && reused_ && connection_->LostBeforeAnyAnswer();
    }
    // False once released.
    bool has_connection() const { return connection_ != nullptr; }
    // Gives the connection back to the pool now (closed when not Reusable).
    void Release();

   private:
    friend class ConnectionPool;
    Lease(ConnectionPool* pool, std::unique_ptr<Connection> connection, uint64_t epoch, bool reused)
        : pool_(pool), connection_(std::move(connection)), epoch_(epoch), reused_(reused) {}

    ConnectionPool* pool_;
    std::unique_ptr<Connection> connection_;
    uint64_t epoch_;
    bool reused_;  // the connection was idle in the pool, not opened for this lease
  };

  // Blocks until a connection is free; opens one when none is idle (or, with kFresh, always).
  // The error of the open otherwise (UNAVAILABLE, or FAILED_PRECONDITION for a database newer
  // than this verdict).
  enum class Reuse { kIdle, kFresh };
  absl::StatusOr<Lease> Checkout(Reuse reuse = Reuse::kIdle);

  // Opens connections until every slot of the pool holds one, idle and ready to lease, so that
  // the first calls after a start do not each pay for an open. Each open is a checkout: for a
  // pool nothing else uses yet, or it waits for the connections others hold. The first failed
  // open's error; the connections opened before it stay in the pool.
  absl::Status OpenAll();

  // A leased connection with its transaction of `kind` begun. A pooled connection that the
  // database ended while it sat idle, and that failed before answering anything, is replaced
  // once by a fresh one.
  absl::StatusOr<Lease> CheckoutInTransaction(TransactionKind kind);

  // Database. A read whose first statement found its pooled connection ended by the database
  // (so nothing was done) runs once more on a fresh connection.
  absl::Status InTransaction(TransactionKind kind,
                             absl::FunctionRef<absl::Status(Connection&)> body) override;

  // Interrupts every leased connection (PoolOptions::breakable): a call waiting for its
  // database's answer fails at once (UNAVAILABLE) and its connection is closed when returned;
  // a connection being opened gives up. For a server that stopped answering; thread-safe.
  void BreakLeased();

 private:
  struct IdleConnection {
    std::unique_ptr<Connection> connection;
    uint64_t epoch;
  };

  // Gives up the slot of a checkout that leases nothing; closes `connection` (if any).
  void GiveBack(std::unique_ptr<Connection> connection);
  void Return(std::unique_ptr<Connection> connection, uint64_t epoch);

  const std::unique_ptr<ConnectionSource> source_;
  const PoolOptions options_;
  absl::Mutex mutex_;
  std::vector<IdleConnection> idle_ ABSL_GUARDED_BY(mutex_);
  // When breakable: the connections leased out, which BreakLeased interrupts.
  absl::flat_hash_set<Connection*> leased_ ABSL_GUARDED_BY(mutex_);
  int free_slots_ ABSL_GUARDED_BY(mutex_);  // connections not leased: idle or not yet open
  std::atomic<uint64_t> breaks_{0};         // BreakLeased calls: connections being opened stop
};

}  // namespace verdict

#endif  // VERDICT_STORE_CONNECTION_POOL_H_
