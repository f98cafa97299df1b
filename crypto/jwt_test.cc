#include "crypto/jwt.h"

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "crypto/jwk.h"
#include "crypto/token.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::ElementsAre;
using ::testing::Optional;

constexpr char kIssuer[] = "https://issuer.example";
constexpr char kAudience[] = "verdict";
const absl::Time kNow = absl::FromUnixSeconds(1800000000);

// The RFC 8032 TEST 1 key, the RFC 7515 A.3 P-256 key and the RFC 7515 A.1 HMAC key.
constexpr char kEd25519X[] = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo";
constexpr char kEd25519D[] = "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A";
constexpr char kP256X[] = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU";
constexpr char kP256Y[] = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0";
constexpr char kP256D[] = "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI";
constexpr char kHmacK[] =
    "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow";

std::string Ed25519Jwk(bool with_private_part) {
  return absl::StrCat(R"({"kid":"ed-1","alg":"EdDSA","kty":"OKP","crv":"Ed25519","x":")", kEd25519X,
                      "\"", with_private_part ? absl::StrCat(R"(,"d":")", kEd25519D, "\"") : "",
                      "}");
}

std::string P256Jwk(bool with_private_part) {
  return absl::StrCat(R"({"kid":"ec-1","alg":"ES256","kty":"EC","crv":"P-256","x":")", kP256X,
                      R"(","y":")", kP256Y, "\"",
                      with_private_part ? absl::StrCat(R"(,"d":")", kP256D, "\"") : "", "}");
}

std::string HmacJwk() {
  return absl::StrCat(R"({"kid":"hs-1","alg":"HS256","kty":"oct","k":")", kHmacK, R"("})");
}

Jwk ParseKey(absl::string_view jwk) {
  absl::StatusOr<Jwk> key = Jwk::Parse(jwk);
  EXPECT_TRUE(key.ok()) << key.status();
  return *std::move(key);
}

JsonValue Json(absl::string_view text) {
  absl::StatusOr<JsonValue> value = ParseJson(text);
  EXPECT_TRUE(value.ok()) << text << ": " << value.status();
  return value.ok() ? *value : JsonValue();
}

double Seconds(absl::Time t) { return static_cast<double>(absl::ToUnixSeconds(t)); }

class VerifyAccessTokenTest : public ::testing::Test {
 protected:
  VerifyAccessTokenTest() {
    absl::StatusOr<KeySet> keys = KeySet::FromJwks(
        absl::StrCat(R"({"keys":[)", Ed25519Jwk(false), ",", P256Jwk(false), ",", HmacJwk(), "]}"));
    EXPECT_TRUE(keys.ok()) << keys.status();
    keys_ = *std::move(keys);
    policy_.issuer = kIssuer;
    policy_.audience = kAudience;
  }

  static JsonValue Header(absl::string_view alg, absl::string_view kid) {
    JsonValue header = JsonValue::MakeObject();
    header.as_object()["typ"] = JsonValue::String("at+jwt");
    header.as_object()["alg"] = JsonValue::String(std::string(alg));
    header.as_object()["kid"] = JsonValue::String(std::string(kid));
    return header;
  }

  static JsonValue Claims() {
    JsonValue claims = JsonValue::MakeObject();
    JsonValue::Object& members = claims.as_object();
    members["iss"] = JsonValue::String(kIssuer);
    members["sub"] = JsonValue::String("agent-7");
    members["aud"] = JsonValue::String(kAudience);
    members["exp"] = JsonValue::Number(Seconds(kNow + absl::Minutes(5)));
    members["iat"] = JsonValue::Number(Seconds(kNow - absl::Seconds(10)));
    members["jti"] = JsonValue::String("token-42");
    members["client_id"] = JsonValue::String("client-9");
    members["scope"] = JsonValue::String("read write");
    members["cnf"] = Json(R"({"jkt":"0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"})");
    return claims;
  }

