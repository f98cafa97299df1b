// verdict's store beyond one host (design section 4): one PostgreSQL database shared by every
// sidecar on every node, with the SQLite store's schema, semantics and freshness contract.
//
// Every read runs in one REPEATABLE READ transaction (one snapshot per call, no BEGIN) and
// nothing read is cached across calls, so a write committed through any sidecar is seen by the
// next call through every other. Every write transaction holds verdict's writer advisory lock
// for its duration, as SQLite's BEGIN IMMEDIATE does, so the rules that read before they write
// (rate limits, delegation cycles, approval votes) hold across processes. Each process keeps a
// small pool of connections with their prepared statements. Nothing here throws: a server that
// cannot be used answers UNAVAILABLE, anything else INTERNAL. Deployment: store/POSTGRES.md.
//
//   absl::StatusOr<std::unique_ptr<PostgresStore>> store =
//       PostgresStore::Open("postgresql://verdict@db.internal/verdict");
//   absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = (*store)->BeginRead();
#ifndef VERDICT_STORE_POSTGRES_STORE_H_
#define VERDICT_STORE_POSTGRES_STORE_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "store/connection_pool.h"
#include "store/database_store.h"
#include "store/postgres/postgres_connection.h"
#include "store/postgres/postgres_source.h"
#include "store/postgres/read_endpoints.h"
#include "store/store.h"

namespace verdict {

struct PostgresOptions {
  // Connections in this process's pool: at most this many calls use the database at once.
  int connections = 4;
  // How long a call waits for the writers' lock or a row lock before UNAVAILABLE.
  absl::Duration lock_timeout = absl::Seconds(5);
  // How long one statement may run, and opening a connection may take, before UNAVAILABLE.
  absl::Duration statement_timeout = absl::Seconds(10);
  absl::Duration connect_timeout = absl::Seconds(5);
  // When false, Open fails if the database cannot be used now. When true, Open returns a store
  // anyway and every call retries and answers UNAVAILABLE until it can (a sidecar that starts
  // before its database).
  bool defer_open_errors = false;
  // The time of admin writes (created_at, updated_at, grace expiries).
  std::function<absl::Time()> clock = [] { return absl::Now(); };

  // Synchronous standbys that may serve decisions' read snapshots (--db_read; issue 22): each
  // only while store/postgres/standby_rules.h finds no acknowledged commit can be missing from
  // it, checked every standby_check_period; the primary otherwise. Writes always go to the
  // primary. At most kMaxReadEndpoints.
  std::vector<std::string> read_conninfos;
  std::vector<std::string> read_names;  // each as logs name it (no password)
  absl::Duration standby_check_period = absl::Seconds(1);
  // Where the read snapshots went; may be null. Must outlive the store.
  ReadRouteCounters* read_counters = nullptr;
  // Told each read endpoint's change ("<endpoint>: reads here", "<endpoint>: refused: why").
  std::function<void(bool usable, const std::string& message)> on_read_route_change;
};

inline constexpr int kMaxReadEndpoints = 16;

class PostgresStore final : public DatabaseStore {
 public:
  // Connects to `conninfo` (a postgresql:// URL, or libpq's key=value form) and brings the
  // schema up to date. INVALID_ARGUMENT for bad options; UNAVAILABLE or FAILED_PRECONDITION
  // (a schema written by a newer verdict) when the database cannot be used, unless
  // defer_open_errors.
  static absl::StatusOr<std::unique_ptr<PostgresStore>> Open(std::string conninfo,
                                                             PostgresOptions options = {});

  // PolicyStore.
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> BeginRead() override;
  absl::StatusOr<std::unique_ptr<WriteTransaction>> BeginWrite() override;

  // Store: breaks every leased connection (ConnectionPool::BreakLeased).
  void AbandonCallsInFlight() override;

  // Store: DatabaseStore (store/database_store.h).

 private:
  PostgresStore(const LibPq& pq, std::string conninfo, PostgresOptions options);

  PostgresOptions options_;
  std::unique_ptr<ReadEndpoints> read_endpoints_;  // null without --db_read
};

}  // namespace verdict

#endif  // VERDICT_STORE_POSTGRES_STORE_H_
