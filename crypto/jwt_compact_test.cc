#include "crypto/jwt_compact.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "crypto/jwk.h"
#include "crypto/token.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;

constexpr JwsAlgorithm kEdDSA[] = {JwsAlgorithm::kEdDSA};
constexpr JwsAlgorithm kES256[] = {JwsAlgorithm::kES256};
constexpr JwsAlgorithm kHS256[] = {JwsAlgorithm::kHS256};

// RFC 7515 appendix A.1: the HS256 example, its header and payload with their CR LF kept.
constexpr char kA1Header[] = "{\"typ\":\"JWT\",\r\n \"alg\":\"HS256\"}";
constexpr char kA1Payload[] =
    "{\"iss\":\"joe\",\r\n \"exp\":1300819380,\r\n \"http://example.com/is_root\":true}";
constexpr char kA1Key[] =
    R"({"kty":"oct",)"
    R"("k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"})";
constexpr char kA1Token[] =
    "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9"
    ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlf"
    "Q"
    ".dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";

// RFC 7515 appendix A.3: ES256 (verified only: ECDSA signatures are randomized).
constexpr char kA3Key[] = R"({"kty":"EC","crv":"P-256",)"
                          R"("x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",)"
                          R"("y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"})";
constexpr char kA3Token[] =
    "eyJhbGciOiJFUzI1NiJ9"
    ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlf"
    "Q"
    ".DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q";

// RFC 8037 appendix A.4: Ed25519 signing of a non-JSON payload.
constexpr char kRfc8037PrivateJwk[] = R"({"kty":"OKP","crv":"Ed25519",)"
                                      R"("d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A",)"
                                      R"("x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"})";
constexpr char kRfc8037Token[] =
    "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc"
    ".hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg";

Jwk ParseKey(absl::string_view jwk, absl::Span<const JwsAlgorithm> allowed) {
  absl::StatusOr<Jwk> key = Jwk::Parse(jwk, allowed);
  EXPECT_TRUE(key.ok()) << key.status();
  return *std::move(key);
}

TEST(JwtCompactTest, ReproducesAndVerifiesTheRfc7515Hs256Example) {
  const Jwk key = ParseKey(kA1Key, kHS256);
  absl::StatusOr<std::string> signed_token = SignJwt(kA1Header, kA1Payload, key);
  ASSERT_TRUE(signed_token.ok()) << signed_token.status();
  EXPECT_EQ(*signed_token, kA1Token);

  absl::StatusOr<DecodedJwt> jwt = DecodeJwt(kA1Token);
  ASSERT_TRUE(jwt.ok()) << jwt.status();
  EXPECT_EQ(jwt->algorithm, JwsAlgorithm::kHS256);
  absl::StatusOr<JsonValue> payload = VerifiedPayload(*jwt, key);
  ASSERT_TRUE(payload.ok()) << payload.status();
  EXPECT_THAT(RequiredStringClaim(*payload, "iss"), absl::StatusOr<std::string>("joe"));
  EXPECT_EQ(*RequiredTimeClaim(*payload, "exp"), absl::FromUnixSeconds(1300819380));
}

TEST(JwtCompactTest, VerifiesTheRfc7515Es256Example) {
  absl::StatusOr<DecodedJwt> jwt = DecodeJwt(kA3Token);
  ASSERT_TRUE(jwt.ok()) << jwt.status();
  EXPECT_EQ(jwt->algorithm, JwsAlgorithm::kES256);
  EXPECT_EQ(jwt->signature.size(), 64u);
  absl::StatusOr<JsonValue> payload = VerifiedPayload(*jwt, ParseKey(kA3Key, kES256));
  ASSERT_TRUE(payload.ok()) << payload.status();
  EXPECT_THAT(RequiredStringClaim(*payload, "iss"), absl::StatusOr<std::string>("joe"));
}

