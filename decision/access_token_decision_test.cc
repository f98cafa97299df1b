// JWT access tokens and DPoP proofs through the decision path (design section 2): every refusal
// denies with TOKEN_INVALID (or the agent's own reason), names why, and never quotes the token.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/json.h"
#include "crypto/jwk.h"
#include "crypto/token.h"
#include "decision/access_token_test_support.h"
#include "decision/authorizer.h"
#include "decision/request_validation.h"
#include "decision/types.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/access_token_verifier.h"
#include "testing/memory_store.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);
constexpr char kAgent[] = "agt_a";
constexpr char kMethod[] = "POST";
constexpr char kUri[] = "https://api.test/v1/docs";

class AccessTokenDecisionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Agent agent;
    agent.id = kAgent;
    ASSERT_TRUE(store_.AddAgent(agent).ok());
    Permission read;
    read.agent_id = kAgent;
    read.resource = "docs:*";
    read.actions = {"read"};
    ASSERT_TRUE(store_.AddPermission(read).ok());
    ASSERT_TRUE(store_.PutSigningKey(store_key_.AsStored()).ok());

    AccessTokenOptions options;
    options.policy.issuer = kTestIssuer;
    options.policy.audience = kTestAudience;
    options.policy.leeway = absl::Seconds(30);
    options.keys = *KeySet::FromJwks(JwksOf({file_key_, hmac_key_}));
    absl::StatusOr<std::unique_ptr<AccessTokenVerifier>> verifier =
        AccessTokenVerifier::Create(std::move(options));
    ASSERT_TRUE(verifier.ok()) << verifier.status();
    verifier_ = *std::move(verifier);
    authorizer_ = std::make_unique<Authorizer>(
        store_, [this] { return now_; }, nullptr, verifier_.get());
  }

  Request ReadRequest(const std::string& token, DpopEvidence dpop = {}) const {
    Request request;
    request.subject.token = token;
    request.subject.dpop = std::move(dpop);
    request.action = "read";
    request.resource = "docs:1";
    return request;
  }

  Decision Authorize(const std::string& token, DpopEvidence dpop = {}) {
    absl::StatusOr<Decision> decision = authorizer_->Authorize(ReadRequest(token, std::move(dpop)));
    EXPECT_TRUE(decision.ok()) << decision.status();
    return decision.ok() ? *std::move(decision) : Decision();
  }

  std::string Token(const TestSigningKey& key) const {
    return SignAccessToken(key, DefaultAccessTokenSpec(kAgent, now_));
  }

  // A token bound to proof_key_, and a fresh proof for it.
  std::string BoundToken() const {
    AccessTokenSpec spec = DefaultAccessTokenSpec(kAgent, now_);
    spec.cnf_jkt = proof_key_.Thumbprint();
    return SignAccessToken(file_key_, spec);
  }
  DpopProofSpec ProofSpec(const std::string& token, absl::string_view jti) const {
    DpopProofSpec spec;
    spec.method = kMethod;
    spec.uri = kUri;
    spec.access_token = token;
    spec.issued_at = now_;
    spec.jti = std::string(jti);
    return spec;
  }
  static DpopEvidence Evidence(std::string proof) {
    return DpopEvidence{std::move(proof), kMethod, kUri};
  }

  MemoryPolicyStore store_;
  absl::Time now_ = kNow;
  const TestSigningKey file_key_ = TestSigningKey::NewEd25519("file-ed");
  const TestSigningKey hmac_key_ = TestSigningKey::NewHs256("file-hs");
  const TestSigningKey store_key_ = TestSigningKey::NewEd25519("store-ed");
  const TestSigningKey proof_key_ = TestSigningKey::NewEd25519("proof");
  std::unique_ptr<AccessTokenVerifier> verifier_;
  std::unique_ptr<Authorizer> authorizer_;
};

