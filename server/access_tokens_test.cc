#include "server/access_tokens.h"

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "decision/access_token_test_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/memory_store.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

std::string WriteFile(const std::string& name, const std::string& contents) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
  std::ofstream(path) << contents;
  return path;
}

ServerOptions JwtOptions(std::string jwks_file) {
  ServerOptions options;
  options.jwks_file = std::move(jwks_file);
  options.jwt_issuer = kTestIssuer;
  options.jwt_audience = kTestAudience;
  return options;
}

TEST(AccessTokenVerifierFromOptionsTest, NoIssuerMeansNoVerifier) {
  absl::StatusOr<std::unique_ptr<AccessTokenVerifier>> verifier =
      AccessTokenVerifierFromOptions(ServerOptions());
  ASSERT_TRUE(verifier.ok()) << verifier.status();
  EXPECT_EQ(*verifier, nullptr);
}

TEST(AccessTokenVerifierFromOptionsTest, VerifiesTokensSignedByTheJwksFilesKeys) {
  const TestSigningKey key = TestSigningKey::NewEd25519("file-1");
  absl::StatusOr<std::unique_ptr<AccessTokenVerifier>> verifier =
      AccessTokenVerifierFromOptions(JwtOptions(WriteFile("jwks.json", JwksOf({key}))));
  ASSERT_TRUE(verifier.ok()) << verifier.status();
  ASSERT_NE(*verifier, nullptr);

  const absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  MemoryPolicyStore store;
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store.BeginRead();
  ASSERT_TRUE(snapshot.ok());
  Subject subject;
  subject.token = SignAccessToken(key, DefaultAccessTokenSpec("agt_a", now));
  absl::StatusOr<AccessTokenClaims> claims = (*verifier)->Authenticate(subject, **snapshot, now);
  ASSERT_TRUE(claims.ok()) << claims.status();
  EXPECT_EQ(claims->subject, "agt_a");
}

TEST(AccessTokenVerifierFromOptionsTest, WithoutAFileOnlyStoreKeysVerify) {
  absl::StatusOr<std::unique_ptr<AccessTokenVerifier>> verifier =
      AccessTokenVerifierFromOptions(JwtOptions(""));
  ASSERT_TRUE(verifier.ok()) << verifier.status();
  EXPECT_NE(*verifier, nullptr);
}

// RFC 7517 asks that keys of another type be skipped; a file of nothing else would start a
// verifier that refuses every token as "unknown_key" for a key the file plainly holds (h38).
TEST(AccessTokenVerifierFromOptionsTest, SkippedKeysAreSaidAndAFileOfNoUsableKeyIsRefused) {
  const std::string rsa = R"({"kty":"RSA","kid":"r1","alg":"RS256","n":"sXch","e":"AQAB"})";
  const std::string encryption_key =
      R"({"kty":"OKP","crv":"Ed25519","kid":"e9","alg":"EdDSA","use":"enc",)"
      R"("x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"})";
  absl::StatusOr<std::unique_ptr<AccessTokenVerifier>> none = AccessTokenVerifierFromOptions(
      JwtOptions(WriteFile("unusable.json", "{\"keys\":[" + rsa + "," + encryption_key + "]}")));
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(none.status().message()), HasSubstr("no key verdict can use"));
  EXPECT_THAT(std::string(none.status().message()), HasSubstr("keys[0] (kid \"r1\")"));
  EXPECT_THAT(std::string(none.status().message()), HasSubstr("keys[1] (kid \"e9\")"));

  const TestSigningKey key = TestSigningKey::NewEd25519("file-1");
  const std::string jwks = JwksOf({key});
  const std::string mixed = jwks.substr(0, jwks.rfind(']')) + "," + rsa + "]}";
  JwksFileKeys file_keys;
  absl::StatusOr<std::unique_ptr<AccessTokenVerifier>> verifier =
      AccessTokenVerifierFromOptions(JwtOptions(WriteFile("mixed.json", mixed)), &file_keys);
  ASSERT_TRUE(verifier.ok()) << verifier.status();
  EXPECT_EQ(file_keys.kids, std::vector<std::string>{"file-1"});
  ASSERT_EQ(file_keys.skipped.size(), 1u);
  EXPECT_THAT(file_keys.skipped[0], HasSubstr("keys[1] (kid \"r1\")"));
}

// A file whose keys are all for algorithms --jwt_algorithms leaves out verifies nothing (h40).
TEST(AccessTokenVerifierFromOptionsTest, AFileOfKeysForAlgorithmsNotAllowedIsRefused) {
  ServerOptions options =
      JwtOptions(WriteFile("hs-only.json", JwksOf({TestSigningKey::NewHs256("hs-1")})));
  options.jwt_algorithms = {"EdDSA"};
  absl::StatusOr<std::unique_ptr<AccessTokenVerifier>> verifier =
      AccessTokenVerifierFromOptions(options);
  EXPECT_EQ(verifier.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(verifier.status().message()),
              HasSubstr("kid \"hs-1\": its algorithm is not in --jwt_algorithms"));
}

TEST(AccessTokenVerifierFromOptionsTest, AnUnusableJwksFileNamesTheFlag) {
  const TestSigningKey key = TestSigningKey::NewEd25519("file-1");
  const struct {
    const char* name;
    std::string contents;
    const char* message;
  } kCases[] = {
      {"not JSON", "{keys", "invalid JSON"},
      {"not a key set", R"({"kid":"k"})", "\"keys\" array"},
      {"a key without alg",
       R"({"keys":[{"kid":"k","kty":"OKP","crv":"Ed25519",)"
       R"("x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]})",
       "no \"alg\""},
      {"a key without kid",
       R"({"keys":[{"alg":"EdDSA","kty":"OKP","crv":"Ed25519",)"
       R"("x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]})",
       "needs a \"kid\""},
      {"a kid twice", JwksOf({key, key}), "appears twice"},
  };
  for (const auto& c : kCases) {
    const std::string path = WriteFile("bad-jwks.json", c.contents);
    absl::StatusOr<std::unique_ptr<AccessTokenVerifier>> verifier =
        AccessTokenVerifierFromOptions(JwtOptions(path));
    EXPECT_EQ(verifier.status().code(), absl::StatusCode::kInvalidArgument) << c.name;
    EXPECT_THAT(std::string(verifier.status().message()), HasSubstr("--jwks_file=")) << c.name;
    EXPECT_THAT(std::string(verifier.status().message()), HasSubstr(c.message)) << c.name;
  }
  absl::StatusOr<std::unique_ptr<AccessTokenVerifier>> missing =
      AccessTokenVerifierFromOptions(JwtOptions("/nonexistent/jwks.json"));
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("--jwks_file"));
}

}  // namespace
}  // namespace verdict
