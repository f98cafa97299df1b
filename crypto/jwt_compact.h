// The JWS compact serialization (RFC 7515 section 7.1) that access tokens and DPoP proofs share:
// splitting and decoding, checking a signature before the payload is read, claim helpers, the
// stable reasons a token is refused, and a signer for tests and tools.
//
//   absl::StatusOr<DecodedJwt> jwt = DecodeJwt(token);
//   const Jwk* key = keys.Find(HeaderKid(jwt->header));
//   absl::StatusOr<JsonValue> claims = VerifiedPayload(*jwt, *key);
//   if (!claims.ok()) LOG(INFO) << JwtErrorName(*JwtErrorOf(claims.status()));
#ifndef VERDICT_CRYPTO_JWT_COMPACT_H_
#define VERDICT_CRYPTO_JWT_COMPACT_H_

#include <cstddef>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/json.h"
#include "crypto/jwk.h"

namespace verdict {

// Why a token or proof was refused: stable, for callers to branch on and to report.
enum class JwtError {
  kMalformed,            // Not a compact JWS, bad base64url or JSON, a claim of the wrong type.
  kBadSignature,         // The signature does not verify (or has the wrong length).
  kUnknownKey,           // No "kid", or no key with that kid.
  kAlgorithmNotAllowed,  // "none", an unknown alg, or one the policy or the key does not allow.
  kWrongType,            // The "typ" header is not what the token kind requires.
  kMissingClaim,         // A required claim is absent.
  kWrongIssuer,
  kWrongAudience,
  kExpired,          // Past "exp" (or a DPoP "iat" older than the window), beyond the leeway.
  kNotYetValid,      // Before "nbf", or issued in the future, beyond the leeway.
  kWrongMethod,      // DPoP "htm" is not the request's method.
  kWrongUrl,         // DPoP "htu" is not the request's URI.
  kWrongTokenHash,   // DPoP "ath" is not the hash of the access token presented.
  kWrongKeyBinding,  // The proof key's thumbprint is not the token's cnf.jkt, or cnf binds the
                     // token by a method verdict cannot check.
  kReplayed,         // A DPoP proof "jti" already used.
  kReplayCacheFull,  // Too many live proofs to remember: refused rather than risk a replay.
  kInvalidPolicy,    // The caller's policy cannot be applied (no issuer, negative leeway...).
};

// Lower-case, stable: "malformed", "bad_signature", "unknown_key"...
absl::string_view JwtErrorName(JwtError error);

// A status carrying `error` (read back with JwtErrorOf) and `message`. The code is
// UNAUTHENTICATED for a refused credential, FAILED_PRECONDITION for kInvalidPolicy and
// RESOURCE_EXHAUSTED for kReplayCacheFull.
absl::Status JwtRejection(JwtError error, absl::string_view message);

// The reason JwtRejection put in `status`; nullopt for any other status (OK included).
std::optional<JwtError> JwtErrorOf(const absl::Status& status);

// Tokens beyond this are refused before any decoding.
inline constexpr size_t kMaxJwtBytes = 16 * 1024;

// A compact JWS with its header decoded. The views point into the token, which must outlive it.
struct DecodedJwt {
  JsonValue header;
  JwsAlgorithm algorithm = JwsAlgorithm::kEdDSA;
  absl::string_view signing_input;    // BASE64URL(header) "." BASE64URL(payload), as received.
  absl::string_view encoded_payload;  // Untrusted until VerifiedPayload.
  std::string signature;
};

// Splits `token` into exactly three base64url segments and decodes the header, which must be a
// JSON object with a supported "alg" and no "crit" (verdict understands no extension).
// kMalformed or kAlgorithmNotAllowed.
absl::StatusOr<DecodedJwt> DecodeJwt(absl::string_view token);

// The header's "kid", or "" when absent or not a string.
absl::string_view HeaderKid(const JsonValue& header);

// True when the "typ" header names `media_type`, with or without the "application/" prefix,
// ignoring case (RFC 7515 section 4.1.9).
bool HasType(const JsonValue& header, absl::string_view media_type);

// Checks the signature with `key` (kAlgorithmNotAllowed when the key does not allow the token's
// algorithm, kBadSignature), and only then decodes the payload, which must be a JSON object
// (kMalformed).
absl::StatusOr<JsonValue> VerifiedPayload(const DecodedJwt& jwt, const Jwk& key);

// Claim readers over a payload object. Absent: nullopt (the *Required forms: kMissingClaim).
// Present with the wrong type: kMalformed.
absl::StatusOr<std::optional<std::string>> StringClaim(const JsonValue& claims,
                                                       absl::string_view name);
absl::StatusOr<std::string> RequiredStringClaim(const JsonValue& claims, absl::string_view name);
// A NumericDate (RFC 7519 section 2): seconds since the epoch, between 0 and year 9999.
absl::StatusOr<std::optional<absl::Time>> TimeClaim(const JsonValue& claims,
                                                    absl::string_view name);
absl::StatusOr<absl::Time> RequiredTimeClaim(const JsonValue& claims, absl::string_view name);

// Signs for tests and tools: BASE64URL(header_json) "." BASE64URL(payload_json) "." signature,
// with the bytes of both JSON texts kept exactly. The algorithm is the header's "alg".
// INVALID_ARGUMENT for a header without a supported "alg"; FAILED_PRECONDITION when the key
// does not allow it or cannot sign.
absl::StatusOr<std::string> SignJwt(absl::string_view header_json, absl::string_view payload_json,
                                    const Jwk& key);

}  // namespace verdict

#endif  // VERDICT_CRYPTO_JWT_COMPACT_H_
