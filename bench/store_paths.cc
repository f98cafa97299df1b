#include "bench/store_paths.h"

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/dataset.h"
#include "bench/latency.h"
#include "benchmark/benchmark.h"

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
  std::vector<std::vector<std::string>> token_permissions;  // EffectivePermissionLines
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
    workload.token_permissions.push_back(EffectivePermissionLines(agent, agents));
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
    if (!validation.ok() || !validation->valid || !validation->agent ||
        validation->agent->id != workload.token_agent_ids[i]) {
      return absl::StrCat("token of ", workload.token_agent_ids[i], " not validated as its agent");
    }
    std::vector<std::string> permissions;
    for (const EffectivePermission& effective : validation->permissions) {
      const Grant& grant = effective.grant;
      permissions.push_back(GrantLine(grant.permission_id, grant.effect == Effect::kAllow,
                                      grant.resource, grant.actions));
    }
    return DescribeGrantLinesDifference(workload.token_permissions[i], permissions);
  });
  if (!right) return;
  TimeCalls(state, [&](size_t i) {
    benchmark::DoNotOptimize(authorizer.ValidateToken(workload.tokens[i]));
  });
}

}  // namespace

void RegisterStorePathBenchmarks(const std::string& prefix, int64_t agents,
                                 Authorizer& authorizer) {
  Authorizer* const calls = &authorizer;
  const std::string suffix = absl::StrCat("/agents:", agents);
  // The workloads live as long as the registered benchmarks: until the process exits.
  auto* direct = new Workload(ProbesOf(ProbeKind::kDirect, agents));
  auto* three_hops = new Workload(ProbesOf(ProbeKind::kThreeHops, agents));
  auto* tokens = new Workload(TokensOf(agents));
  auto* simulated = new Workload(*three_hops);
  benchmark::RegisterBenchmark((prefix + "AuthorizeDirect" + suffix).c_str(),
                               [=](benchmark::State& s) { Authorize(s, *calls, *direct); });
  benchmark::RegisterBenchmark((prefix + "AuthorizeThreeHops" + suffix).c_str(),
                               [=](benchmark::State& s) { Authorize(s, *calls, *three_hops); });
  benchmark::RegisterBenchmark((prefix + "ValidateToken" + suffix).c_str(),
                               [=](benchmark::State& s) { ValidateToken(s, *calls, *tokens); });
  benchmark::RegisterBenchmark((prefix + "SimulateTrace" + suffix).c_str(),
                               [=](benchmark::State& s) { Simulate(s, *calls, *simulated); });
}

}  // namespace verdict::bench
