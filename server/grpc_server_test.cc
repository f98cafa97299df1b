// verdictd's gRPC servers (server/grpc_server.h): where they listen.
#include "server/grpc_server.h"

#include <grpcpp/grpcpp.h>

#include <memory>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "verdict/v1/decision.grpc.pb.h"

namespace verdict {
namespace {

// Two servers on one port would split its connections between them, each answering from its
// own store: the second is refused.
TEST(GrpcServerTest, APortAnotherServerListensOnIsRefused) {
  v1::DecisionService::CallbackService decision;
  absl::StatusOr<std::unique_ptr<GrpcServer>> first =
      GrpcServer::Start("127.0.0.1:0", {{v1::DecisionService::service_full_name(), &decision}});
  ASSERT_TRUE(first.ok()) << first.status();
  v1::DecisionService::CallbackService other;
  absl::StatusOr<std::unique_ptr<GrpcServer>> second =
      GrpcServer::Start((*first)->address(), {{v1::DecisionService::service_full_name(), &other}});
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  (*first)->Shutdown(absl::ZeroDuration());
}

}  // namespace
}  // namespace verdict
