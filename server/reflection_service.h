// gRPC server reflection (what `grpcurl list`, `grpcurl describe` and `buf curl` ask) on gRPC's
// callback API, in both revisions of the protocol: grpc.reflection.v1 (what newer clients ask
// first) and grpc.reflection.v1alpha (what older ones ask), the same messages in two packages.
// gRPC's own reflection service is synchronous, and Debian's gRPC 1.51 has only v1alpha: a
// server that has it runs "grpcpp_sync_server" polling threads, which also pick up the callback
// services' socket events and cost every decision call context switches. With these, verdictd
// runs no synchronous service at all.
//
// Descriptors come from the process's generated pool, but only those of the files that define the
// listed services and of the files they import: a process that serves another listener
// (verdictd's admin port) does not describe that listener's protos here.
//
//   ReflectionServices reflection({"verdict.v1.DecisionService", "grpc.health.v1.Health"});
//   builder.RegisterService(&reflection.v1);       // each lists those two and both
//   builder.RegisterService(&reflection.v1alpha);  // reflection services
#ifndef VERDICT_SERVER_REFLECTION_SERVICE_H_
#define VERDICT_SERVER_REFLECTION_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "grpc/reflection/v1/reflection.grpc.pb.h"
#include "grpc/reflection/v1alpha/reflection.grpc.pb.h"

namespace verdict {

// The generated types of one revision of the protocol.
struct ReflectionV1 {
  using Service = grpc::reflection::v1::ServerReflection;
  using Request = grpc::reflection::v1::ServerReflectionRequest;
  using Response = grpc::reflection::v1::ServerReflectionResponse;
  using ExtensionRequest = grpc::reflection::v1::ExtensionRequest;
  using FileDescriptorResponse = grpc::reflection::v1::FileDescriptorResponse;
};
struct ReflectionV1Alpha {
  using Service = grpc::reflection::v1alpha::ServerReflection;
  using Request = grpc::reflection::v1alpha::ServerReflectionRequest;
  using Response = grpc::reflection::v1alpha::ServerReflectionResponse;
  using ExtensionRequest = grpc::reflection::v1alpha::ExtensionRequest;
  using FileDescriptorResponse = grpc::reflection::v1alpha::FileDescriptorResponse;
};

// One revision of the protocol (ReflectionV1 or ReflectionV1Alpha).
template <typename Protocol>
class ReflectionServiceOf final : public Protocol::Service::CallbackService {
 public:
  // `service_names`: the full names of the services the server serves, listed as given.
  explicit ReflectionServiceOf(std::vector<std::string> service_names);

  // One reactor per stream. Requests are answered in order; a file descriptor answers with
  // those of its transitive dependencies the stream has not carried yet; an unknown file or
  // symbol, or one outside the served services' files, answers an error response (NOT_FOUND)
  // and the stream goes on. The stream ends with
  // OK when the client half-closes.
  grpc::ServerBidiReactor<typename Protocol::Request, typename Protocol::Response>*
  ServerReflectionInfo(grpc::CallbackServerContext* context) override;

 private:
  const std::vector<std::string> service_names_;
  // The files of those services and their transitive imports: all this service describes.
  const absl::flat_hash_set<std::string> served_files_;
};

// Both revisions, each listing the given services, then grpc.reflection.v1.ServerReflection and
// grpc.reflection.v1alpha.ServerReflection. Register both with the server; they must outlive it.
struct ReflectionServices {
  explicit ReflectionServices(const std::vector<std::string>& service_names);

  ReflectionServiceOf<ReflectionV1> v1;
  ReflectionServiceOf<ReflectionV1Alpha> v1alpha;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_REFLECTION_SERVICE_H_
