#include "server/metrics.h"

#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Decision MakeDecision(Verdict verdict, ReasonCode reason) {
  Decision decision;
  decision.verdict = verdict;
  decision.reason = reason;
  return decision;
}

// Every line is a comment (# HELP / # TYPE) or a sample: name{labels} value.
void ExpectValidExposition(const std::string& text) {
  static const std::regex kSample(
      R"re(^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*")re"
      R"re((,[a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*")*\})? (-?[0-9.e+-]+|\+Inf)$)re");
  static const std::regex kComment(R"(^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+$)");
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    const std::string copy(line);
    EXPECT_TRUE(std::regex_match(copy, kSample) || std::regex_match(copy, kComment)) << copy;
  }
}

TEST(MetricsTest, DecisionsAreCountedByVerdictAndReason) {
  Metrics metrics;
  EXPECT_TRUE(metrics
                  .OnDecision(Request(), MakeDecision(Verdict::kAllow, ReasonCode::kAllowed),
                              absl::Microseconds(200))
                  .ok());
  EXPECT_TRUE(metrics
                  .OnDecision(Request(), MakeDecision(Verdict::kAllow, ReasonCode::kAllowed),
                              absl::Microseconds(300))
                  .ok());
  EXPECT_TRUE(metrics
                  .OnDecision(Request(), MakeDecision(Verdict::kDeny, ReasonCode::kAgentRevoked),
                              absl::Milliseconds(3))
                  .ok());
  const std::string text = metrics.RenderPrometheusText();
  ExpectValidExposition(text);
  EXPECT_THAT(text, HasSubstr("verdict_decisions_total{verdict=\"ALLOW\",reason=\"ALLOWED\"} 2\n"));
  EXPECT_THAT(text,
              HasSubstr("verdict_decisions_total{verdict=\"DENY\",reason=\"AGENT_REVOKED\"} 1\n"));
  EXPECT_THAT(text, Not(HasSubstr("reason=\"RATE_LIMITED\"")));
  EXPECT_THAT(text, HasSubstr("verdict_decision_duration_seconds_bucket{le=\"0.00025\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("verdict_decision_duration_seconds_bucket{le=\"0.0005\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("verdict_decision_duration_seconds_bucket{le=\"0.005\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("verdict_decision_duration_seconds_bucket{le=\"+Inf\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("verdict_decision_duration_seconds_count 3\n"));
  EXPECT_THAT(text, HasSubstr("verdict_decision_duration_seconds_sum 0.0035\n"));
}

TEST(MetricsTest, DecisionLatencyIsResolvedFromOneMicrosecond) {
  // Decisions take 1 to 50 us: each of these lands in a bucket of its own.
  Metrics metrics;
  for (absl::Duration latency :
       {absl::Nanoseconds(800), absl::Microseconds(2), absl::Microseconds(4), absl::Microseconds(9),
        absl::Microseconds(20), absl::Microseconds(45)}) {
    EXPECT_TRUE(
        metrics.OnDecision(Request(), MakeDecision(Verdict::kAllow, ReasonCode::kAllowed), latency)
            .ok());
  }
  const std::string text = metrics.RenderPrometheusText();
  ExpectValidExposition(text);
  EXPECT_THAT(text, HasSubstr("verdict_decision_duration_seconds_bucket{le=\"1e-06\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("verdict_decision_duration_seconds_bucket{le=\"2.5e-06\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("verdict_decision_duration_seconds_bucket{le=\"5e-06\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("verdict_decision_duration_seconds_bucket{le=\"1e-05\"} 4\n"));
  EXPECT_THAT(text, HasSubstr("verdict_decision_duration_seconds_bucket{le=\"2.5e-05\"} 5\n"));
  EXPECT_THAT(text, HasSubstr("verdict_decision_duration_seconds_bucket{le=\"5e-05\"} 6\n"));
}

TEST(MetricsTest, DecisionsOverTheirBudgetAreCountedByCall) {
  Metrics metrics;
  EXPECT_TRUE(metrics
                  .OnDecision(Request(), MakeDecision(Verdict::kDeny, ReasonCode::kEvaluationLimit),
                              absl::Microseconds(200))
                  .ok());
  metrics.OnEvaluationLimit("Authorize");
  metrics.OnEvaluationLimit("Simulate");
  metrics.OnEvaluationLimit("Simulate");
  const std::string text = metrics.RenderPrometheusText();
  ExpectValidExposition(text);
  EXPECT_THAT(
      text, HasSubstr("verdict_decisions_total{verdict=\"DENY\",reason=\"EVALUATION_LIMIT\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("verdict_evaluation_limit_total{call=\"Authorize\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("verdict_evaluation_limit_total{call=\"Simulate\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("verdict_evaluation_limit_total{call=\"ValidateToken\"} 0\n"));
}

TEST(MetricsTest, DecisionsWithheldForWantOfTheirLogRowAreCounted) {
  Metrics metrics;
  EXPECT_THAT(metrics.RenderPrometheusText(), HasSubstr("verdict_decision_log_withheld_total 0\n"));
  metrics.OnWithheld("Authorize", 1);
  metrics.OnWithheld("BatchAuthorize", 3);
  const std::string text = metrics.RenderPrometheusText();
  ExpectValidExposition(text);
  EXPECT_THAT(text, HasSubstr("# TYPE verdict_decision_log_withheld_total counter\n"));
  EXPECT_THAT(text, HasSubstr("verdict_decision_log_withheld_total 4\n"));
}

TEST(MetricsTest, LatencyOnABucketBoundLandsInThatBucket) {
  LatencyHistogram histogram;
  histogram.Observe(absl::Milliseconds(1));
  histogram.Observe(absl::Seconds(60));
  std::string text;
  histogram.Render("h", "", &text);
  EXPECT_THAT(text, HasSubstr("h_bucket{le=\"0.0005\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("h_bucket{le=\"0.001\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("h_bucket{le=\"10\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("h_bucket{le=\"+Inf\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("h_count 2\n"));
}

TEST(MetricsTest, RpcsAreCountedByMethodAndCodeWithLatencyAndInFlight) {
  Metrics metrics;
  RpcSeries* authorize = metrics.RpcSeriesFor("/verdict.v1.DecisionService/Authorize");
  EXPECT_EQ(metrics.RpcSeriesFor("/verdict.v1.DecisionService/Authorize"), authorize);
  authorize->Started();
  authorize->Started();
  authorize->Started();
  authorize->Finished(0, absl::Microseconds(400));
  authorize->Finished(14, absl::Milliseconds(2));
  const std::string text = metrics.RenderPrometheusText();
  ExpectValidExposition(text);
  const std::string labels =
      "grpc_service=\"verdict.v1.DecisionService\",grpc_method=\"Authorize\"";
  EXPECT_THAT(text,
              HasSubstr("verdict_grpc_server_handled_total{" + labels + ",grpc_code=\"OK\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("verdict_grpc_server_handled_total{" + labels +
                              ",grpc_code=\"UNAVAILABLE\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("verdict_grpc_server_handling_seconds_bucket{" + labels +
                              ",le=\"0.0005\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("verdict_grpc_server_handling_seconds_count{" + labels + "} 2\n"));
  EXPECT_THAT(text, HasSubstr("verdict_grpc_server_in_flight{" + labels + "} 1\n"));
}

TEST(MetricsTest, RpcsAlsoCarryTheGrpcEcosystemNamesAndLabels) {
  // go-grpc-prometheus's series, so that stock gRPC dashboards and alerts match verdictd.
  Metrics metrics;
  RpcSeries* authorize = metrics.RpcSeriesFor("/verdict.v1.DecisionService/Authorize");
  authorize->Started();
  authorize->Started();
  authorize->Finished(0, absl::Microseconds(30));
  const std::string text = metrics.RenderPrometheusText();
  ExpectValidExposition(text);
  const std::string labels =
      "grpc_method=\"Authorize\",grpc_service=\"verdict.v1.DecisionService\","
      "grpc_type=\"unary\"";
  EXPECT_THAT(text, HasSubstr("# TYPE grpc_server_started_total counter\n"));
  EXPECT_THAT(text, HasSubstr("grpc_server_started_total{" + labels + "} 2\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE grpc_server_handled_total counter\n"));
  EXPECT_THAT(text, HasSubstr("grpc_server_handled_total{grpc_code=\"OK\"," + labels + "} 1\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE grpc_server_handling_seconds histogram\n"));
  EXPECT_THAT(text,
              HasSubstr("grpc_server_handling_seconds_bucket{" + labels + ",le=\"5e-05\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("grpc_server_handling_seconds_count{" + labels + "} 1\n"));
  // The names verdict published first stay, so nothing built on them breaks.
  EXPECT_THAT(text, HasSubstr("verdict_grpc_server_handled_total{"));
  EXPECT_THAT(text, HasSubstr("verdict_grpc_server_handling_seconds_count{"));
  EXPECT_THAT(text, HasSubstr("verdict_grpc_server_in_flight{"));
}

TEST(MetricsTest, ProcessSeriesFollowPrometheusClientConventions) {
  const std::string text = Metrics().RenderPrometheusText();
  ExpectValidExposition(text);
  for (const char* header :
       {"# TYPE process_cpu_seconds_total counter\n",
        "# TYPE process_resident_memory_bytes gauge\n", "# TYPE process_open_fds gauge\n",
        "# TYPE process_start_time_seconds gauge\n"}) {
    EXPECT_THAT(text, HasSubstr(header));
  }
  EXPECT_THAT(text, Not(HasSubstr("process_resident_memory_bytes 0\n")));
  EXPECT_THAT(text, Not(HasSubstr("process_open_fds 0\n")));
}

TEST(MetricsTest, OutOfRangeStatusCodeCountsAsUnknown) {
  Metrics metrics;
  RpcSeries* series = metrics.RpcSeriesFor("/a.B/C");
  series->Started();
  series->Finished(99, absl::ZeroDuration());
  EXPECT_THAT(metrics.RenderPrometheusText(),
              HasSubstr("verdict_grpc_server_handled_total{grpc_service=\"a.B\",grpc_method=\"C\","
                        "grpc_code=\"UNKNOWN\"} 1\n"));
}

TEST(MetricsTest, StoreErrorsBuildInfoAndExternalCounters) {
  Metrics metrics;
  metrics.RecordStoreError();
  metrics.RecordStoreError();
  uint64_t dropped = 7;
  metrics.AddExternalCounter("verdict_decision_log_dropped_total", "Rows dropped.",
                             [&dropped] { return dropped; });
  const std::string text = metrics.RenderPrometheusText();
  ExpectValidExposition(text);
  EXPECT_THAT(text, HasSubstr("verdict_store_errors_total 2\n"));
  EXPECT_THAT(text, HasSubstr("verdict_build_info{version=\"0.1.0\",grpc_version=\""));
  EXPECT_THAT(text, HasSubstr("# TYPE verdict_decision_log_dropped_total counter\n"));
  EXPECT_THAT(text, HasSubstr("verdict_decision_log_dropped_total 7\n"));
  dropped = 9;
  EXPECT_THAT(metrics.RenderPrometheusText(), HasSubstr("verdict_decision_log_dropped_total 9\n"));
}

TEST(MetricsTest, LabelValuesAreEscaped) {
  Metrics metrics;
  RpcSeries* series = metrics.RpcSeriesFor("/odd\"svc\\x/Me\nthod");
  series->Started();
  series->Finished(0, absl::ZeroDuration());
  const std::string text = metrics.RenderPrometheusText();
  ExpectValidExposition(text);
  EXPECT_THAT(text, HasSubstr(R"(grpc_service="odd\"svc\\x",grpc_method="Me\nthod")"));
}

TEST(MetricsTest, ConcurrentRecordingLosesNothing) {
  Metrics metrics;
  constexpr int kThreads = 4;
  constexpr int kCalls = 5000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kCalls; ++i) {
        RpcSeries* series = metrics.RpcSeriesFor("/s.S/M");
        series->Started();
        series->Finished(0, absl::Microseconds(i % 700));
        EXPECT_TRUE(metrics
                        .OnDecision(Request(),
                                    MakeDecision(Verdict::kDeny, ReasonCode::kRateLimited),
                                    absl::ZeroDuration())
                        .ok());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  const std::string text = metrics.RenderPrometheusText();
  EXPECT_THAT(text, HasSubstr("grpc_method=\"M\",grpc_code=\"OK\"} 20000\n"));
  EXPECT_THAT(text, HasSubstr("grpc_method=\"M\"} 0\n"));  // nothing left in flight
  EXPECT_THAT(text, HasSubstr("reason=\"RATE_LIMITED\"} 20000\n"));
}

}  // namespace
}  // namespace verdict
