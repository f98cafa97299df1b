#include "store/postgres_schema.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "store/postgres_connection.h"

namespace verdict {
namespace {

absl::Status TooNew(int version, int latest) {
  return absl::FailedPreconditionError(absl::StrCat("the PostgreSQL schema has version ", version,
                                                    ", newer than this verdict knows (", latest,
                                                    "): upgrade verdict"));
}

// Rolls back after a failure; a connection that cannot leave its transaction is not reused.
absl::Status Abandon(PostgresConnection& connection, absl::Status failure) {
  if (!connection.ExecuteScript("ROLLBACK").ok()) connection.MarkBroken();
  return failure;
}

}  // namespace

absl::StatusOr<int> PostgresSchemaVersion(PostgresConnection& connection) {
  absl::StatusOr<PgResult> exists =
      connection.Query("SELECT to_regclass('verdict_schema_version') IS NOT NULL");
  if (!exists.ok()) return exists.status();
  if (!exists->row(0).Bool(0)) return 0;
  absl::StatusOr<PgResult> version =
      connection.Query("SELECT coalesce(max(version), 0) FROM verdict_schema_version");
  if (!version.ok()) return version.status();
  return static_cast<int>(version->row(0).Int64(0));
}

absl::Status MigratePostgresSchema(PostgresConnection& connection,
                                   absl::Span<const Migration> migrations) {
  const int latest = migrations.empty() ? 0 : migrations.back().version;
  absl::StatusOr<int> version = PostgresSchemaVersion(connection);
  if (!version.ok()) return version.status();
  if (*version == latest) return absl::OkStatus();
  if (*version > latest) return TooNew(*version, latest);

  const std::string begin = absl::StrCat(
      "BEGIN; SELECT pg_advisory_xact_lock(", kPgLockSpace, ", ", kPgMigrationLock,
      "); CREATE TABLE IF NOT EXISTS verdict_schema_version (version INTEGER NOT NULL)");
  if (absl::Status begun = connection.ExecuteScript(begin.c_str()); !begun.ok()) {
    return Abandon(connection, begun);
  }
  // Another process may have migrated while this one waited for the lock.
  version = PostgresSchemaVersion(connection);
  if (!version.ok()) return Abandon(connection, version.status());
  if (*version > latest) return Abandon(connection, TooNew(*version, latest));
  for (const Migration& migration : migrations) {
    if (migration.version <= *version) continue;
    const std::string step = absl::StrCat(migration.sql, "; DELETE FROM verdict_schema_version;",
                                          " INSERT INTO verdict_schema_version (version) VALUES (",
                                          migration.version, ")");
    if (absl::Status applied = connection.ExecuteScript(step.c_str()); !applied.ok()) {
      return Abandon(connection,
                     absl::Status(applied.code(), absl::StrCat("migration ", migration.version,
                                                               ": ", applied.message())));
    }
  }
  if (absl::Status committed = connection.ExecuteScript("COMMIT"); !committed.ok()) {
    return Abandon(connection, committed);
  }
  return absl::OkStatus();
}

}  // namespace verdict
