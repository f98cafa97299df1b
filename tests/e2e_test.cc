// End to end: the real verdictd binary, on a SQLite file seeded with deploy/demo-policy.json,
// called over a real gRPC channel.
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <fstream>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/grpc_probes.h"
#include "tests/verdictd_process.h"
#include "verdict/v1/admin.grpc.pb.h"
#include "verdict/v1/decision.grpc.pb.h"

namespace verdict {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// From deploy/demo-policy.json.
constexpr char kReader[] = "agt_demo_reader";
constexpr char kAssistant[] = "agt_demo_assistant";
constexpr char kReaderToken[] = "vdt_M5hwIYE5vAXm0pPRBRsyIvcyYmg_pnll04u8cx7plPM";
constexpr int kSearchCallsPerMinute = 5;

v1::AuthorizeRequest Request(const std::string& agent_id, const std::string& action,
                             const std::string& resource) {
  v1::AuthorizeRequest request;
  request.mutable_subject()->set_agent_id(agent_id);
  request.set_action(action);
  request.set_resource(resource);
  return request;
}

std::unique_ptr<grpc::ClientContext> ContextWithDeadline() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  return context;
}

// The start of the rate-limit window (60 s) that holds now.
int64_t CurrentMinute() { return absl::ToUnixSeconds(absl::Now()) / 60; }

class EndToEndTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_path_ = TestDirectory(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
               "/verdict.db";
    absl::StatusOr<std::unique_ptr<VerdictdProcess>> server = VerdictdProcess::Start(
        {"--db=" + db_path_, "--seed=" + RunfilePath("deploy/demo-policy.json")});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    channel_ = grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials());
    stub_ = v1::DecisionService::NewStub(channel_);
  }

  absl::StatusOr<v1::AuthorizeResponse> Authorize(const v1::AuthorizeRequest& request) {
    v1::AuthorizeResponse response;
    const grpc::Status status = stub_->Authorize(ContextWithDeadline().get(), request, &response);
    if (!status.ok()) {
      // An error never carries a decision.
      EXPECT_EQ(response.verdict(), v1::VERDICT_UNSPECIFIED);
      return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                          status.error_message());
    }
    return response;
  }

  std::string db_path_;
  std::unique_ptr<VerdictdProcess> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::DecisionService::Stub> stub_;
};

TEST_F(EndToEndTest, AllowsWhatThePolicyGrants) {
  v1::AuthorizeRequest request = Request(kReader, "read", "docs:guide:1");
  request.mutable_context()->set_request_id("req-e2e-1");
  absl::StatusOr<v1::AuthorizeResponse> decision = Authorize(request);
  ASSERT_TRUE(decision.ok()) << decision.status();
  EXPECT_EQ(decision->verdict(), v1::VERDICT_ALLOW);
  EXPECT_EQ(decision->reason(), v1::REASON_CODE_ALLOWED);
  EXPECT_EQ(decision->agent_id(), kReader);
  EXPECT_EQ(decision->matched_grant().permission_id(), "perm_demo_docs_read");
  EXPECT_EQ(decision->request_id(), "req-e2e-1");
}

TEST_F(EndToEndTest, DenyOverridesAllow) {
  absl::StatusOr<v1::AuthorizeResponse> decision =
      Authorize(Request(kReader, "read", "docs:secret:plans"));
  ASSERT_TRUE(decision.ok()) << decision.status();
  EXPECT_EQ(decision->verdict(), v1::VERDICT_DENY);
  EXPECT_EQ(decision->reason(), v1::REASON_CODE_DENIED_BY_POLICY);
  EXPECT_EQ(decision->matched_grant().permission_id(), "perm_demo_secret_deny");
}

TEST_F(EndToEndTest, NothingMatchingIsADeny) {
  absl::StatusOr<v1::AuthorizeResponse> decision =
      Authorize(Request(kReader, "delete", "docs:guide:1"));
  ASSERT_TRUE(decision.ok()) << decision.status();
  EXPECT_EQ(decision->verdict(), v1::VERDICT_DENY);
  EXPECT_EQ(decision->reason(), v1::REASON_CODE_NO_MATCHING_PERMISSION);

  decision = Authorize(Request("agt_nobody", "read", "docs:guide:1"));
  ASSERT_TRUE(decision.ok()) << decision.status();
  EXPECT_EQ(decision->reason(), v1::REASON_CODE_AGENT_NOT_FOUND);
}

