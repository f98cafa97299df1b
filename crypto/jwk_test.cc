#include "crypto/jwk.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "crypto/token.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

// RFC 8037 appendix A.1 and A.2: the Ed25519 key pair of RFC 8032 section 7.1, TEST 1.
constexpr char kRfc8037PrivateJwk[] = R"({"kty":"OKP","crv":"Ed25519",)"
                                      R"("d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A",)"
                                      R"("x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"})";
constexpr char kRfc8037PublicJwk[] =
    R"({"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"})";

// RFC 7515 appendix A.3.1: the P-256 key of the ES256 example.
constexpr char kRfc7515P256Jwk[] = R"({"kty":"EC","crv":"P-256",)"
                                   R"("x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",)"
                                   R"("y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",)"
                                   R"("d":"jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"})";

// RFC 7515 appendix A.1.1: the HS256 key.
constexpr char kRfc7515HmacJwk[] =
    R"({"kty":"oct",)"
    R"("k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"})";

constexpr JwsAlgorithm kEdDSA[] = {JwsAlgorithm::kEdDSA};
constexpr JwsAlgorithm kES256[] = {JwsAlgorithm::kES256};
constexpr JwsAlgorithm kHS256[] = {JwsAlgorithm::kHS256};
constexpr JwsAlgorithm kAll[] = {JwsAlgorithm::kEdDSA, JwsAlgorithm::kES256, JwsAlgorithm::kHS256};

JsonValue Json(absl::string_view text) {
  absl::StatusOr<JsonValue> value = ParseJson(text);
  EXPECT_TRUE(value.ok()) << text << ": " << value.status();
  return value.ok() ? *value : JsonValue();
}

std::string Ed25519Jwk(absl::string_view seed_hex, absl::string_view public_hex) {
  return absl::StrCat(R"({"kty":"OKP","crv":"Ed25519","alg":"EdDSA","d":")",
                      Base64UrlEncode(absl::HexStringToBytes(seed_hex)), R"(","x":")",
                      Base64UrlEncode(absl::HexStringToBytes(public_hex)), R"("})");
}

TEST(JwkTest, SignsAndVerifiesTheRfc8032Ed25519Vectors) {
  // RFC 8032 section 7.1, TEST 1 to TEST 3.
  const struct {
    const char* name;
    const char* seed;
    const char* public_key;
    const char* message;
    const char* signature;
  } kVectors[] = {
      {"TEST 1", "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
       "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
       "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf"
       "9"
       "b46bd25bf5f0595bbe24655141438e7a100b"},
      {"TEST 2", "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
       "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
       "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f"
       "1"
       "1d8c387b2eaeb4302aeeb00d291612bb0c00"},
      {"TEST 3", "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
       "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
       "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984"
       "d"
       "c6594a7c15e9716ed28dc027beceea1ec40a"},
  };
  for (const auto& vector : kVectors) {
    SCOPED_TRACE(vector.name);
    // Parsing checks that the seed derives the public key.
    absl::StatusOr<Jwk> key = Jwk::Parse(Ed25519Jwk(vector.seed, vector.public_key));
    ASSERT_TRUE(key.ok()) << key.status();
    const std::string message = absl::HexStringToBytes(vector.message);
    const std::string expected = absl::HexStringToBytes(vector.signature);

    absl::StatusOr<std::string> signature = key->Sign(JwsAlgorithm::kEdDSA, message);
    ASSERT_TRUE(signature.ok()) << signature.status();
    EXPECT_EQ(absl::BytesToHexString(*signature), vector.signature);
    EXPECT_TRUE(key->Verify(JwsAlgorithm::kEdDSA, message, expected));

    std::string flipped = expected;
    flipped[10] ^= 0x01;
    EXPECT_FALSE(key->Verify(JwsAlgorithm::kEdDSA, message, flipped));
    EXPECT_FALSE(key->Verify(JwsAlgorithm::kEdDSA, absl::StrCat(message, "x"), expected));
  }
}

