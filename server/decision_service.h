// verdict.v1.DecisionService on gRPC's callback API: translate the wire request, ask the
// Authorizer, translate the answer back. No policy logic lives here.
//
// The methods are registered raw (ByteBuffer in and out) so that the service parses requests
// itself: a message protobuf refuses to parse (a string field with invalid UTF-8, a truncated
// message) is the caller's fault and answers INVALID_ARGUMENT, where gRPC's own parsing would
// answer INTERNAL. Errors never carry a decision (server/grpc_status.h).
//
// A request is parsed on gRPC's thread and decided on a WorkerPool thread (server/worker_pool.h),
// so a decision waiting on the database never holds one of gRPC's threads.
//
//   Authorizer authorizer(store, [] { return absl::Now(); });
//   WorkerPool workers(4);
//   GrpcDecisionService service(authorizer, workers);
//   builder.RegisterService(&service);
#ifndef VERDICT_SERVER_DECISION_SERVICE_H_
#define VERDICT_SERVER_DECISION_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include "decision/authorizer.h"
#include "server/worker_pool.h"
#include "verdict/v1/decision.grpc.pb.h"

namespace verdict {

using RawCallbackDecisionService = v1::DecisionService::WithRawCallbackMethod_Authorize<
    v1::DecisionService::WithRawCallbackMethod_BatchAuthorize<
        v1::DecisionService::WithRawCallbackMethod_ValidateToken<
            v1::DecisionService::WithRawCallbackMethod_Simulate<v1::DecisionService::Service>>>>;

class GrpcDecisionService final : public RawCallbackDecisionService {
 public:
  // `authorizer` and `workers` must outlive the service and every call it serves (keep them
  // until the gRPC server has shut down). The authorizer is called concurrently.
  GrpcDecisionService(Authorizer& authorizer, WorkerPool& workers)
      : authorizer_(authorizer), workers_(workers) {}

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
  Authorizer& authorizer_;
  WorkerPool& workers_;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_DECISION_SERVICE_H_
