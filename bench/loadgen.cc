// loadgen: drives a running verdictd with N calls in flight for a set time, checks every answer
// against the decision the benchmark dataset implies (bench/dataset.h), and prints QPS, latency
// percentiles, errors and wrong answers. Exits non-zero on any error or wrong answer: a load
// test that counts a failure as a success measures nothing.
//
//   bazel run -c opt //bench:loadgen -- --target=unix:/tmp/verdict.sock --agents=50000
//       --in_flight=64 --duration=10s --mix=direct:50,delegated:25,denied:25   (one line)
//
// The server must serve the database that bench/dataset_db.h generates for the same --agents.
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
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

// What the whole run saw; each slot counts into its own copy, merged at the end.
struct Tally {
  int64_t calls = 0;
  int64_t errors = 0;
  int64_t wrong = 0;
  std::vector<int64_t> latencies_ns;
};

// Remembers the first few failures, so a failed run says what went wrong.
class FailureLog {
 public:
  void Add(std::string line) {
    absl::MutexLock lock(&mutex_);
    if (lines_.size() < kMaxLines) lines_.push_back(std::move(line));
  }
  void Print() {
    absl::MutexLock lock(&mutex_);
    for (const std::string& line : lines_) std::fprintf(stderr, "  %s\n", line.c_str());
  }

 private:
  static constexpr size_t kMaxLines = 10;
  absl::Mutex mutex_;
  std::vector<std::string> lines_ ABSL_GUARDED_BY(mutex_);
};

struct RunWindow {
  SteadyClock::time_point measure_from;
  SteadyClock::time_point stop_at;
};

// Keeps one call in flight: when a call completes, records it and starts the next, until the
// run's stop time. Only one call of a slot is ever in flight, so its state needs no lock.
class Slot {
 public:
  Slot(v1::DecisionService::Stub* stub, const Mix& mix, int64_t agents, uint64_t seed,
       const RunWindow& window, FailureLog* failures, std::atomic<int>* running,
       absl::Mutex* done_mutex)
      : stub_(stub),
        mix_(mix),
        agents_(agents),
        rng_(seed),
        window_(window),
        failures_(failures),
        running_(running),
        done_mutex_(done_mutex) {}

  void Start() {
    PlanCall(mix_, agents_, rng_(), &call_);
    context_ = std::make_unique<grpc::ClientContext>();
    context_->set_deadline(absl::ToChronoTime(absl::Now() + deadline_));
    started_ = SteadyClock::now();
    if (call_.kind == CallKind::kToken) {
      stub_->async()->ValidateToken(context_.get(), &call_.validate, &validate_answer_,
                                    [this](grpc::Status status) { Finish(status); });
    } else {
      stub_->async()->Authorize(context_.get(), &call_.authorize, &authorize_answer_,
                                [this](grpc::Status status) { Finish(status); });
    }
  }

  Tally& tally() { return tally_; }

 private:
  void Finish(const grpc::Status& status) {
    const SteadyClock::time_point now = SteadyClock::now();
    if (started_ >= window_.measure_from && now < window_.stop_at) Record(status, now);
    if (now < window_.stop_at) {
      Start();
      return;
    }
    absl::MutexLock lock(done_mutex_);
    running_->fetch_sub(1);
  }

  void Record(const grpc::Status& status, SteadyClock::time_point now) {
    ++tally_.calls;
    tally_.latencies_ns.push_back(
        std::chrono::duration_cast<std::chrono::nanoseconds>(now - started_).count());
    if (!status.ok()) {
      ++tally_.errors;
      failures_->Add("error: gRPC status " + std::to_string(status.error_code()) + ": " +
                     status.error_message());
      return;
    }
    const std::string wrong = call_.kind == CallKind::kToken
                                  ? CheckValidateToken(call_.expected_agent_id, validate_answer_)
                                  : CheckAuthorize(call_.expected, authorize_answer_);
    if (!wrong.empty()) {
      ++tally_.wrong;
      const std::string call = call_.kind == CallKind::kToken
                                   ? "ValidateToken of " + call_.expected_agent_id
                                   : "Authorize " + call_.authorize.ShortDebugString();
      failures_->Add("wrong answer to " + call + ": " + wrong);
    }
  }

  v1::DecisionService::Stub* stub_;
  const Mix& mix_;
  const int64_t agents_;
  std::mt19937_64 rng_;
  const RunWindow& window_;
  FailureLog* failures_;
  std::atomic<int>* running_;
  absl::Mutex* done_mutex_;
  const absl::Duration deadline_ = absl::GetFlag(FLAGS_deadline);

  PlannedCall call_;
  std::unique_ptr<grpc::ClientContext> context_;
  v1::AuthorizeResponse authorize_answer_;
  v1::ValidateTokenResponse validate_answer_;
  SteadyClock::time_point started_;
  Tally tally_;
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

  const SteadyClock::time_point start = SteadyClock::now();
  RunWindow window;
  window.measure_from = start + absl::ToChronoNanoseconds(absl::GetFlag(FLAGS_warmup));
  window.stop_at = window.measure_from + absl::ToChronoNanoseconds(absl::GetFlag(FLAGS_duration));

  FailureLog failures;
  std::atomic<int> running{in_flight};
  absl::Mutex done_mutex;
  std::vector<std::unique_ptr<Slot>> slots;
  const uint64_t seed = absl::GetFlag(FLAGS_seed);
  for (int i = 0; i < in_flight; ++i) {
    slots.push_back(std::make_unique<Slot>(stubs[i % channel_count].get(), *mix, agents,
                                           seed * 1000003 + i, window, &failures, &running,
                                           &done_mutex));
  }
  for (std::unique_ptr<Slot>& slot : slots) slot->Start();
  {
    absl::MutexLock lock(&done_mutex);
    done_mutex.Await(absl::Condition(
        +[](std::atomic<int>* count) { return count->load() == 0; }, &running));
  }

  Tally total;
  for (std::unique_ptr<Slot>& slot : slots) {
    Tally& tally = slot->tally();
    total.calls += tally.calls;
    total.errors += tally.errors;
    total.wrong += tally.wrong;
    total.latencies_ns.insert(total.latencies_ns.end(), tally.latencies_ns.begin(),
                              tally.latencies_ns.end());
  }
  const double seconds = absl::ToDoubleSeconds(absl::GetFlag(FLAGS_duration));
  const LatencySummary latency = SummarizeLatencies(std::move(total.latencies_ns));
  std::printf("target %s  agents %lld  in_flight %d  channels %d  mix %s  duration %.1fs\n",
              target.c_str(), static_cast<long long>(agents), in_flight, channel_count,
              absl::GetFlag(FLAGS_mix).c_str(), seconds);
  std::printf("calls %lld  qps %.0f  errors %lld  wrong %lld\n",
              static_cast<long long>(total.calls), static_cast<double>(total.calls) / seconds,
              static_cast<long long>(total.errors), static_cast<long long>(total.wrong));
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
  return verdict::bench::Run();
}