void ExpectTokenRefused(const Decision& decision, absl::string_view why, absl::string_view token) {
  EXPECT_EQ(decision.verdict, Verdict::kDeny);
  EXPECT_EQ(decision.reason, ReasonCode::kTokenInvalid);
  EXPECT_THAT(decision.message, HasSubstr(std::string(why)));
  EXPECT_THAT(decision.message, Not(HasSubstr(std::string(token))));
}

TEST_F(AccessTokenDecisionTest, TokensFromTheJwksFileAndTheStoreAllowAsTheirAgent) {
  for (const TestSigningKey* key : {&file_key_, &hmac_key_, &store_key_}) {
    const Decision decision = Authorize(Token(*key));
    EXPECT_EQ(decision.verdict, Verdict::kAllow) << key->kid << ": " << decision.message;
    EXPECT_EQ(decision.agent_id, kAgent) << key->kid;
  }
}

TEST_F(AccessTokenDecisionTest, EveryRefusedTokenDeniesTokenInvalidAndSaysWhy) {
  const auto spec_token = [this](void (*change)(AccessTokenSpec&)) {
    AccessTokenSpec spec = DefaultAccessTokenSpec(kAgent, now_);
    change(spec);
    return SignAccessToken(file_key_, spec);
  };
  const std::string good = Token(file_key_);
  const size_t signature_start = good.rfind('.') + 1;
  std::string signature = *Base64UrlDecode(good.substr(signature_start));
  signature[10] ^= 0x01;
  const std::string flipped = good.substr(0, signature_start) + Base64UrlEncode(signature);
  const std::string other_signature = Token(store_key_).substr(Token(store_key_).rfind('.') + 1);
  // An HMAC keyed with the public Ed25519 key that verifiers hold: the classic confusion.
  TestSigningKey confused;
  confused.kid = file_key_.kid;
  confused.alg = "HS256";
  confused.private_jwk_json =
      absl::StrCat(R"({"kty":"oct","alg":"HS256","k":")",
                   ParseJson(file_key_.public_jwk_json)->Find("x")->as_string(), R"("})");

  const struct {
    const char* name;
    std::string token;
    const char* why;
  } kCases[] = {
      {"expired beyond the leeway",
       spec_token([](AccessTokenSpec& s) { s.expires_at = kNow - absl::Seconds(31); }), "expired"},
      {"not yet valid beyond the leeway",
       spec_token([](AccessTokenSpec& s) { s.not_before = kNow + absl::Seconds(31); }),
       "not_yet_valid"},
      {"issued in the future",
       spec_token([](AccessTokenSpec& s) { s.issued_at = kNow + absl::Minutes(2); }),
       "not_yet_valid"},
      {"another audience", spec_token([](AccessTokenSpec& s) { s.audience = "someone-else"; }),
       "wrong_audience"},
      {"another issuer", spec_token([](AccessTokenSpec& s) { s.issuer = "https://evil.test"; }),
       "wrong_issuer"},
      {"an algorithm the key does not allow",
       spec_token([](AccessTokenSpec& s) { s.alg = "ES256"; }), "algorithm_not_allowed"},
      {"alg none", spec_token([](AccessTokenSpec& s) { s.alg = "none"; }), "algorithm_not_allowed"},
      {"an HMAC keyed with the public key",
       SignAccessToken(confused, DefaultAccessTokenSpec(kAgent, kNow)), "algorithm_not_allowed"},
      {"an unknown kid", spec_token([](AccessTokenSpec& s) { s.kid = "nobody"; }), "unknown_key"},
      {"not an access token", spec_token([](AccessTokenSpec& s) { s.typ = "JWT"; }), "wrong_type"},
      {"a flipped signature bit", flipped, "bad_signature"},
      {"a truncated signature", good.substr(0, good.size() - 6), "bad_signature"},
      {"a truncated payload",
       absl::StrCat(good.substr(0, good.find('.') + 9), good.substr(good.rfind('.'))),
       "bad_signature"},
      {"a signature from another key", good.substr(0, signature_start) + other_signature,
       "bad_signature"},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.name);
    ExpectTokenRefused(Authorize(c.token), c.why, c.token);
  }
}