TEST(JwtCompactTest, ReproducesAndVerifiesTheRfc8037Ed25519Example) {
  const Jwk key = ParseKey(kRfc8037PrivateJwk, kEdDSA);
  absl::StatusOr<std::string> signed_token =
      SignJwt(R"({"alg":"EdDSA"})", "Example of Ed25519 signing", key);
  ASSERT_TRUE(signed_token.ok()) << signed_token.status();
  EXPECT_EQ(*signed_token, kRfc8037Token);

  absl::StatusOr<DecodedJwt> jwt = DecodeJwt(kRfc8037Token);
  ASSERT_TRUE(jwt.ok()) << jwt.status();
  EXPECT_TRUE(key.Verify(JwsAlgorithm::kEdDSA, jwt->signing_input, jwt->signature));
  // The signature is good but a JWT payload must be a JSON object.
  EXPECT_THAT(JwtErrorOf(VerifiedPayload(*jwt, key).status()), Optional(JwtError::kMalformed));
}

TEST(JwtCompactTest, VerifiedPayloadChecksTheKeyAndSignatureFirst) {
  absl::StatusOr<DecodedJwt> jwt = DecodeJwt(kA3Token);
  ASSERT_TRUE(jwt.ok()) << jwt.status();
  // An HMAC key never verifies an ES256 token, whatever its bytes.
  EXPECT_THAT(JwtErrorOf(VerifiedPayload(*jwt, ParseKey(kA1Key, kHS256)).status()),
              Optional(JwtError::kAlgorithmNotAllowed));
  DecodedJwt tampered = *jwt;
  tampered.signature[5] ^= 0x20;
  EXPECT_THAT(JwtErrorOf(VerifiedPayload(tampered, ParseKey(kA3Key, kES256)).status()),
              Optional(JwtError::kBadSignature));
}

TEST(JwtCompactTest, DecodeRefusesWhatIsNotACompactJws) {
  const std::string header = Base64UrlEncode(R"({"alg":"HS256"})");
  const std::string payload = Base64UrlEncode(R"({"sub":"a"})");
  const std::string signature = Base64UrlEncode("0123456789abcdef0123456789abcdef");
  const struct {
    const char* name;
    std::string token;
    JwtError error;
  } kCases[] = {
      {"empty", "", JwtError::kMalformed},
      {"two segments", absl::StrCat(header, ".", payload), JwtError::kMalformed},
      {"four segments", absl::StrCat(header, ".", payload, ".", signature, "."),
       JwtError::kMalformed},
      {"padded header", absl::StrCat(header, "=.", payload, ".", signature), JwtError::kMalformed},
      // Base64url of {"alg":"HS256","x":"???"} is "...I_Pz8ifQ"; "/" is standard base64's twin.
      {"standard base64 alphabet",
       absl::StrCat("eyJhbGciOiJIUzI1NiIsIngiOiI/Pz8ifQ.", payload, ".", signature),
       JwtError::kMalformed},
      {"space after the signature", absl::StrCat(header, ".", payload, ".", signature, " "),
       JwtError::kMalformed},
      {"header not JSON",
       absl::StrCat(Base64UrlEncode("{alg:HS256}"), ".", payload, ".", signature),
       JwtError::kMalformed},
      {"data after the header JSON",
       absl::StrCat(Base64UrlEncode(R"({"alg":"HS256"}{})"), ".", payload, ".", signature),
       JwtError::kMalformed},
      {"header an array",
       absl::StrCat(Base64UrlEncode(R"(["HS256"])"), ".", payload, ".", signature),
       JwtError::kMalformed},
      {"no alg", absl::StrCat(Base64UrlEncode(R"({"typ":"JWT"})"), ".", payload, ".", signature),
       JwtError::kMalformed},
      {"alg none", absl::StrCat(Base64UrlEncode(R"({"alg":"none"})"), ".", payload, "."),
       JwtError::kAlgorithmNotAllowed},
      {"alg RS256",
       absl::StrCat(Base64UrlEncode(R"({"alg":"RS256"})"), ".", payload, ".", signature),
       JwtError::kAlgorithmNotAllowed},
      {"crit extension",
       absl::StrCat(Base64UrlEncode(R"({"alg":"HS256","crit":["exp"],"exp":1})"), ".", payload, ".",
                    signature),
       JwtError::kMalformed},
      {"over the size limit",
       absl::StrCat(header, ".", Base64UrlEncode(std::string(kMaxJwtBytes, 'a')), ".", signature),
       JwtError::kMalformed},
  };
  // The control: the same token in the right alphabet decodes.
  ASSERT_TRUE(
      DecodeJwt(absl::StrCat("eyJhbGciOiJIUzI1NiIsIngiOiI_Pz8ifQ.", payload, ".", signature)).ok());
  for (const auto& c : kCases) {
    absl::StatusOr<DecodedJwt> jwt = DecodeJwt(c.token);
    EXPECT_EQ(jwt.status().code(), absl::StatusCode::kUnauthenticated) << c.name;
    EXPECT_THAT(JwtErrorOf(jwt.status()), Optional(c.error)) << c.name << ": " << jwt.status();
  }
}

