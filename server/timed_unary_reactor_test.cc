#include "server/timed_unary_reactor.h"

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "envoy/service/auth/v3/external_auth.grpc.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::envoy::service::auth::v3::Authorization;
using ::envoy::service::auth::v3::CheckRequest;
using ::envoy::service::auth::v3::CheckResponse;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kLabels[] =
    "grpc_service=\"envoy.service.auth.v3.Authorization\",grpc_method=\"Check\"";

std::string Sample(absl::string_view name, absl::string_view extra_labels, int value) {
  return absl::StrCat(name, "{", kLabels, extra_labels, "} ", value, "\n");
}

// Answers with the gRPC status code named by the request's path ("/14" -> UNAVAILABLE) at once;
// "/held" is answered OK only when the test calls AnswerHeldCall, from the test's thread, as a
// decision that waited for a worker is.
class StatusFromPathService final : public Authorization::CallbackService {
 public:
  explicit StatusFromPathService(Metrics& metrics)
      : check_(metrics, Authorization::service_full_name(), "Check") {}

  grpc::ServerUnaryReactor* Check(grpc::CallbackServerContext*, const CheckRequest* request,
                                  CheckResponse*) override {
    TimedUnaryReactor* reactor = check_.StartCall();
    const std::string& path = request->attributes().request().http().path();
    if (path == "/held") {
      absl::MutexLock lock(&mu_);
      held_ = reactor;
      return reactor;
    }
    reactor->Finish(
        grpc::Status(static_cast<grpc::StatusCode>(std::stoi(path.substr(1))), "as asked"));
    return reactor;
  }

  void WaitForHeldCall() {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(
        +[](TimedUnaryReactor** held) { return *held != nullptr; }, &held_));
  }

  void AnswerHeldCall() {
    absl::MutexLock lock(&mu_);
    held_->Finish(grpc::Status::OK);
    held_ = nullptr;
  }

 private:
  const TimedUnaryMethod check_;
  absl::Mutex mu_;
  TimedUnaryReactor* held_ = nullptr;
};

class TimedUnaryReactorTest : public testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    stub_ = Authorization::NewStub(grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                                       grpc::InsecureChannelCredentials()));
  }

  void TearDown() override { server_->Shutdown(); }

  grpc::StatusCode Call(const std::string& path, grpc::ClientContext& context) {
    CheckRequest request;
    request.mutable_attributes()->mutable_request()->mutable_http()->set_path(path);
    CheckResponse response;
    return stub_->Check(&context, request, &response).error_code();
  }

  grpc::StatusCode Call(int code) {
    grpc::ClientContext context;
    return Call("/" + std::to_string(code), context);
  }

  Metrics metrics_;
  StatusFromPathService service_{metrics_};
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<Authorization::Stub> stub_;
};

TEST_F(TimedUnaryReactorTest, EveryCallIsTimedAndCountedByStatusCode) {
  EXPECT_EQ(Call(0), grpc::StatusCode::OK);
  EXPECT_EQ(Call(0), grpc::StatusCode::OK);
  EXPECT_EQ(Call(3), grpc::StatusCode::INVALID_ARGUMENT);
  const std::string text = metrics_.RenderPrometheusText();
  EXPECT_THAT(text, HasSubstr(Sample("verdict_grpc_server_handled_total", ",grpc_code=\"OK\"", 2)));
  EXPECT_THAT(text, HasSubstr(Sample("verdict_grpc_server_handled_total",
                                     ",grpc_code=\"INVALID_ARGUMENT\"", 1)));
  EXPECT_THAT(text, HasSubstr(Sample("verdict_grpc_server_handling_seconds_count", "", 3)));
  EXPECT_THAT(text, HasSubstr(Sample("verdict_grpc_server_in_flight", "", 0)));
  EXPECT_THAT(text, HasSubstr("verdict_store_errors_total 0\n"));
}

TEST_F(TimedUnaryReactorTest, UnavailableCountsAsAStoreError) {
  EXPECT_EQ(Call(14), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(Call(13), grpc::StatusCode::INTERNAL);
  const std::string text = metrics_.RenderPrometheusText();
  EXPECT_THAT(text, HasSubstr("verdict_store_errors_total 1\n"));
  EXPECT_THAT(text, HasSubstr(Sample("verdict_grpc_server_handled_total",
                                     ",grpc_code=\"UNAVAILABLE\"", 1)));
}

TEST_F(TimedUnaryReactorTest, CallInFlightIsCountedUntilAnswered) {
  grpc::ClientContext context;
  CheckRequest request;
  request.mutable_attributes()->mutable_request()->mutable_http()->set_path("/held");
  CheckResponse response;
  absl::Notification answered;
  stub_->async()->Check(&context, &request, &response, [&answered](grpc::Status status) {
    EXPECT_TRUE(status.ok()) << status.error_message();
    answered.Notify();
  });
  service_.WaitForHeldCall();
  EXPECT_THAT(metrics_.RenderPrometheusText(),
              HasSubstr(Sample("verdict_grpc_server_in_flight", "", 1)));
  service_.AnswerHeldCall();
  answered.WaitForNotification();
  const std::string text = metrics_.RenderPrometheusText();
  EXPECT_THAT(text, HasSubstr(Sample("verdict_grpc_server_in_flight", "", 0)));
  EXPECT_THAT(text, HasSubstr(Sample("verdict_grpc_server_handled_total", ",grpc_code=\"OK\"", 1)));
}

TEST_F(TimedUnaryReactorTest, CallCancelledBeforeItsAnswerCountsOnceAsCancelled) {
  grpc::ClientContext context;
  CheckRequest request;
  request.mutable_attributes()->mutable_request()->mutable_http()->set_path("/held");
  CheckResponse response;
  absl::Notification given_up;
  stub_->async()->Check(&context, &request, &response, [&given_up](grpc::Status status) {
    EXPECT_EQ(status.error_code(), grpc::StatusCode::CANCELLED);
    given_up.Notify();
  });
  service_.WaitForHeldCall();
  context.TryCancel();
  given_up.WaitForNotification();
  // The server learns of the cancellation on its own time.
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (!absl::StrContains(metrics_.RenderPrometheusText(), "grpc_code=\"CANCELLED\"") &&
         absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  // The service still answers, later, as a decision that was already under way does.
  service_.AnswerHeldCall();
  server_->Shutdown();  // returns once every call is done

  const std::string text = metrics_.RenderPrometheusText();
  EXPECT_THAT(
      text, HasSubstr(Sample("verdict_grpc_server_handled_total", ",grpc_code=\"CANCELLED\"", 1)));
  EXPECT_THAT(text, Not(HasSubstr("grpc_code=\"OK\"")));
  EXPECT_THAT(text, HasSubstr(Sample("verdict_grpc_server_handling_seconds_count", "", 1)));
  EXPECT_THAT(text, HasSubstr(Sample("verdict_grpc_server_in_flight", "", 0)));
}

TEST(TimedUnaryMethodTest, SeriesIsRegisteredWhenTheServiceIsBuilt) {
  Metrics metrics;
  const TimedUnaryMethod check(metrics, Authorization::service_full_name(), "Check");
  const std::string text = metrics.RenderPrometheusText();
  EXPECT_THAT(text, HasSubstr(Sample("verdict_grpc_server_in_flight", "", 0)));
  EXPECT_THAT(text, HasSubstr(Sample("verdict_grpc_server_handling_seconds_count", "", 0)));
}

}  // namespace
}  // namespace verdict