  static std::string Sign(const JsonValue& header, const JsonValue& claims, const Jwk& key) {
    absl::StatusOr<std::string> token = SignJwt(CanonicalJson(header), CanonicalJson(claims), key);
    EXPECT_TRUE(token.ok()) << token.status();
    return token.ok() ? *token : "";
  }

  // A valid EdDSA token with `edit` applied to its header and claims.
  static std::string EdDsaToken(
      const std::function<void(JsonValue::Object& header, JsonValue::Object& claims)>& edit =
          nullptr) {
    JsonValue header = Header("EdDSA", "ed-1");
    JsonValue claims = Claims();
    if (edit) edit(header.as_object(), claims.as_object());
    return Sign(header, claims, ParseKey(Ed25519Jwk(true)));
  }

  absl::StatusOr<AccessTokenClaims> Verify(absl::string_view token) const {
    return VerifyAccessToken(token, keys_, policy_, kNow);
  }

  std::optional<JwtError> Reason(absl::string_view token) const {
    absl::StatusOr<AccessTokenClaims> claims = Verify(token);
    EXPECT_FALSE(claims.ok()) << "accepted " << token;
    return JwtErrorOf(claims.status());
  }

  KeySet keys_;
  JwtPolicy policy_;
};

TEST_F(VerifyAccessTokenTest, AcceptsAValidTokenUnderEachAlgorithm) {
  const struct {
    const char* alg;
    const char* kid;
    std::string signing_jwk;
  } kCases[] = {
      {"EdDSA", "ed-1", Ed25519Jwk(true)},
      {"ES256", "ec-1", P256Jwk(true)},
      {"HS256", "hs-1", HmacJwk()},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.alg);
    absl::StatusOr<AccessTokenClaims> claims =
        Verify(Sign(Header(c.alg, c.kid), Claims(), ParseKey(c.signing_jwk)));
    ASSERT_TRUE(claims.ok()) << claims.status();
    EXPECT_EQ(claims->issuer, kIssuer);
    EXPECT_EQ(claims->subject, "agent-7");
    EXPECT_THAT(claims->audience, ElementsAre(kAudience));
    EXPECT_EQ(claims->expires_at, kNow + absl::Minutes(5));
    EXPECT_EQ(claims->issued_at, kNow - absl::Seconds(10));
    EXPECT_EQ(claims->not_before, std::nullopt);
    EXPECT_EQ(claims->jti, "token-42");
    EXPECT_EQ(claims->client_id, "client-9");
    EXPECT_EQ(claims->scope, "read write");
    EXPECT_EQ(claims->cnf_jkt, "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I");
  }
}

TEST_F(VerifyAccessTokenTest, OptionalClaimsMayBeAbsent) {
  absl::StatusOr<AccessTokenClaims> claims =
      Verify(EdDsaToken([](JsonValue::Object&, JsonValue::Object& claims) {
        claims.erase("client_id");
        claims.erase("scope");
        claims.erase("cnf");
      }));
  ASSERT_TRUE(claims.ok()) << claims.status();
  EXPECT_EQ(claims->client_id, "");
  EXPECT_EQ(claims->scope, "");
  EXPECT_EQ(claims->cnf_jkt, "");
}

TEST_F(VerifyAccessTokenTest, AcceptsWhatTheLeewayAndTheSpecificationAllow) {
  using Edit = std::function<void(JsonValue::Object&, JsonValue::Object&)>;
  const struct {
    const char* name;
    Edit edit;
  } kCases[] = {
      {"expired 29 s ago, leeway 30 s",
       [](auto&, auto& claims) { claims["exp"] = JsonValue::Number(Seconds(kNow) - 29); }},
      {"valid from 29 s on",
       [](auto&, auto& claims) { claims["nbf"] = JsonValue::Number(Seconds(kNow) + 29); }},
      {"issued 29 s in the future",
       [](auto&, auto& claims) { claims["iat"] = JsonValue::Number(Seconds(kNow) + 29); }},
      {"typ with the media type prefix",
       [](auto& header, auto&) { header["typ"] = JsonValue::String("application/at+jwt"); }},
      {"audience among several",
       [](auto&, auto& claims) {
         claims["aud"] =
             JsonValue::MakeArray({JsonValue::String("other"), JsonValue::String(kAudience)});
       }},
  };
  for (const auto& c : kCases) {
    absl::StatusOr<AccessTokenClaims> claims = Verify(EdDsaToken(c.edit));
    EXPECT_TRUE(claims.ok()) << c.name << ": " << claims.status();
  }
}

