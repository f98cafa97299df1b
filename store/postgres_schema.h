// Bringing a PostgreSQL database's verdict schema up to date, safely when many sidecars on many
// nodes open it at the same instant.
//
//   absl::Status migrated = MigratePostgresSchema(connection);
#ifndef VERDICT_STORE_POSTGRES_SCHEMA_H_
#define VERDICT_STORE_POSTGRES_SCHEMA_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "store/migrations.h"
#include "store/postgres_connection.h"

namespace verdict {

// Applies every migration newer than the schema's version (table verdict_schema_version, one
// row; SQLite keeps it in PRAGMA user_version). An up-to-date schema is recognised without a
// lock or a write, so a sidecar whose role may only read and write rows starts fine once the
// schema exists. Otherwise all migrations run in one transaction holding the migration advisory
// lock, which re-reads the version once held, so concurrent openers apply each exactly once.
// FAILED_PRECONDITION when the schema is newer than `migrations` (a newer verdict wrote it).
absl::Status MigratePostgresSchema(
    PostgresConnection& connection,
    absl::Span<const Migration> migrations = Migrations(Dialect::kPostgres));

// The schema's version: 0 before the first migration.
absl::StatusOr<int> PostgresSchemaVersion(PostgresConnection& connection);

}  // namespace verdict

#endif  // VERDICT_STORE_POSTGRES_SCHEMA_H_
