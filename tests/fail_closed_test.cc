// Fail closed (design section 2): a database verdictd cannot open makes every decision call
// UNAVAILABLE, never an ALLOW, and health NOT_SERVING; it serves once the database can be used.
#include <grpcpp/grpcpp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tests/grpc_probes.h"
#include "tests/verdictd_process.h"
#include "verdict/v1/decision.grpc.pb.h"

namespace verdict {
namespace {

constexpr char kReader[] = "agt_demo_reader";  // deploy/demo-policy.json

std::unique_ptr<grpc::ClientContext> ContextWithDeadline() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  return context;
}

v1::AuthorizeRequest ReaderReadsTheGuide() {
  v1::AuthorizeRequest request;
  request.mutable_subject()->set_agent_id(kReader);
  request.set_action("read");
  request.set_resource("docs:guide:1");
  return request;
}

// Every decision RPC on `channel`, each expected to fail with `expected` and carry no decision.
void ExpectEveryCallFails(const std::shared_ptr<grpc::Channel>& channel,
                          grpc::StatusCode expected) {
  auto stub = v1::DecisionService::NewStub(channel);
  for (int call = 0; call < 3; ++call) {
    v1::AuthorizeResponse decision;
    const grpc::Status status =
        stub->Authorize(ContextWithDeadline().get(), ReaderReadsTheGuide(), &decision);
    EXPECT_EQ(status.error_code(), expected) << status.error_message();
    EXPECT_NE(decision.verdict(), v1::VERDICT_ALLOW);
  }

  v1::BatchAuthorizeRequest batch;
  batch.mutable_subject()->set_agent_id(kReader);
  batch.add_checks()->set_action("read");
  batch.mutable_checks(0)->set_resource("docs:guide:1");
  v1::BatchAuthorizeResponse results;
  EXPECT_EQ(stub->BatchAuthorize(ContextWithDeadline().get(), batch, &results).error_code(),
            expected);
  EXPECT_EQ(results.results_size(), 0);

  v1::SimulateRequest simulate;
  *simulate.mutable_request() = ReaderReadsTheGuide();
  v1::SimulateResponse simulation;
  EXPECT_EQ(stub->Simulate(ContextWithDeadline().get(), simulate, &simulation).error_code(),
            expected);
  EXPECT_NE(simulation.decision().verdict(), v1::VERDICT_ALLOW);

  v1::ValidateTokenRequest token;
  token.set_token("vdt_M5hwIYE5vAXm0pPRBRsyIvcyYmg_pnll04u8cx7plPM");
  v1::ValidateTokenResponse validation;
  EXPECT_EQ(stub->ValidateToken(ContextWithDeadline().get(), token, &validation).error_code(),
            expected);
  EXPECT_FALSE(validation.valid());
}

absl::StatusOr<std::unique_ptr<VerdictdProcess>> StartOn(const std::string& db_path) {
  return VerdictdProcess::Start(
      {"--db=" + db_path, "--seed=" + RunfilePath("deploy/demo-policy.json")});
}

// The database's directory exists (a missing one fails the start: tests/logging_test.cc), but
// the file cannot be opened: --db is a link into a volume not mounted yet.
std::string LinkIntoMissingVolume(const std::string& directory, const std::string& volume) {
  const std::string db_path = directory + "/verdict.db";
  EXPECT_EQ(symlink((volume + "/verdict.db").c_str(), db_path.c_str()), 0);
  return db_path;
}

TEST(FailClosedTest, DatabaseThatCannotBeOpenedAnswersUnavailable) {
  const std::string directory = TestDirectory("unopenable");
  absl::StatusOr<std::unique_ptr<VerdictdProcess>> server =
      StartOn(LinkIntoMissingVolume(directory, directory + "/missing/deeper"));
  ASSERT_TRUE(server.ok()) << server.status();
  auto channel = grpc::CreateChannel((*server)->address(), grpc::InsecureChannelCredentials());
  ExpectEveryCallFails(channel, grpc::StatusCode::UNAVAILABLE);
  absl::StatusOr<HealthStatus> health = CheckHealth(channel, "");
  ASSERT_TRUE(health.ok()) << health.status();
  EXPECT_EQ(*health, HealthStatus::kNotServing);
}

TEST(FailClosedTest, ServesOnceTheDatabaseCanBeOpened) {
  const std::string directory = TestDirectory("late-volume");
  const std::string volume = directory + "/mounted-later";
  absl::StatusOr<std::unique_ptr<VerdictdProcess>> server =
      StartOn(LinkIntoMissingVolume(directory, volume));
  ASSERT_TRUE(server.ok()) << server.status();
  auto channel = grpc::CreateChannel((*server)->address(), grpc::InsecureChannelCredentials());
  ExpectEveryCallFails(channel, grpc::StatusCode::UNAVAILABLE);

  ASSERT_EQ(mkdir(volume.c_str(), 0700), 0);  // the volume is there: the file can be made
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  absl::StatusOr<HealthStatus> health = CheckHealth(channel, "");
  while (!(health.ok() && *health == HealthStatus::kServing) && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(100));
    health = CheckHealth(channel, "");
  }
  ASSERT_TRUE(health.ok()) << health.status();
  ASSERT_EQ(*health, HealthStatus::kServing);

  // Seeded on the way: the demo policy now decides.
  auto stub = v1::DecisionService::NewStub(channel);
  v1::AuthorizeResponse decision;
  const grpc::Status status =
      stub->Authorize(ContextWithDeadline().get(), ReaderReadsTheGuide(), &decision);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(decision.verdict(), v1::VERDICT_ALLOW);
}

}  // namespace
}  // namespace verdict
