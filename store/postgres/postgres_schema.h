// Bringing a PostgreSQL database's verdict schema up to date, safely when many sidecars on many
// nodes open it at the same instant.
//
//   absl::Status migrated = MigratePostgresSchema(connection);
#ifndef VERDICT_STORE_POSTGRES_POSTGRES_SCHEMA_H_
#define VERDICT_STORE_POSTGRES_POSTGRES_SCHEMA_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "store/migrations.h"
#include "store/postgres/postgres_connection.h"

namespace verdict {

// Applies every migration newer than the schema's version (store/migrations.h RunMigrations;
// the version is kept in table verdict_schema_version, one row, where SQLite has PRAGMA
// user_version, and the migration advisory lock stands for SQLite's write lock).
absl::Status MigratePostgresSchema(
    PostgresConnection& connection,
    absl::Span<const Migration> migrations = Migrations(Dialect::kPostgres));

// The schema's version: 0 before the first migration.
absl::StatusOr<int> PostgresSchemaVersion(PostgresConnection& connection);

}  // namespace verdict

#endif  // VERDICT_STORE_POSTGRES_POSTGRES_SCHEMA_H_
