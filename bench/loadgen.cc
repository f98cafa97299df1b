// loadgen: drives a running verdictd with N calls in flight for a set time, checks every answer
// (the warm-up's and the calls still in flight at the stop time included) against the decision
// the benchmark dataset implies (bench/dataset.h), and prints QPS and latency percentiles of the
// measuring window, errors and wrong answers. Exits non-zero on any error or wrong answer: a load
// test that counts a failure as a success measures nothing. One thread drives every call through
// one completion queue, so the client takes as little as it can of the cores it shares with the
// server.
//
//   bazel run -c opt //bench:loadgen -- --target=unix:/tmp/verdict.sock --agents=50000
//       --in_flight=64 --duration=10s --mix=direct:50,delegated:25,denied:25   (one line)
//
// The server must serve the database that bench/dataset_db.h generates for the same --agents.
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "bench/latency.h"
#include "bench/workload.h"
#include "verdict/v1/decision.grpc.pb.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "verdictd's address: host:port or unix:PATH");
ABSL_FLAG(int64_t, agents, 50000, "agents in the served dataset (as generated for the server)");
ABSL_FLAG(int, in_flight, 64, "calls kept in flight at every moment");
ABSL_FLAG(absl::Duration, duration, absl::Seconds(10), "how long to measure");
ABSL_FLAG(absl::Duration, warmup, absl::Seconds(2), "calls before measuring, not counted");
ABSL_FLAG(std::string, mix, "direct:50,delegated:25,denied:25",
          "weights of the call kinds: direct, delegated, denied, token");
ABSL_FLAG(absl::Duration, deadline, absl::Seconds(5), "deadline of each call");
ABSL_FLAG(uint64_t, seed, 1, "seed of the call sequence");
ABSL_FLAG(int, channels, 1, "gRPC channels (connections) the calls are spread over");
ABSL_FLAG(bool, round_robin, false,
          "spread the calls over every address of the target (unix:/a.sock,/b.sock), only to "
          "servers whose grpc.health.v1 status is SERVING (a stopping verdictd drains)");

namespace verdict::bench {
namespace {

using SteadyClock = std::chrono::steady_clock;

// What the whole run saw.
struct Tally {
  int64_t checked = 0;  // every answer, warm-up and drain included
  int64_t calls = 0;    // the answers inside the measuring window
  int64_t errors = 0;
  int64_t wrong = 0;
  std::vector<int64_t> latencies_ns;
};

// Remembers the first few failures, so a failed run says what went wrong.
class FailureLog {
 public:
  void Add(std::string line) {
    if (lines_.size() < kMaxLines) lines_.push_back(std::move(line));
  }
  void Print() const {
    for (const std::string& line : lines_) std::fprintf(stderr, "  %s\n", line.c_str());
  }

 private:
  static constexpr size_t kMaxLines = 10;
  std::vector<std::string> lines_;
};

struct RunWindow {
  SteadyClock::time_point measure_from;
  SteadyClock::time_point stop_at;
};

// Keeps one call in flight on the run's completion queue: when its call completes, it records
// it and starts the next, until the run's stop time. Every slot is driven by the one thread that
// polls the queue, so nothing here needs a lock, and the client's share of the 2 cores it shares
// with the server stays small (no hand-off between gRPC's threads and ours).
class Slot {
 public:
  Slot(v1::DecisionService::Stub* stub, grpc::CompletionQueue* queue, const Mix& mix,
       int64_t agents, uint64_t seed, absl::Duration deadline)
      : stub_(stub), queue_(queue), mix_(mix), agents_(agents), rng_(seed), deadline_(deadline) {}

  void Start() {
    PlanCall(mix_, agents_, rng_(), &call_);
    context_.emplace();
    context_->set_deadline(absl::ToChronoTime(absl::Now() + deadline_));
    started_ = SteadyClock::now();
    if (call_.kind == CallKind::kToken) {
      validate_reader_ = stub_->AsyncValidateToken(&*context_, call_.validate, queue_);
      validate_reader_->Finish(&validate_answer_, &status_, this);
    } else {
      authorize_reader_ = stub_->AsyncAuthorize(&*context_, call_.authorize, queue_);
      authorize_reader_->Finish(&authorize_answer_, &status_, this);
    }
  }

  // The call completed at `now`: checks its answer, whenever it came (in the warm-up, or after
  // the stop time: a call a stalled server leaves hanging ends in DEADLINE_EXCEEDED), and times
  // it when it lies inside the window.
  void Complete(SteadyClock::time_point now, const RunWindow& window, Tally* tally,
                FailureLog* failures) const {
    ++tally->checked;
    if (started_ >= window.measure_from && now < window.stop_at) {
      ++tally->calls;
      tally->latencies_ns.push_back(
          std::chrono::duration_cast<std::chrono::nanoseconds>(now - started_).count());
    }
    if (!status_.ok()) {
      ++tally->errors;
      failures->Add("error: gRPC status " + std::to_string(status_.error_code()) + ": " +
                    status_.error_message());
      return;
    }
    const std::string wrong = call_.kind == CallKind::kToken
                                  ? CheckValidateToken(call_.expected_agent_id,
                                                       call_.expected_permissions, validate_answer_)
                                  : CheckAuthorize(call_.expected, authorize_answer_);
    if (!wrong.empty()) {
      ++tally->wrong;
      const std::string call = call_.kind == CallKind::kToken
                                   ? "ValidateToken of " + call_.expected_agent_id
                                   : "Authorize " + call_.authorize.ShortDebugString();
      failures->Add("wrong answer to " + call + ": " + wrong);
    }
  }