TEST(JwkTest, ThumbprintsMatchRfc7638AndRfc8037) {
  // RFC 7638 section 3.1 (an RSA key: thumbprints need only its JSON members).
  const JsonValue rsa = Json(
      R"({"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPF)"
      R"(FxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v)"
      R"(-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-b)"
      R"(FTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",)"
      R"("e":"AQAB","alg":"RS256","kid":"2011-04-29"})");
  absl::StatusOr<std::string> rsa_thumbprint = JwkThumbprint(rsa);
  ASSERT_TRUE(rsa_thumbprint.ok()) << rsa_thumbprint.status();
  EXPECT_EQ(*rsa_thumbprint, "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs");

  // RFC 8037 appendix A.3, from the public and from the private key alike.
  constexpr char kRfc8037Thumbprint[] = "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k";
  absl::StatusOr<std::string> okp_thumbprint = JwkThumbprint(Json(kRfc8037PublicJwk));
  ASSERT_TRUE(okp_thumbprint.ok()) << okp_thumbprint.status();
  EXPECT_EQ(*okp_thumbprint, kRfc8037Thumbprint);
  for (const char* jwk : {kRfc8037PublicJwk, kRfc8037PrivateJwk}) {
    absl::StatusOr<Jwk> key = Jwk::Parse(jwk, kEdDSA);
    ASSERT_TRUE(key.ok()) << key.status();
    EXPECT_EQ(key->thumbprint(), kRfc8037Thumbprint);
  }

  // RFC 9449 section 6.1: the jkt of the P-256 key in the section 4.1 example proof.
  absl::StatusOr<std::string> ec_thumbprint =
      JwkThumbprint(Json(R"({"kty":"EC","x":"l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs",)"
                         R"("y":"9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA","crv":"P-256"})"));
  ASSERT_TRUE(ec_thumbprint.ok()) << ec_thumbprint.status();
  EXPECT_EQ(*ec_thumbprint, "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I");
}

