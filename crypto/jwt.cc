#include "crypto/jwt.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace verdict {
namespace {

absl::Status CheckPolicy(const JwtPolicy& policy) {
  if (policy.issuer.empty()) return JwtRejection(JwtError::kInvalidPolicy, "no issuer");
  if (policy.audience.empty()) return JwtRejection(JwtError::kInvalidPolicy, "no audience");
  if (policy.leeway < absl::ZeroDuration()) {
    return JwtRejection(JwtError::kInvalidPolicy, "negative leeway");
  }
  return absl::OkStatus();
}

// RFC 7519 section 4.1.3: a single string or an array of strings.
absl::StatusOr<std::vector<std::string>> AudienceClaim(const JsonValue& claims) {
  const JsonValue* aud = claims.Find("aud");
  if (aud == nullptr) return JwtRejection(JwtError::kMissingClaim, "no \"aud\"");
  if (aud->is_string()) return std::vector<std::string>{aud->as_string()};
  if (!aud->is_array()) {
    return JwtRejection(JwtError::kMalformed, "\"aud\" is neither a string nor an array");
  }
  std::vector<std::string> audience;
  for (const JsonValue& entry : aud->as_array()) {
    if (!entry.is_string()) {
      return JwtRejection(JwtError::kMalformed, "\"aud\" holds something other than strings");
    }
    audience.push_back(entry.as_string());
  }
  return audience;
}

// The key thumbprint a DPoP-bound token names (RFC 9449 section 6), or "" for a bearer token.
// A confirmation verdict cannot check (RFC 8705's certificate thumbprint "x5t#S256", RFC 7800's
// "jwk", an empty "jkt", an empty "cnf") is refused: the issuer bound the token to something,
// and honouring it as a bearer token would strip that binding.
absl::StatusOr<std::string> ConfirmationJkt(const JsonValue& claims) {
  const JsonValue* cnf = claims.Find("cnf");
  if (cnf == nullptr) return std::string();
  if (!cnf->is_object()) return JwtRejection(JwtError::kMalformed, "\"cnf\" is not an object");
  for (const auto& [method, value] : cnf->as_object()) {
    if (method != "jkt") {
      return JwtRejection(JwtError::kWrongKeyBinding,
                          absl::StrCat("\"cnf\" binds the token by \"", method,
                                       "\", which verdict cannot check (only \"jkt\", RFC 9449)"));
    }
  }
  absl::StatusOr<std::optional<std::string>> jkt = StringClaim(*cnf, "jkt");
  if (!jkt.ok()) return jkt.status();
  if (!jkt->has_value() || (*jkt)->empty()) {
    return JwtRejection(JwtError::kWrongKeyBinding, "\"cnf\" holds no key thumbprint (\"jkt\")");
  }
  return **jkt;
}

absl::StatusOr<AccessTokenClaims> ReadClaims(const JsonValue& claims) {
  AccessTokenClaims result;
  for (auto [name, field] : {std::pair<absl::string_view, std::string*>{"iss", &result.issuer},
                             {"sub", &result.subject},
                             {"jti", &result.jti}}) {
    absl::StatusOr<std::string> value = RequiredStringClaim(claims, name);
    if (!value.ok()) return value.status();
    *field = *std::move(value);
  }
  if (absl::Status revocable = CheckTokenId(result.jti); !revocable.ok()) {
    return JwtRejection(JwtError::kMalformed, revocable.message());
  }
  for (auto [name, field] :
       {std::pair<absl::string_view, std::string*>{"client_id", &result.client_id},
        {"scope", &result.scope}}) {
    absl::StatusOr<std::optional<std::string>> value = StringClaim(claims, name);
    if (!value.ok()) return value.status();
    *field = value->value_or("");
  }
  absl::StatusOr<std::vector<std::string>> audience = AudienceClaim(claims);
  if (!audience.ok()) return audience.status();
  result.audience = *std::move(audience);

  absl::StatusOr<absl::Time> expires_at = RequiredTimeClaim(claims, "exp");
  if (!expires_at.ok()) return expires_at.status();
  result.expires_at = *expires_at;
  absl::StatusOr<absl::Time> issued_at = RequiredTimeClaim(claims, "iat");
  if (!issued_at.ok()) return issued_at.status();
  result.issued_at = *issued_at;
  absl::StatusOr<std::optional<absl::Time>> not_before = TimeClaim(claims, "nbf");
  if (!not_before.ok()) return not_before.status();
  result.not_before = *not_before;

  absl::StatusOr<std::string> jkt = ConfirmationJkt(claims);
  if (!jkt.ok()) return jkt.status();
  result.cnf_jkt = *std::move(jkt);
  return result;
}

absl::Status CheckClaims(const AccessTokenClaims& claims, const JwtPolicy& policy, absl::Time now) {
  if (claims.issuer != policy.issuer) {
    return JwtRejection(JwtError::kWrongIssuer, absl::StrCat("issuer ", claims.issuer));
  }
  if (std::find(claims.audience.begin(), claims.audience.end(), policy.audience) ==
      claims.audience.end()) {
    return JwtRejection(JwtError::kWrongAudience,
                        absl::StrCat("the audience does not include ", policy.audience));
  }
  // RFC 7519 section 4.1.4: the token is refused on or after "exp".
  if (now - policy.leeway >= claims.expires_at) {
    return JwtRejection(JwtError::kExpired,
                        absl::StrCat("expired at ", absl::FormatTime(claims.expires_at)));
  }
  if (claims.not_before.has_value() && now + policy.leeway < *claims.not_before) {
    return JwtRejection(JwtError::kNotYetValid,
                        absl::StrCat("not valid before ", absl::FormatTime(*claims.not_before)));
  }
  if (now + policy.leeway < claims.issued_at) {
    return JwtRejection(JwtError::kNotYetValid, absl::StrCat("issued in the future, at ",
                                                             absl::FormatTime(claims.issued_at)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckTokenId(absl::string_view jti) {
  if (jti.empty() || jti.size() > kMaxTokenIdLength ||
      !std::all_of(jti.begin(), jti.end(), [](char c) { return c >= 0x20 && c < 0x7f; })) {
    return absl::InvalidArgumentError(
        absl::StrCat("jti: must be 1 to ", kMaxTokenIdLength, " bytes of printable ASCII"));
  }
  return absl::OkStatus();
}

absl::StatusOr<AccessTokenClaims> VerifyAccessToken(absl::string_view token, const KeySet& keys,
                                                    const JwtPolicy& policy, absl::Time now) {
  return VerifyAccessToken(
      token,
      [&keys](absl::string_view kid) -> absl::StatusOr<std::optional<Jwk>> {
        const Jwk* key = keys.Find(kid);
        if (key == nullptr) return std::nullopt;
        return *key;
      },
      policy, now);
}

absl::StatusOr<AccessTokenClaims> VerifyAccessToken(absl::string_view token, KeyLookup find_key,
                                                    const JwtPolicy& policy, absl::Time now) {
  if (absl::Status valid_policy = CheckPolicy(policy); !valid_policy.ok()) return valid_policy;
  absl::StatusOr<DecodedJwt> jwt = DecodeJwt(token);
  if (!jwt.ok()) return jwt.status();
  if (policy.require_at_jwt_type && !HasType(jwt->header, "at+jwt")) {
    return JwtRejection(JwtError::kWrongType, "the \"typ\" header is not at+jwt");
  }
  if (std::find(policy.allowed_algorithms.begin(), policy.allowed_algorithms.end(),
                jwt->algorithm) == policy.allowed_algorithms.end()) {
    return JwtRejection(JwtError::kAlgorithmNotAllowed,
                        absl::StrCat(JwsAlgorithmName(jwt->algorithm), " is not allowed"));
  }
  const absl::string_view kid = HeaderKid(jwt->header);
  if (kid.empty()) return JwtRejection(JwtError::kUnknownKey, "no \"kid\" header");
  absl::StatusOr<std::optional<Jwk>> key = find_key(kid);
  if (!key.ok()) return key.status();
  if (!key->has_value()) return JwtRejection(JwtError::kUnknownKey, absl::StrCat("no key ", kid));
  absl::StatusOr<JsonValue> payload = VerifiedPayload(*jwt, **key);
  if (!payload.ok()) return payload.status();
  absl::StatusOr<AccessTokenClaims> claims = ReadClaims(*payload);
  if (!claims.ok()) return claims.status();
  if (absl::Status checked = CheckClaims(*claims, policy, now); !checked.ok()) return checked;
  return claims;
}

}  // namespace verdict
