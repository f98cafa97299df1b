// A Store over a Database (store/connection.h): its admin plane is AdminCalls (app/admin_calls.h)
// composed over this store's transactions, which the store provides as an AdminTransactionRunner;
// its pruning runs on a connection of its own. The SQLite and PostgreSQL stores derive from it
// and add the decision path's snapshots and write transactions.
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
#include "store/store.h"

namespace verdict {

class DatabaseStore : public Store, private AdminTransactionRunner {
 public:
  // Store: one read of the policy's tables on the probe's own connection, which opens (and
  // migrates) it when it is not open: a busy pool is not a database that stopped answering.
  absl::Status CheckAvailable() override;
  // Store: in one kLockFreeWrite transaction of `prune_database`.
  absl::StatusOr<PrunedRows> PruneDeadRows(const PruneLimits& limits, absl::Time now) override;
  // Store: the same, at the time the database's kDatabaseClock statement reads in that
  // transaction, or at this store's clock where the database has none.
  absl::StatusOr<PrunedRows> PruneDeadRowsByDatabaseClock(const PruneLimits& limits) override;

  // Store: AdminCalls over this store's transactions.
  PolicyAdmin& admin() override { return admin_; }

 protected:
  // Opens (and migrates) a first connection of the decisions' pool, as Open does, so that the
  // first decision does not pay for it; UNAVAILABLE or FAILED_PRECONDITION (a schema written by
  // a newer verdict) when the database cannot be used.
  absl::Status OpenFirstConnection() { return admin_.IsEmpty().status(); }

  // The admin calls run in `database`'s transactions; the pruning job in `prune_database`'s and
  // CheckAvailable in `probe_database`'s, each a connection of its own that a decision never
  // waits for (and that never waits for a decision). `clock` is the time of admin writes. The
  // databases must outlive this store.
  DatabaseStore(Database& database, Database& prune_database, Database& probe_database,
                std::function<absl::Time()> clock)
      : database_(database),
        prune_database_(prune_database),
        probe_database_(probe_database),
        clock_(clock),
        admin_(*this, std::move(clock)) {}

 private:
  // AdminTransactionRunner: a transaction of `database`, its rows read and written over its
  // connection.
  absl::Status RunAdminTransaction(
      TransactionKind kind, absl::FunctionRef<absl::Status(AdminTransaction&)> body) override;

  // Prunes at `now`, or at the database's clock when there is no `now`.
  absl::StatusOr<PrunedRows> Prune(const PruneLimits& limits, std::optional<absl::Time> now);

  Database& database_;
  Database& prune_database_;
  Database& probe_database_;
  const std::function<absl::Time()> clock_;
  AdminCalls admin_;
};

}  // namespace verdict

#endif  // VERDICT_STORE_DATABASE_STORE_H_
