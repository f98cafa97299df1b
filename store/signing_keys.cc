#include "store/signing_keys.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
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

std::string JoinAlgorithms(const std::vector<std::string>& algorithms) {
  return absl::StrJoin(algorithms, ",");
}

std::vector<std::string> SplitAlgorithms(absl::string_view joined) {
  return absl::StrSplit(joined, ',', absl::SkipEmpty());
}

absl::string_view SigningKeyStatusName(SigningKeyStatus status) {
  switch (status) {
    case SigningKeyStatus::kActive:
      return "active";
    case SigningKeyStatus::kRetired:
      return "retired";
  }
  return "";
}

absl::StatusOr<SigningKeyStatus> ParseSigningKeyStatus(absl::string_view name) {
  if (name == "active") return SigningKeyStatus::kActive;
  if (name == "retired") return SigningKeyStatus::kRetired;
  return absl::InvalidArgumentError(absl::StrCat("unknown signing key status ", JsonQuote(name)));
}

}  // namespace verdict
