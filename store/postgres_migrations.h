// verdict's schema on PostgreSQL: the migrations of store/migrations.h, version for version, in
// PostgreSQL's dialect (store/postgres_schema.h applies them).
//
// The tables, columns, constraints and indexes are the SQLite schema's, with PostgreSQL's types:
// times are BIGINT unix microseconds (NULL meaning "never"), hashes BYTEA, and each table whose
// rows are read in creation order has an explicit `rowid` identity column, where SQLite has an
// implicit one. Ids sort bytewise (COLLATE "C"), as in SQLite, so keyset pages are the same.
// Never edit a migration that has shipped: add a new one to both lists.
//
//   for (const Migration& m : PostgresMigrations()) ...  // ascending, versions 1, 2, 3 ...
#ifndef VERDICT_STORE_POSTGRES_MIGRATIONS_H_
#define VERDICT_STORE_POSTGRES_MIGRATIONS_H_

#include "absl/types/span.h"
#include "store/migrations.h"

namespace verdict {

// All migrations, ascending by version, numbered as Migrations() is.
absl::Span<const Migration> PostgresMigrations();

}  // namespace verdict

#endif  // VERDICT_STORE_POSTGRES_MIGRATIONS_H_
