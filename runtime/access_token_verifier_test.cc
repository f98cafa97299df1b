#include "runtime/access_token_verifier.h"

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "crypto/jwk.h"
#include "crypto/jwt_compact.h"
#include "decision/access_token_test_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/memory_store.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

AccessTokenOptions Options(KeySet keys = {}) {
  AccessTokenOptions options;
  options.policy.issuer = kTestIssuer;
  options.policy.audience = kTestAudience;
  options.keys = std::move(keys);
  return options;
}

class AccessTokenVerifierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<AccessTokenVerifier>> verifier =
        AccessTokenVerifier::Create(Options(*KeySet::FromJwks(JwksOf({file_key_}))));
    ASSERT_TRUE(verifier.ok()) << verifier.status();
    verifier_ = *std::move(verifier);
  }

  absl::StatusOr<AccessTokenClaims> Authenticate(const std::string& token) {
    Subject subject;
    subject.token = token;
    absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store_.BeginRead();
    if (!snapshot.ok()) return snapshot.status();
    return verifier_->Authenticate(subject, **snapshot, kNow);
  }

  static std::string Token(const TestSigningKey& key) {
    return SignAccessToken(key, DefaultAccessTokenSpec("agt_a", kNow));
  }

  MemoryPolicyStore store_;
  const TestSigningKey file_key_ = TestSigningKey::NewEd25519("file");
  std::unique_ptr<AccessTokenVerifier> verifier_;
};

TEST_F(AccessTokenVerifierTest, ReadsTheClaimsOfATokenSignedByAFileOrStoreKey) {
  const TestSigningKey store_key = TestSigningKey::NewHs256("stored");
  ASSERT_TRUE(store_.PutSigningKey(store_key.AsStored()).ok());
  for (const TestSigningKey* key : {&file_key_, &store_key}) {
    absl::StatusOr<AccessTokenClaims> claims = Authenticate(Token(*key));
    ASSERT_TRUE(claims.ok()) << key->kid << ": " << claims.status();
    EXPECT_EQ(claims->subject, "agt_a");
    EXPECT_EQ(claims->jti, "jti-1");
  }
}

TEST_F(AccessTokenVerifierTest, AStoreKeyRotatedInPlaceCountsAtOnce) {
  const TestSigningKey before = TestSigningKey::NewEd25519("rotating");
  const TestSigningKey after = TestSigningKey::NewEd25519("rotating");
  ASSERT_TRUE(store_.PutSigningKey(before.AsStored()).ok());
  ASSERT_TRUE(Authenticate(Token(before)).ok());

  ASSERT_TRUE(store_.PutSigningKey(after.AsStored()).ok());
  EXPECT_THAT(JwtErrorOf(Authenticate(Token(before)).status()), Optional(JwtError::kBadSignature));
  EXPECT_TRUE(Authenticate(Token(after)).ok());
}

TEST_F(AccessTokenVerifierTest, ARetiredStoreKeyNoLongerVerifies) {
  const TestSigningKey key = TestSigningKey::NewEd25519("old");
  SigningKey stored = key.AsStored();
  ASSERT_TRUE(store_.PutSigningKey(stored).ok());
  ASSERT_TRUE(Authenticate(Token(key)).ok());
  stored.status = SigningKeyStatus::kRetired;
  ASSERT_TRUE(store_.PutSigningKey(stored).ok());
  EXPECT_THAT(JwtErrorOf(Authenticate(Token(key)).status()), Optional(JwtError::kUnknownKey));
}

TEST_F(AccessTokenVerifierTest, TheJwksFileWinsOverAStoreKeyWithTheSameKid) {
  const TestSigningKey impostor = TestSigningKey::NewEd25519(file_key_.kid);
  ASSERT_TRUE(store_.PutSigningKey(impostor.AsStored()).ok());
  EXPECT_TRUE(Authenticate(Token(file_key_)).ok());
  EXPECT_THAT(JwtErrorOf(Authenticate(Token(impostor)).status()),
              Optional(JwtError::kBadSignature));
}

