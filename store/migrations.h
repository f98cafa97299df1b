// verdict's schema as one sequence of numbered migrations for both databases (design section 4),
// each in SQLite's dialect and, where it differs, PostgreSQL's.
//
// Each migration runs once, in order, inside the write transaction that raises the schema's
// version to its number (store/schema.h and store/postgres_schema.h apply them). Never edit a
// migration that has shipped: add a new one. Times are unix microseconds, NULL meaning "never".
//
//   for (const Migration& m : Migrations(Dialect::kPostgres)) ...  // ascending: 1, 2, 3, 6 ...
#ifndef VERDICT_STORE_MIGRATIONS_H_
#define VERDICT_STORE_MIGRATIONS_H_

#include "absl/types/span.h"
#include "store/statements.h"

namespace verdict {

struct Migration {
  int version;
  const char* sql;  // one or more statements
};

// The migrations of `dialect`, ascending by version: SQLite's are numbered 1, 2, 3 ... without
// gaps; PostgreSQL's skip SQLite's own.
absl::Span<const Migration> Migrations(Dialect dialect = Dialect::kSqlite);

// The version of the newest migration: the version of an up-to-date database.
int LatestSchemaVersion();

}  // namespace verdict

#endif  // VERDICT_STORE_MIGRATIONS_H_
