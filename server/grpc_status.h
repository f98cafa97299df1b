// How an absl::Status from the Authorizer reaches a gRPC client. Only four codes leave the
// server: INVALID_ARGUMENT (the caller's fault, with the message saying what is wrong),
// UNAVAILABLE (the store cannot be read now; retrying may help), CANCELLED (the caller gave up
// before its decision was made, so none was: DecisionRunner) and INTERNAL (anything else).
// An error never carries a decision: the caller must treat it as a deny.
//
//   if (!decision.ok()) return reactor->Finish(ToGrpcStatus(decision.status()));
#ifndef VERDICT_SERVER_GRPC_STATUS_H_
#define VERDICT_SERVER_GRPC_STATUS_H_

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace verdict {

grpc::Status ToGrpcStatus(const absl::Status& status);

}  // namespace verdict

#endif  // VERDICT_SERVER_GRPC_STATUS_H_