TEST_F(EndToEndTest, TokenSubjectDecidesAsItsAgent) {
  v1::AuthorizeRequest request = Request("", "read", "docs:guide:1");
  request.mutable_subject()->set_token(kReaderToken);
  absl::StatusOr<v1::AuthorizeResponse> decision = Authorize(request);
  ASSERT_TRUE(decision.ok()) << decision.status();
  EXPECT_EQ(decision->verdict(), v1::VERDICT_ALLOW);
  EXPECT_EQ(decision->agent_id(), kReader);
}

TEST_F(EndToEndTest, DelegateHoldsOnlyWhatWasLent) {
  absl::StatusOr<v1::AuthorizeResponse> lent =
      Authorize(Request(kAssistant, "read", "docs:guide:intro"));
  ASSERT_TRUE(lent.ok()) << lent.status();
  EXPECT_EQ(lent->verdict(), v1::VERDICT_ALLOW);
  EXPECT_EQ(lent->matched_grant().owner_agent_id(), kReader);
  ASSERT_EQ(lent->delegation_path_size(), 1);
  EXPECT_EQ(lent->delegation_path(0).delegation_id(), "dlg_demo_reader_to_assistant");

  absl::StatusOr<v1::AuthorizeResponse> not_lent =
      Authorize(Request(kAssistant, "read", "docs:handbook:1"));
  ASSERT_TRUE(not_lent.ok()) << not_lent.status();
  EXPECT_EQ(not_lent->verdict(), v1::VERDICT_DENY);
  EXPECT_EQ(not_lent->reason(), v1::REASON_CODE_NO_MATCHING_PERMISSION);
}

TEST_F(EndToEndTest, RateLimitRefusesTheCallPastTheLimit) {
  // A window boundary in the middle would reset the count: start over in the new window.
  for (int attempt = 0; attempt < 2; ++attempt) {
    const int64_t minute = CurrentMinute();
    std::vector<v1::ReasonCode> reasons;
    for (int call = 0; call <= kSearchCallsPerMinute; ++call) {
      absl::StatusOr<v1::AuthorizeResponse> decision =
          Authorize(Request(kReader, "query", "search:web"));
      ASSERT_TRUE(decision.ok()) << decision.status();
      reasons.push_back(decision->reason());
    }
    if (CurrentMinute() != minute) continue;
    EXPECT_THAT(reasons, ElementsAre(v1::REASON_CODE_ALLOWED, v1::REASON_CODE_ALLOWED,
                                     v1::REASON_CODE_ALLOWED, v1::REASON_CODE_ALLOWED,
                                     v1::REASON_CODE_ALLOWED, v1::REASON_CODE_RATE_LIMITED));
    return;
  }
  FAIL() << "crossed a minute boundary twice";
}

TEST_F(EndToEndTest, ApprovalGateOpensOneRequestPerCall) {
  absl::StatusOr<v1::AuthorizeResponse> first =
      Authorize(Request(kReader, "publish", "docs:guide:1"));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->verdict(), v1::VERDICT_NEEDS_APPROVAL);
  EXPECT_EQ(first->reason(), v1::REASON_CODE_APPROVAL_REQUIRED);
  EXPECT_THAT(first->approval_request_id(), HasSubstr("apr_"));

  absl::StatusOr<v1::AuthorizeResponse> again =
      Authorize(Request(kReader, "publish", "docs:guide:1"));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->verdict(), v1::VERDICT_NEEDS_APPROVAL);
  EXPECT_EQ(again->approval_request_id(), first->approval_request_id());
}

TEST_F(EndToEndTest, BatchAnswersEveryCheckInOrder) {
  v1::BatchAuthorizeRequest batch;
  batch.mutable_subject()->set_agent_id(kReader);
  for (const auto& [action, resource] : std::vector<std::pair<std::string, std::string>>{
           {"read", "docs:guide:1"}, {"read", "docs:secret:1"}, {"write", "docs:guide:1"}}) {
    v1::BatchCheck* check = batch.add_checks();
    check->set_action(action);
    check->set_resource(resource);
  }
  v1::BatchAuthorizeResponse response;
  const grpc::Status status = stub_->BatchAuthorize(ContextWithDeadline().get(), batch, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.results_size(), 3);
  EXPECT_EQ(response.results(0).reason(), v1::REASON_CODE_ALLOWED);
  EXPECT_EQ(response.results(1).reason(), v1::REASON_CODE_DENIED_BY_POLICY);
  EXPECT_EQ(response.results(2).reason(), v1::REASON_CODE_NO_MATCHING_PERMISSION);
}

