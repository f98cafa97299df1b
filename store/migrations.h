// verdict's SQLite schema as numbered migrations (design section 4).
//
// Each migration runs once, in order, inside the write transaction that raises PRAGMA
// user_version to its number (store/schema.h applies them). Never edit a migration that has
// shipped: add a new one. Times are INTEGER unix microseconds, NULL meaning "never".
//
//   for (const Migration& m : Migrations()) ...  // ascending, versions 1, 2, 3 ...
#ifndef VERDICT_STORE_MIGRATIONS_H_
#define VERDICT_STORE_MIGRATIONS_H_

#include "absl/types/span.h"

namespace verdict {

struct Migration {
  int version;
  const char* sql;  // one or more statements
};

// All migrations, ascending by version, numbered 1, 2, 3 ... without gaps.
absl::Span<const Migration> Migrations();

// The version of the newest migration: the user_version of an up-to-date database.
int LatestSchemaVersion();

}  // namespace verdict

#endif  // VERDICT_STORE_MIGRATIONS_H_