TEST(JwtCompactTest, DecodeSplitsTheSigningInputAsReceived) {
  absl::StatusOr<DecodedJwt> jwt = DecodeJwt(kA1Token);
  ASSERT_TRUE(jwt.ok()) << jwt.status();
  const absl::string_view token = kA1Token;
  EXPECT_EQ(jwt->signing_input, token.substr(0, token.rfind('.')));
  EXPECT_EQ(jwt->encoded_payload,
            "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb2"
            "90Ijp0cnVlfQ");
  EXPECT_EQ(HeaderKid(jwt->header), "");
  EXPECT_TRUE(HasType(jwt->header, "JWT"));
}

TEST(JwtCompactTest, TypeMatchesWithOrWithoutTheApplicationPrefixInAnyCase) {
  const struct {
    const char* header;
    bool matches;
  } kCases[] = {
      {R"({"typ":"at+jwt"})", true},
      {R"({"typ":"AT+JWT"})", true},
      {R"({"typ":"application/at+jwt"})", true},
      {R"({"typ":"Application/At+Jwt"})", true},
      {R"({"typ":"JWT"})", false},
      {R"({"typ":"application/jwt"})", false},
      {R"({"typ":"xapplication/at+jwt"})", false},
      {R"({"typ":"at+jwt "})", false},
      {R"({"typ":["at+jwt"]})", false},
      {R"({})", false},
  };
  for (const auto& c : kCases) {
    absl::StatusOr<JsonValue> header = ParseJson(c.header);
    ASSERT_TRUE(header.ok()) << header.status();
    EXPECT_EQ(HasType(*header, "at+jwt"), c.matches) << c.header;
  }
}

TEST(JwtCompactTest, ClaimReadersTellAbsentFromMistyped) {
  absl::StatusOr<JsonValue> claims = ParseJson(
      R"({"s":"x","n":5,"t":1700000000,"frac":1.5,"neg":-1,"huge":1e300,"str":"1700000000"})");
  ASSERT_TRUE(claims.ok()) << claims.status();
  EXPECT_THAT(StringClaim(*claims, "s"), absl::StatusOr<std::optional<std::string>>("x"));
  EXPECT_THAT(StringClaim(*claims, "absent"),
              absl::StatusOr<std::optional<std::string>>(std::nullopt));
  EXPECT_THAT(JwtErrorOf(StringClaim(*claims, "n").status()), Optional(JwtError::kMalformed));
  EXPECT_THAT(JwtErrorOf(RequiredStringClaim(*claims, "absent").status()),
              Optional(JwtError::kMissingClaim));

  EXPECT_EQ(*RequiredTimeClaim(*claims, "t"), absl::FromUnixSeconds(1700000000));
  EXPECT_EQ(*RequiredTimeClaim(*claims, "frac"), absl::FromUnixMillis(1500));
  EXPECT_THAT(TimeClaim(*claims, "absent"),
              absl::StatusOr<std::optional<absl::Time>>(std::nullopt));
  for (const char* name : {"neg", "huge", "str"}) {
    EXPECT_THAT(JwtErrorOf(TimeClaim(*claims, name).status()), Optional(JwtError::kMalformed))
        << name;
  }
  EXPECT_THAT(JwtErrorOf(RequiredTimeClaim(*claims, "absent").status()),
              Optional(JwtError::kMissingClaim));
}