TEST_F(EndToEndTest, ValidateTokenNamesTheAgentAndItsPermissions) {
  v1::ValidateTokenRequest request;
  request.set_token(kReaderToken);
  v1::ValidateTokenResponse response;
  grpc::Status status = stub_->ValidateToken(ContextWithDeadline().get(), request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(response.valid());
  EXPECT_EQ(response.reason(), v1::REASON_CODE_ALLOWED);
  EXPECT_EQ(response.agent().id(), kReader);
  EXPECT_EQ(response.agent().status(), v1::AGENT_STATUS_ACTIVE);
  std::vector<std::string> permission_ids;
  for (const v1::EffectivePermission& permission : response.permissions()) {
    permission_ids.push_back(permission.grant().permission_id());
  }
  EXPECT_THAT(permission_ids, Contains("perm_demo_docs_read"));

  // A well-formed token nobody holds: an answer, not an error.
  request.set_token("vdt_" + std::string(43, 'A'));
  status = stub_->ValidateToken(ContextWithDeadline().get(), request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_FALSE(response.valid());
  EXPECT_EQ(response.reason(), v1::REASON_CODE_TOKEN_INVALID);
  EXPECT_FALSE(response.has_agent());
}

TEST_F(EndToEndTest, SimulateExplainsAndSpendsNothing) {
  v1::SimulateRequest simulate;
  *simulate.mutable_request() = Request(kReader, "query", "search:web");
  for (int call = 0; call < 2 * kSearchCallsPerMinute; ++call) {
    v1::SimulateResponse simulation;
    const grpc::Status status = stub_->Simulate(ContextWithDeadline().get(), simulate, &simulation);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(simulation.decision().verdict(), v1::VERDICT_ALLOW);
    EXPECT_GT(simulation.trace().stages_size(), 0);
    EXPECT_GT(simulation.trace().grants_size(), 0);
  }
  // Had the simulations spent quota, the limit would be long gone.
  absl::StatusOr<v1::AuthorizeResponse> decision =
      Authorize(Request(kReader, "query", "search:web"));
  ASSERT_TRUE(decision.ok()) << decision.status();
  EXPECT_EQ(decision->verdict(), v1::VERDICT_ALLOW);
}

TEST_F(EndToEndTest, SimulateWhatIfChangesOnlyTheSimulation) {
  v1::SimulateRequest simulate;
  *simulate.mutable_request() = Request(kReader, "read", "wiki:home");
  v1::PermissionSpec* extra = simulate.mutable_what_if()->add_extra_permissions();
  extra->set_resource("wiki:*");
  extra->add_actions("read");
  extra->set_effect(v1::EFFECT_ALLOW);
  v1::SimulateResponse simulation;
  const grpc::Status status = stub_->Simulate(ContextWithDeadline().get(), simulate, &simulation);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(simulation.decision().verdict(), v1::VERDICT_ALLOW);

  absl::StatusOr<v1::AuthorizeResponse> decision = Authorize(Request(kReader, "read", "wiki:home"));
  ASSERT_TRUE(decision.ok()) << decision.status();
  EXPECT_EQ(decision->verdict(), v1::VERDICT_DENY);
}

TEST_F(EndToEndTest, HealthIsServingForTheServerAndTheDecisionService) {
  for (const std::string service : {"", "verdict.v1.DecisionService"}) {
    absl::StatusOr<HealthStatus> health = CheckHealth(channel_, service);
    ASSERT_TRUE(health.ok()) << health.status();
    EXPECT_EQ(*health, HealthStatus::kServing) << "service '" << service << "'";
  }
  EXPECT_EQ(CheckHealth(channel_, "no.such.Service").status().code(), absl::StatusCode::kNotFound);
}

// The admin plane runs beside the decisions, on its own socket (under /tmp: verdictd's default,
// next to the database in TEST_TMPDIR, is longer than a socket's path may be in Bazel's sandbox,
// and verdictd would then serve with no admin listener). It answers there, and refuses a caller
// that brings no admin credential; the decision port does not serve it.
TEST_F(EndToEndTest, TheAdminServiceAnswersOnItsOwnSocketOnly) {
  ASSERT_THAT(server_->admin_address(), StartsWith("unix:/tmp/"));
  auto admin = v1::AdminService::NewStub(
      grpc::CreateChannel(server_->admin_address(), grpc::InsecureChannelCredentials()));
  v1::ListAgentsResponse agents;
  grpc::Status status =
      admin->ListAgents(ContextWithDeadline().get(), v1::ListAgentsRequest(), &agents);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("missing admin credential"));

  status = v1::AdminService::NewStub(channel_)->ListAgents(ContextWithDeadline().get(),
                                                           v1::ListAgentsRequest(), &agents);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNIMPLEMENTED) << status.error_message();
}