TEST(JwkTest, ThumbprintNeedsTheRequiredMembers) {
  EXPECT_EQ(JwkThumbprint(Json(R"({"kty":"OKP","crv":"Ed25519"})")).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(JwkThumbprint(Json(R"({"kty":"EC","crv":"P-256","x":"AA","y":5})")).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(JwkThumbprint(Json(R"({"kty":"XYZ"})")).status().code(),
            absl::StatusCode::kUnimplemented);
}

TEST(JwkTest, ParsesEachSupportedKeyType) {
  const struct {
    const char* jwk;
    JwkType type;
    JwsAlgorithm algorithm;
    bool has_private_part;
  } kCases[] = {
      {kRfc8037PublicJwk, JwkType::kEd25519, JwsAlgorithm::kEdDSA, false},
      {kRfc8037PrivateJwk, JwkType::kEd25519, JwsAlgorithm::kEdDSA, true},
      {kRfc7515P256Jwk, JwkType::kP256, JwsAlgorithm::kES256, true},
      {kRfc7515HmacJwk, JwkType::kOct, JwsAlgorithm::kHS256, true},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.jwk);
    absl::StatusOr<Jwk> key = Jwk::Parse(c.jwk, kAll);
    ASSERT_TRUE(key.ok()) << key.status();
    EXPECT_EQ(key->type(), c.type);
    EXPECT_EQ(key->has_private_part(), c.has_private_part);
    for (JwsAlgorithm algorithm : kAll) {
      EXPECT_EQ(key->Allows(algorithm), algorithm == c.algorithm) << JwsAlgorithmName(algorithm);
    }
  }
}

TEST(JwkTest, AlgorithmNamesRoundTripAndNoneIsNotOne) {
  for (JwsAlgorithm algorithm : kAll) {
    EXPECT_EQ(JwsAlgorithmFromName(JwsAlgorithmName(algorithm)), algorithm);
  }
  for (const char* name : {"none", "None", "", "RS256", "ES384", "HS512", "eddsa", "Ed25519"}) {
    EXPECT_FALSE(JwsAlgorithmFromName(name).has_value()) << name;
  }
  EXPECT_TRUE(IsSymmetric(JwsAlgorithm::kHS256));
  EXPECT_FALSE(IsSymmetric(JwsAlgorithm::kEdDSA));
  EXPECT_FALSE(IsSymmetric(JwsAlgorithm::kES256));
}

TEST(JwkTest, AKeyMustCarryAnAllowlistThatFitsItsType) {
  const struct {
    const char* name;
    std::string jwk;
    absl::Span<const JwsAlgorithm> allowed;
  } kCases[] = {
      {"no alg and no allowlist", kRfc8037PublicJwk, {}},
      {"alg none",
       R"({"kty":"oct","alg":"none","k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr8"})", kAll},
      {"HMAC secret claiming a public-key alg",
       R"({"kty":"oct","alg":"EdDSA","k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr8"})",
       {}},
      {"public key claiming HS256",
       R"({"kty":"OKP","crv":"Ed25519","alg":"HS256","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"})",
       {}},
      {"allowlist without the key's algorithm", kRfc8037PublicJwk, kHS256},
      {"alg outside the allowlist",
       R"({"kty":"OKP","crv":"Ed25519","alg":"EdDSA","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"})",
       kES256},
      {"alg not a string",
       R"({"kty":"OKP","crv":"Ed25519","alg":1,"x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"})",
       kEdDSA},
  };
  for (const auto& c : kCases) {
    absl::StatusOr<Jwk> key = Jwk::Parse(c.jwk, c.allowed);
    EXPECT_EQ(key.status().code(), absl::StatusCode::kInvalidArgument) << c.name;
  }
}

TEST(JwkTest, RefusesMalformedOrInconsistentKeys) {
  const struct {
    const char* name;
    const char* jwk;
    const char* message;
  } kCases[] = {
      {"not an object", R"(["kty","OKP"])", "JSON object"},
      {"no kty", R"({"crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"})",
       "no \"kty\""},
      {"no x", R"({"kty":"OKP","crv":"Ed25519"})", "no \"x\""},
      {"short x",
       R"({"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHUQ"})",
       "\"x\" has 31 bytes, not 32"},
      {"x not base64url",
       R"({"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="})",
       "\"x\" is not base64url"},
      {"d of another key",
       R"({"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",)"
       R"("d":"TM0Imyj_ltqdtsNG7BFOD1uKMZ81q6Yk2oz27U-4pvs"})",
       "not the private key"},
      {"P-256 point off the curve",
       R"({"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",)"
       R"("y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a4"})",
       "not a point on P-256"},
      {"P-256 d of another key",
       R"({"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",)"
       R"("y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",)"
       R"("d":"jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LA"})",
       "not the private key"},
      {"P-256 without y",
       R"({"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"})",
       "no \"y\""},
      // RFC 7518 section 3.2: an HS256 key has at least 256 bits.
      {"HMAC key of 31 bytes", R"({"kty":"oct","k":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHg"})",
       "at least 32"},
      {"kid not a string",
       R"({"kty":"OKP","crv":"Ed25519","kid":7,"x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"})",
       "\"kid\" is not a string"},
  };
  for (const auto& c : kCases) {
    absl::StatusOr<Jwk> key = Jwk::Parse(c.jwk, kAll);
    EXPECT_EQ(key.status().code(), absl::StatusCode::kInvalidArgument) << c.name;
    EXPECT_THAT(key.status().message(), HasSubstr(c.message)) << c.name;
  }
}

TEST(JwkTest, KeysVerdictCannotSignWithAreUnimplemented) {
  for (const char* jwk : {
           R"({"kty":"RSA","n":"0vx7","e":"AQAB"})",
           R"({"kty":"OKP","crv":"X25519","x":"hSDwCYkwp1R0i33ctD73Wg2_Og0mOBr066SpjqqbTmo"})",
           R"({"kty":"EC","crv":"P-384","x":"AA","y":"AA"})",
           R"({"kty":"OKP","crv":"Ed25519","use":"enc",)"
           R"("x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"})",
       }) {
    EXPECT_EQ(Jwk::Parse(jwk, kAll).status().code(), absl::StatusCode::kUnimplemented) << jwk;
  }
}

