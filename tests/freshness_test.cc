// The freshness contract across processes (design section 3): verdictd answers for an agent; a
// second process (tests/revoke_tool) commits a revocation to the same SQLite file while the
// server keeps answering; the first call after the tool exits is denied, with the right reason.
#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/decision_traffic.h"
#include "tests/verdictd_process.h"
#include "verdict/v1/decision.grpc.pb.h"

namespace verdict {
namespace {

struct Revocation {
  const char* kind;
  std::string command;  // revoke_tool's
  std::string id;
  std::string subject;  // who loses the right
  v1::ReasonCode reason;
};

TEST(FreshnessTest, RevocationByAnotherProcessDeniesTheNextCall) {
  const std::string db_path = TestDirectory("freshness") + "/verdict.db";
  absl::StatusOr<std::unique_ptr<VerdictdProcess>> server = VerdictdProcess::Start(
      {"--db=" + db_path, "--seed=" + RunfilePath("tests/testdata/freshness-policy.json")});
  ASSERT_TRUE(server.ok()) << server.status();
  auto stub = v1::DecisionService::NewStub(
      grpc::CreateChannel((*server)->address(), grpc::InsecureChannelCredentials()));

  // From tests/testdata/freshness-policy.json: each round takes a different right away.
  const Revocation revocations[] = {
      {"agent revoked", "revoke-agent", "agt_fresh_revoked", "agt_fresh_revoked",
       v1::REASON_CODE_AGENT_REVOKED},
      {"agent suspended", "suspend-agent", "agt_fresh_suspended", "agt_fresh_suspended",
       v1::REASON_CODE_AGENT_SUSPENDED},
      {"permission revoked", "revoke-permission", "perm_fresh_grantee_docs", "agt_fresh_grantee",
       v1::REASON_CODE_NO_MATCHING_PERMISSION},
      {"delegation revoked", "revoke-delegation", "dlg_fresh_lend", "agt_fresh_borrower",
       v1::REASON_CODE_NO_MATCHING_PERMISSION},
      {"origin of a two-hop chain revoked", "revoke-agent", "agt_fresh_upstream",
       "agt_fresh_downstream", v1::REASON_CODE_NO_MATCHING_PERMISSION},
  };
  for (const Revocation& revocation : revocations) {
    SCOPED_TRACE(revocation.kind);
    ASSERT_EQ(DecideReadDocs(*stub, revocation.subject).verdict(), v1::VERDICT_ALLOW);

    DecisionTraffic traffic(*stub, revocation.subject, absl::Milliseconds(1));
    traffic.AwaitCalls(3);
    absl::StatusOr<int> tool_exit = RunToCompletion(
        {RunfilePath("tests/revoke_tool"), db_path, revocation.command, revocation.id});
    ASSERT_TRUE(tool_exit.ok()) << tool_exit.status();
    ASSERT_EQ(*tool_exit, 0);

    const v1::AuthorizeResponse next = DecideReadDocs(*stub, revocation.subject);
    EXPECT_EQ(next.verdict(), v1::VERDICT_DENY);
    EXPECT_EQ(next.reason(), revocation.reason) << next.message();

    traffic.Stop();
    EXPECT_EQ(traffic.errors(), 0) << "the server kept answering throughout";
    EXPECT_EQ(traffic.allows_after_deny(), 0);
  }
}

}  // namespace
}  // namespace verdict
