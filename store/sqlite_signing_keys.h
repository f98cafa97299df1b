// The SQLite store's reads of JWT signing keys and revoked token ids, inside a transaction the
// caller holds (as store/sqlite_lookups.h). They may throw SQLite::Exception: wrap calls in
// CatchSqlite.
#ifndef VERDICT_STORE_SQLITE_SIGNING_KEYS_H_
#define VERDICT_STORE_SQLITE_SIGNING_KEYS_H_

#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "decision/types.h"
#include "store/sqlite_connection.h"

namespace verdict {

// PolicyView's lookups (decision/policy_view.h states their contracts).
absl::StatusOr<std::optional<SigningKey>> LookupActiveSigningKey(SqliteConnection& connection,
                                                                 absl::string_view kid);
absl::StatusOr<bool> LookupTokenIdRevoked(SqliteConnection& connection, absl::string_view jti);

// The key with this kid, active or retired.
absl::StatusOr<std::optional<SigningKey>> LookupSigningKey(SqliteConnection& connection,
                                                           absl::string_view kid);

}  // namespace verdict

#endif  // VERDICT_STORE_SQLITE_SIGNING_KEYS_H_
