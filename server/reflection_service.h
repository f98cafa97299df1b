// grpc.reflection.v1alpha.ServerReflection (what `grpcurl list` and `grpcurl describe` ask) on
// gRPC's callback API. gRPC's own reflection service is synchronous: a server that has it runs
// "grpcpp_sync_server" polling threads, which also pick up the callback services' socket events
// and cost every decision call context switches. With this one, verdictd runs no synchronous
// service at all.
//
// Descriptors come from the process's generated pool, but only those of the files that define the
// listed services and of the files they import: a process that serves another listener
// (verdictd's admin port) does not describe that listener's protos here.
//
//   ReflectionService reflection({"verdict.v1.DecisionService", "grpc.health.v1.Health"});
//   builder.RegisterService(&reflection);  // lists those two and itself
#ifndef VERDICT_SERVER_REFLECTION_SERVICE_H_
#define VERDICT_SERVER_REFLECTION_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "grpc/reflection/v1alpha/reflection.grpc.pb.h"

namespace verdict {

class ReflectionService final
    : public grpc::reflection::v1alpha::ServerReflection::CallbackService {
 public:
  // `service_names`: the full names of the services the server serves, listed as given, then
  // this service's own.
  explicit ReflectionService(std::vector<std::string> service_names);

  // One reactor per stream. Requests are answered in order; a file descriptor answers with
  // those of its transitive dependencies the stream has not carried yet; an unknown file or
  // symbol, or one outside the served services' files, answers an error response (NOT_FOUND)
  // and the stream goes on. The stream ends with
  // OK when the client half-closes.
  grpc::ServerBidiReactor<grpc::reflection::v1alpha::ServerReflectionRequest,
                          grpc::reflection::v1alpha::ServerReflectionResponse>*
  ServerReflectionInfo(grpc::CallbackServerContext* context) override;

 private:
  const std::vector<std::string> service_names_;
  // The files of those services and their transitive imports: all this service describes.
  const absl::flat_hash_set<std::string> served_files_;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_REFLECTION_SERVICE_H_
