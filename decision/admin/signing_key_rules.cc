#include "decision/admin/signing_key_rules.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "crypto/jwk.h"

namespace verdict {
namespace {

constexpr size_t kMaxKidLength = 128;
// A JWK is small: an Ed25519 key is about 100 bytes, an HMAC secret of 512 bytes about 750.
constexpr size_t kMaxJwkBytes = 4096;
constexpr JwsAlgorithm kAlgorithmOrder[] = {JwsAlgorithm::kEdDSA, JwsAlgorithm::kES256,
                                            JwsAlgorithm::kHS256};

bool IsKidCharacter(char c) {
  return absl::ascii_isalnum(c) || c == '_' || c == '.' || c == ':' || c == '-';
}

absl::Status CheckKid(absl::string_view kid) {
  if (kid.empty()) return absl::InvalidArgumentError("jwk: needs a \"kid\"");
  if (kid.size() > kMaxKidLength ||
      !std::all_of(kid.begin(), kid.end(), [](char c) { return IsKidCharacter(c); })) {
    return absl::InvalidArgumentError(absl::StrCat("jwk: \"kid\" must be 1 to ", kMaxKidLength,
                                                   " characters of A-Z a-z 0-9 _ . : -"));
  }
  return absl::OkStatus();
}

// The algorithms named, each once, in kAlgorithmOrder.
absl::StatusOr<std::vector<JwsAlgorithm>> AllowedAlgorithms(const std::vector<std::string>& names) {
  if (names.empty()) {
    return absl::InvalidArgumentError(
        "allowed_algorithms: name at least one of EdDSA, ES256, HS256");
  }
  std::vector<JwsAlgorithm> named;
  for (const std::string& name : names) {
    std::optional<JwsAlgorithm> algorithm = JwsAlgorithmFromName(name);
    if (!algorithm) {
      return absl::InvalidArgumentError(absl::StrCat("allowed_algorithms: ", JsonQuote(name),
                                                     " is not one of EdDSA, ES256, HS256"));
    }
    if (std::find(named.begin(), named.end(), *algorithm) != named.end()) {
      return absl::InvalidArgumentError(absl::StrCat("allowed_algorithms: ", name, " twice"));
    }
    named.push_back(*algorithm);
  }
  std::vector<JwsAlgorithm> ordered;
  for (JwsAlgorithm algorithm : kAlgorithmOrder) {
    if (std::find(named.begin(), named.end(), algorithm) != named.end()) {
      ordered.push_back(algorithm);
    }
  }
  return ordered;
}

}  // namespace

absl::StatusOr<SigningKey> PrepareSigningKey(const NewSigningKey& key, absl::Time now) {
  if (key.jwk_json.size() > kMaxJwkBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("jwk: ", key.jwk_json.size(), " bytes, over ", kMaxJwkBytes));
  }
  absl::StatusOr<std::vector<JwsAlgorithm>> allowed = AllowedAlgorithms(key.allowed_algorithms);
  if (!allowed.ok()) return allowed.status();
  absl::StatusOr<JsonValue> jwk = ParseJson(key.jwk_json);
  if (!jwk.ok()) return absl::InvalidArgumentError(absl::StrCat("jwk: ", jwk.status().message()));
  absl::StatusOr<Jwk> parsed = Jwk::FromJson(*jwk, *allowed);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("jwk: ", parsed.status().message()));
  }
  if (absl::Status kid = CheckKid(parsed->kid()); !kid.ok()) return kid;
  // A key type does exactly one algorithm (crypto/jwk.h): any other name in the list could
  // never verify, and is refused so the list says what the key does.
  for (JwsAlgorithm algorithm : *allowed) {
    if (!parsed->Allows(algorithm)) {
      return absl::InvalidArgumentError(
          absl::StrCat("allowed_algorithms: this key cannot do ", JwsAlgorithmName(algorithm)));
    }
  }
  const bool symmetric = parsed->type() == JwkType::kOct;
  if (!symmetric && parsed->has_private_part()) {
    return absl::InvalidArgumentError(
        "jwk: holds a private key (\"d\"); store the public key only");
  }

  SigningKey row;
  row.kid = parsed->kid();
  row.jwk_json = CanonicalJson(*jwk);
  for (JwsAlgorithm algorithm : *allowed) {
    row.allowed_algorithms.emplace_back(JwsAlgorithmName(algorithm));
  }
  row.status = SigningKeyStatus::kActive;
  row.created_at = now;
  row.updated_at = now;
  row.retired_at = absl::InfiniteFuture();
  return row;
}

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