TEST(JwtCompactTest, RejectionsCarryTheirReasonAndCode) {
  const struct {
    JwtError error;
    absl::StatusCode code;
    const char* name;
  } kCases[] = {
      {JwtError::kMalformed, absl::StatusCode::kUnauthenticated, "malformed"},
      {JwtError::kBadSignature, absl::StatusCode::kUnauthenticated, "bad_signature"},
      {JwtError::kUnknownKey, absl::StatusCode::kUnauthenticated, "unknown_key"},
      {JwtError::kAlgorithmNotAllowed, absl::StatusCode::kUnauthenticated, "algorithm_not_allowed"},
      {JwtError::kWrongType, absl::StatusCode::kUnauthenticated, "wrong_type"},
      {JwtError::kMissingClaim, absl::StatusCode::kUnauthenticated, "missing_claim"},
      {JwtError::kWrongIssuer, absl::StatusCode::kUnauthenticated, "wrong_issuer"},
      {JwtError::kWrongAudience, absl::StatusCode::kUnauthenticated, "wrong_audience"},
      {JwtError::kExpired, absl::StatusCode::kUnauthenticated, "expired"},
      {JwtError::kNotYetValid, absl::StatusCode::kUnauthenticated, "not_yet_valid"},
      {JwtError::kWrongMethod, absl::StatusCode::kUnauthenticated, "wrong_method"},
      {JwtError::kWrongUrl, absl::StatusCode::kUnauthenticated, "wrong_url"},
      {JwtError::kWrongTokenHash, absl::StatusCode::kUnauthenticated, "wrong_token_hash"},
      {JwtError::kWrongKeyBinding, absl::StatusCode::kUnauthenticated, "wrong_key_binding"},
      {JwtError::kReplayed, absl::StatusCode::kUnauthenticated, "replayed"},
      {JwtError::kReplayCacheFull, absl::StatusCode::kResourceExhausted, "replay_cache_full"},
      {JwtError::kInvalidPolicy, absl::StatusCode::kFailedPrecondition, "invalid_policy"},
  };
  for (const auto& c : kCases) {
    const absl::Status status = JwtRejection(c.error, "details");
    EXPECT_EQ(status.code(), c.code) << c.name;
    EXPECT_EQ(status.message(), absl::StrCat(c.name, ": details"));
    EXPECT_EQ(JwtErrorName(c.error), c.name);
    EXPECT_THAT(JwtErrorOf(status), Optional(c.error)) << c.name;
  }
  EXPECT_EQ(JwtErrorOf(absl::OkStatus()), std::nullopt);
  EXPECT_EQ(JwtErrorOf(absl::UnauthenticatedError("malformed: not ours")), std::nullopt);
}

TEST(JwtCompactTest, SignJwtNeedsASupportedAlgAndASigningKey) {
  const Jwk hmac = ParseKey(kA1Key, kHS256);
  EXPECT_EQ(SignJwt(R"({"alg":"none"})", "{}", hmac).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SignJwt(R"({"typ":"JWT"})", "{}", hmac).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SignJwt(R"({"alg":"EdDSA"})", "{}", hmac).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(SignJwt(R"({"alg":"ES256"})", "{}", ParseKey(kA3Key, kES256)).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace verdict
