// RFC 9068 JWT access tokens ("typ": "at+jwt"), signed with EdDSA, ES256 or HS256 by a key chosen
// by "kid". Revocation ("jti") and the subject agent's liveness live in the store: the caller
// checks them against the claims this returns.
//
//   JwtPolicy policy;
//   policy.issuer = "https://issuer.example";
//   policy.audience = "verdict";
//   absl::StatusOr<AccessTokenClaims> claims = VerifyAccessToken(token, keys, policy, now);
//   if (!claims.ok()) return Invalid(JwtErrorOf(claims.status()));
//   absl::StatusOr<bool> revoked = view.IsTokenIdRevoked(claims->jti);
#ifndef VERDICT_CRYPTO_JWT_H_
#define VERDICT_CRYPTO_JWT_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "crypto/jwk.h"
#include "crypto/jwt_compact.h"

namespace verdict {

struct JwtPolicy {
  // "iss" must equal it exactly.
  std::string issuer;
  // "aud" (a string or an array of strings) must hold it.
  std::string audience;
  // Clock skew forgiven on "exp", "nbf" and "iat".
  absl::Duration leeway = absl::Seconds(30);
  // Narrows what the keys allow; a token must pass both.
  std::vector<JwsAlgorithm> allowed_algorithms = {JwsAlgorithm::kEdDSA, JwsAlgorithm::kES256,
                                                  JwsAlgorithm::kHS256};
  // RFC 9068 section 4: refuse tokens whose "typ" is not at+jwt, so an ID token or any other JWT
  // from the same issuer cannot pass as an access token.
  bool require_at_jwt_type = true;
};

struct AccessTokenClaims {
  std::string subject;                   // sub
  std::string issuer;                    // iss
  std::vector<std::string> audience;     // aud
  absl::Time expires_at;                 // exp
  std::optional<absl::Time> not_before;  // nbf
  absl::Time issued_at;                  // iat
  std::string jti;
  std::string client_id;  // Empty when absent.
  std::string scope;      // Space-separated; empty when absent.
  // The thumbprint of the DPoP key the token is bound to (RFC 9449 section 6); empty when the
  // token is a bearer token.
  std::string cnf_jkt;
};

// The longest token id ("jti") the revocation list keeps.
inline constexpr size_t kMaxTokenIdLength = 256;

// OK when `jti` is a token id the revocation list can hold: 1 to kMaxTokenIdLength bytes of
// printable ASCII; INVALID_ARGUMENT otherwise. VerifyAccessToken refuses a token whose "jti" is
// not one (kMalformed): such a token could never be revoked.
absl::Status CheckTokenId(absl::string_view jti);

// Verifies signature, type and claims: "iss", "sub", "aud", "exp", "iat" and "jti" are required.
// Every refusal is a status that JwtErrorOf reads (kInvalidPolicy when the policy has no issuer or
// audience, or a negative leeway).
absl::StatusOr<AccessTokenClaims> VerifyAccessToken(absl::string_view token, const KeySet& keys,
                                                    const JwtPolicy& policy, absl::Time now);

// Finds the key a token's "kid" names, wherever keys are kept: the key, nullopt when there is
// none (the token is then refused with kUnknownKey), or any other status, which VerifyAccessToken
// returns unchanged (say, a key store that cannot be read).
using KeyLookup = absl::FunctionRef<absl::StatusOr<std::optional<Jwk>>(absl::string_view kid)>;

// The same, with the key found by `find_key`, asked once per token after the header is decoded.
absl::StatusOr<AccessTokenClaims> VerifyAccessToken(absl::string_view token, KeyLookup find_key,
                                                    const JwtPolicy& policy, absl::Time now);

}  // namespace verdict

#endif  // VERDICT_CRYPTO_JWT_H_
