// A Store over a pool of connections (store/connection_pool.h): the decision path's snapshots
// and write transactions on leased connections, its admin plane AdminCalls (app/admin_calls.h)
// composed over this store's transactions, which the store provides as an
// AdminTransactionRunner, and its pruning on a connection of its own. The SQLite and PostgreSQL
// stores derive from it and supply their connections and their views over a connection.
//
//   class SqliteStore final : public DatabaseStore { ... };
#ifndef VERDICT_STORE_DATABASE_STORE_H_
#define VERDICT_STORE_DATABASE_STORE_H_

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "app/admin_calls.h"
#include "store/connection.h"
#include "store/connection_pool.h"
#include "store/store.h"

namespace verdict {

class DatabaseStore : public Store, private AdminTransactionRunner {
 public:
  // PolicyStore: a view (ReadSnapshotOn, WriteTransactionOn) over a connection of the pool, in a
  // transaction begun when the connection was leased. PostgreSQL's may read on a standby instead.
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> BeginRead() override;
  absl::StatusOr<std::unique_ptr<WriteTransaction>> BeginWrite() final;
  // Store: one read of the policy's tables, which opens (and migrates) a connection when none is.
  absl::Status CheckAvailable() override;
  // Store: in one kLockFreeWrite transaction of `prune_database`.
  absl::StatusOr<PrunedRows> PruneDeadRows(const PruneLimits& limits, absl::Time now) override;
  // Store: the same, at the time the database's kDatabaseClock statement reads in that
  // transaction, or at this store's clock where the database has none.
  absl::StatusOr<PrunedRows> PruneDeadRowsByDatabaseClock(const PruneLimits& limits) override;

  // Store: AdminCalls over this store's transactions.
  PolicyAdmin& admin() override { return admin_; }

 protected:
  // Decisions and admin calls lease connections of `source` (a pool of `pool_options`); the pruning
  // job those of `prune_source`, which a decision never waits for. `clock` is the time of admin
  // writes.
  DatabaseStore(std::unique_ptr<ConnectionSource> source, PoolOptions pool_options,
                std::unique_ptr<ConnectionSource> prune_source, PoolOptions prune_pool_options,
                std::function<absl::Time()> clock)
      : pool_(std::move(source), pool_options),
        prune_pool_(std::move(prune_source), prune_pool_options),
        clock_(clock),
        admin_(*this, std::move(clock)) {}

  // The database's policy views over `lease`, which holds a transaction of their kind.
  virtual std::unique_ptr<ReadSnapshot> ReadSnapshotOn(ConnectionPool::Lease lease) = 0;
  virtual std::unique_ptr<WriteTransaction> WriteTransactionOn(ConnectionPool::Lease lease) = 0;
  ConnectionPool& pool() { return pool_; }

 private:
  // AdminTransactionRunner: a transaction of `database`, its rows read and written over its
  // connection.
  absl::Status RunAdminTransaction(
      TransactionKind kind, absl::FunctionRef<absl::Status(AdminTransaction&)> body) override;

  // Prunes at `now`, or at the database's clock when there is no `now`.
  absl::StatusOr<PrunedRows> Prune(const PruneLimits& limits, std::optional<absl::Time> now);

  ConnectionPool pool_;
  ConnectionPool prune_pool_;
  const std::function<absl::Time()> clock_;
  AdminCalls admin_;
};

}  // namespace verdict

#endif  // VERDICT_STORE_DATABASE_STORE_H_
