// Times and counts the calls of one unary callback method into its RpcSeries (server/metrics.h):
// in flight until the call is answered or cancelled, then its status code and latency, exactly
// once (a cancelled call's decision may still be finishing on a worker; it answers nobody). An
// UNAVAILABLE status also counts as a store error: by server/grpc_status.h it means the policy
// store could not be read.
//
// The services record their own calls rather than through a gRPC server interceptor: merely
// installing one sends every batch of every call through gRPC's interception machinery, a cost
// paid on every decision call, the product's hot path.
//
//   TimedUnaryMethod authorize(metrics, v1::DecisionService::service_full_name(), "Authorize");
//   ...in the method handler:
//   TimedUnaryReactor* reactor = authorize.StartCall();
//   reactor->Finish(status);  // any thread; counted with the status's code
//   return reactor;           // deletes itself once the call is done
#ifndef VERDICT_SERVER_TIMED_UNARY_REACTOR_H_
#define VERDICT_SERVER_TIMED_UNARY_REACTOR_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>

#include "absl/strings/string_view.h"
#include "server/metrics.h"

namespace verdict {

// The reactor of one call. Answer with this class's Finish, never ServerUnaryReactor::Finish:
// that one is not virtual, so a call answered through a base pointer or reference is never
// counted and stays in flight in the metrics (unless its client cancels).
class TimedUnaryReactor final : public grpc::ServerUnaryReactor {
 public:
  // Counts the call in flight from now; `metrics` and `series` must outlive the call.
  TimedUnaryReactor(Metrics& metrics, RpcSeries& series);

  // Counts the call with `status`'s code (unless the client cancelled it first), then answers.
  void Finish(grpc::Status status);

  // The client went away, the deadline passed or the server shut down before the answer:
  // counted as CANCELLED, whatever Finish later sends.
  void OnCancel() override;
  void OnDone() override;

  // Lets gRPC run OnCancel and OnDone on the thread that ends the call. Otherwise it hands them
  // to its executor thread, a thread hop on every call (a fifth of verdictd's instructions
  // per call ran there, callgrind). Both reactions are short and never block: an atomic
  // exchange, a few relaxed counters, a delete. gRPC's own DefaultReactor says the same.
  bool InternalInlineable() override { return true; }

 private:
  ~TimedUnaryReactor() override = default;  // only OnDone deletes

  // Counts the call the first time it is called, from whichever thread comes first.
  void RecordOnce(grpc::StatusCode code);

  Metrics& metrics_;
  RpcSeries& series_;
  const std::chrono::steady_clock::time_point start_;
  std::atomic<bool> recorded_{false};
};

// One method's series, looked up once (when the service is built) rather than per call.
class TimedUnaryMethod {
 public:
  // `service_full_name` as "verdict.v1.DecisionService", `method` as "Authorize".
  TimedUnaryMethod(Metrics& metrics, absl::string_view service_full_name, absl::string_view method);

  // A reactor for a call that starts now.
  TimedUnaryReactor* StartCall() const { return new TimedUnaryReactor(metrics_, series_); }

 private:
  Metrics& metrics_;
  RpcSeries& series_;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_TIMED_UNARY_REACTOR_H_