TEST_F(VerifyAccessTokenTest, RefusesClaimsOutsideThePolicy) {
  using Edit = std::function<void(JsonValue::Object&, JsonValue::Object&)>;
  const struct {
    const char* name;
    Edit edit;
    JwtError error;
  } kCases[] = {
      {"expired 31 s ago, leeway 30 s",
       [](auto&, auto& claims) { claims["exp"] = JsonValue::Number(Seconds(kNow) - 31); },
       JwtError::kExpired},
      {"expiring exactly at now - leeway",
       [](auto&, auto& claims) { claims["exp"] = JsonValue::Number(Seconds(kNow) - 30); },
       JwtError::kExpired},
      {"not valid before 31 s from now",
       [](auto&, auto& claims) { claims["nbf"] = JsonValue::Number(Seconds(kNow) + 31); },
       JwtError::kNotYetValid},
      {"issued 31 s in the future",
       [](auto&, auto& claims) { claims["iat"] = JsonValue::Number(Seconds(kNow) + 31); },
       JwtError::kNotYetValid},
      {"another issuer",
       [](auto&, auto& claims) { claims["iss"] = JsonValue::String("https://evil.example"); },
       JwtError::kWrongIssuer},
      {"issuer with a trailing slash",
       [](auto&, auto& claims) { claims["iss"] = JsonValue::String("https://issuer.example/"); },
       JwtError::kWrongIssuer},
      {"another audience",
       [](auto&, auto& claims) { claims["aud"] = JsonValue::String("billing"); },
       JwtError::kWrongAudience},
      {"audiences without ours",
       [](auto&, auto& claims) {
         claims["aud"] = JsonValue::MakeArray({JsonValue::String("a"), JsonValue::String("b")});
       },
       JwtError::kWrongAudience},
      {"no audience in the array",
       [](auto&, auto& claims) { claims["aud"] = JsonValue::MakeArray(); },
       JwtError::kWrongAudience},
      {"typ JWT", [](auto& header, auto&) { header["typ"] = JsonValue::String("JWT"); },
       JwtError::kWrongType},
      {"no typ", [](auto& header, auto&) { header.erase("typ"); }, JwtError::kWrongType},
      {"unknown kid", [](auto& header, auto&) { header["kid"] = JsonValue::String("ed-2"); },
       JwtError::kUnknownKey},
      {"no kid", [](auto& header, auto&) { header.erase("kid"); }, JwtError::kUnknownKey},
      {"exp a string", [](auto&, auto& claims) { claims["exp"] = JsonValue::String("1800000300"); },
       JwtError::kMalformed},
      {"aud a number", [](auto&, auto& claims) { claims["aud"] = JsonValue::Number(1); },
       JwtError::kMalformed},
      {"sub an object", [](auto&, auto& claims) { claims["sub"] = JsonValue::MakeObject(); },
       JwtError::kMalformed},
      {"cnf a string", [](auto&, auto& claims) { claims["cnf"] = JsonValue::String("jkt"); },
       JwtError::kMalformed},
      // Bound to something verdict cannot check: never honoured as a bearer token.
      {"cnf binding a client certificate",
       [](auto&, auto& claims) {
         claims["cnf"] = JsonValue::MakeObject();
         claims["cnf"].as_object()["x5t#S256"] =
             JsonValue::String("bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2");
       },
       JwtError::kWrongKeyBinding},
      {"cnf empty", [](auto&, auto& claims) { claims["cnf"] = JsonValue::MakeObject(); },
       JwtError::kWrongKeyBinding},
      {"cnf with an empty jkt",
       [](auto&, auto& claims) {
         claims["cnf"] = JsonValue::MakeObject();
         claims["cnf"].as_object()["jkt"] = JsonValue::String("");
       },
       JwtError::kWrongKeyBinding},
      // A token whose jti the revocation list could not hold could never be revoked.
      {"jti empty", [](auto&, auto& claims) { claims["jti"] = JsonValue::String(""); },
       JwtError::kMalformed},
      {"jti of 257 bytes",
       [](auto&, auto& claims) { claims["jti"] = JsonValue::String(std::string(257, 'j')); },
       JwtError::kMalformed},
      {"jti not printable ASCII",
       [](auto&, auto& claims) { claims["jti"] = JsonValue::String("caf\xc3\xa9"); },
       JwtError::kMalformed},
  };
  for (const auto& c : kCases) {
    EXPECT_THAT(Reason(EdDsaToken(c.edit)), Optional(c.error)) << c.name;
  }
}

