// The CPU paths of a decision, each alone, and the engine over an in-memory store:
//
//   bazel run -c opt //bench:cpu_bench
//
// Every benchmark checks its answer before it starts timing: a benchmark of a wrong answer
// measures nothing.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "bench/dataset.h"
#include "bench/memory_dataset.h"
#include "benchmark/benchmark.h"
#include "common/json.h"
#include "crypto/sha256.h"
#include "crypto/token.h"
#include "decision/authorizer.h"
#include "decision/memory_store.h"
#include "decision/resource_match.h"

namespace verdict::bench {
namespace {

// --- The colon matcher over one agent's 50 permissions -------------------------------------

std::vector<Permission> FiftyColonPermissions() {
  std::vector<Permission> permissions(50);
  for (int i = 0; i < 50; ++i) {
    permissions[i].resource = absl::StrCat("org:acme:team", i, ":docs:*");
    permissions[i].actions = {"read", "write"};
  }
  return permissions;
}

// The engine's matching step alone: the first permission whose resource and action match.
const Permission* FirstMatch(const std::vector<Permission>& permissions, const std::string& action,
                             const std::string& resource) {
  for (const Permission& permission : permissions) {
    if (ResourceMatches(permission.resource, resource) &&
        ActionMatches(permission.actions, action)) {
      return &permission;
    }
  }
  return nullptr;
}

void ColonMatch50(benchmark::State& state, const std::string& resource, bool expect_hit) {
  const std::vector<Permission> permissions = FiftyColonPermissions();
  const std::string action = "read";
  const Permission* match = FirstMatch(permissions, action, resource);
  if ((match != nullptr) != expect_hit || (match && match != &permissions.back())) {
    state.SkipWithError("the colon matcher gave the wrong answer");
    return;
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(FirstMatch(permissions, action, resource));
  }
}

void BM_ColonMatch50LastHit(benchmark::State& state) {
  ColonMatch50(state, "org:acme:team49:docs:reports:2025:q3", true);
}
BENCHMARK(BM_ColonMatch50LastHit);

void BM_ColonMatch50NoMatch(benchmark::State& state) {
  ColonMatch50(state, "org:acme:team50:docs:reports:2025:q3", false);
}
BENCHMARK(BM_ColonMatch50NoMatch);

// --- Path globs ------------------------------------------------------------------------------

void PathGlob(benchmark::State& state, const std::string& pattern, const std::string& path,
              bool expect_hit) {
  if (ResourceMatches(pattern, path) != expect_hit) {
    state.SkipWithError("the path matcher gave the wrong answer");
    return;
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(ResourceMatches(pattern, path));
  }
}

void BM_PathGlobStarHit(benchmark::State& state) {
  PathGlob(state, "/api/v1/projects/*/docs/*", "/api/v1/projects/verdict/docs/design.md", true);
}
BENCHMARK(BM_PathGlobStarHit);

void BM_PathGlobDeepDoubleStarHit(benchmark::State& state) {
  PathGlob(state, "/api/**/docs/**/edit",
           "/api/v1/orgs/acme/projects/verdict/docs/2025/q3/drafts/design/edit", true);
}
BENCHMARK(BM_PathGlobDeepDoubleStarHit);

void BM_PathGlobMiss(benchmark::State& state) {
  PathGlob(state, "/api/**/docs/**/edit",
           "/api/v1/orgs/acme/projects/verdict/docs/2025/q3/drafts/design/view", false);
}
BENCHMARK(BM_PathGlobMiss);

// --- Token hashing: what a token subject costs before any lookup ------------------------------

void BM_TokenHash(benchmark::State& state) {
  const std::string token = AgentToken(42);
  if (!CheckAgentTokenShape(token).ok() || Sha256(token).size() != 32) {
    state.SkipWithError("the token or its hash is malformed");
    return;
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(CheckAgentTokenShape(token).ok());
    benchmark::DoNotOptimize(Sha256(token));
  }
}
BENCHMARK(BM_TokenHash);

// --- Canonical JSON of a 20-row payload (the approval hash's input) ---------------------------

std::string TwentyRowPayload() {
  std::string rows;
  for (int i = 0; i < 20; ++i) {
    absl::StrAppend(&rows, i == 0 ? "" : ",", R"({"name":"line )", i, R"(","id":)", 1000 + i,
                    R"(,"amount":)", i * 12.5,
                    R"(,"currency":"EUR","tags":["q3","internal"],"approved":)",
                    i % 2 == 0 ? "true" : "false", R"(,"note":null})");
  }
  return absl::StrCat(R"({"rows":[)", rows, R"(],"requested_by":"agt_bench_0000042"})");
}

void BM_CanonicalJson20Rows(benchmark::State& state) {
  absl::StatusOr<JsonValue> payload = ParseJson(TwentyRowPayload());
  if (!payload.ok() || payload->Find("rows")->as_array().size() != 20) {
    state.SkipWithError("the payload does not parse");
    return;
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(CanonicalJson(*payload));
  }
}
BENCHMARK(BM_CanonicalJson20Rows);

// Parse, canonicalise and hash: the whole arguments hash of an approval-gated call.
void BM_ArgumentsHash20Rows(benchmark::State& state) {
  const std::string text = TwentyRowPayload();
  for (auto _ : state) {
    absl::StatusOr<JsonValue> payload = ParseJson(text);
    benchmark::DoNotOptimize(HexEncode(Sha256(CanonicalJson(*payload))));
  }
}
BENCHMARK(BM_ArgumentsHash20Rows);

// --- The engine's Authorize over an in-memory store -----------------------------------------

constexpr int64_t kMemoryAgents = 10000;

absl::Time DecisionTime() { return absl::FromUnixSeconds(kCreatedAtUnixSeconds) + absl::Hours(1); }

MemoryPolicyStore& SharedMemoryStore() {
  static MemoryPolicyStore* store = [] {
    auto* loaded = new MemoryPolicyStore();
    if (!LoadDataset(kMemoryAgents, *loaded).ok()) std::abort();
    return loaded;
  }();
  return *store;
}

// Cycles through 1024 probes of one kind, so the benchmark is not one hot cache line.
void MemoryAuthorize(benchmark::State& state, ProbeKind kind) {
  Authorizer authorizer(SharedMemoryStore(), [] { return DecisionTime(); });
  std::vector<Probe> probes;
  for (uint64_t i = 0; i < 1024; ++i) {
    probes.push_back(MakeProbe(kind, kMemoryAgents, i * 0x9e3779b97f4a7c15ULL));
    absl::StatusOr<Decision> decision = authorizer.Authorize(probes.back().request);
    if (!decision.ok() ||
        !DescribeDifference(probes.back().expected, OutcomeOf(*decision)).empty()) {
      state.SkipWithError("the engine decided differently from the dataset's prediction");
      return;
    }
  }
  size_t next = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(authorizer.Authorize(probes[next].request));
    next = (next + 1) & 1023;
  }
}

void BM_MemoryAuthorizeDirect(benchmark::State& state) {
  MemoryAuthorize(state, ProbeKind::kDirect);
}
BENCHMARK(BM_MemoryAuthorizeDirect);

void BM_MemoryAuthorizeThreeHops(benchmark::State& state) {
  MemoryAuthorize(state, ProbeKind::kThreeHops);
}
BENCHMARK(BM_MemoryAuthorizeThreeHops);

void BM_MemoryAuthorizeDeniedByPolicy(benchmark::State& state) {
  MemoryAuthorize(state, ProbeKind::kDeniedByPolicy);
}
BENCHMARK(BM_MemoryAuthorizeDeniedByPolicy);

}  // namespace
}  // namespace verdict::bench
