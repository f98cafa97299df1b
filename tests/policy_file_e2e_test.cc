// verdictd --policy_file end to end (issue 19 item 3): a bad file stops the start; a ConfigMap
// swap is applied and the next Authorize follows it; a bad file later is refused while the
// previous policy keeps serving.
#include <grpcpp/grpcpp.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/verdict/v1/decision.grpc.pb.h"
#include "tests/verdictd_process.h"

namespace verdict {
namespace {

constexpr char kPolicy[] = R"(version: 1
name: e2e
agents:
  - {id: agt_e2e, owner: alice, name: reader}
permissions:
  - {id: perm_e2e, agent_id: agt_e2e, resource: "docs:*", actions: [read]}
)";

// A ConfigMap volume's layout: policy.yaml -> ..data/policy.yaml, ..data -> ..vN, swapped as
// the kubelet swaps it.
class ConfigMap {
 public:
  explicit ConfigMap(const std::string& name)
      : dir_(absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name)) {
    mkdir(dir_.c_str(), 0700);
  }
  void Publish(const std::string& content) {
    const std::string version = absl::StrCat("..v", ++versions_);
    mkdir(absl::StrCat(dir_, "/", version).c_str(), 0700);
    std::ofstream(absl::StrCat(dir_, "/", version, "/policy.yaml")) << content;
    const std::string tmp = absl::StrCat(dir_, "/..data_tmp");
    ASSERT_EQ(symlink(version.c_str(), tmp.c_str()), 0);
    ASSERT_EQ(rename(tmp.c_str(), absl::StrCat(dir_, "/..data").c_str()), 0);
    if (versions_ == 1) {
      ASSERT_EQ(symlink("..data/policy.yaml", path().c_str()), 0);
    }
  }
  std::string path() const { return absl::StrCat(dir_, "/policy.yaml"); }
  std::string dir() const { return dir_; }

 private:
  std::string dir_;
  int versions_ = 0;
};

v1::Verdict Authorize(const std::string& address, const std::string& action) {
  auto stub = v1::DecisionService::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  v1::AuthorizeRequest request;
  request.mutable_subject()->set_agent_id("agt_e2e");
  request.set_action(action);
  request.set_resource("docs:1");
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  v1::AuthorizeResponse response;
  EXPECT_TRUE(stub->Authorize(&context, request, &response).ok());
  return response.verdict();
}

TEST(PolicyFileE2eTest, ABadFileStopsTheStart) {
  ConfigMap files("bad-start");
  files.Publish(absl::StrReplaceAll(kPolicy, {{"[read]", "[]"}}));
  absl::StatusOr<int> exit_code =
      RunToCompletion({RunfilePath("server/verdictd"), "--listen=127.0.0.1:0",
                       "--db=" + files.dir() + "/verdict.db", "--admin_listen=off",
                       "--policy_file=" + files.path()});
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  EXPECT_EQ(*exit_code, 1);
}

TEST(PolicyFileE2eTest, AConfigMapSwapIsAppliedAndABadOneKeepsThePreviousPolicy) {
  ConfigMap files("swap");
  files.Publish(kPolicy);
  absl::StatusOr<std::unique_ptr<VerdictdProcess>> server = VerdictdProcess::Start(
      {"--db=" + files.dir() + "/verdict.db", "--policy_file=" + files.path()});
  ASSERT_TRUE(server.ok()) << server.status();
  VerdictdProcess& verdictd = **server;
  EXPECT_EQ(Authorize(verdictd.address(), "read"), v1::VERDICT_ALLOW);
  EXPECT_NE(Authorize(verdictd.address(), "write"), v1::VERDICT_ALLOW);

  files.Publish(absl::StrReplaceAll(kPolicy, {{"[read]", "[write]"}}));
  ASSERT_TRUE(verdictd.AwaitLogged("applied policy \"e2e\"", 2, absl::Seconds(30)))
      << verdictd.Logged();
  EXPECT_EQ(Authorize(verdictd.address(), "write"), v1::VERDICT_ALLOW);
  EXPECT_NE(Authorize(verdictd.address(), "read"), v1::VERDICT_ALLOW);

  files.Publish(absl::StrReplaceAll(kPolicy, {{"owner: alice", "owner: [x]"}}));
  ASSERT_TRUE(
      verdictd.AwaitLogged("refused; the previous policy keeps serving", 1, absl::Seconds(30)))
      << verdictd.Logged();
  EXPECT_THAT(verdictd.Logged(), ::testing::HasSubstr("policy.yaml:4: agents[0].owner"));
  EXPECT_EQ(Authorize(verdictd.address(), "write"), v1::VERDICT_ALLOW);

  verdictd.Signal(SIGTERM);
  absl::StatusOr<int> exit_code = verdictd.AwaitExit(absl::Seconds(20));
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  EXPECT_EQ(*exit_code, 0);
}

}  // namespace
}  // namespace verdict
