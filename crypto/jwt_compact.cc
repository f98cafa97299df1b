#include "crypto/jwt_compact.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/types/optional.h"
#include "crypto/token.h"

namespace verdict {
namespace {

constexpr absl::string_view kJwtErrorPayloadUrl = "type.verdict.dev/verdict.JwtError";

// JwtErrorOf reads the reason back by name; every enumerator up to this one is a reason.
constexpr JwtError kLastJwtError = JwtError::kInvalidPolicy;

// 9999-12-31T23:59:59Z: later dates are not dates a token means.
constexpr double kLatestNumericDate = 253402300799;

absl::StatusOr<JsonValue> DecodeJsonObjectSegment(absl::string_view segment,
                                                  absl::string_view what) {
  absl::StatusOr<std::string> text = Base64UrlDecode(segment);
  if (!text.ok()) {
    return JwtRejection(JwtError::kMalformed,
                        absl::StrCat(what, " is not base64url: ", text.status().message()));
  }
  absl::StatusOr<JsonValue> value = ParseJson(*text);
  if (!value.ok()) {
    return JwtRejection(JwtError::kMalformed,
                        absl::StrCat(what, " is not JSON: ", value.status().message()));
  }
  if (!value->is_object()) {
    return JwtRejection(JwtError::kMalformed, absl::StrCat(what, " is not a JSON object"));
  }
  return value;
}

}  // namespace

absl::string_view JwtErrorName(JwtError error) {
  switch (error) {
    case JwtError::kMalformed:
      return "malformed";
    case JwtError::kBadSignature:
      return "bad_signature";
    case JwtError::kUnknownKey:
      return "unknown_key";
    case JwtError::kAlgorithmNotAllowed:
      return "algorithm_not_allowed";
    case JwtError::kWrongType:
      return "wrong_type";
    case JwtError::kMissingClaim:
      return "missing_claim";
    case JwtError::kWrongIssuer:
      return "wrong_issuer";
    case JwtError::kWrongAudience:
      return "wrong_audience";
    case JwtError::kExpired:
      return "expired";
    case JwtError::kNotYetValid:
      return "not_yet_valid";
    case JwtError::kWrongMethod:
      return "wrong_method";
    case JwtError::kWrongUrl:
      return "wrong_url";
    case JwtError::kWrongTokenHash:
      return "wrong_token_hash";
    case JwtError::kWrongKeyBinding:
      return "wrong_key_binding";
    case JwtError::kReplayed:
      return "replayed";
    case JwtError::kReplayCacheFull:
      return "replay_cache_full";
    case JwtError::kInvalidPolicy:
      return "invalid_policy";
  }
  return "unknown";
}

absl::Status JwtRejection(JwtError error, absl::string_view message) {
  absl::StatusCode code = absl::StatusCode::kUnauthenticated;
  if (error == JwtError::kInvalidPolicy) code = absl::StatusCode::kFailedPrecondition;
  if (error == JwtError::kReplayCacheFull) code = absl::StatusCode::kResourceExhausted;
  absl::Status status(code, absl::StrCat(JwtErrorName(error), ": ", message));
  status.SetPayload(kJwtErrorPayloadUrl, absl::Cord(JwtErrorName(error)));
  return status;
}

std::optional<JwtError> JwtErrorOf(const absl::Status& status) {
  absl::optional<absl::Cord> name = status.GetPayload(kJwtErrorPayloadUrl);
  if (!name.has_value()) return std::nullopt;
  for (int i = 0; i <= static_cast<int>(kLastJwtError); ++i) {
    const JwtError error = static_cast<JwtError>(i);
    if (*name == JwtErrorName(error)) return error;
  }
  return std::nullopt;
}

absl::StatusOr<DecodedJwt> DecodeJwt(absl::string_view token) {
  if (token.size() > kMaxJwtBytes) {
    return JwtRejection(JwtError::kMalformed,
                        absl::StrCat("token has ", token.size(), " bytes, over ", kMaxJwtBytes));
  }
  // Three segments: two dots, found without building a list of the pieces.
  const size_t first_dot = token.find('.');
  const size_t second_dot =
      first_dot == absl::string_view::npos ? first_dot : token.find('.', first_dot + 1);
  if (second_dot == absl::string_view::npos ||
      token.find('.', second_dot + 1) != absl::string_view::npos) {
    const size_t segment_count = 1 + std::count(token.begin(), token.end(), '.');
    return JwtRejection(JwtError::kMalformed,
                        absl::StrCat("a compact JWS has 3 segments, not ", segment_count));
  }
  const absl::string_view segments[] = {token.substr(0, first_dot),
                                        token.substr(first_dot + 1, second_dot - first_dot - 1),
                                        token.substr(second_dot + 1)};
  DecodedJwt jwt;
  absl::StatusOr<JsonValue> header = DecodeJsonObjectSegment(segments[0], "header");
  if (!header.ok()) return header.status();
  jwt.header = *std::move(header);

  const JsonValue* alg = jwt.header.Find("alg");
  if (alg == nullptr || !alg->is_string()) {
    return JwtRejection(JwtError::kMalformed, "the header has no \"alg\" string");
  }
  std::optional<JwsAlgorithm> algorithm = JwsAlgorithmFromName(alg->as_string());
  if (!algorithm.has_value()) {
    return JwtRejection(JwtError::kAlgorithmNotAllowed,
                        absl::StrCat("\"alg\" ", alg->as_string(), " is not accepted"));
  }
  jwt.algorithm = *algorithm;
  if (jwt.header.Find("crit") != nullptr) {
    return JwtRejection(JwtError::kMalformed, "no \"crit\" extension is understood");
  }

  absl::StatusOr<std::string> signature = Base64UrlDecode(segments[2]);
  if (!signature.ok()) {
    return JwtRejection(JwtError::kMalformed,
                        absl::StrCat("signature is not base64url: ", signature.status().message()));
  }
  jwt.signature = *std::move(signature);
  jwt.signing_input = token.substr(0, segments[0].size() + 1 + segments[1].size());
  jwt.encoded_payload = segments[1];
  return jwt;
}

absl::string_view HeaderKid(const JsonValue& header) {
  const JsonValue* kid = header.Find("kid");
  if (kid == nullptr || !kid->is_string()) return "";
  return kid->as_string();
}

bool HasType(const JsonValue& header, absl::string_view media_type) {
  const JsonValue* typ = header.Find("typ");
  if (typ == nullptr || !typ->is_string()) return false;
  absl::string_view value = typ->as_string();
  constexpr absl::string_view kApplicationPrefix = "application/";
  if (absl::StartsWithIgnoreCase(value, kApplicationPrefix)) {
    value.remove_prefix(kApplicationPrefix.size());
  }
  return absl::EqualsIgnoreCase(value, media_type);
}

absl::StatusOr<JsonValue> VerifiedPayload(const DecodedJwt& jwt, const Jwk& key) {
  if (!key.Allows(jwt.algorithm)) {
    return JwtRejection(JwtError::kAlgorithmNotAllowed,
                        absl::StrCat("the key does not allow ", JwsAlgorithmName(jwt.algorithm)));
  }
  if (!key.Verify(jwt.algorithm, jwt.signing_input, jwt.signature)) {
    return JwtRejection(JwtError::kBadSignature, "the signature does not verify");
  }
  return DecodeJsonObjectSegment(jwt.encoded_payload, "payload");
}

absl::StatusOr<std::optional<std::string>> StringClaim(const JsonValue& claims,
                                                       absl::string_view name) {
  const JsonValue* claim = claims.Find(name);
  if (claim == nullptr) return std::nullopt;
  if (!claim->is_string()) {
    return JwtRejection(JwtError::kMalformed, absl::StrCat("\"", name, "\" is not a string"));
  }
  return claim->as_string();
}

absl::StatusOr<std::string> RequiredStringClaim(const JsonValue& claims, absl::string_view name) {
  absl::StatusOr<std::optional<std::string>> claim = StringClaim(claims, name);
  if (!claim.ok()) return claim.status();
  if (!claim->has_value()) {
    return JwtRejection(JwtError::kMissingClaim, absl::StrCat("no \"", name, "\""));
  }
  return **std::move(claim);
}

absl::StatusOr<std::optional<absl::Time>> TimeClaim(const JsonValue& claims,
                                                    absl::string_view name) {
  const JsonValue* claim = claims.Find(name);
  if (claim == nullptr) return std::nullopt;
  if (!claim->is_number() || !std::isfinite(claim->as_number()) || claim->as_number() < 0 ||
      claim->as_number() > kLatestNumericDate) {
    return JwtRejection(JwtError::kMalformed, absl::StrCat("\"", name, "\" is not a NumericDate"));
  }
  return absl::UnixEpoch() + absl::Seconds(claim->as_number());
}

absl::StatusOr<absl::Time> RequiredTimeClaim(const JsonValue& claims, absl::string_view name) {
  absl::StatusOr<std::optional<absl::Time>> claim = TimeClaim(claims, name);
  if (!claim.ok()) return claim.status();
  if (!claim->has_value()) {
    return JwtRejection(JwtError::kMissingClaim, absl::StrCat("no \"", name, "\""));
  }
  return **claim;
}

absl::StatusOr<std::string> SignJwt(absl::string_view header_json, absl::string_view payload_json,
                                    const Jwk& key) {
  absl::StatusOr<JsonValue> header = ParseJson(header_json);
  if (!header.ok()) return header.status();
  const JsonValue* alg = header->Find("alg");
  std::optional<JwsAlgorithm> algorithm;
  if (alg != nullptr && alg->is_string()) algorithm = JwsAlgorithmFromName(alg->as_string());
  if (!algorithm.has_value()) {
    return absl::InvalidArgumentError("the header needs an \"alg\" verdict supports");
  }
  std::string token =
      absl::StrCat(Base64UrlEncode(header_json), ".", Base64UrlEncode(payload_json));
  absl::StatusOr<std::string> signature = key.Sign(*algorithm, token);
  if (!signature.ok()) return signature.status();
  absl::StrAppend(&token, ".", Base64UrlEncode(*signature));
  return token;
}

}  // namespace verdict
