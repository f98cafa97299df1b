// verdictd's Prometheus metrics: per-RPC latency histograms, calls by status code and in flight,
// decisions by verdict and reason, store errors, build information and the process's CPU,
// memory and descriptors, rendered in the Prometheus text exposition format (version 0.0.4).
//
// The gRPC series carry the names and labels of the gRPC ecosystem's convention
// (go-grpc-prometheus): grpc_server_started_total, grpc_server_handled_total and
// grpc_server_handling_seconds with grpc_service, grpc_method, grpc_type (and grpc_code); the
// verdict_grpc_server_* series verdict published first are kept beside them, unchanged.
//
// Recording is lock-free (atomic counters in fixed buckets); only registering a method's series
// (RpcSeriesFor) takes a lock. The registry is fed by the DecisionObserver hook (every Authorize
// decision) and by verdict's own services, which time every call (server/timed_unary_reactor.h).
//
//   Metrics metrics;
//   Authorizer authorizer(store, clock, &metrics);     // decisions
//   metrics.RpcSeriesFor("/verdict.v1.DecisionService/Authorize")->Finished(0, latency);
//   std::string text = metrics.RenderPrometheusText();  // what GET /metrics returns
#ifndef VERDICT_SERVER_METRICS_H_
#define VERDICT_SERVER_METRICS_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/version.h"
#include "decision/authorizer.h"
#include "decision/types.h"

namespace verdict {

// A latency histogram with fixed buckets, from 1 us to 10 s: a decision takes 1 to 50 us, an
// RPC with a store write milliseconds, a stalled one seconds.
class LatencyHistogram {
 public:
  // Upper bounds in seconds; an observation above the last lands in +Inf.
  static constexpr std::array<double, 22> kBucketBounds = {
      0.000001, 0.0000025, 0.000005, 0.00001, 0.000025, 0.00005, 0.0001, 0.00025,
      0.0005,   0.001,     0.0025,   0.005,   0.01,     0.025,   0.05,   0.1,
      0.25,     0.5,       1,        2.5,     5,        10};

  void Observe(absl::Duration latency);

  // Appends the _bucket, _sum and _count lines of `name`; `labels` is "" or `a="x",b="y"`.
  void Render(absl::string_view name, absl::string_view labels, std::string* out) const;

 private:
  // Per bucket (not cumulative); the last one is +Inf.
  std::array<std::atomic<uint64_t>, kBucketBounds.size() + 1> counts_{};
  std::atomic<int64_t> sum_nanos_{0};
};

// The series of one gRPC method, from Metrics::RpcSeriesFor.
class RpcSeries {
 public:
  static constexpr int kStatusCodes = 17;  // grpc::StatusCode OK .. UNAUTHENTICATED

  void Started() {
    started_.fetch_add(1, std::memory_order_relaxed);
    in_flight_.fetch_add(1, std::memory_order_relaxed);
  }
  // `status_code` is a grpc::StatusCode; out-of-range values count as UNKNOWN.
  void Finished(int status_code, absl::Duration latency);

 private:
  friend class Metrics;
  std::atomic<uint64_t> started_{0};
  std::atomic<int64_t> in_flight_{0};
  std::array<std::atomic<uint64_t>, kStatusCodes> handled_{};
  LatencyHistogram latency_;
};

class Metrics : public DecisionObserver {
 public:
  Metrics();

  // Counts the decision by verdict and reason, and its latency. Never refuses one.
  absl::Status OnDecision(const Request& request, const Decision& decision,
                          absl::Duration latency) override;

  // Decisions made but not answered: a synchronous decision log did not keep their rows.
  void OnWithheld(absl::string_view call, size_t decisions) override;

  // A decision of `call` (Authorize, BatchAuthorize, ValidateToken, Simulate) ran out of budget.
  void OnEvaluationLimit(absl::string_view call) override;

  // The series of "/package.Service/Method"; the pointer lives as long as the registry.
  RpcSeries* RpcSeriesFor(absl::string_view full_method);

  // An AdminService call finished with the grpc::StatusCode `status_code`, made by a principal
  // holding `roles` (decision/admin/roles.h's joined form, "none" for none, "unauthenticated"
  // before a principal is known). Labelled by role, never by principal name, so the series stay
  // few: at most every method x code x role set.
  void RecordAdminCall(absl::string_view method, int status_code, absl::string_view roles);

  // A call failed because the store could not be read (UNAVAILABLE).
  void RecordStoreError() { store_errors_.fetch_add(1, std::memory_order_relaxed); }

  // A counter kept elsewhere (for example the decision log's dropped rows), read at each scrape.
  // `name` must be a valid metric name; call before the first scrape.
  void AddExternalCounter(std::string name, std::string help, std::function<uint64_t()> read);
  // Series rendered elsewhere (for example --policy_file's reloads by result), whole Prometheus
  // text with their HELP and TYPE lines, appended at each scrape; call before the first scrape.
  void AddExternalText(std::function<std::string()> render);

  std::string RenderPrometheusText() const;

 private:
  static constexpr int kVerdicts = 3;
  static constexpr int kReasons = static_cast<int>(ReasonCode::kTooManyPendingApprovals) + 1;

  // grpc_server_started_total, grpc_server_handled_total, grpc_server_handling_seconds.
  static void AppendGrpcEcosystemSeries(
      const std::vector<std::pair<absl::string_view, const RpcSeries*>>& rpcs, std::string* out);
  // The calls whose decisions count against a budget, as verdict_evaluation_limit_total names
  // them.
  static constexpr std::array<absl::string_view, 4> kBudgetedCalls = {"Authorize", "BatchAuthorize",
                                                                      "ValidateToken", "Simulate"};

  struct ExternalCounter {
    std::string name;
    std::string help;
    std::function<uint64_t()> read;
  };

  const absl::Time start_time_;
  std::array<std::array<std::atomic<uint64_t>, kReasons>, kVerdicts> decisions_{};
  LatencyHistogram decision_latency_;
  std::atomic<uint64_t> store_errors_{0};
  std::atomic<uint64_t> withheld_{0};
  std::array<std::atomic<uint64_t>, kBudgetedCalls.size()> evaluation_limits_{};

  // Guards the two members below. A std::shared_mutex rather than absl::Mutex: the system's
  // absl is not built for ThreadSanitizer, which then cannot see that absl::Mutex orders the
  // accesses.
  mutable std::shared_mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<RpcSeries>> rpcs_;
  std::vector<ExternalCounter> external_counters_;
  std::vector<std::function<std::string()>> external_texts_;
  // verdict_admin_calls_total by its labels' text (`method="...",code="...",role="..."`).
  absl::flat_hash_map<std::string, uint64_t> admin_calls_;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_METRICS_H_