TEST_F(AccessTokenDecisionTest, ClockSkewWithinTheLeewayIsForgiven) {
  AccessTokenSpec spec = DefaultAccessTokenSpec(kAgent, kNow);
  spec.expires_at = kNow - absl::Seconds(29);
  spec.not_before = kNow + absl::Seconds(29);
  spec.issued_at = kNow + absl::Seconds(29);
  EXPECT_EQ(Authorize(SignAccessToken(file_key_, spec)).verdict, Verdict::kAllow);
}

TEST_F(AccessTokenDecisionTest, ARevokedTokenIdDeniesOnTheNextCall) {
  const std::string token = Token(store_key_);
  ASSERT_EQ(Authorize(token).verdict, Verdict::kAllow);
  ASSERT_TRUE(store_.RevokeTokenId("jti-1").ok());
  ExpectTokenRefused(Authorize(token), "access token jti-1 is revoked", token);
  // Another token of the same agent still works.
  AccessTokenSpec other = DefaultAccessTokenSpec(kAgent, now_);
  other.jti = "jti-2";
  EXPECT_EQ(Authorize(SignAccessToken(store_key_, other)).verdict, Verdict::kAllow);
}

TEST_F(AccessTokenDecisionTest, TheSubjectAgentMustStillBeLive) {
  const std::string token = Token(file_key_);
  ASSERT_TRUE(store_.SetAgentStatus(kAgent, AgentStatus::kSuspended).ok());
  EXPECT_EQ(Authorize(token).reason, ReasonCode::kAgentSuspended);
  ASSERT_TRUE(store_.SetAgentStatus(kAgent, AgentStatus::kRevoked).ok());
  const Decision revoked = Authorize(token);
  EXPECT_EQ(revoked.verdict, Verdict::kDeny);
  EXPECT_EQ(revoked.reason, ReasonCode::kAgentRevoked);
  EXPECT_EQ(revoked.agent_id, kAgent);

  const Decision unknown =
      Authorize(SignAccessToken(file_key_, DefaultAccessTokenSpec("agt_nobody", now_)));
  EXPECT_EQ(unknown.reason, ReasonCode::kAgentNotFound);
}

TEST_F(AccessTokenDecisionTest, ABoundTokenAllowsWithAProofOfPossessionUsedOnce) {
  const std::string token = BoundToken();
  const std::string proof = SignDpopProof(proof_key_, ProofSpec(token, "p-1"));
  EXPECT_EQ(Authorize(token, Evidence(proof)).verdict, Verdict::kAllow);
  ExpectTokenRefused(Authorize(token, Evidence(proof)), "replayed", token);
  // A fresh proof is accepted.
  EXPECT_EQ(Authorize(token, Evidence(SignDpopProof(proof_key_, ProofSpec(token, "p-2")))).verdict,
            Verdict::kAllow);
}

TEST_F(AccessTokenDecisionTest, EveryRefusedProofDeniesTokenInvalidAndSaysWhy) {
  const std::string token = BoundToken();
  const TestSigningKey stranger = TestSigningKey::NewEd25519("stranger");
  const struct {
    const char* name;
    DpopEvidence evidence;
    const char* why;
  } kCases[] = {
      {"no proof", DpopEvidence{"", kMethod, kUri}, "wrong_key_binding"},
      {"a proof for another method",
       DpopEvidence{SignDpopProof(proof_key_, ProofSpec(token, "m")), "DELETE", kUri},
       "wrong_method"},
      {"a proof for another URL",
       DpopEvidence{SignDpopProof(proof_key_, ProofSpec(token, "u")), kMethod,
                    "https://api.test/v1/admin"},
       "wrong_url"},
      {"a proof by another key", Evidence(SignDpopProof(stranger, ProofSpec(token, "k"))),
       "wrong_key_binding"},
      {"a proof for another token",
       Evidence(SignDpopProof(proof_key_, ProofSpec(Token(file_key_), "t"))), "wrong_token_hash"},
      {"a stale proof",
       [&] {
         DpopProofSpec spec = ProofSpec(token, "s");
         spec.issued_at = kNow - absl::Minutes(5);
         return Evidence(SignDpopProof(proof_key_, spec));
       }(),
       "expired"},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.name);
    ExpectTokenRefused(Authorize(token, c.evidence), c.why, token);
  }
}

