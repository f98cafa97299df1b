#include "server/metrics.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/process_stats.h"

namespace verdict {
namespace {

constexpr const char* kStatusCodeNames[RpcSeries::kStatusCodes] = {
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
};
constexpr int kUnknownStatusCode = 2;

// Label values: backslash, double quote and line feed escaped, as the text format requires.
std::string EscapeLabelValue(absl::string_view value) {
  std::string escaped;
  escaped.reserve(value.size());
  for (char c : value) {
    switch (c) {
      case '\\':
        escaped += "\\\\";
        break;
      case '"':
        escaped += "\\\"";
        break;
      case '\n':
        escaped += "\\n";
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

// A form that reads back as the same double, short when it can be ("0.00025", "1e-05").
std::string FormatDouble(double value) {
  std::string text = absl::StrFormat("%.15g", value);
  if (std::strtod(text.c_str(), nullptr) == value) return text;
  return absl::StrFormat("%.17g", value);
}

void AppendHeader(absl::string_view name, absl::string_view type, absl::string_view help,
                  std::string* out) {
  absl::StrAppend(out, "# HELP ", name, " ", help, "\n# TYPE ", name, " ", type, "\n");
}

void AppendSample(absl::string_view name, absl::string_view labels, absl::string_view value,
                  std::string* out) {
  if (labels.empty()) {
    absl::StrAppend(out, name, " ", value, "\n");
  } else {
    absl::StrAppend(out, name, "{", labels, "} ", value, "\n");
  }
}

// "/verdict.v1.DecisionService/Authorize" -> grpc_service and grpc_method labels.
std::string RpcLabels(absl::string_view full_method) {
  absl::string_view trimmed = full_method;
  if (!trimmed.empty() && trimmed.front() == '/') trimmed.remove_prefix(1);
  size_t slash = trimmed.rfind('/');
  absl::string_view service = slash == absl::string_view::npos ? "" : trimmed.substr(0, slash);
  absl::string_view method = slash == absl::string_view::npos ? trimmed : trimmed.substr(slash + 1);
  return absl::StrCat("grpc_service=\"", EscapeLabelValue(service), "\",grpc_method=\"",
                      EscapeLabelValue(method), "\"");
}

// The gRPC ecosystem's labels (go-grpc-prometheus), in its order: every verdict method timed
// here is unary.
std::string EcosystemRpcLabels(absl::string_view full_method) {
  absl::string_view trimmed = full_method;
  if (!trimmed.empty() && trimmed.front() == '/') trimmed.remove_prefix(1);
  size_t slash = trimmed.rfind('/');
  absl::string_view service = slash == absl::string_view::npos ? "" : trimmed.substr(0, slash);
  absl::string_view method = slash == absl::string_view::npos ? trimmed : trimmed.substr(slash + 1);
  return absl::StrCat("grpc_method=\"", EscapeLabelValue(method), "\",grpc_service=\"",
                      EscapeLabelValue(service), "\",grpc_type=\"unary\"");
}

// process_*: the names and meanings of Prometheus's client libraries, read from /proc now.
// Nothing is written when /proc cannot be read (no made-up zeros).
void AppendProcessSeries(std::string* out) {
  absl::StatusOr<ProcessStats> stats = ReadProcessStats();
  if (!stats.ok()) return;
  AppendHeader("process_cpu_seconds_total", "counter",
               "Total user and system CPU time spent in seconds.", out);
  AppendSample("process_cpu_seconds_total", "", FormatDouble(stats->cpu_seconds), out);
  AppendHeader("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", out);
  AppendSample("process_resident_memory_bytes", "", absl::StrCat(stats->resident_memory_bytes),
               out);
  AppendHeader("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", out);
  AppendSample("process_virtual_memory_bytes", "", absl::StrCat(stats->virtual_memory_bytes), out);
  AppendHeader("process_open_fds", "gauge", "Number of open file descriptors.", out);
  AppendSample("process_open_fds", "", absl::StrCat(stats->open_fds), out);
  if (stats->max_fds > 0) {
    AppendHeader("process_max_fds", "gauge", "Maximum number of open file descriptors.", out);
    AppendSample("process_max_fds", "", absl::StrCat(stats->max_fds), out);
  }
  AppendHeader("process_start_time_seconds", "gauge",
               "Start time of the process since unix epoch in seconds.", out);
  AppendSample("process_start_time_seconds", "", FormatDouble(stats->start_time_seconds), out);
}

}  // namespace

void LatencyHistogram::Observe(absl::Duration latency) {
  const double seconds = absl::ToDoubleSeconds(latency);
  size_t bucket =
      std::lower_bound(kBucketBounds.begin(), kBucketBounds.end(), seconds) - kBucketBounds.begin();
  counts_[bucket].fetch_add(1, std::memory_order_relaxed);
  sum_nanos_.fetch_add(absl::ToInt64Nanoseconds(latency), std::memory_order_relaxed);
}

void LatencyHistogram::Render(absl::string_view name, absl::string_view labels,
                              std::string* out) const {
  const std::string prefix = labels.empty() ? "" : absl::StrCat(labels, ",");
  const std::string bucket_name = absl::StrCat(name, "_bucket");
  // The count is the sum of the buckets read here, so _count always equals the +Inf bucket even
  // while observations land during the scrape.
  uint64_t cumulative = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    cumulative += counts_[i].load(std::memory_order_relaxed);
    const std::string bound = i < kBucketBounds.size() ? FormatDouble(kBucketBounds[i]) : "+Inf";
    AppendSample(bucket_name, absl::StrCat(prefix, "le=\"", bound, "\""), absl::StrCat(cumulative),
                 out);
  }
  const double sum_seconds = static_cast<double>(sum_nanos_.load(std::memory_order_relaxed)) / 1e9;
  AppendSample(absl::StrCat(name, "_sum"), labels, FormatDouble(sum_seconds), out);
  AppendSample(absl::StrCat(name, "_count"), labels, absl::StrCat(cumulative), out);
}

void RpcSeries::Finished(int status_code, absl::Duration latency) {
  if (status_code < 0 || status_code >= kStatusCodes) status_code = kUnknownStatusCode;
  handled_[status_code].fetch_add(1, std::memory_order_relaxed);
  latency_.Observe(latency);
  in_flight_.fetch_sub(1, std::memory_order_relaxed);
}

Metrics::Metrics() : start_time_(absl::Now()) {}

absl::Status Metrics::OnDecision(const Request& /*request*/, const Decision& decision,
                                 absl::Duration latency) {
  const int verdict = static_cast<int>(decision.verdict);
  const int reason = static_cast<int>(decision.reason);
  if (verdict >= 0 && verdict < kVerdicts && reason >= 0 && reason < kReasons) {
    decisions_[verdict][reason].fetch_add(1, std::memory_order_relaxed);
  }
  decision_latency_.Observe(latency);
  return absl::OkStatus();
}

void Metrics::OnWithheld(absl::string_view /*call*/, size_t decisions) {
  withheld_.fetch_add(decisions, std::memory_order_relaxed);
}

void Metrics::RecordAdminCall(absl::string_view method, int status_code, absl::string_view roles) {
  if (status_code < 0 || status_code >= RpcSeries::kStatusCodes) status_code = 2;  // UNKNOWN
  std::string labels = absl::StrCat("method=\"", method, "\",code=\"",
                                    kStatusCodeNames[status_code], "\",role=\"", roles, "\"");
  std::unique_lock<std::shared_mutex> lock(mu_);
  ++admin_calls_[labels];
}

RpcSeries* Metrics::RpcSeriesFor(absl::string_view full_method) {
  {
    std::shared_lock<std::shared_mutex> lock(mu_);
    auto it = rpcs_.find(full_method);
    if (it != rpcs_.end()) return it->second.get();
  }
  std::unique_lock<std::shared_mutex> lock(mu_);
  std::unique_ptr<RpcSeries>& series = rpcs_[std::string(full_method)];
  if (series == nullptr) series = std::make_unique<RpcSeries>();
  return series.get();
}

void Metrics::AddExternalCounter(std::string name, std::string help,
                                 std::function<uint64_t()> read) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  external_counters_.push_back({std::move(name), std::move(help), std::move(read)});
}

void Metrics::AddExternalText(std::function<std::string()> render) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  external_texts_.push_back(std::move(render));
}

void Metrics::OnEvaluationLimit(absl::string_view call) {
  for (size_t i = 0; i < kBudgetedCalls.size(); ++i) {
    if (kBudgetedCalls[i] == call) evaluation_limits_[i].fetch_add(1, std::memory_order_relaxed);
  }
}

std::string Metrics::RenderPrometheusText() const {
  std::string out;
  AppendHeader("verdict_build_info", "gauge", "verdictd's version; the value is always 1.", &out);
  AppendSample("verdict_build_info",
               absl::StrCat("version=\"", EscapeLabelValue(kVerdictVersion), "\",grpc_version=\"",
                            EscapeLabelValue(grpc::Version()), "\""),
               "1", &out);
  AppendHeader("verdict_process_start_time_seconds", "gauge",
               "When verdictd started, in seconds since the Unix epoch.", &out);
  AppendSample("verdict_process_start_time_seconds", "",
               absl::StrCat(absl::ToUnixSeconds(start_time_)), &out);

  AppendHeader("verdict_decisions_total", "counter",
               "Decisions by verdict and reason: Authorize, each check of a BatchAuthorize, and "
               "ext_authz checks that reached a decision (a missing or malformed token or a path "
               "refused with 400 is answered before one, counted only in "
               "verdict_grpc_server_handled_total).",
               &out);
  for (int verdict = 0; verdict < kVerdicts; ++verdict) {
    for (int reason = 0; reason < kReasons; ++reason) {
      const uint64_t count = decisions_[verdict][reason].load(std::memory_order_relaxed);
      if (count == 0) continue;
      AppendSample(
          "verdict_decisions_total",
          absl::StrCat("verdict=\"", VerdictName(static_cast<Verdict>(verdict)), "\",reason=\"",
                       ReasonCodeName(static_cast<ReasonCode>(reason)), "\""),
          absl::StrCat(count), &out);
    }
  }
  AppendHeader("verdict_decision_duration_seconds", "histogram",
               "Time to reach a decision, store reads and writes included.", &out);
  decision_latency_.Render("verdict_decision_duration_seconds", "", &out);

  AppendHeader("verdict_evaluation_limit_total", "counter",
               "Decisions refused with EVALUATION_LIMIT because they needed more store lookups "
               "and delegation steps than --max_decision_steps, by call (ext_authz checks count "
               "as Authorize).",
               &out);
  for (size_t i = 0; i < kBudgetedCalls.size(); ++i) {
    AppendSample("verdict_evaluation_limit_total", absl::StrCat("call=\"", kBudgetedCalls[i], "\""),
                 absl::StrCat(evaluation_limits_[i].load(std::memory_order_relaxed)), &out);
  }

  AppendHeader("verdict_store_errors_total", "counter",
               "Calls denied because the policy store could not be read.", &out);
  AppendSample("verdict_store_errors_total", "",
               absl::StrCat(store_errors_.load(std::memory_order_relaxed)), &out);

  AppendHeader("verdict_decision_log_withheld_total", "counter",
               "Decisions made but not answered because --decision_log_durability=sync and the "
               "decision log did not keep their rows (refused, dropped, or shut down): the call "
               "failed as on a store fault.",
               &out);
  AppendSample("verdict_decision_log_withheld_total", "",
               absl::StrCat(withheld_.load(std::memory_order_relaxed)), &out);

  std::shared_lock<std::shared_mutex> lock(mu_);
  std::vector<std::pair<absl::string_view, const RpcSeries*>> rpcs;
  for (const auto& [method, series] : rpcs_) rpcs.emplace_back(method, series.get());
  std::sort(rpcs.begin(), rpcs.end());

  AppendHeader("verdict_grpc_server_handled_total", "counter",
               "RPCs of the decision port completed, by method and gRPC status code (the admin "
               "plane's are not counted here).",
               &out);
  for (const auto& [method, series] : rpcs) {
    const std::string labels = RpcLabels(method);
    for (int code = 0; code < RpcSeries::kStatusCodes; ++code) {
      const uint64_t count = series->handled_[code].load(std::memory_order_relaxed);
      if (count == 0) continue;
      AppendSample("verdict_grpc_server_handled_total",
                   absl::StrCat(labels, ",grpc_code=\"", kStatusCodeNames[code], "\""),
                   absl::StrCat(count), &out);
    }
  }
  AppendHeader("verdict_grpc_server_handling_seconds", "histogram",
               "RPC latency from the call's start to its status, by method.", &out);
  for (const auto& [method, series] : rpcs) {
    series->latency_.Render("verdict_grpc_server_handling_seconds", RpcLabels(method), &out);
  }
  AppendHeader("verdict_grpc_server_in_flight", "gauge", "RPCs started and not yet finished.",
               &out);
  for (const auto& [method, series] : rpcs) {
    AppendSample("verdict_grpc_server_in_flight", RpcLabels(method),
                 absl::StrCat(series->in_flight_.load(std::memory_order_relaxed)), &out);
  }

  AppendGrpcEcosystemSeries(rpcs, &out);

  AppendHeader("verdict_admin_calls_total", "counter",
               "AdminService calls completed, by method, gRPC status code and the roles of the "
               "calling principal (\"unauthenticated\" when none was established).",
               &out);
  std::vector<std::pair<absl::string_view, uint64_t>> admin_calls(admin_calls_.begin(),
                                                                  admin_calls_.end());
  std::sort(admin_calls.begin(), admin_calls.end());
  for (const auto& [labels, count] : admin_calls) {
    AppendSample("verdict_admin_calls_total", labels, absl::StrCat(count), &out);
  }

  for (const ExternalCounter& counter : external_counters_) {
    AppendHeader(counter.name, "counter", counter.help, &out);
    AppendSample(counter.name, "", absl::StrCat(counter.read()), &out);
  }
  for (const std::function<std::string()>& render : external_texts_) out += render();
  AppendProcessSeries(&out);
  return out;
}

void Metrics::AppendGrpcEcosystemSeries(
    const std::vector<std::pair<absl::string_view, const RpcSeries*>>& rpcs, std::string* out) {
  AppendHeader("grpc_server_started_total", "counter",
               "Total number of RPCs started on the server.", out);
  for (const auto& [method, series] : rpcs) {
    AppendSample("grpc_server_started_total", EcosystemRpcLabels(method),
                 absl::StrCat(series->started_.load(std::memory_order_relaxed)), out);
  }
  AppendHeader("grpc_server_handled_total", "counter",
               "Total number of RPCs completed on the server, regardless of success or failure.",
               out);
  for (const auto& [method, series] : rpcs) {
    const std::string labels = EcosystemRpcLabels(method);
    for (int code = 0; code < RpcSeries::kStatusCodes; ++code) {
      const uint64_t count = series->handled_[code].load(std::memory_order_relaxed);
      if (count == 0) continue;
      AppendSample("grpc_server_handled_total",
                   absl::StrCat("grpc_code=\"", kStatusCodeNames[code], "\",", labels),
                   absl::StrCat(count), out);
    }
  }
  AppendHeader("grpc_server_handling_seconds", "histogram",
               "Histogram of response latency (seconds) of gRPC that had been application-level "
               "handled by the server.",
               out);
  for (const auto& [method, series] : rpcs) {
    series->latency_.Render("grpc_server_handling_seconds", EcosystemRpcLabels(method), out);
  }
}

}  // namespace verdict
