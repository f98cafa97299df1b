// The decision calls on a SQLite file, each call in a fresh read transaction exactly as the
// server makes it (the Authorizer over SqliteStore), at several sizes of the same dataset:
//
//   bazel run -c opt //bench:store_bench                      # 1,000, 50,000, 1,000,000 agents
//   bazel run -c opt //bench:store_bench -- --agents=1000,100000 --drop_index=token_hash
//
// Data files are generated once into $VERDICT_BENCH_DIR (default /tmp/verdict-bench) and reused.
// Each benchmark checks its probes against the dataset's prediction before it starts timing (all
// 1,024 of them, unless a broken variant makes that take more than two seconds), and reports
// per-call percentiles (p50_us, p99_us) next to the mean.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/synchronization/mutex.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "bench/dataset.h"
#include "bench/dataset_db.h"
#include "bench/latency.h"
#include "benchmark/benchmark.h"
#include "decision/authorizer.h"
#include "store/sqlite_store.h"

ABSL_FLAG(std::string, agents, "1000,50000,1000000", "dataset sizes to measure, comma-separated");
ABSL_FLAG(std::string, bench_dir, "",
          "where generated data files are kept (default "
          "$VERDICT_BENCH_DIR or /tmp/verdict-bench)");
ABSL_FLAG(std::string, drop_index, "",
          "measure a broken variant without this index (\"token_hash\" for the token's unique "
          "index): the gate's controls");

namespace verdict::bench {
namespace {

constexpr int kProbes = 1024;
// Checking the answers is bounded in time, so a control variant that scans a table on every
// call (seconds per call at 1,000,000 agents) checks a few probes instead of all of them.
constexpr int kMinProbesChecked = 4;
constexpr absl::Duration kCheckBudget = absl::Seconds(2);

// Each benchmark cycles through kProbes calls so it does not measure one hot row.
struct Workload {
  std::vector<Request> requests;
  std::vector<Outcome> expected;
  std::vector<std::string> tokens;  // for ValidateToken
  std::vector<std::string> token_agent_ids;
  // Set once the answers were checked: Benchmark runs a function many times per process.
  bool checked = false;
};

Workload ProbesOf(ProbeKind kind, int64_t agents) {
  Workload workload;
  for (uint64_t i = 0; i < kProbes; ++i) {
    Probe probe = MakeProbe(kind, agents, (i + 1) * 0x9e3779b97f4a7c15ULL);
    workload.requests.push_back(std::move(probe.request));
    workload.expected.push_back(std::move(probe.expected));
  }
  return workload;
}

Workload TokensOf(int64_t agents) {
  Workload workload;
  for (uint64_t i = 0; i < kProbes; ++i) {
    const int64_t agent = static_cast<int64_t>(((i + 1) * 0x9e3779b97f4a7c15ULL) % agents);
    workload.tokens.push_back(AgentToken(agent));
    workload.token_agent_ids.push_back(AgentId(agent));
  }
  return workload;
}

// Checks the answers to the workload's probes (all of them unless the budget runs out) before
// anything is timed: a benchmark of a wrong answer measures nothing. `wrong(i)` describes what
// is wrong with the answer to probe i, "" when it is right.
template <typename Wrong>
bool AnswersAreRight(benchmark::State& state, Workload& workload, Wrong wrong) {
  if (workload.checked) return true;
  const absl::Time deadline = absl::Now() + kCheckBudget;
  for (int i = 0; i < kProbes && (i < kMinProbesChecked || absl::Now() < deadline); ++i) {
    const std::string what = wrong(i);
    if (!what.empty()) {
      state.SkipWithError(what.c_str());
      return false;
    }
  }
  workload.checked = true;
  return true;
}

// Times every call on its own as well, for the percentiles the targets are stated in.
template <typename Call>
void TimeCalls(benchmark::State& state, Call call) {
  std::vector<int64_t> nanos;
  nanos.reserve(1 << 20);
  size_t next = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    call(next);
    const auto end = std::chrono::steady_clock::now();
    if (nanos.size() < nanos.capacity()) {
      nanos.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
    }
    next = (next + 1) % kProbes;
  }
  const LatencySummary latency = SummarizeLatencies(std::move(nanos));
  state.counters["p50_us"] = latency.p50_us;
  state.counters["p99_us"] = latency.p99_us;
}

std::string Mismatch(const Request& request, const std::string& difference) {
  if (difference.empty()) return "";
  return absl::StrCat(request.subject.agent_id, " ", request.action, " ", request.resource, ": ",
                      difference);
}

void Authorize(benchmark::State& state, Authorizer& authorizer, Workload& workload) {
  const bool right = AnswersAreRight(state, workload, [&](int i) {
    absl::StatusOr<Decision> decision = authorizer.Authorize(workload.requests[i]);
    return Mismatch(workload.requests[i],
                    decision.ok() ? DescribeDifference(workload.expected[i], OutcomeOf(*decision))
                                  : decision.status().ToString());
  });
  if (!right) return;
  TimeCalls(state, [&](size_t i) {
    benchmark::DoNotOptimize(authorizer.Authorize(workload.requests[i]));
  });
}

void Simulate(benchmark::State& state, Authorizer& authorizer, Workload& workload) {
  const WhatIf nothing;
  const bool right = AnswersAreRight(state, workload, [&](int i) {
    absl::StatusOr<Simulation> simulation = authorizer.Simulate(workload.requests[i], nothing);
    if (!simulation.ok()) return Mismatch(workload.requests[i], simulation.status().ToString());
    if (simulation->trace.grants.empty()) return Mismatch(workload.requests[i], "empty trace");
    return Mismatch(workload.requests[i],
                    DescribeDifference(workload.expected[i], OutcomeOf(simulation->decision)));
  });
  if (!right) return;
  TimeCalls(state, [&](size_t i) {
    benchmark::DoNotOptimize(authorizer.Simulate(workload.requests[i], nothing));
  });
}

void ValidateToken(benchmark::State& state, Authorizer& authorizer, Workload& workload) {
  const bool right = AnswersAreRight(state, workload, [&](int i) -> std::string {
    absl::StatusOr<TokenValidation> validation = authorizer.ValidateToken(workload.tokens[i]);
    if (validation.ok() && validation->valid && validation->agent &&
        validation->agent->id == workload.token_agent_ids[i]) {
      return "";
    }
    return absl::StrCat("token of ", workload.token_agent_ids[i], " not validated as its agent");
  });
  if (!right) return;
  TimeCalls(state, [&](size_t i) {
    benchmark::DoNotOptimize(authorizer.ValidateToken(workload.tokens[i]));
  });
}

// One dataset size: its store and the Authorizer the server would build over it.
struct Sized {
  int64_t agents;
  std::unique_ptr<SqliteStore> store;
  std::unique_ptr<Authorizer> authorizer;
};

absl::StatusOr<std::vector<int64_t>> ParseAgentCounts(const std::string& text) {
  std::vector<int64_t> counts;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    int64_t count = 0;
    if (!absl::SimpleAtoi(part, &count) || count < 12) {
      return absl::InvalidArgumentError(
          absl::StrCat("--agents: \"", part, "\" is not a count of at least 12"));
    }
    counts.push_back(count);
  }
  return counts;
}

