// AdminService's sessions through a real gRPC channel, on a real SQLite file: a principal's
// secret is checked once (Argon2id) for a session token, and every later call is authenticated
// by the token alone, until it expires or is revoked.
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "crypto/secret_hash.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/admin_authentication.h"
#include "server/admin_service.h"
#include "server/admin_sessions.h"
#include "server/admin_test_support.h"
#include "server/grpc_server.h"
#include "store/admin_credentials.h"
#include "store/admin_sessions.h"
#include "store/decision_log.h"
#include "store/open_store.h"
#include "store/sqlite_store.h"
#include "store/test_support.h"
#include "verdict/v1/admin.grpc.pb.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The stored principals, counting the reads of one: AdminAuthenticator reads the principal
// once per Argon2id check, and the role check once per call however it was authenticated.
class CountingCredentials final : public AdminCredentialStore {
 public:
  explicit CountingCredentials(AdminCredentialStore& store) : store_(store) {}
  absl::StatusOr<std::optional<StoredAdminPrincipal>> FindPrincipal(
      absl::string_view name) override {
    ++reads_;
    return store_.FindPrincipal(name);
  }
  absl::StatusOr<std::vector<StoredAdminPrincipal>> ListPrincipals() override {
    return store_.ListPrincipals();
  }
  absl::StatusOr<bool> SetIfAbsent(absl::string_view hash, absl::Time now) override {
    return store_.SetIfAbsent(hash, now);
  }
  absl::Status CreatePrincipal(const StoredAdminPrincipal& principal) override {
    return store_.CreatePrincipal(principal);
  }
  absl::StatusOr<StoredAdminPrincipal> ChangePrincipal(
      absl::string_view name, const std::function<absl::Status(StoredAdminPrincipal&)>& change,
      absl::Time now) override {
    return store_.ChangePrincipal(name, change, now);
  }
  int reads() const { return reads_.load(); }

 private:
  AdminCredentialStore& store_;
  std::atomic<int> reads_{0};
};

class AdminSessionServiceTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(/*with_sessions=*/true, PeerUidPrincipals{}); }

  void Start(bool with_sessions, PeerUidPrincipals peer_uids) {
    path_ = FreshDatabasePath(absl::StrCat("-", ++starts_));
    SqliteOptions store_options;
    store_options.connections = 2;
    store_options.clock = clock_.AsFunction();
    absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(path_, store_options);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    stored_credentials_ = std::make_unique<AdminCredentials>(path_);
    ASSERT_TRUE(SetTestAdminSecret(*stored_credentials_, clock_.Now()).ok());
    credentials_ = std::make_unique<CountingCredentials>(*stored_credentials_);
    auth_ = std::make_unique<AdminAuthenticator>(*credentials_, clock_.AsFunction(),
                                                 AdminAuthOptions{.hash_params = kTestHashParams});
    session_store_ = std::make_unique<AdminSessions>(path_);
    sessions_ = std::make_unique<AdminSessionManager>(*session_store_, clock_.AsFunction());
    authentication_ = std::make_unique<AdminAuthentication>(sessions_.get(), std::move(peer_uids));
    decision_log_ = std::make_unique<DecisionLog>(path_);
    absl::StatusOr<std::unique_ptr<AdminAuditLog>> admin_audit = OpenAdminAuditLog(path_);
    ASSERT_TRUE(admin_audit.ok()) << admin_audit.status();
    admin_audit_ = *std::move(admin_audit);
    service_ = std::make_unique<GrpcAdminService>(store_->admin(), *decision_log_, *admin_audit_,
                                                  *auth_, clock_.AsFunction());
    if (with_sessions) service_->set_authentication(authentication_.get());
    absl::StatusOr<std::unique_ptr<GrpcServer>> server =
        GrpcServer::Start("127.0.0.1:0", {{v1::AdminService::service_full_name(), service_.get()}});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    stub_ = v1::AdminService::NewStub(
        grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials()));
  }

  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown(absl::Seconds(5));
  }

  v1::CreateSessionResponse Login(absl::Duration ttl = absl::ZeroDuration()) {
    v1::CreateSessionRequest request;
    request.mutable_ttl()->set_seconds(absl::ToInt64Seconds(ttl));
    v1::CreateSessionResponse response;
    const grpc::Status status =
        stub_->CreateSession(AdminCallContext(kTestAdminSecret).get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  // Stores an enabled operator `name` whose secret is kTestAdminSecret.
  void AddOperator(const std::string& name) {
    ASSERT_TRUE(AddTestPrincipal(*stored_credentials_, name, {AdminRole::kOperator},
                                 kTestAdminSecret, clock_.Now())
                    .ok());
  }

  // A session of the principal `name`, whose secret is kTestAdminSecret.
  v1::CreateSessionResponse LoginAs(const std::string& name) {
    std::unique_ptr<grpc::ClientContext> context = AdminCallContext(kTestAdminSecret, name);
    v1::CreateSessionResponse response;
    const grpc::Status status = stub_->CreateSession(context.get(), {}, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(response.principal(), name);
    return response;
  }

  grpc::Status CreateAgent(absl::string_view credential, std::string* id = nullptr) {
    v1::CreateAgentRequest request;
    request.set_owner("alice");
    request.set_name("bot");
    v1::CreateAgentResponse response;
    const grpc::Status status =
        stub_->CreateAgent(AdminCallContext(credential).get(), request, &response);
    if (id != nullptr) *id = response.agent().id();
    return status;
  }

  grpc::Status Grant(absl::string_view credential, const std::string& agent_id) {
    v1::GrantPermissionRequest request;
    request.set_agent_id(agent_id);
    request.mutable_permission()->set_resource("docs:*");
    request.mutable_permission()->add_actions("read");
    request.mutable_permission()->set_effect(v1::EFFECT_ALLOW);
    v1::GrantPermissionResponse response;
    return stub_->GrantPermission(AdminCallContext(credential).get(), request, &response);
  }

  grpc::Status Revoke(absl::string_view credential, const v1::RevokeSessionRequest& request,
                      uint32_t* revoked = nullptr) {
    v1::RevokeSessionResponse response;
    const grpc::Status status =
        stub_->RevokeSession(AdminCallContext(credential).get(), request, &response);
    if (revoked != nullptr) *revoked = response.revoked();
    return status;
  }

  ManualClock clock_;
  int starts_ = 0;
  std::string path_;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<AdminCredentials> stored_credentials_;
  std::unique_ptr<CountingCredentials> credentials_;
  std::unique_ptr<AdminAuthenticator> auth_;
  std::unique_ptr<AdminSessions> session_store_;
  std::unique_ptr<AdminSessionManager> sessions_;
  std::unique_ptr<AdminAuthentication> authentication_;
  std::unique_ptr<DecisionLog> decision_log_;
  std::unique_ptr<AdminAuditLog> admin_audit_;
  std::unique_ptr<GrpcAdminService> service_;
  std::unique_ptr<GrpcServer> server_;
  std::unique_ptr<v1::AdminService::Stub> stub_;
};

TEST_F(AdminSessionServiceTest, TheSecretIsCheckedOnceAndTheSessionAuthenticatesEveryLaterCall) {
  const v1::CreateSessionResponse session = Login();
  // One read for the Argon2id check of the secret, one for the login's role check.
  EXPECT_EQ(credentials_->reads(), 2);
  EXPECT_EQ(session.principal(), "admin");
  EXPECT_THAT(session.token(), testing::StartsWith("vas_"));
  EXPECT_EQ(session.expires_at().seconds(), absl::ToUnixSeconds(clock_.Now() + absl::Hours(1)));

  // The same ten calls through the session and then with the secret: the principal is read for
  // each call's role check either way, and once more for each Argon2id check of the secret.
  const auto reads_for_ten_calls = [&](absl::string_view credential) {
    const int before = credentials_->reads();
    for (int i = 0; i < 5; ++i) {
      std::string agent_id;
      EXPECT_TRUE(CreateAgent(credential, &agent_id).ok());
      const grpc::Status granted = Grant(credential, agent_id);
      EXPECT_TRUE(granted.ok()) << granted.error_message();
    }
    return credentials_->reads() - before;
  };
  const int by_session = reads_for_ten_calls(session.token());
  const int by_secret = reads_for_ten_calls(kTestAdminSecret);
  EXPECT_EQ(by_secret - by_session, 10) << "no Argon2id check after the first";
}

TEST_F(AdminSessionServiceTest, ASessionEndsAtItsTtlOnTheServersClock) {
  const v1::CreateSessionResponse session = Login(absl::Minutes(5));
  clock_.Advance(absl::Minutes(5) - absl::Seconds(1));
  EXPECT_TRUE(CreateAgent(session.token()).ok());
  clock_.Advance(absl::Seconds(1));
  const grpc::Status expired = CreateAgent(session.token());
  EXPECT_EQ(expired.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(expired.error_message(), HasSubstr("log in again"));
  EXPECT_THAT(expired.error_message(), Not(HasSubstr(session.token().substr(4, 8))));
}

TEST_F(AdminSessionServiceTest, ARevokedSessionIsRefusedOnItsNextCall) {
  const v1::CreateSessionResponse session = Login();
  const v1::CreateSessionResponse kept = Login();
  ASSERT_TRUE(CreateAgent(session.token()).ok());

  uint32_t revoked = 0;
  ASSERT_TRUE(Revoke(session.token(), {}, &revoked).ok());
  EXPECT_EQ(revoked, 1);
  EXPECT_EQ(CreateAgent(session.token()).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(CreateAgent(kept.token()).ok());

  v1::RevokeSessionRequest by_id;
  by_id.set_session_id(kept.session_id());
  ASSERT_TRUE(Revoke(kTestAdminSecret, by_id, &revoked).ok());
  EXPECT_EQ(revoked, 1);
  EXPECT_EQ(CreateAgent(kept.token()).error_code(), grpc::StatusCode::UNAUTHENTICATED);
}

// A session is bound to its principal as it is at each call, not as it was at login.
TEST_F(AdminSessionServiceTest, ASessionIsRefusedOnTheNextCallAfterItsPrincipalIsDisabled) {
  AddOperator("olga");
  const v1::CreateSessionResponse session = LoginAs("olga");
  ASSERT_TRUE(CreateAgent(session.token()).ok());

  v1::SetPrincipalEnabledRequest disable;
  disable.set_name("olga");
  disable.set_enabled(false);
  v1::SetPrincipalEnabledResponse disabled;
  ASSERT_TRUE(
      stub_->SetPrincipalEnabled(AdminCallContext(kTestAdminSecret).get(), disable, &disabled)
          .ok());

  const grpc::Status refused = CreateAgent(session.token());
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(refused.error_message(), HasSubstr("\"olga\" is disabled"));
  v1::ListAgentsResponse listed;
  EXPECT_EQ(stub_->ListAgents(AdminCallContext(session.token()).get(), {}, &listed).error_code(),
            grpc::StatusCode::PERMISSION_DENIED)
      << "a read too";
}

TEST_F(AdminSessionServiceTest, ASessionLosesARoleOnTheNextCallAfterItIsStripped) {
  AddOperator("olga");
  const v1::CreateSessionResponse session = LoginAs("olga");
  ASSERT_TRUE(CreateAgent(session.token()).ok());

  v1::SetPrincipalRolesRequest strip;
  strip.set_name("olga");
  strip.add_roles("auditor");
  v1::SetPrincipalRolesResponse stripped;
  ASSERT_TRUE(
      stub_->SetPrincipalRoles(AdminCallContext(kTestAdminSecret).get(), strip, &stripped).ok());

  const grpc::Status refused = CreateAgent(session.token());
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(refused.error_message(), HasSubstr("CreateAgent needs the role operator, issuer"));
  v1::ListAgentsResponse listed;
  EXPECT_TRUE(stub_->ListAgents(AdminCallContext(session.token()).get(), {}, &listed).ok())
      << "what its remaining role allows still works";
}

TEST_F(AdminSessionServiceTest, ASessionCannotCreateAnotherSession) {
  const v1::CreateSessionResponse session = Login();
  v1::CreateSessionResponse response;
  const grpc::Status status = stub_->CreateSession(AdminCallContext(session.token()).get(),
                                                   v1::CreateSessionRequest(), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(response.token().empty());
}

TEST_F(AdminSessionServiceTest, ABadTtlIsRefusedAndCreatesNothing) {
  v1::CreateSessionRequest request;
  request.mutable_ttl()->set_seconds(13 * 3600);
  v1::CreateSessionResponse response;
  EXPECT_EQ(stub_->CreateSession(AdminCallContext(kTestAdminSecret).get(), request, &response)
                .error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  request.mutable_ttl()->set_seconds(-1);
  EXPECT_EQ(stub_->CreateSession(AdminCallContext(kTestAdminSecret).get(), request, &response)
                .error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(response.token().empty());
}

TEST_F(AdminSessionServiceTest, ASessionTokenSentAsAnIdOrAResourceIsNeverQuoted) {
  const v1::CreateSessionResponse session = Login();
  std::string agent_id;
  ASSERT_TRUE(CreateAgent(session.token(), &agent_id).ok());

  v1::GetAgentRequest get;
  get.set_agent_id(session.token());
  v1::GetAgentResponse got;
  const grpc::Status by_id = stub_->GetAgent(AdminCallContext(session.token()).get(), get, &got);
  EXPECT_FALSE(by_id.ok());
  EXPECT_THAT(by_id.error_message(), Not(HasSubstr(session.token().substr(4))));

  v1::GrantPermissionRequest grant;
  grant.set_agent_id(agent_id);
  grant.mutable_permission()->set_resource(absl::StrCat("docs:", session.token(), ":**"));
  grant.mutable_permission()->add_actions("read");
  v1::GrantPermissionResponse granted;
  const grpc::Status by_resource =
      stub_->GrantPermission(AdminCallContext(session.token()).get(), grant, &granted);
  EXPECT_FALSE(by_resource.ok());
  EXPECT_THAT(by_resource.error_message(), Not(HasSubstr(session.token().substr(4))));
}

TEST_F(AdminSessionServiceTest, ASessionTokenNeverReachesTheSecretsCheck) {
  const std::string forged = "vas_" + std::string(43, 'x');
  EXPECT_EQ(CreateAgent(forged).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(credentials_->reads(), 0) << "no Argon2id slot spent on a session token";
}

TEST_F(AdminSessionServiceTest, WithoutSessionsConfiguredTheSessionCallsAreUnimplemented) {
  TearDown();
  Start(/*with_sessions=*/false, PeerUidPrincipals{});
  v1::CreateSessionResponse response;
  EXPECT_EQ(stub_
                ->CreateSession(AdminCallContext(kTestAdminSecret).get(),
                                v1::CreateSessionRequest(), &response)
                .error_code(),
            grpc::StatusCode::UNIMPLEMENTED);
}

// The mapping names this process's own uid, so a mapped call over a unix socket would pass; over
// TCP the peer is a host, never a uid.
TEST_F(AdminSessionServiceTest, OnTcpAPeerUidIsNeverMapped) {
  TearDown();
  Start(/*with_sessions=*/true, PeerUidPrincipals{{getuid(), "admin"}});
  EXPECT_EQ(CreateAgent("").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(CreateAgent(kTestAdminSecret).ok());
}

}  // namespace
}  // namespace verdict