TEST_F(AccessTokenVerifierTest, AStoreKeyOnlyVerifiesWithTheAlgorithmsItAllows) {
  const TestSigningKey key = TestSigningKey::NewHs256("narrow");
  SigningKey stored = key.AsStored();
  stored.allowed_algorithms = {"EdDSA"};  // an HMAC secret is never an Ed25519 public key
  ASSERT_TRUE(store_.PutSigningKey(stored).ok());
  const absl::Status status = Authenticate(Token(key)).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(status.message()), HasSubstr("signing key narrow is invalid"));
  EXPECT_EQ(JwtErrorOf(status), std::nullopt);
}

// A view whose store cannot be read.
class UnreadableKeysView : public PolicyView {
 public:
  absl::StatusOr<std::optional<Agent>> FindAgent(absl::string_view) override { return Fail(); }
  absl::StatusOr<std::optional<Agent>> FindAgentByTokenHash(absl::string_view,
                                                            absl::Time) override {
    return Fail();
  }
  absl::StatusOr<std::vector<Permission>> PermissionsOf(absl::string_view) override {
    return Fail();
  }
  absl::StatusOr<std::vector<Delegation>> ActiveDelegationsInto(absl::string_view,
                                                                absl::Time) override {
    return Fail();
  }
  absl::StatusOr<std::optional<ApprovalRequest>> FindOpenApproval(absl::string_view,
                                                                  absl::string_view,
                                                                  absl::string_view,
                                                                  absl::string_view,
                                                                  absl::Time) override {
    return Fail();
  }
  absl::StatusOr<int64_t> RateCount(absl::string_view, absl::string_view, int64_t) override {
    return Fail();
  }
  absl::StatusOr<std::optional<SigningKey>> FindActiveSigningKey(absl::string_view) override {
    return Fail();
  }

 private:
  static absl::Status Fail() { return absl::UnavailableError("disk I/O error"); }
};

TEST_F(AccessTokenVerifierTest, AStoreThatCannotBeReadIsAFaultNotARefusal) {
  UnreadableKeysView view;
  Subject subject;
  subject.token = Token(TestSigningKey::NewEd25519("stored"));
  const absl::Status status = verifier_->Authenticate(subject, view, kNow).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(JwtErrorOf(status), std::nullopt);
  // A file key needs no store.
  subject.token = Token(file_key_);
  EXPECT_TRUE(verifier_->Authenticate(subject, view, kNow).ok());
}

TEST(AccessTokenVerifierCreateTest, RefusesOptionsThatCannotVerifyAnything) {
  const struct {
    const char* name;
    void (*spoil)(AccessTokenOptions&);
    const char* message;
  } kCases[] = {
      {"no issuer", [](AccessTokenOptions& o) { o.policy.issuer.clear(); }, "no issuer"},
      {"no audience", [](AccessTokenOptions& o) { o.policy.audience.clear(); }, "no audience"},
      {"negative leeway", [](AccessTokenOptions& o) { o.policy.leeway = -absl::Seconds(1); },
       "leeway"},
      {"no algorithm", [](AccessTokenOptions& o) { o.policy.allowed_algorithms.clear(); },
       "no algorithm"},
      {"no DPoP window", [](AccessTokenOptions& o) { o.dpop_iat_window = absl::ZeroDuration(); },
       "window"},
      {"no replay room", [](AccessTokenOptions& o) { o.dpop_replay_capacity = 0; }, "replay cache"},
  };
  for (const auto& c : kCases) {
    AccessTokenOptions options = Options();
    c.spoil(options);
    absl::StatusOr<std::unique_ptr<AccessTokenVerifier>> verifier =
        AccessTokenVerifier::Create(std::move(options));
    EXPECT_EQ(verifier.status().code(), absl::StatusCode::kInvalidArgument) << c.name;
    EXPECT_THAT(std::string(verifier.status().message()), HasSubstr(c.message)) << c.name;
  }
}

}  // namespace
}  // namespace verdict
