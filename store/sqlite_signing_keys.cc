// The SQLite store's signing-key and revoked-token-id lookups (the admin calls that write them are
// store/admin_calls.cc's).
#include "store/sqlite_signing_keys.h"

#include "store/signing_keys.h"
#include "store/sqlite_lookups.h"

namespace verdict {
namespace {

absl::StatusOr<SigningKey> ReadSigningKeyRow(const ScopedStatement& row) {
  return ReadSigningKeyColumns(row);
}

absl::StatusOr<std::optional<SigningKey>> FindKey(SqliteConnection& connection, StatementId id,
                                                  absl::string_view kid) {
  ScopedStatement find = connection.Use(id);
  find.BindText(1, kid);
  return ReadFirstRow<SigningKey>(find, ReadSigningKeyRow);
}

}  // namespace

absl::StatusOr<std::optional<SigningKey>> LookupActiveSigningKey(SqliteConnection& connection,
                                                                 absl::string_view kid) {
  return FindKey(connection, StatementId::kFindActiveSigningKey, kid);
}

absl::StatusOr<std::optional<SigningKey>> LookupSigningKey(SqliteConnection& connection,
                                                           absl::string_view kid) {
  return FindKey(connection, StatementId::kFindSigningKey, kid);
}

absl::StatusOr<bool> LookupTokenIdRevoked(SqliteConnection& connection, absl::string_view jti) {
  ScopedStatement find = connection.Use(StatementId::kIsTokenIdRevoked);
  find.BindText(1, jti);
  return find.Step();
}

}  // namespace verdict
