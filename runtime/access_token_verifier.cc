#include "runtime/access_token_verifier.h"

#include <utility>
#include <vector>

#include "absl/memory/memory.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "crypto/dpop.h"
#include "crypto/jwt_compact.h"

namespace verdict {
namespace {

absl::Status CorruptStoredKey(absl::string_view kid, absl::string_view problem) {
  return absl::InternalError(
      absl::StrCat("policy store: signing key ", kid, " is invalid: ", problem));
}

}  // namespace

absl::StatusOr<std::unique_ptr<AccessTokenVerifier>> AccessTokenVerifier::Create(
    AccessTokenOptions options) {
  const JwtPolicy& policy = options.policy;
  if (policy.issuer.empty()) return absl::InvalidArgumentError("JWT policy: no issuer");
  if (policy.audience.empty()) return absl::InvalidArgumentError("JWT policy: no audience");
  if (policy.leeway < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("JWT policy: the leeway is negative");
  }
  if (policy.allowed_algorithms.empty()) {
    return absl::InvalidArgumentError("JWT policy: no algorithm is allowed");
  }
  if (options.dpop_iat_window <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("DPoP: the iat window must be positive");
  }
  if (options.dpop_replay_capacity == 0) {
    return absl::InvalidArgumentError("DPoP: the replay cache needs room for one proof at least");
  }
  return absl::WrapUnique(new AccessTokenVerifier(std::move(options)));
}

AccessTokenVerifier::AccessTokenVerifier(AccessTokenOptions options)
    : options_(std::move(options)), replay_cache_(options_.dpop_replay_capacity) {}

absl::StatusOr<AccessTokenClaims> AccessTokenVerifier::Authenticate(const Subject& subject,
                                                                    PolicyView& view,
                                                                    absl::Time now) {
  absl::StatusOr<AccessTokenClaims> claims = VerifyAccessToken(
      subject.token, [&](absl::string_view kid) { return FindKey(kid, view); }, options_.policy,
      now);
  if (!claims.ok() || claims->cnf_jkt.empty()) return claims;

  // RFC 9449 section 7.1: a token bound to a key is worth nothing without a proof of possession.
  if (subject.dpop.proof.empty()) {
    return JwtRejection(JwtError::kWrongKeyBinding,
                        "the token is bound to a DPoP key and no DPoP proof came with it");
  }
  DpopRequest request;
  request.http_method = subject.dpop.http_method;
  request.http_uri = subject.dpop.http_uri;
  request.access_token = subject.token;
  request.token_jkt = claims->cnf_jkt;
  absl::StatusOr<DpopProof> proof =
      VerifyDpopProof(subject.dpop.proof, request, now, options_.dpop_iat_window, replay_cache_);
  if (!proof.ok()) return proof.status();
  return claims;
}

absl::StatusOr<std::optional<Jwk>> AccessTokenVerifier::FindKey(absl::string_view kid,
                                                                PolicyView& view) {
  if (const Jwk* configured = options_.keys.Find(kid)) return *configured;
  absl::StatusOr<std::optional<SigningKey>> stored = view.FindActiveSigningKey(kid);
  if (!stored.ok()) return stored.status();
  if (!stored->has_value()) return std::nullopt;

  const SigningKey& key = **stored;
  std::vector<JwsAlgorithm> allowed;
  for (const std::string& name : key.allowed_algorithms) {
    std::optional<JwsAlgorithm> algorithm = JwsAlgorithmFromName(name);
    if (!algorithm) return CorruptStoredKey(kid, absl::StrCat("unknown algorithm ", name));
    allowed.push_back(*algorithm);
  }
  if (allowed.empty()) return CorruptStoredKey(kid, "no algorithm is allowed");
  absl::StatusOr<JsonValue> jwk = ParseJson(key.jwk_json);
  if (!jwk.ok()) return CorruptStoredKey(kid, jwk.status().message());
  absl::StatusOr<Jwk> parsed = key_cache_.FromJson(*jwk, allowed);
  if (!parsed.ok()) return CorruptStoredKey(kid, parsed.status().message());
  if (parsed->kid() != kid) return CorruptStoredKey(kid, "its JWK names another kid");
  return *std::move(parsed);
}

}  // namespace verdict
