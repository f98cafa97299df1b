// PostgresStore's JWT half: the admin calls that write signing keys and revoked token ids
// (store/policy_admin.h). The checks are store/signing_keys.h's, shared with the SQLite store.
#include <utility>
#include <vector>

#include "crypto/jwt.h"
#include "store/admin_input.h"
#include "store/postgres_lookups.h"
#include "store/postgres_store.h"
#include "store/signing_keys.h"

namespace verdict {

absl::Status PostgresStore::RevokeTokenId(absl::string_view jti, absl::Time expires_at) {
  if (absl::Status s = CheckTokenId(jti); !s.ok()) return s;
  if (expires_at == absl::InfiniteFuture()) {
    return absl::InvalidArgumentError("expires_at: the token's \"exp\" is required");
  }
  const absl::Time now = StoredTime(options_.clock());
  return InTransaction(TransactionKind::kWrite, [&](PostgresConnection& c) {
    // Entries long past their token's expiry protect nothing: they go as new ones come.
    absl::StatusOr<PgResult> pruned = c.Execute(PgStatement::kPruneRevokedTokenIds,
                                                PgParams().Time(now - kRevokedTokenIdRetention));
    if (!pruned.ok()) return pruned.status();
    return c.Execute(PgStatement::kRevokeTokenId, PgParams().Text(jti).Time(expires_at)).status();
  });
}

absl::StatusOr<SigningKey> PostgresStore::AddSigningKey(const NewSigningKey& key) {
  absl::StatusOr<SigningKey> row = PrepareSigningKey(key, StoredTime(options_.clock()));
  if (!row.ok()) return row.status();
  absl::Status status = InTransaction(TransactionKind::kWrite, [&](PostgresConnection& c) {
    if (absl::Status s =
            CheckUnused(Found(PgLookupSigningKey(c, row->kid)), "signing key", row->kid);
        !s.ok()) {
      return s;
    }
    return c
        .Execute(PgStatement::kInsertSigningKey, PgParams()
                                                     .Text(row->kid)
                                                     .Text(row->jwk_json)
                                                     .Text(JoinAlgorithms(row->allowed_algorithms))
                                                     .Text(SigningKeyStatusName(row->status))
                                                     .Time(row->created_at)
                                                     .Time(row->updated_at)
                                                     .Time(row->retired_at))
        .status();
  });
  if (!status.ok()) return status;
  return row;
}

absl::StatusOr<SigningKey> PostgresStore::RotateSigningKey(const NewSigningKey& key) {
  absl::StatusOr<SigningKey> content = PrepareSigningKey(key, StoredTime(options_.clock()));
  if (!content.ok()) return content.status();
  SigningKey rotated;
  absl::Status status = InTransaction(TransactionKind::kWrite, [&](PostgresConnection& c) {
    absl::StatusOr<SigningKey> current =
        ExistingRow(PgLookupSigningKey(c, content->kid), "signing key", content->kid);
    if (!current.ok()) return current.status();
    if (absl::Status s = CheckSigningKeyRotatable(*current); !s.ok()) return s;
    absl::StatusOr<PgResult> updated = c.Execute(
        PgStatement::kRotateSigningKey, PgParams()
                                            .Text(content->kid)
                                            .Text(content->jwk_json)
                                            .Text(JoinAlgorithms(content->allowed_algorithms))
                                            .Time(content->updated_at));
    if (!updated.ok()) return updated.status();
    rotated = *std::move(current);
    rotated.jwk_json = content->jwk_json;
    rotated.allowed_algorithms = content->allowed_algorithms;
    rotated.updated_at = content->updated_at;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return rotated;
}

absl::StatusOr<SigningKey> PostgresStore::RetireSigningKey(absl::string_view kid) {
  const absl::Time now = StoredTime(options_.clock());
  SigningKey retired;
  absl::Status status = InTransaction(TransactionKind::kWrite, [&](PostgresConnection& c) {
    absl::StatusOr<SigningKey> current =
        ExistingRow(PgLookupSigningKey(c, kid), "signing key", kid);
    if (!current.ok()) return current.status();
    retired = *std::move(current);
    if (retired.status == SigningKeyStatus::kRetired) return absl::OkStatus();
    absl::StatusOr<PgResult> updated =
        c.Execute(PgStatement::kRetireSigningKey, PgParams().Text(kid).Time(now));
    if (!updated.ok()) return updated.status();
    retired.status = SigningKeyStatus::kRetired;
    retired.retired_at = now;
    retired.updated_at = now;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return retired;
}

absl::StatusOr<std::vector<SigningKey>> PostgresStore::ListSigningKeys() {
  std::vector<SigningKey> keys;
  absl::Status status = InTransaction(TransactionKind::kRead, [&](PostgresConnection& c) {
    absl::StatusOr<PgResult> rows = c.Execute(PgStatement::kListSigningKeys);
    if (!rows.ok()) return rows.status();
    absl::StatusOr<std::vector<SigningKey>> read =
        PgReadAll<SigningKey>(*rows, ReadSigningKeyColumns<PgRow>);
    if (!read.ok()) return read.status();
    keys = *std::move(read);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return keys;
}

}  // namespace verdict