TEST_F(AccessTokenDecisionTest, ABatchSpendsItsProofOnce) {
  const std::string token = BoundToken();
  const Request check =
      ReadRequest(token, Evidence(SignDpopProof(proof_key_, ProofSpec(token, "batch"))));
  BatchRequest batch;
  batch.subject = check.subject;
  batch.checks = {{check.action, check.resource, ""},
                  {check.action, "docs:2", ""},
                  {"write", check.resource, ""}};
  absl::StatusOr<std::vector<Decision>> decisions = authorizer_->BatchAuthorize(batch);
  ASSERT_TRUE(decisions.ok()) << decisions.status();
  EXPECT_EQ((*decisions)[0].verdict, Verdict::kAllow);
  EXPECT_EQ((*decisions)[1].verdict, Verdict::kAllow);
  EXPECT_EQ((*decisions)[2].reason, ReasonCode::kNoMatchingPermission);
}

TEST_F(AccessTokenDecisionTest, ADecisionThatWritesSpendsItsProofOnce) {
  // A rate-limited grant: Authorize decides in a snapshot, then again in a write transaction.
  Permission limited;
  limited.agent_id = kAgent;
  limited.resource = "reports:*";
  limited.actions = {"export"};
  limited.constraints_json = R"({"rate_limit":{"max_calls":5,"window_seconds":60}})";
  ASSERT_TRUE(store_.AddPermission(limited).ok());
  const std::string token = BoundToken();
  Request request = ReadRequest(token, Evidence(SignDpopProof(proof_key_, ProofSpec(token, "w"))));
  request.action = "export";
  request.resource = "reports:q3";
  absl::StatusOr<Decision> decision = authorizer_->Authorize(request);
  ASSERT_TRUE(decision.ok()) << decision.status();
  EXPECT_EQ(decision->verdict, Verdict::kAllow) << decision->message;
}

TEST_F(AccessTokenDecisionTest, SimulateDecidesAsAuthorizeOnABoundToken) {
  const std::string token = BoundToken();
  absl::StatusOr<Simulation> simulation = authorizer_->Simulate(
      ReadRequest(token, Evidence(SignDpopProof(proof_key_, ProofSpec(token, "sim")))), WhatIf());
  ASSERT_TRUE(simulation.ok()) << simulation.status();
  EXPECT_EQ(simulation->decision.verdict, Verdict::kAllow) << simulation->decision.message;
}

TEST_F(AccessTokenDecisionTest, SimulateAuthenticatesAtTheRealTimeWhateverTheWhatIfTime) {
  // A token valid for days, and a proof spent now.
  AccessTokenSpec spec = DefaultAccessTokenSpec(kAgent, now_);
  spec.expires_at = now_ + absl::Hours(48);
  spec.cnf_jkt = proof_key_.Thumbprint();
  const std::string token = SignAccessToken(file_key_, spec);
  const std::string spent = SignDpopProof(proof_key_, ProofSpec(token, "spent"));
  ASSERT_EQ(Authorize(token, Evidence(spent)).verdict, Verdict::kAllow);

  // A Simulate a minute ahead, with a proof made for that time, is refused as a proof from the
  // future: had it been checked at the what-if time, it would have made the replay cache forget
  // the proof spent above, whose window has not closed.
  DpopProofSpec ahead = ProofSpec(token, "ahead");
  ahead.issued_at = now_ + absl::Seconds(61);
  WhatIf later;
  later.at = now_ + absl::Seconds(61);
  absl::StatusOr<Simulation> simulation =
      authorizer_->Simulate(ReadRequest(token, Evidence(SignDpopProof(proof_key_, ahead))), later);
  ASSERT_TRUE(simulation.ok()) << simulation.status();
  ExpectTokenRefused(simulation->decision, "not_yet_valid", token);
  ExpectTokenRefused(Authorize(token, Evidence(spent)), "replayed", token);

  // The token itself is judged now too: a what-if time past its expiry does not expire it.
  WhatIf days_later;
  days_later.at = now_ + absl::Hours(72);
  simulation = authorizer_->Simulate(
      ReadRequest(token, Evidence(SignDpopProof(proof_key_, ProofSpec(token, "later")))),
      days_later);
  ASSERT_TRUE(simulation.ok()) << simulation.status();
  EXPECT_EQ(simulation->decision.verdict, Verdict::kAllow) << simulation->decision.message;
}

