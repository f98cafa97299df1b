#include "server/decision_service.h"

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "crypto/token.h"
#include "decision/authorizer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/metrics.h"
#include "server/worker_pool.h"
#include "testing/memory_store.h"
#include "verdict/v1/decision.grpc.pb.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A sample line of `metric` for a DecisionService method; `code` adds the grpc_code label.
std::string RpcSample(absl::string_view metric, absl::string_view method, absl::string_view code,
                      int value) {
  return absl::StrCat(metric, "{grpc_service=\"verdict.v1.DecisionService\",grpc_method=\"", method,
                      "\"", code.empty() ? "" : absl::StrCat(",grpc_code=\"", code, "\""), "} ",
                      value, "\n");
}

// A store that cannot be read: what a decision must never turn into an ALLOW.
class BrokenStore final : public PolicyStore {
 public:
  explicit BrokenStore(absl::Status error) : error_(std::move(error)) {}
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> BeginRead() override { return error_; }
  absl::StatusOr<std::unique_ptr<WriteTransaction>> BeginWrite() override { return error_; }

 private:
  const absl::Status error_;
};

// A store whose reads and writes wait until released, then fail: a decision held on a worker.
class HeldStore final : public PolicyStore {
 public:
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> BeginRead() override { return Hold(); }
  absl::StatusOr<std::unique_ptr<WriteTransaction>> BeginWrite() override { return Hold(); }

  absl::Notification entered;
  absl::Notification release;

 private:
  absl::Status Hold() {
    if (!entered.HasBeenNotified()) entered.Notify();
    release.WaitForNotification();
    return absl::UnavailableError("released");
  }
};

// The service on an in-process channel over `store`.
class ServiceHarness {
 public:
  explicit ServiceHarness(PolicyStore& store, int inline_slots = 2)
      : workers_(2),
        runner_(
            store, [] { return absl::Now(); }, nullptr, nullptr, workers_, inline_slots),
        service_(runner_, metrics_) {
    grpc::ServerBuilder builder;
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    stub_ = v1::DecisionService::NewStub(server_->InProcessChannel(grpc::ChannelArguments()));
  }
  ~ServiceHarness() { Shutdown(); }

  v1::DecisionService::Stub& stub() { return *stub_; }
  const Metrics& metrics() const { return metrics_; }

  // Returns once every call is done; before the workers stop.
  void Shutdown() { server_->Shutdown(); }

 private:
  Metrics metrics_;
  WorkerPool workers_;
  DecisionRunner runner_;
  GrpcDecisionService service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<v1::DecisionService::Stub> stub_;
};

v1::AuthorizeRequest ReadRequest(const std::string& agent_id, const std::string& resource) {
  v1::AuthorizeRequest request;
  request.mutable_subject()->set_agent_id(agent_id);
  request.set_action("read");
  request.set_resource(resource);
  return request;
}

class DecisionServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Agent reader;
    reader.id = "agt_reader";
    ASSERT_TRUE(store_.AddAgent(reader).ok());
    Permission read_docs;
    read_docs.id = "perm_read_docs";
    read_docs.agent_id = "agt_reader";
    read_docs.resource = "docs:*";
    read_docs.actions = {"read"};
    ASSERT_TRUE(store_.AddPermission(read_docs).ok());
  }

  MemoryPolicyStore store_;
};

TEST_F(DecisionServiceTest, AuthorizeAnswersTheEnginesDecision) {
  ServiceHarness harness(store_);
  grpc::ClientContext allow_context;
  v1::AuthorizeResponse allow;
  v1::AuthorizeRequest request = ReadRequest("agt_reader", "docs:guide:1");
  request.mutable_context()->set_request_id("req-1");
  ASSERT_TRUE(harness.stub().Authorize(&allow_context, request, &allow).ok());
  EXPECT_EQ(allow.verdict(), v1::VERDICT_ALLOW);
  EXPECT_EQ(allow.reason(), v1::REASON_CODE_ALLOWED);
  EXPECT_EQ(allow.matched_grant().permission_id(), "perm_read_docs");
  EXPECT_EQ(allow.request_id(), "req-1");

  grpc::ClientContext deny_context;
  v1::AuthorizeResponse deny;
  request.set_action("delete");
  ASSERT_TRUE(harness.stub().Authorize(&deny_context, request, &deny).ok());
  EXPECT_EQ(deny.verdict(), v1::VERDICT_DENY);
  EXPECT_EQ(deny.reason(), v1::REASON_CODE_NO_MATCHING_PERMISSION);
}

