// The freshness contract across nodes (issue 8, design section 3): two verdictd processes, as
// two sidecars on two nodes, share one PostgreSQL database. The operator revokes through one
// sidecar's AdminService while both keep answering; the next call through either sidecar is
// denied, with the right reason, and no call after the first denial is allowed. Both write the
// decision log, which stays one intact chain.
// Skipped without VERDICT_TEST_POSTGRES_URL (scripts/test.d/postgres.sh sets it).
#include <grpcpp/grpcpp.h>

#include <csignal>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "store/postgres/postgres_test_support.h"
#include "tests/decision_traffic.h"
#include "tests/verdictd_process.h"
#include "verdict/v1/admin.grpc.pb.h"
#include "verdict/v1/decision.grpc.pb.h"

namespace verdict {
namespace {

constexpr char kAdminSecret[] = "across-nodes-admin-secret-0123";

// Every right here is taken away by one round of the test.
constexpr char kPolicy[] = R"json({
  "version": 1,
  "agents": [
    {"id": "agt_nodes_revoked", "owner": "tests", "name": "revoked", "kind": "autonomous",
     "status": "active"},
    {"id": "agt_nodes_suspended", "owner": "tests", "name": "suspended", "kind": "autonomous",
     "status": "active"},
    {"id": "agt_nodes_grantee", "owner": "tests", "name": "loses its permission",
     "kind": "service", "status": "active"},
    {"id": "agt_nodes_lender", "owner": "tests", "name": "lends", "kind": "autonomous",
     "status": "active"},
    {"id": "agt_nodes_borrower", "owner": "tests", "name": "borrows", "kind": "delegated",
     "status": "active"}
  ],
  "permissions": [
    {"id": "perm_nodes_revoked", "agent_id": "agt_nodes_revoked", "resource": "docs:*",
     "actions": ["read"], "effect": "allow"},
    {"id": "perm_nodes_suspended", "agent_id": "agt_nodes_suspended", "resource": "docs:*",
     "actions": ["read"], "effect": "allow"},
    {"id": "perm_nodes_grantee", "agent_id": "agt_nodes_grantee", "resource": "docs:*",
     "actions": ["read"], "effect": "allow"},
    {"id": "perm_nodes_lender", "agent_id": "agt_nodes_lender", "resource": "docs:*",
     "actions": ["read"], "effect": "allow"}
  ],
  "delegations": [
    {"id": "dlg_nodes_lend", "from_agent_id": "agt_nodes_lender",
     "to_agent_id": "agt_nodes_borrower",
     "permissions": [{"resource": "docs:*", "actions": ["read"]}],
     "max_depth": 1, "status": "active"}
  ]
})json";

struct Revocation {
  const char* what;
  std::string subject;  // who loses the right
  std::function<grpc::Status(v1::AdminService::Stub&, grpc::ClientContext*)> revoke;
  v1::ReasonCode reason;
};

std::unique_ptr<grpc::ClientContext> AdminContext() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->AddMetadata("authorization", absl::StrCat("Bearer ", kAdminSecret));
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  return context;
}