TEST_F(EndToEndTest, ReflectionListsTheServices) {
  absl::StatusOr<std::vector<std::string>> services = ListServicesByReflection(channel_);
  ASSERT_TRUE(services.ok()) << services.status();
  EXPECT_THAT(*services, Contains("verdict.v1.DecisionService"));
  EXPECT_THAT(*services, Contains("grpc.health.v1.Health"));
}

TEST_F(EndToEndTest, MalformedRequestsAreInvalidArgument) {
  struct Case {
    const char* name;
    v1::AuthorizeRequest request;
  };
  std::vector<Case> cases = {
      {"empty action", Request(kReader, "", "docs:guide:1")},
      {"invalid UTF-8 in the resource", Request(kReader, "read", "docs:\xc3\x28")},
      {"control character in the resource", Request(kReader, "read", "docs:\x01guide")},
      {"newline in the resource", Request(kReader, "read", "docs:guide\n1")},
      {"oversized resource", Request(kReader, "read", "docs:" + std::string(5000, 'a'))},
      {"oversized action", Request(kReader, std::string(1000, 'r'), "docs:guide:1")},
      {"malformed token", Request("", "read", "docs:guide:1")},
      {"token with the wrong prefix", Request("", "read", "docs:guide:1")},
      {"no subject", Request(kReader, "read", "docs:guide:1")},
      {"agent id with a space", Request("agt demo", "read", "docs:guide:1")},
      {"arguments not an object", Request(kReader, "read", "docs:guide:1")},
      {"client ip not an address", Request(kReader, "read", "docs:guide:1")},
  };
  cases[6].request.mutable_subject()->set_token("vdt_tooshort");
  cases[7].request.mutable_subject()->set_token("xyz_" + std::string(43, 'A'));
  cases[8].request.clear_subject();
  cases[10].request.mutable_context()->set_arguments_json("[1,2]");
  cases[11].request.mutable_context()->set_client_ip("10.0.0.256");
  for (const Case& c : cases) {
    absl::StatusOr<v1::AuthorizeResponse> decision = Authorize(c.request);
    EXPECT_EQ(decision.status().code(), absl::StatusCode::kInvalidArgument)
        << c.name << ": " << decision.status();
    EXPECT_FALSE(decision.status().message().empty()) << c.name;
  }
}

TEST_F(EndToEndTest, MessageOverTheSizeLimitIsRefused) {
  v1::AuthorizeRequest request = Request(kReader, "read", "docs:guide:1");
  request.mutable_context()->set_arguments_json(
      absl::StrCat(R"({"blob":")", std::string(5 << 20, 'x'), R"("})"));
  EXPECT_EQ(Authorize(request).status().code(), absl::StatusCode::kResourceExhausted);
  // The server is still there for everyone else.
  absl::StatusOr<v1::AuthorizeResponse> decision = Authorize(Request(kReader, "read", "docs:1"));
  ASSERT_TRUE(decision.ok()) << decision.status();
  EXPECT_EQ(decision->verdict(), v1::VERDICT_ALLOW);
}

// A write lock held by another connection makes a rate-limited call (which must write its slot)
// wait inside the server: a call in flight for as long as the test holds the lock.
class WriteLock {
 public:
  explicit WriteLock(const std::string& db_path) {
    EXPECT_EQ(sqlite3_open(db_path.c_str(), &db_), SQLITE_OK);
    // verdictd's own background writers (pruning, the decision log) may hold the lock for a
    // moment just after start; wait for them rather than fail to take it.
    sqlite3_busy_timeout(db_, 10000);
    EXPECT_EQ(sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db_);
  }
  ~WriteLock() { sqlite3_close(db_); }
  void Release() { EXPECT_EQ(sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr), SQLITE_OK); }

 private:
  sqlite3* db_ = nullptr;
};

