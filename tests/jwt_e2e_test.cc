// End to end, JWT access tokens and DPoP (issue 7): the real verdictd with a --jwks_file and a
// signing key added through AdminService, called over real gRPC channels. A key rotated in place
// and a revoked token id count from the very next call.
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "decision/access_token_test_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/verdictd_process.h"
#include "verdict/v1/admin.grpc.pb.h"
#include "verdict/v1/decision.grpc.pb.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

// From deploy/demo-policy.json: may read docs:*.
constexpr char kReader[] = "agt_demo_reader";
constexpr char kAdminSecret[] = "jwt-e2e-admin-secret-0123456789";
constexpr char kMethod[] = "POST";
constexpr char kUri[] = "https://api.test/v1/docs";

std::unique_ptr<grpc::ClientContext> Context(bool admin = false) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  if (admin) context->AddMetadata("authorization", absl::StrCat("Bearer ", kAdminSecret));
  return context;
}

class JwtEndToEndTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Relative paths: a Unix socket path must stay short.
    ASSERT_EQ(chdir(std::getenv("TEST_TMPDIR")), 0);
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::ofstream("admin-secret") << kAdminSecret << "\n";
    std::ofstream("jwks.json") << JwksOf({file_key_});
    absl::StatusOr<std::unique_ptr<VerdictdProcess>> server = VerdictdProcess::Start(
        {absl::StrCat("--db=", name, ".db"), "--seed=" + RunfilePath("deploy/demo-policy.json"),
         "--jwks_file=jwks.json", absl::StrCat("--jwt_issuer=", kTestIssuer),
         absl::StrCat("--jwt_audience=", kTestAudience), "--admin_listen=unix:admin.sock",
         "--admin_secret_file=admin-secret", "--test_only_weak_admin_hash"});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    decisions_ = v1::DecisionService::NewStub(
        grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials()));
    admin_ = v1::AdminService::NewStub(
        grpc::CreateChannel("unix:admin.sock", grpc::InsecureChannelCredentials()));
  }

  void TearDown() override {
    if (server_ == nullptr) return;
    server_->Signal(SIGTERM);
    absl::StatusOr<int> exit_code = server_->AwaitExit(absl::Seconds(20));
    EXPECT_TRUE(exit_code.ok()) << exit_code.status();
    EXPECT_EQ(exit_code.value_or(-1), 0);
  }

  static std::string Token(const TestSigningKey& key, absl::string_view jti = "jti-1",
                           absl::string_view cnf_jkt = "") {
    AccessTokenSpec spec = DefaultAccessTokenSpec(kReader, absl::Now());
    spec.jti = std::string(jti);
    spec.cnf_jkt = std::string(cnf_jkt);
    return SignAccessToken(key, spec);
  }

  v1::AuthorizeResponse ReadDocs(const std::string& token, const std::string& dpop_proof = "") {
    v1::AuthorizeRequest request;
    request.mutable_subject()->set_token(token);
    request.set_action("read");
    request.set_resource("docs:guide:1");
    request.mutable_context()->set_dpop_proof(dpop_proof);
    request.mutable_context()->set_http_method(kMethod);
    request.mutable_context()->set_http_uri(kUri);
    v1::AuthorizeResponse response;
    const grpc::Status status = decisions_->Authorize(Context().get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  grpc::Status AddKey(const TestSigningKey& key) {
    v1::AddSigningKeyRequest request;
    request.set_jwk_json(key.public_jwk_json);
    request.add_allowed_algorithms(key.alg);
    v1::AddSigningKeyResponse added;
    return admin_->AddSigningKey(Context(/*admin=*/true).get(), request, &added);
  }

  const TestSigningKey file_key_ = TestSigningKey::NewEd25519("file-ed");
  std::unique_ptr<VerdictdProcess> server_;
  std::unique_ptr<v1::DecisionService::Stub> decisions_;
  std::unique_ptr<v1::AdminService::Stub> admin_;
};

TEST_F(JwtEndToEndTest, ATokenSignedByAJwksFileKeyActsAsItsAgent) {
  const v1::AuthorizeResponse allowed = ReadDocs(Token(file_key_));
  EXPECT_EQ(allowed.verdict(), v1::VERDICT_ALLOW) << allowed.message();
  EXPECT_EQ(allowed.agent_id(), kReader);

  v1::ValidateTokenRequest validate;
  validate.set_token(Token(file_key_));
  v1::ValidateTokenResponse validation;
  ASSERT_TRUE(decisions_->ValidateToken(Context().get(), validate, &validation).ok());
  EXPECT_TRUE(validation.valid()) << validation.message();
  EXPECT_EQ(validation.agent().id(), kReader);
  EXPECT_GT(validation.permissions_size(), 0);

  const TestSigningKey stranger = TestSigningKey::NewEd25519("file-ed");
  const v1::AuthorizeResponse forged = ReadDocs(Token(stranger));
  EXPECT_EQ(forged.verdict(), v1::VERDICT_DENY);
  EXPECT_EQ(forged.reason(), v1::REASON_CODE_TOKEN_INVALID);
  EXPECT_THAT(forged.message(), HasSubstr("bad_signature"));
}

TEST_F(JwtEndToEndTest, AStoreKeyCountsOnceAddedAndARotationInPlaceAtOnce) {
  const TestSigningKey store_key = TestSigningKey::NewEd25519("store-ed");
  const std::string token = Token(store_key);
  const v1::AuthorizeResponse unknown = ReadDocs(token);
  EXPECT_EQ(unknown.reason(), v1::REASON_CODE_TOKEN_INVALID);
  EXPECT_THAT(unknown.message(), HasSubstr("unknown_key"));

  const grpc::Status added = AddKey(store_key);
  ASSERT_TRUE(added.ok()) << added.error_message();
  EXPECT_EQ(ReadDocs(token).verdict(), v1::VERDICT_ALLOW);

  const TestSigningKey rotated = TestSigningKey::NewEd25519("store-ed");
  v1::RotateSigningKeyRequest rotate;
  rotate.set_jwk_json(rotated.public_jwk_json);
  rotate.add_allowed_algorithms("EdDSA");
  v1::RotateSigningKeyResponse key;
  ASSERT_TRUE(admin_->RotateSigningKey(Context(/*admin=*/true).get(), rotate, &key).ok());
  const v1::AuthorizeResponse old_content = ReadDocs(token);
  EXPECT_EQ(old_content.reason(), v1::REASON_CODE_TOKEN_INVALID);
  EXPECT_THAT(old_content.message(), HasSubstr("bad_signature"));
  EXPECT_EQ(ReadDocs(Token(rotated)).verdict(), v1::VERDICT_ALLOW);

  v1::RetireSigningKeyRequest retire;
  retire.set_kid("store-ed");
  v1::RetireSigningKeyResponse retired;
  ASSERT_TRUE(admin_->RetireSigningKey(Context(/*admin=*/true).get(), retire, &retired).ok());
  EXPECT_THAT(ReadDocs(Token(rotated)).message(), HasSubstr("unknown_key"));
}

TEST_F(JwtEndToEndTest, ARevokedTokenIdDeniesOnTheNextCall) {
  const std::string token = Token(file_key_, "jti-revoked");
  ASSERT_EQ(ReadDocs(token).verdict(), v1::VERDICT_ALLOW);
  v1::RevokeTokenIdRequest revoke;
  revoke.set_jti("jti-revoked");
  revoke.mutable_expires_at()->set_seconds(absl::ToUnixSeconds(absl::Now() + absl::Hours(1)));
  v1::RevokeTokenIdResponse revoked;
  ASSERT_TRUE(admin_->RevokeTokenId(Context(/*admin=*/true).get(), revoke, &revoked).ok());
  const v1::AuthorizeResponse denied = ReadDocs(token);
  EXPECT_EQ(denied.verdict(), v1::VERDICT_DENY);
  EXPECT_EQ(denied.reason(), v1::REASON_CODE_TOKEN_INVALID);
  EXPECT_THAT(denied.message(), HasSubstr("revoked"));
  EXPECT_EQ(ReadDocs(Token(file_key_, "jti-other")).verdict(), v1::VERDICT_ALLOW);
}

TEST_F(JwtEndToEndTest, ABoundTokenNeedsAFreshProofOfPossession) {
  const TestSigningKey proof_key = TestSigningKey::NewEd25519("client");
  const std::string token = Token(file_key_, "jti-bound", proof_key.Thumbprint());
  DpopProofSpec spec;
  spec.method = kMethod;
  spec.uri = kUri;
  spec.access_token = token;
  spec.issued_at = absl::Now();
  const std::string proof = SignDpopProof(proof_key, spec);

  EXPECT_THAT(ReadDocs(token).message(), HasSubstr("no DPoP proof"));
  EXPECT_EQ(ReadDocs(token, proof).verdict(), v1::VERDICT_ALLOW);
  const v1::AuthorizeResponse replayed = ReadDocs(token, proof);
  EXPECT_EQ(replayed.reason(), v1::REASON_CODE_TOKEN_INVALID);
  EXPECT_THAT(replayed.message(), HasSubstr("replayed"));
}

}  // namespace
}  // namespace verdict
