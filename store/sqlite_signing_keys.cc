// The SQLite store's JWT half: its signing-key and revoked-token-id lookups, and the admin calls
// that write them (store/policy_admin.h).
#include "store/sqlite_signing_keys.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "crypto/jwt.h"
#include "store/admin_input.h"
#include "store/signing_keys.h"
#include "store/sqlite_lookups.h"
#include "store/sqlite_store.h"

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

absl::Status SqliteStore::RevokeTokenId(absl::string_view jti, absl::Time expires_at) {
  if (absl::Status s = CheckTokenId(jti); !s.ok()) return s;
  if (expires_at == absl::InfiniteFuture()) {
    return absl::InvalidArgumentError("expires_at: the token's \"exp\" is required");
  }
  const absl::Time now = StoredTime(options_.clock());
  return InTransaction(TransactionKind::kWrite, [&](SqliteConnection& c) {
    {
      // Entries long past their token's expiry protect nothing: they go as new ones come.
      ScopedStatement prune = c.Use(StatementId::kPruneRevokedTokenIds);
      prune.BindTime(1, now - kRevokedTokenIdRetention);
      prune.Execute();
    }
    ScopedStatement revoke = c.Use(StatementId::kRevokeTokenId);
    revoke.BindText(1, jti);
    revoke.BindTime(2, expires_at);
    revoke.Execute();
    return absl::OkStatus();
  });
}

absl::StatusOr<SigningKey> SqliteStore::AddSigningKey(const NewSigningKey& key) {
  absl::StatusOr<SigningKey> row = PrepareSigningKey(key, StoredTime(options_.clock()));
  if (!row.ok()) return row.status();
  absl::Status status = InTransaction(TransactionKind::kWrite, [&](SqliteConnection& c) {
    if (absl::Status s = CheckUnused(Found(LookupSigningKey(c, row->kid)), "signing key", row->kid);
        !s.ok()) {
      return s;
    }
    ScopedStatement insert = c.Use(StatementId::kInsertSigningKey);
    insert.BindText(1, row->kid);
    insert.BindText(2, row->jwk_json);
    insert.BindText(3, JoinAlgorithms(row->allowed_algorithms));
    insert.BindText(4, SigningKeyStatusName(row->status));
    insert.BindTime(5, row->created_at);
    insert.BindTime(6, row->updated_at);
    insert.BindTime(7, row->retired_at);
    insert.Execute();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return row;
}

absl::StatusOr<SigningKey> SqliteStore::RotateSigningKey(const NewSigningKey& key) {
  absl::StatusOr<SigningKey> content = PrepareSigningKey(key, StoredTime(options_.clock()));
  if (!content.ok()) return content.status();
  SigningKey rotated;
  absl::Status status = InTransaction(TransactionKind::kWrite, [&](SqliteConnection& c) {
    absl::StatusOr<SigningKey> current =
        ExistingRow(LookupSigningKey(c, content->kid), "signing key", content->kid);
    if (!current.ok()) return current.status();
    if (absl::Status s = CheckSigningKeyRotatable(*current); !s.ok()) return s;
    ScopedStatement update = c.Use(StatementId::kRotateSigningKey);
    update.BindText(1, content->kid);
    update.BindText(2, content->jwk_json);
    update.BindText(3, JoinAlgorithms(content->allowed_algorithms));
    update.BindTime(4, content->updated_at);
    update.Execute();
    rotated = *std::move(current);
    rotated.jwk_json = content->jwk_json;
    rotated.allowed_algorithms = content->allowed_algorithms;
    rotated.updated_at = content->updated_at;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return rotated;
}

absl::StatusOr<SigningKey> SqliteStore::RetireSigningKey(absl::string_view kid) {
  const absl::Time now = StoredTime(options_.clock());
  SigningKey retired;
  absl::Status status = InTransaction(TransactionKind::kWrite, [&](SqliteConnection& c) {
    absl::StatusOr<SigningKey> current = ExistingRow(LookupSigningKey(c, kid), "signing key", kid);
    if (!current.ok()) return current.status();
    retired = *std::move(current);
    if (retired.status == SigningKeyStatus::kRetired) return absl::OkStatus();
    ScopedStatement update = c.Use(StatementId::kRetireSigningKey);
    update.BindText(1, kid);
    update.BindTime(2, now);
    update.Execute();
    retired.status = SigningKeyStatus::kRetired;
    retired.retired_at = now;
    retired.updated_at = now;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return retired;
}

absl::StatusOr<std::vector<SigningKey>> SqliteStore::ListSigningKeys() {
  std::vector<SigningKey> keys;
  absl::Status status = InTransaction(TransactionKind::kRead, [&](SqliteConnection& c) {
    ScopedStatement list = c.Use(StatementId::kListSigningKeys);
    absl::StatusOr<std::vector<SigningKey>> rows = ReadAllRows<SigningKey>(list, ReadSigningKeyRow);
    if (!rows.ok()) return rows.status();
    keys = *std::move(rows);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return keys;
}

}  // namespace verdict