TEST_F(AccessTokenDecisionTest, ValidateTokenAnswersForAccessTokens) {
  absl::StatusOr<TokenValidation> valid = authorizer_->ValidateToken(Token(store_key_));
  ASSERT_TRUE(valid.ok()) << valid.status();
  EXPECT_TRUE(valid->valid) << valid->message;
  ASSERT_TRUE(valid->agent.has_value());
  EXPECT_EQ(valid->agent->id, kAgent);
  EXPECT_EQ(valid->permissions.size(), 1u);

  AccessTokenSpec expired = DefaultAccessTokenSpec(kAgent, now_ - absl::Hours(1));
  absl::StatusOr<TokenValidation> invalid =
      authorizer_->ValidateToken(SignAccessToken(file_key_, expired));
  ASSERT_TRUE(invalid.ok()) << invalid.status();
  EXPECT_FALSE(invalid->valid);
  EXPECT_EQ(invalid->reason, ReasonCode::kTokenInvalid);
  EXPECT_THAT(invalid->message, HasSubstr("expired"));

  const std::string bound = BoundToken();
  absl::StatusOr<TokenValidation> unproven = authorizer_->ValidateToken(bound);
  ASSERT_TRUE(unproven.ok()) << unproven.status();
  EXPECT_FALSE(unproven->valid);
  absl::StatusOr<TokenValidation> proven =
      authorizer_->ValidateToken(bound, Evidence(SignDpopProof(proof_key_, ProofSpec(bound, "v"))));
  ASSERT_TRUE(proven.ok()) << proven.status();
  EXPECT_TRUE(proven->valid) << proven->message;
}

TEST_F(AccessTokenDecisionTest, WithoutAVerifierAccessTokensAreRefused) {
  Authorizer opaque_only(store_, [this] { return now_; });
  const std::string token = Token(file_key_);
  absl::StatusOr<Decision> decision = opaque_only.Authorize(ReadRequest(token));
  ASSERT_TRUE(decision.ok()) << decision.status();
  ExpectTokenRefused(*decision, "not accepted", token);
}

TEST(AccessTokenRequestTest, AJwtShapedTokenIsAWellFormedSubject) {
  Request request;
  request.action = "read";
  request.resource = "docs:1";
  request.subject.token = "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhZ3RfYSJ9.c2lnbmF0dXJl";
  EXPECT_TRUE(ValidateRequest(request).ok());

  const struct {
    std::string token;
    const char* message;
  } kCases[] = {
      {std::string(8 * 1024 + 1, 'a') + ".b.c", "over 8192"},
      {"eyJh.eyJz.c2ln.ZXh0cmE", "not 4"},
      {"eyJh..c2ln", "empty segment"},
      {"eyJh.eyJ z.c2ln", "outside base64url"},
      {"eyJh.eyJz.c2ln=", "outside base64url"},
  };
  for (const auto& c : kCases) {
    request.subject.token = c.token;
    const absl::Status status = ValidateRequest(request);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.message;
    EXPECT_THAT(std::string(status.message()), HasSubstr("subject.token"));
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.message));
  }
}

}  // namespace
}  // namespace verdict
