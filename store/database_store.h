// A Store over pools of database connections (store/connection_pool.h): its admin plane is
// AdminCalls (app/admin_calls.h) composed over this store's transactions, which the store
// provides as an AdminTransactionRunner; its pruning runs on a connection of its own. The SQLite
// and PostgreSQL stores derive from it and add the decision path's snapshots and write
// transactions.
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
  // Store: one read of the policy's tables on the probe's own connection, which opens (and
  // migrates) it when it is not open: a busy pool is not a database that stopped answering.
  absl::Status CheckAvailable() override;
  absl::Status OpenEveryConnection() override { return pool_.OpenAll(); }
  // Store: in one kLockFreeWrite transaction of `prune_database`.
  absl::StatusOr<PrunedRows> PruneDeadRows(const PruneLimits& limits, absl::Time now) override;
  // Store: the same, at the time the database's kDatabaseClock statement reads in that
  // transaction, or at this store's clock where the database has none.
  absl::StatusOr<PrunedRows> PruneDeadRowsByDatabaseClock(const PruneLimits& limits) override;

  // Store: AdminCalls over this store's transactions.
  PolicyAdmin& admin() override { return admin_; }

 protected:
  // A pool holds at most this many connections.
  static constexpr int kMaxConnections = 256;

  // INVALID_ARGUMENT ("SQLite store: connections must be 1 to 256, not 0") for a pool size out
  // of range or no clock: the options every database store has.
  static absl::Status CheckPoolAndClock(absl::string_view store, int connections,
                                        const std::function<absl::Time()>& clock);

  // `store` with a first connection of the decisions' pool open (and migrated), so that the
  // first decision does not pay for it; UNAVAILABLE or FAILED_PRECONDITION (a schema written by
  // a newer verdict) when the database cannot be used, unless `defer_open_errors`.
  template <typename S>
  static absl::StatusOr<std::unique_ptr<S>> OpenFirstConnection(std::unique_ptr<S> store,
                                                                bool defer_open_errors) {
    absl::Status available = store->admin_.IsEmpty().status();
    if (!available.ok() && !defer_open_errors) return available;
    return store;
  }

  // The decisions' and admin calls' pool (`pool`), and one connection each, from `source`, for
  // the pruning job and for CheckAvailable (`single`): a decision never waits for either (and
  // neither waits for a decision), and health reads a busy pool as busy, not as unavailable.
  // `clock` is the time of admin writes.
  DatabaseStore(absl::FunctionRef<std::unique_ptr<ConnectionSource>()> source, PoolOptions pool,
                PoolOptions single, std::function<absl::Time()> clock)
      : pool_(source(), pool),
        prune_pool_(source(), single),
        probe_pool_(source(), single),
        clock_(clock),
        admin_(*this, std::move(clock)) {}

  ConnectionPool pool_;

 private:
  // AdminTransactionRunner: a transaction of `pool_`, its rows read and written over its
  // connection.
  absl::Status RunAdminTransaction(
      TransactionKind kind, absl::FunctionRef<absl::Status(AdminTransaction&)> body) override;

  // Prunes at `now`, or at the database's clock when there is no `now`.
  absl::StatusOr<PrunedRows> Prune(const PruneLimits& limits, std::optional<absl::Time> now);

  ConnectionPool prune_pool_;
  ConnectionPool probe_pool_;
  const std::function<absl::Time()> clock_;
  AdminCalls admin_;
};

}  // namespace verdict

#endif  // VERDICT_STORE_DATABASE_STORE_H_
