// verdict.v1.DecisionService on gRPC's callback API: translate the wire request, ask the
// Authorizer, translate the answer back. No policy logic lives here.
//
// The methods are registered raw (ByteBuffer in and out) so that the service parses requests
// itself: a message protobuf refuses to parse (a string field with invalid UTF-8, a truncated
// message) is the caller's fault and answers INVALID_ARGUMENT, where gRPC's own parsing would
// answer INTERNAL. Errors never carry a decision (server/grpc_status.h).
//
// A request is parsed on gRPC's thread and decided where the DecisionRunner says: on that same
// thread when the decision only reads, on a worker when it must write (server/decision_runner.h).
// Every call is timed and counted by method and status code (server/timed_unary_reactor.h).
//
//   WorkerPool workers(4);
//   DecisionRunner runner(store, [] { return absl::Now(); }, observer, access_tokens, workers, 2);
//   GrpcDecisionService service(runner, metrics);
//   builder.RegisterService(&service);
#ifndef VERDICT_SERVER_DECISION_SERVICE_H_
#define VERDICT_SERVER_DECISION_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include "server/decision_runner.h"
#include "server/metrics.h"
#include "server/timed_unary_reactor.h"
#include "verdict/v1/decision.grpc.pb.h"

namespace verdict {

using RawCallbackDecisionService = v1::DecisionService::WithRawCallbackMethod_Authorize<
    v1::DecisionService::WithRawCallbackMethod_BatchAuthorize<
        v1::DecisionService::WithRawCallbackMethod_ValidateToken<
            v1::DecisionService::WithRawCallbackMethod_Simulate<v1::DecisionService::Service>>>>;

class GrpcDecisionService final : public RawCallbackDecisionService {
 public:
  // `runner` and `metrics` must outlive the service and every call it serves (keep them, and the
  // runner's workers, until the gRPC server has shut down).
  GrpcDecisionService(DecisionRunner& runner, Metrics& metrics);

  grpc::ServerUnaryReactor* Authorize(grpc::CallbackServerContext* context,
                                      const grpc::ByteBuffer* request,
                                      grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* BatchAuthorize(grpc::CallbackServerContext* context,
                                           const grpc::ByteBuffer* request,
                                           grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ValidateToken(grpc::CallbackServerContext* context,
                                          const grpc::ByteBuffer* request,
                                          grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* Simulate(grpc::CallbackServerContext* context,
                                     const grpc::ByteBuffer* request,
                                     grpc::ByteBuffer* response) override;

 private:
  DecisionRunner& runner_;
  const TimedUnaryMethod authorize_;
  const TimedUnaryMethod batch_authorize_;
  const TimedUnaryMethod validate_token_;
  const TimedUnaryMethod simulate_;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_DECISION_SERVICE_H_
