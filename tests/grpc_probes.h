// What Kubernetes and grpcurl ask a gRPC server, asked from a test without their .proto files
// (Debian ships neither): grpc.health.v1.Health/Check and the service list of server
// reflection, encoded and decoded field by field on generic stubs.
//
//   absl::StatusOr<HealthStatus> health = CheckHealth(channel, "");
//   absl::StatusOr<std::vector<std::string>> services = ListServicesByReflection(channel);
#ifndef VERDICT_TESTS_GRPC_PROBES_H_
#define VERDICT_TESTS_GRPC_PROBES_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace verdict {

// grpc.health.v1.HealthCheckResponse.ServingStatus.
enum class HealthStatus { kUnknown = 0, kServing = 1, kNotServing = 2, kServiceUnknown = 3 };

absl::StatusOr<HealthStatus> CheckHealth(const std::shared_ptr<grpc::Channel>& channel,
                                         const std::string& service);

// The full names of the services the server lists (grpc.reflection.v1alpha).
absl::StatusOr<std::vector<std::string>> ListServicesByReflection(
    const std::shared_ptr<grpc::Channel>& channel);

}  // namespace verdict

#endif  // VERDICT_TESTS_GRPC_PROBES_H_