TEST(PostgresAcrossNodesTest, RevocationThroughOneSidecarDeniesTheNextCallOnEverySidecar) {
  if (TestPostgresUrl().empty()) GTEST_SKIP() << kNoPostgresMessage;
  absl::StatusOr<PostgresTestSchema> schema = PostgresTestSchema::Create();
  ASSERT_TRUE(schema.ok()) << schema.status();
  const std::string directory = TestDirectory("across_nodes");
  const std::string seed = directory + "/policy.json";
  std::ofstream(seed) << kPolicy;
  const std::string secret_file = directory + "/admin-secret";
  std::ofstream(secret_file) << kAdminSecret << "\n";
  // The admin socket's directory, removed once the sidecars (declared after) are gone.
  const ShortTempDirectory sockets("nodes");
  ASSERT_FALSE(sockets.path().empty());
  const std::string admin_address = "unix:" + sockets.path() + "/admin.sock";

  // Two sidecars on one database: each its own process, pool and prepared statements. The
  // first serves AdminService and sets the admin credential in the database; both log.
  std::vector<std::unique_ptr<VerdictdProcess>> sidecars;
  for (int node = 0; node < 2; ++node) {
    std::vector<std::string> flags = {"--db=" + schema->conninfo(), "--seed=" + seed,
                                      "--decision_log"};
    if (node == 0) {
      flags.insert(flags.end(),
                   {"--admin_listen=" + admin_address, "--admin_secret_file=" + secret_file,
                    "--test_only_weak_admin_hash"});
    } else {
      flags.push_back("--admin_listen=off");
    }
    absl::StatusOr<std::unique_ptr<VerdictdProcess>> sidecar = VerdictdProcess::Start(flags);
    ASSERT_TRUE(sidecar.ok()) << sidecar.status();
    sidecars.push_back(*std::move(sidecar));
  }
  std::vector<std::unique_ptr<v1::DecisionService::Stub>> stubs;
  for (const auto& sidecar : sidecars) {
    stubs.push_back(v1::DecisionService::NewStub(
        grpc::CreateChannel(sidecar->address(), grpc::InsecureChannelCredentials())));
  }

  // The operator revokes through the first sidecar's AdminService.
  std::unique_ptr<v1::AdminService::Stub> admin = v1::AdminService::NewStub(
      grpc::CreateChannel(admin_address, grpc::InsecureChannelCredentials()));

  const Revocation revocations[] = {
      {"agent revoked", "agt_nodes_revoked",
       [](v1::AdminService::Stub& stub, grpc::ClientContext* context) {
         v1::RevokeAgentRequest request;
         request.set_agent_id("agt_nodes_revoked");
         v1::RevokeAgentResponse response;
         return stub.RevokeAgent(context, request, &response);
       },
       v1::REASON_CODE_AGENT_REVOKED},
      {"agent suspended", "agt_nodes_suspended",
       [](v1::AdminService::Stub& stub, grpc::ClientContext* context) {
         v1::SuspendAgentRequest request;
         request.set_agent_id("agt_nodes_suspended");
         v1::SuspendAgentResponse response;
         return stub.SuspendAgent(context, request, &response);
       },
       v1::REASON_CODE_AGENT_SUSPENDED},
      {"permission revoked", "agt_nodes_grantee",
       [](v1::AdminService::Stub& stub, grpc::ClientContext* context) {
         v1::RevokePermissionRequest request;
         request.set_permission_id("perm_nodes_grantee");
         v1::RevokePermissionResponse response;
         return stub.RevokePermission(context, request, &response);
       },
       v1::REASON_CODE_NO_MATCHING_PERMISSION},
      {"delegation revoked", "agt_nodes_borrower",
       [](v1::AdminService::Stub& stub, grpc::ClientContext* context) {
         v1::RevokeDelegationRequest request;
         request.set_delegation_id("dlg_nodes_lend");
         v1::RevokeDelegationResponse response;
         return stub.RevokeDelegation(context, request, &response);
       },
       v1::REASON_CODE_NO_MATCHING_PERMISSION},
  };
  for (const Revocation& revocation : revocations) {
    SCOPED_TRACE(revocation.what);
    for (auto& stub : stubs)
      ASSERT_EQ(DecideReadDocs(*stub, revocation.subject).verdict(), v1::VERDICT_ALLOW);

    // Both sidecars keep answering while the revocation commits.
    std::vector<std::unique_ptr<DecisionTraffic>> traffic;
    for (auto& stub : stubs)
      traffic.push_back(std::make_unique<DecisionTraffic>(*stub, revocation.subject));
    for (auto& flow : traffic) flow->AwaitCalls(3);
    const grpc::Status revoked = revocation.revoke(*admin, AdminContext().get());
    ASSERT_TRUE(revoked.ok()) << revoked.error_message();

    for (auto& stub : stubs) {
      const v1::AuthorizeResponse next = DecideReadDocs(*stub, revocation.subject);
      EXPECT_EQ(next.verdict(), v1::VERDICT_DENY);
      EXPECT_EQ(next.reason(), revocation.reason) << next.message();
    }
    for (auto& flow : traffic) {
      flow->Stop();
      EXPECT_EQ(flow->errors(), 0) << "the sidecars kept answering throughout";
      EXPECT_EQ(flow->allows_after_deny(), 0);
    }
  }

  // Both sidecars wrote their decisions into one chain: stopping each flushes its log.
  for (auto& sidecar : sidecars) {
    sidecar->Signal(SIGTERM);
    ASSERT_TRUE(sidecar->AwaitExit(absl::Seconds(30)).ok());
  }
  const std::string tool_socket = "unix:" + sockets.path() + "/tool.sock";
  absl::StatusOr<std::unique_ptr<VerdictdProcess>> auditor =
      VerdictdProcess::Start({"--db=" + schema->conninfo(), "--admin_listen=" + tool_socket});
  ASSERT_TRUE(auditor.ok()) << auditor.status();
  std::unique_ptr<v1::AdminService::Stub> audit = v1::AdminService::NewStub(
      grpc::CreateChannel(tool_socket, grpc::InsecureChannelCredentials()));
  v1::VerifyDecisionLogResponse verified;
  const grpc::Status verify =
      audit->VerifyDecisionLog(AdminContext().get(), v1::VerifyDecisionLogRequest(), &verified);
  ASSERT_TRUE(verify.ok()) << verify.error_message();
  EXPECT_TRUE(verified.intact()) << verified.problem();
  EXPECT_GE(verified.rows_checked(), 4u * (2 + 2 * 3 + 2));
}

}  // namespace
}  // namespace verdict
