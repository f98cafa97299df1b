#include "decision/admin/signing_key_rules.h"

#include "absl/strings/str_cat.h"

namespace verdict {

absl::Status CheckSigningKeyRotatable(const SigningKey& key) {
  if (key.status == SigningKeyStatus::kRetired) {
    return absl::FailedPreconditionError(
        absl::StrCat("signing key ", key.kid, " is retired; add a key with a new kid instead"));
  }
  return absl::OkStatus();
}

absl::Status CheckKidNotFromFile(absl::string_view kid,
                                 const absl::flat_hash_set<std::string>& file_key_ids) {
  if (!file_key_ids.contains(kid)) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("kid ", kid,
                   " is a key of verdictd's --jwks_file, which verifies its tokens whatever the "
                   "store holds: change it in that file (or give the store's key another kid)"));
}

absl::Status CheckRevokedTokenExpiry(absl::Time expires_at, absl::Time now) {
  if (expires_at == absl::InfiniteFuture()) {
    return absl::InvalidArgumentError("expires_at: the token's \"exp\" is required");
  }
  if (expires_at < now - kPastExpiryAccepted) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expires_at: ", absl::FormatTime(absl::RFC3339_sec, expires_at, absl::UTCTimeZone()),
        " is more than an hour past; give the token's \"exp\" (a token that far past it is "
        "refused anyway, whatever --jwt_leeway)"));
  }
  return absl::OkStatus();
}

}  // namespace verdict
