// The freshness contract across processes (design section 3): verdictd answers for an agent; a
// second process (tests/revoke_tool) commits a revocation to the same SQLite file while the
// server keeps answering; the first call after the tool exits is denied, with the right reason.
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tests/verdictd_process.h"
#include "verdict/v1/decision.grpc.pb.h"

namespace verdict {
namespace {

v1::AuthorizeRequest ReadDocs(const std::string& agent_id) {
  v1::AuthorizeRequest request;
  request.mutable_subject()->set_agent_id(agent_id);
  request.set_action("read");
  request.set_resource("docs:report:7");
  return request;
}

// One decision; a failed call comes back as an unspecified verdict and counts as an error.
v1::AuthorizeResponse Decide(v1::DecisionService::Stub& stub, const std::string& agent_id,
                             bool* failed = nullptr) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  v1::AuthorizeResponse response;
  const grpc::Status status = stub.Authorize(&context, ReadDocs(agent_id), &response);
  if (failed != nullptr) *failed = !status.ok();
  EXPECT_TRUE(status.ok()) << status.error_message();
  return response;
}

// Keeps asking for `agent_id` on its own thread while a revocation is committed elsewhere.
class BackgroundTraffic {
 public:
  BackgroundTraffic(v1::DecisionService::Stub& stub, std::string agent_id)
      : thread_([this, &stub, agent_id] {
          while (!stop_.load()) {
            bool failed = false;
            const v1::AuthorizeResponse response = Decide(stub, agent_id, &failed);
            ++calls_;
            if (failed) ++errors_;
            if (response.verdict() == v1::DENY) seen_deny_ = true;
            // Calls are sequential: once one has seen the revocation, every later one must.
            if (seen_deny_ && response.verdict() == v1::ALLOW) ++allows_after_deny_;
            absl::SleepFor(absl::Milliseconds(1));
          }
        }) {}

  // Waits until `count` calls have been answered, so traffic is flowing before the revoke.
  void AwaitCalls(int count) {
    while (calls_.load() < count) absl::SleepFor(absl::Milliseconds(1));
  }

  void Stop() {
    stop_ = true;
    thread_.join();
  }
  int errors() const { return errors_; }
  int allows_after_deny() const { return allows_after_deny_; }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<int> calls_{0};
  int errors_ = 0;
  bool seen_deny_ = false;
  int allows_after_deny_ = 0;
  std::thread thread_;  // last: starts once the counters exist
};

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
       v1::AGENT_REVOKED},
      {"agent suspended", "suspend-agent", "agt_fresh_suspended", "agt_fresh_suspended",
       v1::AGENT_SUSPENDED},
      {"permission revoked", "revoke-permission", "perm_fresh_grantee_docs", "agt_fresh_grantee",
       v1::NO_MATCHING_PERMISSION},
      {"delegation revoked", "revoke-delegation", "dlg_fresh_lend", "agt_fresh_borrower",
       v1::NO_MATCHING_PERMISSION},
      {"origin of a two-hop chain revoked", "revoke-agent", "agt_fresh_upstream",
       "agt_fresh_downstream", v1::NO_MATCHING_PERMISSION},
  };
  for (const Revocation& revocation : revocations) {
    SCOPED_TRACE(revocation.kind);
    ASSERT_EQ(Decide(*stub, revocation.subject).verdict(), v1::ALLOW);

    BackgroundTraffic traffic(*stub, revocation.subject);
    traffic.AwaitCalls(3);
    absl::StatusOr<int> tool_exit = RunToCompletion(
        {RunfilePath("tests/revoke_tool"), db_path, revocation.command, revocation.id});
    ASSERT_TRUE(tool_exit.ok()) << tool_exit.status();
    ASSERT_EQ(*tool_exit, 0);

    const v1::AuthorizeResponse next = Decide(*stub, revocation.subject);
    EXPECT_EQ(next.verdict(), v1::DENY);
    EXPECT_EQ(next.reason(), revocation.reason) << next.message();

    traffic.Stop();
    EXPECT_EQ(traffic.errors(), 0) << "the server kept answering throughout";
    EXPECT_EQ(traffic.allows_after_deny(), 0);
  }
}

}  // namespace
}  // namespace verdict
