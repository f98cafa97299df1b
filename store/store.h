// A policy store as a process uses it: the decision path's snapshots and write transactions
// (decision/policy_store.h), the admin plane over its rows (app/policy_admin.h), the pruning
// job and a health check.
// Implemented by SqliteStore (store/sqlite_store.h) and PostgresStore (store/postgres_store.h);
// store/open_store.h opens either from a --db value.
//
//   std::unique_ptr<Store> store = ...;
//   Authorizer authorizer(*store, clock);   // as a PolicyStore
//   SeedIfEmpty(store->admin(), policy_json);
//   health.Set(store->CheckAvailable().ok());
#ifndef VERDICT_STORE_STORE_H_
#define VERDICT_STORE_STORE_H_

#include "absl/status/status.h"
#include "app/policy_admin.h"
#include "decision/policy_store.h"
#include "store/pruning.h"

namespace verdict {

class Store : public PolicyStore {
 public:
  // The admin plane over this store's rows, never cancelled (PolicyAdmin::WithCancel gives one
  // that is). Lives as long as the store.
  virtual PolicyAdmin& admin() = 0;

  // OK when the database can be used now; the reason it cannot otherwise (UNAVAILABLE, or
  // FAILED_PRECONDITION for a schema newer than this verdict). Cheap once connected.
  virtual absl::Status CheckAvailable() = 0;

  // Opens now every connection decisions read through, rather than on the first calls that find
  // none idle, so that the calls after a start cost what later ones do (opening a SQLite
  // connection takes about 3 million instructions, a PostgreSQL one a connection and its
  // authentication). For a process about to serve: decisions wait for the opens meanwhile. The
  // first failed open's error, with the connections opened before it kept.
  virtual absl::Status OpenEveryConnection() = 0;

  // Ends the calls waiting on the database now, UNAVAILABLE, instead of at their own time
  // limit: for a database that stopped answering (server/availability_monitor.h found its check
  // overdue), whose calls would otherwise hold their threads for the whole limit. A store whose
  // calls cannot hang that way does nothing.
  virtual void AbandonCallsInFlight() {}
  // Deletes up to limits.max_rows of each kind of row no decision reads again at `now`
  // (store/pruning.h), in one write transaction on a connection of its own. INVALID_ARGUMENT
  // for limits out of range; the store's error otherwise, with nothing deleted.
  virtual absl::StatusOr<PrunedRows> PruneDeadRows(const PruneLimits& limits, absl::Time now) = 0;
  // The same at the database's own time, as the pruning job runs it: where several verdictd
  // processes share the database (PostgreSQL), its server's clock (now(), read in the pruning
  // transaction), so that a node whose clock is behind or ahead never decides for the others
  // which windows have ended; where the database is a file of this host (SQLite), the store's
  // clock, the host's.
  virtual absl::StatusOr<PrunedRows> PruneDeadRowsByDatabaseClock(const PruneLimits& limits) = 0;
};

}  // namespace verdict

#endif  // VERDICT_STORE_STORE_H_