TEST_F(EndToEndTest, SigtermLetsCallsInFlightFinishAndExitsZero) {
  WriteLock lock(db_path_);
  std::future<absl::StatusOr<v1::AuthorizeResponse>> in_flight = std::async(
      std::launch::async, [this] { return Authorize(Request(kReader, "query", "search:web")); });
  // The call reaches the server and waits there for the lock.
  EXPECT_EQ(in_flight.wait_for(std::chrono::milliseconds(500)), std::future_status::timeout);

  server_->Signal(SIGTERM);
  // verdictd drains for 1 s first (health NOT_SERVING, calls still served), then stops taking
  // calls: soon a fresh connection finds nobody listening, or is refused. How soon depends on
  // the machine's load, so the test waits for it (bounded) rather than for a fixed time.
  grpc::Status late;
  v1::AuthorizeResponse late_response;
  const absl::Time give_up = absl::Now() + absl::Seconds(10);
  do {
    absl::SleepFor(absl::Milliseconds(100));
    auto late_channel = grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials());
    grpc::ClientContext late_context;
    late_context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
    late_response.Clear();
    late = v1::DecisionService::NewStub(late_channel)
               ->Authorize(&late_context, Request(kReader, "read", "docs:guide:1"), &late_response);
  } while (late.ok() && absl::Now() < give_up);
  EXPECT_FALSE(late.ok());
  EXPECT_NE(late_response.verdict(), v1::VERDICT_ALLOW);
  // The call that was in flight all along was not cut off by the shutdown.
  EXPECT_EQ(in_flight.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);

  lock.Release();
  absl::StatusOr<v1::AuthorizeResponse> finished = in_flight.get();
  ASSERT_TRUE(finished.ok()) << finished.status();
  EXPECT_EQ(finished->verdict(), v1::VERDICT_ALLOW);

  absl::StatusOr<int> exit_code = server_->AwaitExit(absl::Seconds(15));
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  EXPECT_EQ(*exit_code, 0);
}

TEST_F(EndToEndTest, SigintStopsLikeSigterm) {
  server_->Signal(SIGINT);
  absl::StatusOr<int> exit_code = server_->AwaitExit(absl::Seconds(15));
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  EXPECT_EQ(*exit_code, 0);
}

TEST(EndToEndUnixSocketTest, ServesOnAUnixSocket) {
  // Socket paths are limited to about 100 bytes: TEST_TMPDIR can be longer.
  char directory[] = "/tmp/verdict-e2e-XXXXXX";
  ASSERT_NE(mkdtemp(directory), nullptr);
  const std::string socket = absl::StrCat("unix:", directory, "/verdictd.sock");
  absl::StatusOr<std::unique_ptr<VerdictdProcess>> server =
      VerdictdProcess::Start({"--listen=" + socket, "--db=" + TestDirectory("unix") + "/verdict.db",
                              "--seed=" + RunfilePath("deploy/demo-policy.json")});
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_EQ((*server)->address(), socket);

  {
    auto stub = v1::DecisionService::NewStub(
        grpc::CreateChannel(socket, grpc::InsecureChannelCredentials()));
    v1::AuthorizeResponse response;
    const grpc::Status status =
        stub->Authorize(ContextWithDeadline().get(), Request(kReader, "read", "docs:1"), &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(response.verdict(), v1::VERDICT_ALLOW);
  }  // Closes the connection: an idle client holds a stop for a few seconds (see verdictd.cc).

  (*server)->Signal(SIGTERM);
  EXPECT_EQ((*server)->AwaitExit(absl::Seconds(15)).value_or(-1), 0);
  const std::string socket_path = socket.substr(5);
  unlink(socket_path.c_str());
  rmdir(directory);
}

TEST(EndToEndStartupTest, BadFlagsOrSeedStopTheStart) {
  const std::string directory = TestDirectory("startup");
  const std::string verdictd = RunfilePath("server/verdictd");
  const std::string bad_seed = directory + "/bad-seed.json";
  std::ofstream(bad_seed) << R"({"version": 1, "agents": [{"id": "agt_x", "kind": "robot"}]})";
  struct Case {
    const char* name;
    std::vector<std::string> argv;
    int exit_code;
  };
  const Case cases[] = {
      {"zero workers", {verdictd, "--workers=0", "--db=" + directory + "/a.db"}, 2},
      {"listen without a port", {verdictd, "--listen=127.0.0.1", "--db=" + directory + "/b.db"}, 2},
      {"seed file missing",
       {verdictd, "--seed=" + directory + "/missing.json", "--db=" + directory + "/c.db"},
       2},
      {"seed not a policy",
       {verdictd, "--listen=127.0.0.1:0", "--seed=" + bad_seed, "--db=" + directory + "/d.db"},
       1},
  };
  for (const Case& c : cases) {
    absl::StatusOr<int> exit_code = RunToCompletion(c.argv);
    ASSERT_TRUE(exit_code.ok()) << c.name << ": " << exit_code.status();
    EXPECT_EQ(*exit_code, c.exit_code) << c.name;
  }
}

}  // namespace
}  // namespace verdict
