// The floor under verdict's end-to-end cost: a gRPC server built exactly like verdictd (the
// same GrpcServer, so the same gRPC libraries, callback API, threads, channel arguments and
// limits) whose DecisionService answers every call with one fixed response and decides
// nothing. bench/e2e.sh drives it beside verdictd with the same h2load frames, so verdictd's
// server CPU per call over this server's is the share of the cost that is verdict's own.
//
//   bazel run -c opt //bench:null_server -- --listen=127.0.0.1:50061
//   bazel run -c opt //bench:null_server -- --listen=unix:/tmp/null.sock
#include <grpcpp/grpcpp.h>

#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "server/grpc_server.h"
#include "server/signals.h"
#include "verdict/v1/decision.grpc.pb.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50061",
          "host:port (port 0 for any free one) or unix:PATH to serve on");
ABSL_FLAG(int, busy_us, 0,
          "spin this many microseconds of CPU on gRPC's thread before answering each call (a "
          "stand-in for a decision's cost, to see what a call's own work costs beyond itself)");

namespace verdict {
namespace {

// All four methods on the callback API, as verdictd registers them: a service with one
// synchronous method would make gRPC start its synchronous polling threads, which verdictd
// does not have.
using RawCallbackDecisionService = v1::DecisionService::WithRawCallbackMethod_Authorize<
    v1::DecisionService::WithRawCallbackMethod_BatchAuthorize<
        v1::DecisionService::WithRawCallbackMethod_ValidateToken<
            v1::DecisionService::WithRawCallbackMethod_Simulate<v1::DecisionService::Service>>>>;

// The answer verdictd gives the benchmark's direct call, field for field, so both servers
// send the same number of bytes back.
grpc::ByteBuffer FixedAllowResponse() {
  v1::AuthorizeResponse response;
  response.set_verdict(v1::VERDICT_ALLOW);
  response.set_reason(v1::REASON_CODE_ALLOWED);
  response.set_message("allowed by perm_demo_docs_read");
  response.set_agent_id("agt_demo_reader");
  v1::Grant* grant = response.mutable_matched_grant();
  grant->set_permission_id("perm_demo_docs_read");
  grant->set_resource("docs:*");
  grant->add_actions("read");
  grant->set_effect(v1::EFFECT_ALLOW);
  grpc::ByteBuffer bytes;
  bool own_buffer = false;
  if (!grpc::SerializationTraits<v1::AuthorizeResponse>::Serialize(response, &bytes, &own_buffer)
           .ok()) {
    std::cerr << "null_server: cannot serialize the fixed response\n";
    std::abort();
  }
  return bytes;
}

class NullDecisionService final : public RawCallbackDecisionService {
 public:
  grpc::ServerUnaryReactor* Authorize(grpc::CallbackServerContext* context, const grpc::ByteBuffer*,
                                      grpc::ByteBuffer* response) override {
    return Answer(context, response);
  }
  grpc::ServerUnaryReactor* BatchAuthorize(grpc::CallbackServerContext* context,
                                           const grpc::ByteBuffer*,
                                           grpc::ByteBuffer* response) override {
    return Answer(context, response);
  }
  grpc::ServerUnaryReactor* ValidateToken(grpc::CallbackServerContext* context,
                                          const grpc::ByteBuffer*,
                                          grpc::ByteBuffer* response) override {
    return Answer(context, response);
  }
  grpc::ServerUnaryReactor* Simulate(grpc::CallbackServerContext* context, const grpc::ByteBuffer*,
                                     grpc::ByteBuffer* response) override {
    return Answer(context, response);
  }

 private:
  grpc::ServerUnaryReactor* Answer(grpc::CallbackServerContext* context,
                                   grpc::ByteBuffer* response) {
    if (busy_ > absl::ZeroDuration()) {
      const absl::Time until = absl::Now() + busy_;
      while (absl::Now() < until) {
      }
    }
    *response = fixed_;  // shares the slices: no bytes copied
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

  const grpc::ByteBuffer fixed_ = FixedAllowResponse();
  const absl::Duration busy_ = absl::Microseconds(absl::GetFlag(FLAGS_busy_us));
};

int Main(int argc, char** argv) {
  if (!BlockTerminationSignals().ok()) return 1;
  absl::ParseCommandLine(argc, argv);
  // As verdictd (server/verdictd.cc): without abseil's deadlock detector, whose lock graph
  // gRPC's Mutexes would otherwise pay for on every acquisition.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  NullDecisionService service;
  absl::StatusOr<std::unique_ptr<GrpcServer>> server = GrpcServer::Start(
      absl::GetFlag(FLAGS_listen), {{v1::DecisionService::service_full_name(), &service}});
  if (!server.ok()) {
    std::cerr << "null_server: " << server.status().message() << "\n";
    return 1;
  }
  (*server)->SetServing(true);
  // The same line verdictd prints, so one script waits for either.
  std::cout << "null_server serving on " << (*server)->address() << std::endl;
  AwaitTerminationSignal();
  (*server)->Shutdown(absl::Seconds(1));
  return 0;
}

}  // namespace
}  // namespace verdict

int main(int argc, char** argv) { return verdict::Main(argc, argv); }
