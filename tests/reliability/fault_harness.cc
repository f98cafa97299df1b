#include "tests/reliability/fault_harness.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/grpc_probes.h"
#include "verdict/v1/decision.grpc.pb.h"

namespace verdict {
namespace {

// From deploy/demo-policy.json: the reader may read the guide.
constexpr char kReader[] = "agt_demo_reader";
constexpr char kReaderToken[] = "vdt_M5hwIYE5vAXm0pPRBRsyIvcyYmg_pnll04u8cx7plPM";

// The store notices a fault within 100 ms, health within the monitor's 1 s; generous for a
// loaded machine.
constexpr absl::Duration kNoticeTimeout = absl::Seconds(10);
constexpr int kCallsPerKindWhileFaulty = 20;

std::unique_ptr<grpc::ClientContext> WithDeadline() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  return context;
}

v1::AuthorizeRequest ReaderReadsTheGuide() {
  v1::AuthorizeRequest request;
  request.mutable_subject()->set_agent_id(kReader);
  request.set_action("read");
  request.set_resource("docs:guide:1");
  return request;
}

struct AuthorizeOutcome {
  grpc::StatusCode code;
  v1::Verdict verdict;
};

AuthorizeOutcome Authorize(v1::DecisionService::Stub& stub) {
  v1::AuthorizeResponse response;
  const grpc::Status status =
      stub.Authorize(WithDeadline().get(), ReaderReadsTheGuide(), &response);
  return {status.error_code(), response.verdict()};
}

bool Allowed(const AuthorizeOutcome& outcome) {
  return outcome.code == grpc::StatusCode::OK && outcome.verdict == v1::VERDICT_ALLOW;
}

// Calls Authorize until `done` holds for its outcome or the timeout passes.
template <typename Predicate>
bool AwaitAuthorize(v1::DecisionService::Stub& stub, Predicate done) {
  const absl::Time deadline = absl::Now() + kNoticeTimeout;
  while (absl::Now() < deadline) {
    if (done(Authorize(stub))) return true;
    absl::SleepFor(absl::Milliseconds(20));
  }
  return false;
}

bool AwaitHealth(const std::shared_ptr<grpc::Channel>& channel, HealthStatus wanted) {
  const absl::Time deadline = absl::Now() + kNoticeTimeout;
  while (absl::Now() < deadline) {
    absl::StatusOr<HealthStatus> health = CheckHealth(channel, "");
    if (health.ok() && *health == wanted) return true;
    absl::SleepFor(absl::Milliseconds(100));
  }
  return false;
}

void ExpectEveryDecisionCallUnavailable(v1::DecisionService::Stub& stub) {
  for (int call = 0; call < kCallsPerKindWhileFaulty; ++call) {
    const AuthorizeOutcome outcome = Authorize(stub);
    EXPECT_EQ(outcome.code, grpc::StatusCode::UNAVAILABLE) << "Authorize call " << call;
    EXPECT_NE(outcome.verdict, v1::VERDICT_ALLOW);

    v1::BatchAuthorizeRequest batch;
    batch.mutable_subject()->set_agent_id(kReader);
    batch.add_checks()->set_action("read");
    batch.mutable_checks(0)->set_resource("docs:guide:1");
    v1::BatchAuthorizeResponse results;
    EXPECT_EQ(stub.BatchAuthorize(WithDeadline().get(), batch, &results).error_code(),
              grpc::StatusCode::UNAVAILABLE);
    EXPECT_EQ(results.results_size(), 0);

    v1::SimulateRequest simulate;
    *simulate.mutable_request() = ReaderReadsTheGuide();
    v1::SimulateResponse simulation;
    EXPECT_EQ(stub.Simulate(WithDeadline().get(), simulate, &simulation).error_code(),
              grpc::StatusCode::UNAVAILABLE);
    EXPECT_NE(simulation.decision().verdict(), v1::VERDICT_ALLOW);

    v1::ValidateTokenRequest token;
    token.set_token(kReaderToken);
    v1::ValidateTokenResponse validation;
    EXPECT_EQ(stub.ValidateToken(WithDeadline().get(), token, &validation).error_code(),
              grpc::StatusCode::UNAVAILABLE);
    EXPECT_FALSE(validation.valid());
  }
}

}  // namespace

absl::StatusOr<ServedDemoPolicy> ServedDemoPolicy::Start(const std::string& db_path,
                                                         std::vector<std::string> extra_flags) {
  std::vector<std::string> flags = {
      "--db=" + db_path, "--seed=" + RunfilePath("deploy/demo-policy.json"), "--admin_listen=off"};
  flags.insert(flags.end(), extra_flags.begin(), extra_flags.end());
  absl::StatusOr<std::unique_ptr<VerdictdProcess>> server = VerdictdProcess::Start(flags);
  if (!server.ok()) return server.status();
  ServedDemoPolicy served;
  served.db_path = db_path;
  served.channel = grpc::CreateChannel((*server)->address(), grpc::InsecureChannelCredentials());
  served.server = *std::move(server);
  return served;
}

void ExpectFailsClosed(ServedDemoPolicy& served, absl::FunctionRef<void()> inject) {
  auto stub = v1::DecisionService::NewStub(served.channel);
  ASSERT_TRUE(AwaitAuthorize(*stub, Allowed)) << "the reader is not allowed before the fault";

  inject();
  ASSERT_TRUE(AwaitAuthorize(*stub, [](const AuthorizeOutcome& outcome) {
    return outcome.code == grpc::StatusCode::UNAVAILABLE;
  })) << "Authorize never answered UNAVAILABLE under the fault";
  ExpectEveryDecisionCallUnavailable(*stub);
  EXPECT_TRUE(AwaitHealth(served.channel, HealthStatus::kNotServing));
  EXPECT_EQ(served.server->AwaitExit(absl::ZeroDuration()).status().code(),
            absl::StatusCode::kDeadlineExceeded)
      << "verdictd exited under the fault";
}

void ExpectFailsClosedAndRecovers(ServedDemoPolicy& served, absl::FunctionRef<void()> inject,
                                  absl::FunctionRef<void()> remove) {
  ExpectFailsClosed(served, inject);
  if (::testing::Test::HasFatalFailure()) return;
  remove();
  auto stub = v1::DecisionService::NewStub(served.channel);
  EXPECT_TRUE(AwaitAuthorize(*stub, Allowed)) << "not allowed again once the fault was removed";
  EXPECT_TRUE(AwaitHealth(served.channel, HealthStatus::kServing));
}

}  // namespace verdict
