#include "store/signing_keys.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "decision/access_token_test_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

TEST(PrepareSigningKeyTest, AnActiveKeyUnderItsJwksKidInCanonicalJson) {
  const TestSigningKey ed = TestSigningKey::NewEd25519("ed-1");
  absl::StatusOr<SigningKey> key =
      PrepareSigningKey({absl::StrCat(" ", ed.public_jwk_json, " "), {"EdDSA"}}, kNow);
  ASSERT_TRUE(key.ok()) << key.status();
  EXPECT_EQ(key->kid, "ed-1");
  EXPECT_EQ(key->jwk_json.front(), '{');
  EXPECT_THAT(key->jwk_json, HasSubstr(R"("alg":"EdDSA","crv":"Ed25519","kid":"ed-1")"));
  EXPECT_THAT(key->allowed_algorithms, ElementsAre("EdDSA"));
  EXPECT_EQ(key->status, SigningKeyStatus::kActive);
  EXPECT_EQ(key->created_at, kNow);
  EXPECT_EQ(key->retired_at, absl::InfiniteFuture());

  const TestSigningKey hs = TestSigningKey::NewHs256("hs-1");
  EXPECT_TRUE(PrepareSigningKey({hs.public_jwk_json, {"HS256"}}, kNow).ok());
  const TestSigningKey ec = TestSigningKey::Es256("ec-1");
  EXPECT_TRUE(PrepareSigningKey({ec.public_jwk_json, {"ES256"}}, kNow).ok());
}

TEST(PrepareSigningKeyTest, RefusesKeysAVerifierCannotSafelyUse) {
  const TestSigningKey ed = TestSigningKey::NewEd25519("ed-1");
  const TestSigningKey hs = TestSigningKey::NewHs256("hs-1");
  const struct {
    const char* name;
    NewSigningKey key;
    const char* message;
  } kCases[] = {
      {"no algorithm", {ed.public_jwk_json, {}}, "name at least one"},
      {"alg none", {ed.public_jwk_json, {"none"}}, "\"none\" is not one of"},
      {"an algorithm twice", {ed.public_jwk_json, {"EdDSA", "EdDSA"}}, "EdDSA twice"},
      {"a public key as an HMAC secret", {ed.public_jwk_json, {"HS256"}}, "jwk:"},
      {"an HMAC secret as a public key", {hs.public_jwk_json, {"EdDSA"}}, "jwk:"},
      {"an algorithm the key cannot do",
       {ed.public_jwk_json, {"EdDSA", "ES256"}},
       "cannot do ES256"},
      {"a private key", {ed.private_jwk_json, {"EdDSA"}}, "public key only"},
      {"no kid",
       {R"({"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"})",
        {"EdDSA"}},
       "needs a \"kid\""},
      {"a kid with spaces",
       {R"({"kid":"a b","kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"})",
        {"EdDSA"}},
       "\"kid\" must be"},
      {"not JSON", {"{kid}", {"EdDSA"}}, "jwk: invalid JSON"},
      {"too large", {std::string(5000, ' ') + ed.public_jwk_json, {"EdDSA"}}, "over 4096"},
  };
  for (const auto& c : kCases) {
    absl::StatusOr<SigningKey> key = PrepareSigningKey(c.key, kNow);
    EXPECT_EQ(key.status().code(), absl::StatusCode::kInvalidArgument) << c.name;
    EXPECT_THAT(std::string(key.status().message()), HasSubstr(c.message)) << c.name;
  }
}

TEST(SigningKeyEncodingTest, AlgorithmsAndStatusesRoundTrip) {
  EXPECT_EQ(JoinAlgorithms({"EdDSA", "HS256"}), "EdDSA,HS256");
  EXPECT_THAT(SplitAlgorithms("EdDSA,HS256"), ElementsAre("EdDSA", "HS256"));
  EXPECT_THAT(SplitAlgorithms(""), ElementsAre());
  for (SigningKeyStatus status : {SigningKeyStatus::kActive, SigningKeyStatus::kRetired}) {
    EXPECT_EQ(*ParseSigningKeyStatus(SigningKeyStatusName(status)), status);
  }
  EXPECT_FALSE(ParseSigningKeyStatus("revoked").ok());
}

}  // namespace
}  // namespace verdict
