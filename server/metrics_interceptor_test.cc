#include "server/metrics_interceptor.h"

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <vector>

#include "envoy/service/auth/v3/external_auth.grpc.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::envoy::service::auth::v3::Authorization;
using ::envoy::service::auth::v3::CheckRequest;
using ::envoy::service::auth::v3::CheckResponse;
using ::testing::HasSubstr;

// Answers with the gRPC status code named by the request's path ("/14" -> UNAVAILABLE).
class StatusFromPathService final : public Authorization::CallbackService {
  grpc::ServerUnaryReactor* Check(grpc::CallbackServerContext* context, const CheckRequest* request,
                                  CheckResponse*) override {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    const int code = std::stoi(request->attributes().request().http().path().substr(1));
    reactor->Finish(grpc::Status(static_cast<grpc::StatusCode>(code), "as asked"));
    return reactor;
  }
};

class MetricsInterceptorTest : public testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&service_);
    std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> creators;
    creators.push_back(std::make_unique<MetricsInterceptorFactory>(metrics_));
    builder.experimental().SetInterceptorCreators(std::move(creators));
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    stub_ = Authorization::NewStub(grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                                       grpc::InsecureChannelCredentials()));
  }

  void TearDown() override { server_->Shutdown(); }

  grpc::StatusCode Call(int code) {
    CheckRequest request;
    request.mutable_attributes()->mutable_request()->mutable_http()->set_path("/" +
                                                                              std::to_string(code));
    CheckResponse response;
    grpc::ClientContext context;
    return stub_->Check(&context, request, &response).error_code();
  }

  Metrics metrics_;
  StatusFromPathService service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<Authorization::Stub> stub_;
};

constexpr char kLabels[] =
    "grpc_service=\"envoy.service.auth.v3.Authorization\",grpc_method=\"Check\"";

TEST_F(MetricsInterceptorTest, EveryCallIsTimedAndCountedByStatusCode) {
  EXPECT_EQ(Call(0), grpc::StatusCode::OK);
  EXPECT_EQ(Call(0), grpc::StatusCode::OK);
  EXPECT_EQ(Call(3), grpc::StatusCode::INVALID_ARGUMENT);
  const std::string text = metrics_.RenderPrometheusText();
  EXPECT_THAT(text, HasSubstr(std::string("verdict_grpc_server_handled_total{") + kLabels +
                              ",grpc_code=\"OK\"} 2\n"));
  EXPECT_THAT(text, HasSubstr(std::string("verdict_grpc_server_handled_total{") + kLabels +
                              ",grpc_code=\"INVALID_ARGUMENT\"} 1\n"));
  EXPECT_THAT(text, HasSubstr(std::string("verdict_grpc_server_handling_seconds_count{") + kLabels +
                              "} 3\n"));
  EXPECT_THAT(text, HasSubstr(std::string("verdict_grpc_server_in_flight{") + kLabels + "} 0\n"));
  EXPECT_THAT(text, HasSubstr("verdict_store_errors_total 0\n"));
}

TEST_F(MetricsInterceptorTest, UnavailableCountsAsAStoreError) {
  EXPECT_EQ(Call(14), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(Call(13), grpc::StatusCode::INTERNAL);
  const std::string text = metrics_.RenderPrometheusText();
  EXPECT_THAT(text, HasSubstr("verdict_store_errors_total 1\n"));
  EXPECT_THAT(text, HasSubstr(std::string("verdict_grpc_server_handled_total{") + kLabels +
                              ",grpc_code=\"UNAVAILABLE\"} 1\n"));
}

}  // namespace
}  // namespace verdict
