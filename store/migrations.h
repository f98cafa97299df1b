// verdict's schema as one sequence of numbered migrations for both databases (design section 4),
// each in SQLite's dialect and, where it differs, PostgreSQL's.
//
// Each migration runs once, in order, inside the write transaction that raises the schema's
// version to its number: RunMigrations below, over each database's SchemaSteps
// (store/sqlite/schema.h, store/postgres/postgres_schema.h). Never edit a
// migration that has shipped: add a new one. Times are unix microseconds, NULL meaning "never".
//
//   for (const Migration& m : Migrations(Dialect::kPostgres)) ...  // ascending: 1, 2, 3, 6 ...
#ifndef VERDICT_STORE_MIGRATIONS_H_
#define VERDICT_STORE_MIGRATIONS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
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

// How one database keeps its schema version and runs a migration; what differs between SQLite
// and PostgreSQL. None of these throw.
class SchemaSteps {
 public:
  virtual ~SchemaSteps() = default;
  // The database, in messages ("/var/lib/verdict.db", "the PostgreSQL schema").
  virtual std::string Name() const = 0;
  // The schema's version: 0 before the first migration.
  virtual absl::StatusOr<int> Version() = 0;
  // Begins the one transaction all migrations run in, holding the lock that makes every other
  // opener wait until they are done.
  virtual absl::Status Begin() = 0;
  // Runs the migration's SQL and records its version, inside that transaction.
  virtual absl::Status Apply(const Migration& migration) = 0;
  virtual absl::Status Commit() = 0;
  virtual void Rollback() = 0;
};

// Applies every migration newer than the schema's version. An up-to-date schema is recognised
// without a lock or a write (a process whose database role may only read and write rows starts
// fine once the schema exists). Otherwise all migrations run in one transaction that re-reads
// the version once it holds the lock, so concurrent openers apply each exactly once; a failed
// migration leaves the database as it was and says which step failed from which version.
// FAILED_PRECONDITION when the schema is newer than `migrations` (a newer verdict wrote it).
absl::Status RunMigrations(SchemaSteps& steps, absl::Span<const Migration> migrations);

}  // namespace verdict

#endif  // VERDICT_STORE_MIGRATIONS_H_