TEST_F(DecisionServiceTest, AuthorizeThatSpendsARateSlotIsAnsweredAndSpendsIt) {
  Permission limited;
  limited.id = "perm_read_limited";
  limited.agent_id = "agt_reader";
  limited.resource = "limited:*";
  limited.actions = {"read"};
  limited.constraints_json = R"({"rate_limit": {"max_calls": 1, "window_seconds": 3600}})";
  ASSERT_TRUE(store_.AddPermission(limited).ok());
  ServiceHarness harness(store_);
  const v1::AuthorizeRequest request = ReadRequest("agt_reader", "limited:1");
  v1::AuthorizeResponse first;
  grpc::ClientContext first_context;
  ASSERT_TRUE(harness.stub().Authorize(&first_context, request, &first).ok());
  EXPECT_EQ(first.reason(), v1::REASON_CODE_ALLOWED);
  v1::AuthorizeResponse second;
  grpc::ClientContext second_context;
  ASSERT_TRUE(harness.stub().Authorize(&second_context, request, &second).ok());
  EXPECT_EQ(second.verdict(), v1::VERDICT_DENY);
  EXPECT_EQ(second.reason(), v1::REASON_CODE_RATE_LIMITED);
}

TEST_F(DecisionServiceTest, MalformedRequestIsInvalidArgument) {
  ServiceHarness harness(store_);
  v1::AuthorizeRequest no_subject = ReadRequest("agt_reader", "docs:1");
  no_subject.clear_subject();
  v1::AuthorizeRequest empty_action = ReadRequest("agt_reader", "docs:1");
  empty_action.set_action("");
  // protobuf refuses to parse it: the service, not gRPC, answers.
  v1::AuthorizeRequest invalid_utf8 = ReadRequest("agt_reader", "docs:\xff\xfe");
  for (const v1::AuthorizeRequest& request : {no_subject, empty_action, invalid_utf8}) {
    grpc::ClientContext context;
    v1::AuthorizeResponse response;
    const grpc::Status status = harness.stub().Authorize(&context, request, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << request.ShortDebugString() << ": " << status.error_message();
    EXPECT_NE(response.verdict(), v1::VERDICT_ALLOW);
  }
  grpc::ClientContext context;
  v1::AuthorizeResponse response;
  EXPECT_THAT(harness.stub().Authorize(&context, invalid_utf8, &response).error_message(),
              HasSubstr("not a valid verdict.v1.AuthorizeRequest message"));
}

TEST_F(DecisionServiceTest, StoreErrorsFailClosedWithoutADecision) {
  struct Case {
    absl::Status store_error;
    grpc::StatusCode expected;
  };
  for (const Case& c :
       {Case{absl::UnavailableError("disk I/O error"), grpc::StatusCode::UNAVAILABLE},
        Case{absl::InternalError("misuse"), grpc::StatusCode::INTERNAL}}) {
    BrokenStore broken(c.store_error);
    ServiceHarness harness(broken);

    grpc::ClientContext authorize_context;
    v1::AuthorizeResponse decision;
    const grpc::Status authorize = harness.stub().Authorize(
        &authorize_context, ReadRequest("agt_reader", "docs:1"), &decision);
    EXPECT_EQ(authorize.error_code(), c.expected);
    EXPECT_THAT(authorize.error_message(), HasSubstr(std::string(c.store_error.message())));
    EXPECT_EQ(decision.verdict(), v1::VERDICT_UNSPECIFIED) << "an error carries no decision";

    grpc::ClientContext batch_context;
    v1::BatchAuthorizeRequest batch;
    batch.mutable_subject()->set_agent_id("agt_reader");
    batch.add_checks()->set_action("read");
    batch.mutable_checks(0)->set_resource("docs:1");
    v1::BatchAuthorizeResponse results;
    EXPECT_EQ(harness.stub().BatchAuthorize(&batch_context, batch, &results).error_code(),
              c.expected);
    EXPECT_EQ(results.results_size(), 0);

    grpc::ClientContext simulate_context;
    v1::SimulateRequest simulate;
    *simulate.mutable_request() = ReadRequest("agt_reader", "docs:1");
    v1::SimulateResponse simulation;
    EXPECT_EQ(harness.stub().Simulate(&simulate_context, simulate, &simulation).error_code(),
              c.expected);
    EXPECT_FALSE(simulation.has_decision());

    // UNAVAILABLE means the store could not be read; INTERNAL is not a store outage.
    EXPECT_THAT(harness.metrics().RenderPrometheusText(),
                HasSubstr(absl::StrCat("verdict_store_errors_total ",
                                       c.expected == grpc::StatusCode::UNAVAILABLE ? 3 : 0, "\n")));
  }
}

TEST_F(DecisionServiceTest, EveryCallIsTimedAndCountedByMethodAndStatusCode) {
  ServiceHarness harness(store_);
  const v1::AuthorizeRequest allowed = ReadRequest("agt_reader", "docs:1");
  v1::AuthorizeRequest malformed = allowed;
  malformed.set_action("");
  for (const v1::AuthorizeRequest& request : {allowed, allowed, malformed}) {
    grpc::ClientContext context;
    v1::AuthorizeResponse response;
    harness.stub().Authorize(&context, request, &response);
  }
  grpc::ClientContext batch_context;
  v1::BatchAuthorizeRequest batch;
  batch.mutable_subject()->set_agent_id("agt_reader");
  v1::BatchAuthorizeResponse results;
  harness.stub().BatchAuthorize(&batch_context, batch, &results);
  grpc::ClientContext validate_context;
  v1::ValidateTokenRequest validate;
  validate.set_token(NewAgentToken());
  v1::ValidateTokenResponse validation;
  harness.stub().ValidateToken(&validate_context, validate, &validation);
  grpc::ClientContext simulate_context;
  v1::SimulateResponse simulation;
  harness.stub().Simulate(&simulate_context, v1::SimulateRequest(), &simulation);

  const std::string text = harness.metrics().RenderPrometheusText();
  const std::string handled = "verdict_grpc_server_handled_total";
  EXPECT_THAT(text, HasSubstr(RpcSample(handled, "Authorize", "OK", 2)));
  EXPECT_THAT(text, HasSubstr(RpcSample(handled, "Authorize", "INVALID_ARGUMENT", 1)));
  EXPECT_THAT(text, HasSubstr(RpcSample(handled, "ValidateToken", "OK", 1)));
  EXPECT_THAT(text, HasSubstr(RpcSample(handled, "Simulate", "INVALID_ARGUMENT", 1)));
  const std::string latency = "verdict_grpc_server_handling_seconds_count";
  const std::string in_flight = "verdict_grpc_server_in_flight";
  for (const auto& [method, calls] : std::vector<std::pair<std::string, int>>{
           {"Authorize", 3}, {"BatchAuthorize", 1}, {"ValidateToken", 1}, {"Simulate", 1}}) {
    EXPECT_THAT(text, HasSubstr(RpcSample(latency, method, "", calls)));
    EXPECT_THAT(text, HasSubstr(RpcSample(in_flight, method, "", 0)));
  }
  EXPECT_THAT(text, HasSubstr("verdict_store_errors_total 0\n"));
}

TEST_F(DecisionServiceTest, CallCancelledWhileItsDecisionWaitsIsCountedOnceAsCancelled) {
  HeldStore held;
  ServiceHarness harness(held, /*inline_slots=*/0);  // every decision on a worker
  grpc::ClientContext context;
  const v1::AuthorizeRequest request = ReadRequest("agt_reader", "docs:1");
  v1::AuthorizeResponse response;
  absl::Notification given_up;
  harness.stub().async()->Authorize(&context, &request, &response,
                                    [&given_up](grpc::Status status) {
                                      EXPECT_EQ(status.error_code(), grpc::StatusCode::CANCELLED);
                                      given_up.Notify();
                                    });
  held.entered.WaitForNotification();
  EXPECT_THAT(harness.metrics().RenderPrometheusText(),
              HasSubstr(RpcSample("verdict_grpc_server_in_flight", "Authorize", "", 1)));
  context.TryCancel();
  given_up.WaitForNotification();
  // The server learns of the cancellation on its own time.
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (!absl::StrContains(harness.metrics().RenderPrometheusText(), "CANCELLED") &&
         absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  // The decision under way still ends, with the store's UNAVAILABLE, and answers nobody.
  held.release.Notify();
  harness.Shutdown();

  const std::string text = harness.metrics().RenderPrometheusText();
  EXPECT_THAT(
      text, HasSubstr(RpcSample("verdict_grpc_server_handled_total", "Authorize", "CANCELLED", 1)));
  EXPECT_THAT(text, Not(HasSubstr("UNAVAILABLE")));
  EXPECT_THAT(text, HasSubstr("verdict_store_errors_total 0\n"));
  EXPECT_THAT(
      text, HasSubstr(RpcSample("verdict_grpc_server_handling_seconds_count", "Authorize", "", 1)));
  EXPECT_THAT(text, HasSubstr(RpcSample("verdict_grpc_server_in_flight", "Authorize", "", 0)));
}

TEST_F(DecisionServiceTest, BatchAnswersEveryCheckInOrder) {
  ServiceHarness harness(store_);
  v1::BatchAuthorizeRequest batch;
  batch.mutable_subject()->set_agent_id("agt_reader");
  for (const char* action : {"read", "write", "read"}) {
    v1::BatchCheck* check = batch.add_checks();
    check->set_action(action);
    check->set_resource("docs:1");
  }
  grpc::ClientContext context;
  v1::BatchAuthorizeResponse response;
  ASSERT_TRUE(harness.stub().BatchAuthorize(&context, batch, &response).ok());
  ASSERT_EQ(response.results_size(), 3);
  EXPECT_EQ(response.results(0).verdict(), v1::VERDICT_ALLOW);
  EXPECT_EQ(response.results(1).verdict(), v1::VERDICT_DENY);
  EXPECT_EQ(response.results(2).verdict(), v1::VERDICT_ALLOW);
}

TEST_F(DecisionServiceTest, UnknownTokenIsAnAnswerNotAnError) {
  ServiceHarness harness(store_);
  grpc::ClientContext context;
  v1::ValidateTokenRequest request;
  request.set_token(NewAgentToken());
  v1::ValidateTokenResponse response;
  ASSERT_TRUE(harness.stub().ValidateToken(&context, request, &response).ok());
  EXPECT_FALSE(response.valid());
  EXPECT_EQ(response.reason(), v1::REASON_CODE_TOKEN_INVALID);
}

TEST_F(DecisionServiceTest, SimulateAppliesTheWhatIfAndExplains) {
  ServiceHarness harness(store_);
  v1::SimulateRequest request;
  *request.mutable_request() = ReadRequest("agt_reader", "wiki:home");
  v1::PermissionSpec* extra = request.mutable_what_if()->add_extra_permissions();
  extra->set_resource("wiki:*");
  extra->add_actions("read");
  extra->set_effect(v1::EFFECT_ALLOW);
  grpc::ClientContext context;
  v1::SimulateResponse response;
  ASSERT_TRUE(harness.stub().Simulate(&context, request, &response).ok());
  EXPECT_EQ(response.decision().verdict(), v1::VERDICT_ALLOW);
  EXPECT_GT(response.trace().stages_size(), 0);
  EXPECT_GT(response.trace().grants_size(), 0);

  // Without the what-if, the stored policy alone decides.
  request.clear_what_if();
  grpc::ClientContext plain_context;
  ASSERT_TRUE(harness.stub().Simulate(&plain_context, request, &response).ok());
  EXPECT_EQ(response.decision().verdict(), v1::VERDICT_DENY);
}

TEST_F(DecisionServiceTest, SimulateWithoutARequestIsInvalidArgument) {
  ServiceHarness harness(store_);
  grpc::ClientContext context;
  v1::SimulateResponse response;
  const grpc::Status status = harness.stub().Simulate(&context, v1::SimulateRequest(), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("request"));
}

}  // namespace
}  // namespace verdict
