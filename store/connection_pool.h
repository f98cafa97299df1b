// A fixed number of SQLite connections shared by the threads of one process.
//
// A checkout blocks while every connection is in use. Connections open lazily; one that saw a
// connection fault is closed when returned and a fresh one is opened by a later checkout, so a
// store recovers by itself once a fault (a missing directory, a full disk) is fixed. A checkout
// also fails while the database file has a fault SQLite cannot see (store/database_file_watch.h:
// deleted, read-only, disk full, overwritten), and a file that once existed is never created
// again: a vanished database is a fault, not an empty policy to answer from.
//
//   absl::StatusOr<ConnectionPool::Lease> lease = pool.Checkout();
//   if (!lease.ok()) return lease.status();  // UNAVAILABLE: the file cannot be opened
//   (*lease)->Execute(Statement::kFindAgent, Params().Text(id)) ...
//   // the connection goes back to the pool when the lease is destroyed
#ifndef VERDICT_STORE_CONNECTION_POOL_H_
#define VERDICT_STORE_CONNECTION_POOL_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "store/database_file_watch.h"
#include "store/sqlite_connection.h"

namespace verdict {

class ConnectionPool final : public Database {
 public:
  // Opens nothing yet. `size` >= 1.
  ConnectionPool(std::string path, ConnectionOptions options, int size);
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;

  // One connection, for the lifetime of the lease; the pool must outlive its leases.
  class Lease {
   public:
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&& other) noexcept;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();

    SqliteConnection& operator*() const { return *connection_; }
    SqliteConnection* operator->() const { return connection_.get(); }

   private:
    friend class ConnectionPool;
    Lease(ConnectionPool* pool, std::unique_ptr<SqliteConnection> connection, uint64_t generation)
        : pool_(pool), connection_(std::move(connection)), generation_(generation) {}
    void Release();

    ConnectionPool* pool_;
    std::unique_ptr<SqliteConnection> connection_;
    uint64_t generation_;  // of the database file watch, when the connection opened
  };

  // Blocks until a connection is free; opens one when none is open. The error of the open
  // (UNAVAILABLE, or FAILED_PRECONDITION for a database newer than this verdict) otherwise.
  absl::StatusOr<Lease> Checkout();

  const std::string& path() const { return path_; }

  // Database.
  absl::Status InTransaction(TransactionKind kind,
                             absl::FunctionRef<absl::Status(Connection&)> body) override;

 private:
  struct IdleConnection {
    std::unique_ptr<SqliteConnection> connection;
    uint64_t generation;
  };

  // Once the file has been opened, never creates it again nor opens another file on its path
  // (store/database_file_watch.h).
  absl::StatusOr<std::unique_ptr<SqliteConnection>> Open(bool opened_once);
  void Return(std::unique_ptr<SqliteConnection> connection, uint64_t generation);

  const std::string path_;
  const ConnectionOptions options_;
  // Shared with every other pool of this process on the same path.
  const std::shared_ptr<DatabaseFileWatch> watch_;
  absl::Mutex mutex_;
  std::vector<IdleConnection> idle_ ABSL_GUARDED_BY(mutex_);
  int free_slots_ ABSL_GUARDED_BY(mutex_);  // connections not leased: idle or not yet open
};

}  // namespace verdict

#endif  // VERDICT_STORE_CONNECTION_POOL_H_