TEST(JwkTest, VerifyRefusesAnAlgorithmTheKeyDoesNotAllow) {
  absl::StatusOr<Jwk> hmac = Jwk::Parse(kRfc7515HmacJwk, kHS256);
  ASSERT_TRUE(hmac.ok()) << hmac.status();
  absl::StatusOr<std::string> mac = hmac->Sign(JwsAlgorithm::kHS256, "input");
  ASSERT_TRUE(mac.ok()) << mac.status();
  EXPECT_TRUE(hmac->Verify(JwsAlgorithm::kHS256, "input", *mac));
  EXPECT_FALSE(hmac->Verify(JwsAlgorithm::kEdDSA, "input", *mac));
  EXPECT_FALSE(hmac->Verify(JwsAlgorithm::kHS256, "input", mac->substr(0, 31)));
  EXPECT_EQ(hmac->Sign(JwsAlgorithm::kES256, "input").status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(JwkTest, Es256SignaturesAreRawAndVerify) {
  absl::StatusOr<Jwk> key = Jwk::Parse(kRfc7515P256Jwk, kES256);
  ASSERT_TRUE(key.ok()) << key.status();
  absl::StatusOr<std::string> signature = key->Sign(JwsAlgorithm::kES256, "input");
  ASSERT_TRUE(signature.ok()) << signature.status();
  EXPECT_EQ(signature->size(), 64u);
  EXPECT_TRUE(key->Verify(JwsAlgorithm::kES256, "input", *signature));
  EXPECT_FALSE(key->Verify(JwsAlgorithm::kES256, "input2", *signature));
  // Zero r and s are out of range, not a signature of anything.
  EXPECT_FALSE(key->Verify(JwsAlgorithm::kES256, "input", std::string(64, '\0')));
}

TEST(JwkTest, APublicKeyCannotSign) {
  absl::StatusOr<Jwk> key = Jwk::Parse(kRfc8037PublicJwk, kEdDSA);
  ASSERT_TRUE(key.ok()) << key.status();
  EXPECT_EQ(key->Sign(JwsAlgorithm::kEdDSA, "input").status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(JwkTest, PublicJwkJsonHoldsOnlyThePublicMembers) {
  absl::StatusOr<Jwk> key = Jwk::Parse(kRfc8037PrivateJwk, kEdDSA);
  ASSERT_TRUE(key.ok()) << key.status();
  absl::StatusOr<std::string> public_json = key->PublicJwkJson();
  ASSERT_TRUE(public_json.ok()) << public_json.status();
  EXPECT_EQ(*public_json,
            R"({"crv":"Ed25519","kty":"OKP","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"})");

  absl::StatusOr<Jwk> hmac = Jwk::Parse(kRfc7515HmacJwk, kHS256);
  ASSERT_TRUE(hmac.ok()) << hmac.status();
  EXPECT_EQ(hmac->PublicJwkJson().status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(JwkCacheTest, ReusesTheParseOfIdenticalContent) {
  JwkCache cache;
  // Member order and white space do not change the content.
  absl::StatusOr<Jwk> first = cache.FromJson(Json(kRfc7515P256Jwk), kES256);
  absl::StatusOr<Jwk> second = cache.FromJson(
      Json(R"({ "crv":"P-256", "kty":"EC", "d":"jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI",)"
           R"( "y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",)"
           R"( "x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU" })"),
      kES256);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(first->fingerprint(), second->fingerprint());
  // The same parsed object, not a second parse of it.
  EXPECT_EQ(&first->thumbprint(), &second->thumbprint());
}

TEST(JwkCacheTest, AKeyRotatedUnderTheSameKidIsParsedAfresh) {
  JwkCache cache;
  absl::StatusOr<Jwk> before = cache.FromJson(
      Json(
          R"({"kid":"k1","kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"})"),
      kEdDSA);
  absl::StatusOr<Jwk> after = cache.FromJson(
      Json(
          R"({"kid":"k1","kty":"OKP","crv":"Ed25519","x":"PUAXw-hDiVqStwqnTRt-vJyYLM8uxJaMwM1V8Sr0Zgw"})"),
      kEdDSA);
  ASSERT_TRUE(before.ok()) << before.status();
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_NE(before->thumbprint(), after->thumbprint());
  EXPECT_EQ(
      after->thumbprint(),
      *JwkThumbprint(Json(
          R"({"kty":"OKP","crv":"Ed25519","x":"PUAXw-hDiVqStwqnTRt-vJyYLM8uxJaMwM1V8Sr0Zgw"})")));
}

TEST(JwkCacheTest, TheAllowlistIsPartOfTheContent) {
  JwkCache cache;
  ASSERT_TRUE(cache.FromJson(Json(kRfc8037PublicJwk), kEdDSA).ok());
  // The same JWK under an allowlist it does not fit is refused, not served from the cache.
  EXPECT_EQ(cache.FromJson(Json(kRfc8037PublicJwk), kHS256).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(JwkCacheTest, StartsOverWhenFull) {
  JwkCache cache(/*max_entries=*/2);
  for (const char* kid : {"a", "b", "c"}) {
    ASSERT_TRUE(
        cache
            .FromJson(Json(absl::StrCat(R"({"kid":")", kid,
                                        R"(","kty":"OKP","crv":"Ed25519",)"
                                        R"("x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"})")),
                      kEdDSA)
            .ok());
  }
  EXPECT_EQ(cache.size(), 1u);
}

TEST(KeySetTest, FindsKeysByKidAndSkipsKeysItCannotUse) {
  absl::StatusOr<KeySet> keys = KeySet::FromJwks(
      R"({"keys":[)"
      R"({"kid":"ed","kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},)"
      R"({"kid":"rsa","kty":"RSA","n":"0vx7","e":"AQAB","alg":"RS256"},)"
      R"({"kid":"enc","kty":"EC","crv":"P-256","use":"enc","x":"AA","y":"AA"},)"
      R"({"kid":"hs","kty":"oct","alg":"HS256",)"
      R"("k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"})"
      R"(]})",
      kAll);
  ASSERT_TRUE(keys.ok()) << keys.status();
  EXPECT_EQ(keys->size(), 2u);
  ASSERT_NE(keys->Find("ed"), nullptr);
  EXPECT_EQ(keys->Find("ed")->type(), JwkType::kEd25519);
  ASSERT_NE(keys->Find("hs"), nullptr);
  EXPECT_EQ(keys->Find("hs")->type(), JwkType::kOct);
  EXPECT_EQ(keys->Find("rsa"), nullptr);
  EXPECT_EQ(keys->Find("enc"), nullptr);
  EXPECT_EQ(keys->Find("missing"), nullptr);
}

TEST(KeySetTest, RefusesABadSet) {
  const struct {
    const char* name;
    const char* jwks;
    const char* message;
  } kCases[] = {
      {"not JSON", R"({"keys":[)", ""},
      {"no keys array", R"({"keys":{}})", "\"keys\" array"},
      {"key without kid",
       R"({"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]})",
       "keys[0]"},
      {"kid twice",
       R"({"keys":[)"
       R"({"kid":"a","kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},)"
       R"({"kid":"a","kty":"OKP","crv":"Ed25519","x":"PUAXw-hDiVqStwqnTRt-vJyYLM8uxJaMwM1V8Sr0Zgw"}]})",
       "keys[1]: kid a appears twice"},
      {"malformed key", R"({"keys":[{"kid":"a","kty":"OKP","crv":"Ed25519","x":"short"}]})",
       "keys[0]"},
  };
  for (const auto& c : kCases) {
    absl::StatusOr<KeySet> keys = KeySet::FromJwks(c.jwks, kAll);
    EXPECT_EQ(keys.status().code(), absl::StatusCode::kInvalidArgument) << c.name;
    EXPECT_THAT(keys.status().message(), HasSubstr(c.message)) << c.name;
  }
}

TEST(KeySetTest, BuildsThroughACache) {
  JwkCache cache;
  constexpr char kJwks[] = R"({"keys":[{"kid":"ed","kty":"OKP","crv":"Ed25519",)"
                           R"("x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]})";
  absl::StatusOr<KeySet> first = KeySet::FromJwks(kJwks, kEdDSA, cache);
  absl::StatusOr<KeySet> second = KeySet::FromJwks(kJwks, kEdDSA, cache);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(&first->Find("ed")->thumbprint(), &second->Find("ed")->thumbprint());
}

}  // namespace
}  // namespace verdict