 private:
  v1::DecisionService::Stub* const stub_;
  grpc::CompletionQueue* const queue_;
  const Mix& mix_;
  const int64_t agents_;
  std::mt19937_64 rng_;
  const absl::Duration deadline_;

  PlannedCall call_;
  std::optional<grpc::ClientContext> context_;  // a context serves one call only
  std::unique_ptr<grpc::ClientAsyncResponseReader<v1::AuthorizeResponse>> authorize_reader_;
  std::unique_ptr<grpc::ClientAsyncResponseReader<v1::ValidateTokenResponse>> validate_reader_;
  v1::AuthorizeResponse authorize_answer_;
  v1::ValidateTokenResponse validate_answer_;
  grpc::Status status_;
  SteadyClock::time_point started_;
};

std::shared_ptr<grpc::Channel> OpenChannel(const std::string& target, int index) {
  grpc::ChannelArguments arguments;
  // Distinct arguments keep gRPC from sharing one connection between the channels.
  arguments.SetInt("verdict.loadgen.channel", index);
  if (absl::GetFlag(FLAGS_round_robin)) {
    arguments.SetServiceConfigJSON(
        R"({"loadBalancingConfig": [{"round_robin": {}}], "healthCheckConfig": {"serviceName": ""}})");
  }
  return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), arguments);
}

int Run() {
  const std::string target = absl::GetFlag(FLAGS_target);
  const int64_t agents = absl::GetFlag(FLAGS_agents);
  const int in_flight = absl::GetFlag(FLAGS_in_flight);
  const int channel_count = absl::GetFlag(FLAGS_channels);
  absl::StatusOr<Mix> mix = ParseMix(absl::GetFlag(FLAGS_mix));
  if (!mix.ok()) {
    std::fprintf(stderr, "loadgen: --mix: %s\n", mix.status().ToString().c_str());
    return 2;
  }
  if (agents < 12 || in_flight < 1 || channel_count < 1) {
    std::fprintf(stderr, "loadgen: need --agents >= 12, --in_flight >= 1, --channels >= 1\n");
    return 2;
  }

  std::vector<std::unique_ptr<v1::DecisionService::Stub>> stubs;
  for (int i = 0; i < channel_count; ++i) {
    std::shared_ptr<grpc::Channel> channel = OpenChannel(target, i);
    if (!channel->WaitForConnected(absl::ToChronoTime(absl::Now() + absl::Seconds(10)))) {
      std::fprintf(stderr, "loadgen: cannot connect to %s\n", target.c_str());
      return 2;
    }
    stubs.push_back(v1::DecisionService::NewStub(channel));
  }

  grpc::CompletionQueue queue;
  std::vector<std::unique_ptr<Slot>> slots;
  const uint64_t seed = absl::GetFlag(FLAGS_seed);
  for (int i = 0; i < in_flight; ++i) {
    slots.push_back(std::make_unique<Slot>(stubs[i % channel_count].get(), &queue, *mix, agents,
                                           seed * 1000003 + i, absl::GetFlag(FLAGS_deadline)));
  }

  const SteadyClock::time_point start = SteadyClock::now();
  RunWindow window;
  window.measure_from = start + absl::ToChronoNanoseconds(absl::GetFlag(FLAGS_warmup));
  window.stop_at = window.measure_from + absl::ToChronoNanoseconds(absl::GetFlag(FLAGS_duration));

  Tally total;
  FailureLog failures;
  for (std::unique_ptr<Slot>& slot : slots) slot->Start();
  int running = in_flight;
  void* tag = nullptr;
  bool ok = false;
  while (running > 0 && queue.Next(&tag, &ok)) {
    Slot* slot = static_cast<Slot*>(tag);
    const SteadyClock::time_point now = SteadyClock::now();
    slot->Complete(now, window, &total, &failures);
    if (now < window.stop_at) {
      slot->Start();
    } else {
      --running;
    }
  }
  queue.Shutdown();
  while (queue.Next(&tag, &ok)) {
  }

  const double seconds = absl::ToDoubleSeconds(absl::GetFlag(FLAGS_duration));
  const LatencySummary latency = SummarizeLatencies(std::move(total.latencies_ns));
  std::printf("target %s  agents %lld  in_flight %d  channels %d  mix %s  duration %.1fs\n",
              target.c_str(), static_cast<long long>(agents), in_flight, channel_count,
              absl::GetFlag(FLAGS_mix).c_str(), seconds);
  std::printf("calls %lld  qps %.0f  errors %lld  wrong %lld  checked %lld\n",
              static_cast<long long>(total.calls), static_cast<double>(total.calls) / seconds,
              static_cast<long long>(total.errors), static_cast<long long>(total.wrong),
              static_cast<long long>(total.checked));
  std::printf("latency_us p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f\n", latency.p50_us,
              latency.p90_us, latency.p99_us, latency.p999_us, latency.max_us);
  if (total.errors > 0 || total.wrong > 0 || total.calls == 0) {
    std::fprintf(stderr, "loadgen: FAILED (%s)\n",
                 total.calls == 0 ? "no call completed" : "errors or wrong answers, first ones:");
    failures.Print();
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace verdict::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  // gRPC's locks are abseil Mutexes, and the deadlock detector keeps a lock graph for each one
  // it creates and takes: CPU the load generator would take from the server sharing its cores.
  // verdictd runs without it too (server/verdictd.cc).
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  return verdict::bench::Run();
}