TEST(TokenIdTest, IsOneTo256BytesOfPrintableAscii) {
  EXPECT_TRUE(CheckTokenId("b6f1c2e4-3f4a-4d7e-9a55-1c2d3e4f5a6b").ok());
  EXPECT_TRUE(CheckTokenId(std::string(256, 'j')).ok());
  for (const std::string& bad :
       {std::string(), std::string(257, 'j'), std::string("a\nb"), std::string("\xc3\xa9")}) {
    EXPECT_EQ(CheckTokenId(bad).code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

TEST_F(VerifyAccessTokenTest, RequiresTheRfc9068Claims) {
  for (const char* claim : {"iss", "sub", "aud", "exp", "iat", "jti"}) {
    EXPECT_THAT(Reason(EdDsaToken([claim](auto&, auto& claims) { claims.erase(claim); })),
                Optional(JwtError::kMissingClaim))
        << claim;
  }
}

TEST_F(VerifyAccessTokenTest, NeverAcceptsAlgNone) {
  const std::string payload = Base64UrlEncode(CanonicalJson(Claims()));
  for (const std::string& header : {
           std::string(R"({"alg":"none","typ":"at+jwt","kid":"ed-1"})"),
           std::string(R"({"alg":"none","typ":"at+jwt","kid":"hs-1"})"),
       }) {
    const std::string unsigned_token = absl::StrCat(Base64UrlEncode(header), ".", payload, ".");
    EXPECT_THAT(Reason(unsigned_token), Optional(JwtError::kAlgorithmNotAllowed)) << header;
  }
}

TEST_F(VerifyAccessTokenTest, NeverTakesAPublicKeyForAnHmacSecret) {
  // The classic confusion: HS256 keyed with the public key's bytes, naming the public key's kid.
  for (const std::string& secret : {*Base64UrlDecode(kEd25519X), Ed25519Jwk(false)}) {
    const Jwk forged_key = ParseKey(
        absl::StrCat(R"({"kty":"oct","alg":"HS256","k":")", Base64UrlEncode(secret), R"("})"));
    const std::string token = Sign(Header("HS256", "ed-1"), Claims(), forged_key);
    EXPECT_THAT(Reason(token), Optional(JwtError::kAlgorithmNotAllowed)) << secret;
  }
}

TEST_F(VerifyAccessTokenTest, NeverTakesAnHmacSecretForAPublicKey) {
  const std::string token = Sign(Header("EdDSA", "hs-1"), Claims(), ParseKey(Ed25519Jwk(true)));
  EXPECT_THAT(Reason(token), Optional(JwtError::kAlgorithmNotAllowed));
}

TEST_F(VerifyAccessTokenTest, ThePolicyNarrowsTheAlgorithms) {
  policy_.allowed_algorithms = {JwsAlgorithm::kEdDSA};
  EXPECT_TRUE(Verify(EdDsaToken()).ok());
  EXPECT_THAT(Reason(Sign(Header("HS256", "hs-1"), Claims(), ParseKey(HmacJwk()))),
              Optional(JwtError::kAlgorithmNotAllowed));
}

TEST_F(VerifyAccessTokenTest, AnyFlippedSignatureBitIsABadSignature) {
  const struct {
    const char* alg;
    const char* kid;
    std::string signing_jwk;
  } kCases[] = {
      {"EdDSA", "ed-1", Ed25519Jwk(true)},
      {"ES256", "ec-1", P256Jwk(true)},
      {"HS256", "hs-1", HmacJwk()},
  };
  for (const auto& c : kCases) {
    const std::string token = Sign(Header(c.alg, c.kid), Claims(), ParseKey(c.signing_jwk));
    ASSERT_TRUE(Verify(token).ok()) << c.alg;
    const size_t dot = token.rfind('.');
    const std::string signature = *Base64UrlDecode(token.substr(dot + 1));
    for (size_t byte = 0; byte < signature.size(); ++byte) {
      std::string flipped = signature;
      flipped[byte] ^= static_cast<char>(1 << (byte % 8));
      const std::string forged = absl::StrCat(token.substr(0, dot + 1), Base64UrlEncode(flipped));
      EXPECT_THAT(Reason(forged), Optional(JwtError::kBadSignature)) << c.alg << " byte " << byte;
    }
  }
}

TEST_F(VerifyAccessTokenTest, AChangedPayloadIsABadSignature) {
  const std::string token = EdDsaToken();
  const size_t first_dot = token.find('.');
  const size_t last_dot = token.rfind('.');
  JsonValue claims = Claims();
  claims.as_object()["sub"] = JsonValue::String("agent-8");
  const std::string forged =
      absl::StrCat(token.substr(0, first_dot + 1), Base64UrlEncode(CanonicalJson(claims)),
                   token.substr(last_dot));
  EXPECT_THAT(Reason(forged), Optional(JwtError::kBadSignature));
}

TEST_F(VerifyAccessTokenTest, NoSingleCharacterChangeIsAccepted) {
  const std::string token = EdDsaToken();
  for (size_t i = 0; i < token.size(); ++i) {
    std::string changed = token;
    // Another base64url character (or, for a dot, a character that splits the token differently).
    changed[i] = token[i] == 'A' ? 'B' : 'A';
    EXPECT_FALSE(Verify(changed).ok()) << "position " << i;
  }
}

TEST_F(VerifyAccessTokenTest, EveryTruncationIsRefused) {
  const std::string token = EdDsaToken();
  for (size_t length = 0; length < token.size(); ++length) {
    EXPECT_FALSE(Verify(token.substr(0, length)).ok()) << length;
  }
  const size_t last_dot = token.rfind('.');
  // 85 base64url characters cannot be decoded; 84 decode to a 63-byte signature.
  EXPECT_THAT(Reason(token.substr(0, token.size() - 1)), Optional(JwtError::kMalformed));
  EXPECT_THAT(Reason(token.substr(0, token.size() - 2)), Optional(JwtError::kBadSignature));
  EXPECT_THAT(Reason(token.substr(0, last_dot + 1)), Optional(JwtError::kBadSignature));
  EXPECT_THAT(Reason(token.substr(0, last_dot)), Optional(JwtError::kMalformed));
}

TEST_F(VerifyAccessTokenTest, TrailingDataIsRefused) {
  const std::string token = EdDsaToken();
  EXPECT_THAT(Reason(absl::StrCat(token, ".")), Optional(JwtError::kMalformed));
  EXPECT_THAT(Reason(absl::StrCat(token, ".e30")), Optional(JwtError::kMalformed));
  EXPECT_THAT(Reason(absl::StrCat(token, " ")), Optional(JwtError::kMalformed));
  EXPECT_THAT(Reason(absl::StrCat(token, "AAAA")), Optional(JwtError::kBadSignature));
  // Signed, but with bytes after the claims' JSON.
  const Jwk key = ParseKey(Ed25519Jwk(true));
  absl::StatusOr<std::string> trailing_json = SignJwt(
      CanonicalJson(Header("EdDSA", "ed-1")), absl::StrCat(CanonicalJson(Claims()), "{}"), key);
  ASSERT_TRUE(trailing_json.ok()) << trailing_json.status();
  EXPECT_THAT(Reason(*trailing_json), Optional(JwtError::kMalformed));
}

TEST_F(VerifyAccessTokenTest, TypeCheckCanBeTurnedOffForTokensWithoutAtJwt) {
  const std::string token = EdDsaToken([](auto& header, auto&) { header.erase("typ"); });
  policy_.require_at_jwt_type = false;
  EXPECT_TRUE(Verify(token).ok());
}

TEST_F(VerifyAccessTokenTest, AnIncompletePolicyIsTheCallersError) {
  const std::string token = EdDsaToken();
  const struct {
    const char* name;
    std::function<void(JwtPolicy&)> edit;
  } kCases[] = {
      {"no issuer", [](JwtPolicy& policy) { policy.issuer.clear(); }},
      {"no audience", [](JwtPolicy& policy) { policy.audience.clear(); }},
      {"negative leeway", [](JwtPolicy& policy) { policy.leeway = -absl::Seconds(1); }},
  };
  for (const auto& c : kCases) {
    JwtPolicy policy = policy_;
    c.edit(policy);
    absl::StatusOr<AccessTokenClaims> claims = VerifyAccessToken(token, keys_, policy, kNow);
    EXPECT_EQ(claims.status().code(), absl::StatusCode::kFailedPrecondition) << c.name;
    EXPECT_THAT(JwtErrorOf(claims.status()), Optional(JwtError::kInvalidPolicy)) << c.name;
  }
}

TEST_F(VerifyAccessTokenTest, AKeyRotatedInPlaceTakesEffectAtOnce) {
  JwkCache cache;
  const std::string token = EdDsaToken();
  const std::string old_jwks = absl::StrCat(R"({"keys":[)", Ed25519Jwk(false), "]}");
  // The same kid, now the RFC 8032 TEST 2 key.
  const std::string new_jwks =
      R"({"keys":[{"kid":"ed-1","alg":"EdDSA","kty":"OKP","crv":"Ed25519",)"
      R"("x":"PUAXw-hDiVqStwqnTRt-vJyYLM8uxJaMwM1V8Sr0Zgw"}]})";
  absl::StatusOr<KeySet> before = KeySet::FromJwks(old_jwks, {}, cache);
  ASSERT_TRUE(before.ok()) << before.status();
  EXPECT_TRUE(VerifyAccessToken(token, *before, policy_, kNow).ok());
  absl::StatusOr<KeySet> after = KeySet::FromJwks(new_jwks, {}, cache);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_THAT(JwtErrorOf(VerifyAccessToken(token, *after, policy_, kNow).status()),
              Optional(JwtError::kBadSignature));
}

TEST_F(VerifyAccessTokenTest, AKeyLookupIsAskedForTheHeadersKidAndItsFaultsPassThrough) {
  std::vector<std::string> asked;
  const auto lookup_in_keys = [&](absl::string_view kid) -> absl::StatusOr<std::optional<Jwk>> {
    asked.emplace_back(kid);
    const Jwk* key = keys_.Find(kid);
    if (key == nullptr) return std::nullopt;
    return *key;
  };
  EXPECT_TRUE(VerifyAccessToken(EdDsaToken(), lookup_in_keys, policy_, kNow).ok());
  EXPECT_THAT(asked, ::testing::ElementsAre("ed-1"));

  const auto no_key = [](absl::string_view) -> absl::StatusOr<std::optional<Jwk>> {
    return std::nullopt;
  };
  EXPECT_THAT(JwtErrorOf(VerifyAccessToken(EdDsaToken(), no_key, policy_, kNow).status()),
              Optional(JwtError::kUnknownKey));

  const auto unreadable = [](absl::string_view) -> absl::StatusOr<std::optional<Jwk>> {
    return absl::UnavailableError("key store is down");
  };
  const absl::Status fault = VerifyAccessToken(EdDsaToken(), unreadable, policy_, kNow).status();
  EXPECT_EQ(fault.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(JwtErrorOf(fault), std::nullopt);
}

}  // namespace
}  // namespace verdict