absl::Status RegisterAll(std::vector<Sized>& sizes) {
  absl::StatusOr<std::vector<int64_t>> counts = ParseAgentCounts(absl::GetFlag(FLAGS_agents));
  if (!counts.ok()) return counts.status();
  for (int64_t agents : *counts) {
    DatasetDbOptions options;
    options.agents = agents;
    options.directory = absl::GetFlag(FLAGS_bench_dir);
    options.drop_index = absl::GetFlag(FLAGS_drop_index);
    const absl::Time started = absl::Now();
    absl::StatusOr<std::string> path = EnsureDatasetDb(options);
    if (!path.ok()) return path.status();
    std::fprintf(stderr, "dataset %s ready in %.1f s\n", path->c_str(),
                 absl::ToDoubleSeconds(absl::Now() - started));
    absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(*path);
    if (!store.ok()) return store.status();
    Sized sized{agents, *std::move(store), nullptr};
    sized.authorizer = std::make_unique<Authorizer>(*sized.store, [] { return absl::Now(); });
    sizes.push_back(std::move(sized));
  }
  for (Sized& sized : sizes) {
    Authorizer* authorizer = sized.authorizer.get();
    const std::string suffix = absl::StrCat("/agents:", sized.agents);
    // The workloads live as long as the registered benchmarks: until the process exits.
    auto* direct = new Workload(ProbesOf(ProbeKind::kDirect, sized.agents));
    auto* three_hops = new Workload(ProbesOf(ProbeKind::kThreeHops, sized.agents));
    auto* tokens = new Workload(TokensOf(sized.agents));
    benchmark::RegisterBenchmark(("BM_StoreAuthorizeDirect" + suffix).c_str(),
                                 [=](benchmark::State& s) { Authorize(s, *authorizer, *direct); });
    benchmark::RegisterBenchmark(
        ("BM_StoreAuthorizeThreeHops" + suffix).c_str(),
        [=](benchmark::State& s) { Authorize(s, *authorizer, *three_hops); });
    benchmark::RegisterBenchmark(
        ("BM_StoreValidateToken" + suffix).c_str(),
        [=](benchmark::State& s) { ValidateToken(s, *authorizer, *tokens); });
    auto* simulated = new Workload(*three_hops);
    benchmark::RegisterBenchmark(
        ("BM_StoreSimulateTrace" + suffix).c_str(),
        [=](benchmark::State& s) { Simulate(s, *authorizer, *simulated); });
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace verdict::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  absl::ParseCommandLine(argc, argv);
  // As verdictd runs (server/verdictd.cc): without abseil's deadlock detector, which keeps a
  // lock graph on every Mutex acquisition (the connection pool's, here).
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  std::vector<verdict::bench::Sized> sizes;
  if (absl::Status registered = verdict::bench::RegisterAll(sizes); !registered.ok()) {
    std::fprintf(stderr, "store_bench: %s\n", registered.ToString().c_str());
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
