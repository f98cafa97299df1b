// Opening the store a --db value names (design section 4): a file path or sqlite:///path for
// SQLite, the default; postgresql://... (or postgres://...) for PostgreSQL.
//
//   absl::StatusOr<std::unique_ptr<Store>> store = OpenStore("postgresql://db.internal/verdict");
//   std::cerr << "db " << DescribeStoreLocation(db);  // never prints a password
//   absl::StatusOr<std::unique_ptr<DecisionLogStore>> log = OpenDecisionLogStore(db);
#ifndef VERDICT_STORE_OPEN_STORE_H_
#define VERDICT_STORE_OPEN_STORE_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "store/admin_audit_log.h"
#include "store/admin_credential_store.h"
#include "store/admin_session_store.h"
#include "store/decision_log_store.h"
#include "store/postgres/read_endpoints.h"
#include "store/sqlite_store.h"
#include "store/store.h"

namespace verdict {

enum class StoreKind { kSqlite, kPostgres };

struct StoreLocation {
  StoreKind kind = StoreKind::kSqlite;
  // A file path for SQLite; the whole URL, as libpq takes it, for PostgreSQL.
  std::string location;
};

// What `db` names. INVALID_ARGUMENT when it is empty or names a scheme other than sqlite,
// postgresql and postgres.
absl::StatusOr<StoreLocation> ParseStoreLocation(absl::string_view db);

// `db` with any password replaced by "***", for logs and messages.
std::string DescribeStoreLocation(absl::string_view db);

// The options both stores share; each store's own options keep their defaults.
struct StoreOptions {
  // Connections in the process's pool: at most this many calls use the database at once.
  int connections = 4;
  // Return a store even when the database cannot be used yet; its calls answer UNAVAILABLE
  // until it can (see SqliteOptions and PostgresOptions).
  bool defer_open_errors = false;
  // The time of admin writes.
  std::function<absl::Time()> clock = [] { return absl::Now(); };
  // SQLite only: how much of the file reads map into memory (SqliteOptions::mmap_bytes).
  int64_t sqlite_mmap_bytes = kDefaultMmapBytes;
  // SQLite only: keep the write-ahead log's read lock while reads come
  // (SqliteOptions::keep_read_lock).
  bool sqlite_keep_read_lock = true;
  // SQLite only: told once what an operator may want to change about the file
  // (SqliteOptions::on_advice).
  std::function<void(const std::string& advice)> sqlite_on_advice;
  // PostgreSQL only: synchronous standbys that may serve decisions' reads (--db_read,
  // PostgresOptions::read_conninfos), each a postgresql:// URL; where the reads went, and each
  // standby's changes (usable, or refused and why) as they happen.
  std::vector<std::string> read_endpoints;
  ReadRouteCounters* read_counters = nullptr;
  std::function<void(bool usable, const std::string& message)> on_read_route_change;
};

// Opens (creating or migrating as needed) the store `db` names. INVALID_ARGUMENT for read
// endpoints beside a SQLite store or that are not postgresql:// URLs.
absl::StatusOr<std::unique_ptr<Store>> OpenStore(absl::string_view db, StoreOptions options = {});

// The admin plane's tables in the database `db` names, on either backend, each with a connection
// of its own. They connect (creating or migrating as needed) on first use, so only a bad `db` or
// a missing libpq fails here; a database that cannot be used answers UNAVAILABLE per call.
absl::StatusOr<std::unique_ptr<AdminCredentialStore>> OpenAdminCredentialStore(
    absl::string_view db);
absl::StatusOr<std::unique_ptr<DecisionLogStore>> OpenDecisionLogStore(absl::string_view db);
absl::StatusOr<std::unique_ptr<AdminAuditLog>> OpenAdminAuditLog(absl::string_view db);
absl::StatusOr<std::unique_ptr<AdminSessionStore>> OpenAdminSessionStore(absl::string_view db);

}  // namespace verdict

#endif  // VERDICT_STORE_OPEN_STORE_H_
