// The CPU paths of a decision, each alone, and the engine over an in-memory store:
//
//   bazel run -c opt //bench:cpu_bench
//
// Every benchmark checks its answer before it starts timing: a benchmark of a wrong answer
// measures nothing.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
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
#include "decision/policy_store.h"
#include "decision/resource_match.h"
#include "testing/memory_store.h"

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

// A grant with a constraint: create on the agent's tickets from an allowed address, which
// permission 3 of every agent allows (its IP allowlist is 10.0.0.0/8).
void BM_MemoryAuthorizeIpAllowlisted(benchmark::State& state) {
  Authorizer authorizer(SharedMemoryStore(), [] { return DecisionTime(); });
  std::vector<Request> requests;
  for (uint64_t i = 0; i < 1024; ++i) {
    const uint64_t pick = i * 0x9e3779b97f4a7c15ULL;
    const int64_t agent = static_cast<int64_t>(pick % kMemoryAgents);
    Request request;
    request.subject.agent_id = AgentId(agent);
    request.action = "create";
    request.resource = absl::StrCat("tickets:", agent, ":", (pick >> 32) % 1000);
    request.client_ip = "10.1.2.3";
    absl::StatusOr<Decision> decision = authorizer.Authorize(request);
    if (!decision.ok() || decision->verdict != Verdict::kAllow ||
        decision->matched_grant->resource != absl::StrCat("tickets:", agent, ":*")) {
      state.SkipWithError("the IP-allowlisted grant did not allow its call");
      return;
    }
    requests.push_back(std::move(request));
  }
  size_t next = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(authorizer.Authorize(requests[next]));
    next = (next + 1) & 1023;
  }
}
BENCHMARK(BM_MemoryAuthorizeIpAllowlisted);

// --- ValidateToken over the in-memory store: the token's hash, then the effective permissions --

// An agent's index from its id ("agt_bench_0000042" is 42).
int64_t AgentIndex(const std::string& agent_id) {
  return std::stoll(agent_id.substr(agent_id.find_last_not_of("0123456789") + 1));
}

// 1024 agent tokens: of any agents, or of the last agents of whole delegation chains (whose
// effective permissions include one lent through a live link).
std::vector<std::string> BenchTokens(bool chain_ends) {
  std::vector<std::string> tokens;
  for (uint64_t i = 0; i < 1024; ++i) {
    const uint64_t pick = i * 0x9e3779b97f4a7c15ULL;
    const int64_t agent =
        chain_ends
            ? AgentIndex(
                  MakeProbe(ProbeKind::kThreeHops, kMemoryAgents, pick).request.subject.agent_id)
            : static_cast<int64_t>(pick % kMemoryAgents);
    tokens.push_back(AgentToken(agent));
  }
  return tokens;
}

// Every agent holds kPermissionsPerAgent permissions of its own; a chain's last agent also
// holds the one lent to it.
bool ValidTokenOfAgentWith(const absl::StatusOr<TokenValidation>& validation, size_t permissions) {
  return validation.ok() && validation->valid && validation->permissions.size() == permissions;
}

void MemoryValidateToken(benchmark::State& state, bool chain_ends) {
  Authorizer authorizer(SharedMemoryStore(), [] { return DecisionTime(); });
  const std::vector<std::string> tokens = BenchTokens(chain_ends);
  for (const std::string& token : tokens) {
    absl::StatusOr<TokenValidation> validation = authorizer.ValidateToken(token);
    if (!validation.ok() || !validation->valid ||
        (chain_ends && !ValidTokenOfAgentWith(validation, kPermissionsPerAgent + 1))) {
      state.SkipWithError("a benchmark token did not validate as the dataset predicts");
      return;
    }
  }
  size_t next = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(authorizer.ValidateToken(tokens[next]));
    next = (next + 1) & 1023;
  }
}

void BM_MemoryValidateToken(benchmark::State& state) { MemoryValidateToken(state, false); }
BENCHMARK(BM_MemoryValidateToken);

void BM_MemoryValidateTokenChainEnd(benchmark::State& state) { MemoryValidateToken(state, true); }
BENCHMARK(BM_MemoryValidateTokenChainEnd);

// --- The store's share of the calls above ----------------------------------------------------
//
// Every read a call makes is recorded once, then only those reads are replayed, each on a fresh
// snapshot as the call would open: a call's time minus its reads' time is what the engine, the
// validation and the authorizer cost on their own.

using Read = std::function<void(PolicyView&)>;

class RecordingSnapshot : public ReadSnapshot {
 public:
  RecordingSnapshot(std::unique_ptr<ReadSnapshot> base, std::vector<Read>& reads)
      : base_(std::move(base)), reads_(reads) {}

  absl::StatusOr<std::optional<Agent>> FindAgent(absl::string_view agent_id) override {
    Record([id = std::string(agent_id)](PolicyView& view) { return view.FindAgent(id); });
    return base_->FindAgent(agent_id);
  }
  absl::StatusOr<std::optional<Agent>> FindAgentByTokenHash(absl::string_view token_sha256,
                                                            absl::Time now) override {
    Record([hash = std::string(token_sha256), now](PolicyView& view) {
      return view.FindAgentByTokenHash(hash, now);
    });
    return base_->FindAgentByTokenHash(token_sha256, now);
  }
  absl::StatusOr<std::vector<Permission>> PermissionsOf(absl::string_view agent_id) override {
    Record([id = std::string(agent_id)](PolicyView& view) { return view.PermissionsOf(id); });
    return base_->PermissionsOf(agent_id);
  }
  absl::StatusOr<std::vector<Delegation>> ActiveDelegationsInto(absl::string_view agent_id,
                                                                absl::Time now) override {
    Record([id = std::string(agent_id), now](PolicyView& view) {
      return view.ActiveDelegationsInto(id, now);
    });
    return base_->ActiveDelegationsInto(agent_id, now);
  }
  absl::StatusOr<const Agent*> FindAgentRef(absl::string_view agent_id) override {
    Record([id = std::string(agent_id)](PolicyView& view) { return view.FindAgentRef(id); });
    return base_->FindAgentRef(agent_id);
  }
  absl::StatusOr<absl::Span<const Permission>> PermissionsSpan(
      absl::string_view agent_id) override {
    Record([id = std::string(agent_id)](PolicyView& view) { return view.PermissionsSpan(id); });
    return base_->PermissionsSpan(agent_id);
  }
  absl::StatusOr<absl::Span<const Delegation>> ActiveDelegationsIntoSpan(absl::string_view agent_id,
                                                                         absl::Time now) override {
    Record([id = std::string(agent_id), now](PolicyView& view) {
      return view.ActiveDelegationsIntoSpan(id, now);
    });
    return base_->ActiveDelegationsIntoSpan(agent_id, now);
  }
  absl::StatusOr<std::optional<ApprovalRequest>> FindOpenApproval(absl::string_view agent_id,
                                                                  absl::string_view action,
                                                                  absl::string_view resource,
                                                                  absl::string_view arguments_hash,
                                                                  absl::Time now) override {
    Record([call = std::vector<std::string>{std::string(agent_id), std::string(action),
                                            std::string(resource), std::string(arguments_hash)},
            now](PolicyView& view) {
      return view.FindOpenApproval(call[0], call[1], call[2], call[3], now);
    });
    return base_->FindOpenApproval(agent_id, action, resource, arguments_hash, now);
  }
  absl::StatusOr<int64_t> CountPendingApprovals(absl::string_view agent_id, absl::Time now,
                                                int64_t up_to) override {
    Record([agent = std::string(agent_id), now, up_to](PolicyView& view) {
      return view.CountPendingApprovals(agent, now, up_to);
    });
    return base_->CountPendingApprovals(agent_id, now, up_to);
  }
  absl::StatusOr<int64_t> RateCount(absl::string_view agent_id, absl::string_view permission_id,
                                    int64_t window_start_unix) override {
    Record([agent = std::string(agent_id), id = std::string(permission_id), window_start_unix](
               PolicyView& view) { return view.RateCount(agent, id, window_start_unix); });
    return base_->RateCount(agent_id, permission_id, window_start_unix);
  }

 private:
  // The answer is made and dropped inside the replay, as the engine makes and drops it.
  template <typename ReadOnce>
  void Record(ReadOnce read) {
    reads_.push_back([read](PolicyView& view) { benchmark::DoNotOptimize(read(view)); });
  }

  std::unique_ptr<ReadSnapshot> base_;
  std::vector<Read>& reads_;
};

// Read-only: the calls recorded here need no writes.
class RecordingStore : public PolicyStore {
 public:
  explicit RecordingStore(PolicyStore& base) : base_(base) {}

  absl::StatusOr<std::unique_ptr<ReadSnapshot>> BeginRead() override {
    absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = base_.BeginRead();
    if (!snapshot.ok()) return snapshot.status();
    return std::make_unique<RecordingSnapshot>(*std::move(snapshot), reads_);
  }
  absl::StatusOr<std::unique_ptr<WriteTransaction>> BeginWrite() override {
    return absl::FailedPreconditionError("the recorded calls make no writes");
  }

  // The reads since the last call.
  std::vector<Read> TakeReads() { return std::exchange(reads_, {}); }

 private:
  PolicyStore& base_;
  std::vector<Read> reads_;
};

// Replays each call's reads (`make_call` makes call i through the authorizer it is given).
void MemoryStoreReads(benchmark::State& state,
                      const std::function<bool(Authorizer&, size_t)>& make_call) {
  RecordingStore recording(SharedMemoryStore());
  Authorizer authorizer(recording, [] { return DecisionTime(); });
  std::vector<std::vector<Read>> reads_by_call;
  for (size_t i = 0; i < 1024; ++i) {
    if (!make_call(authorizer, i)) {
      state.SkipWithError("a recorded call did not answer as the dataset predicts");
      return;
    }
    reads_by_call.push_back(recording.TakeReads());
  }
  size_t next = 0;
  for (auto _ : state) {
    absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = SharedMemoryStore().BeginRead();
    for (const Read& read : reads_by_call[next]) read(**snapshot);
    next = (next + 1) & 1023;
  }
}

void MemoryStoreReadsOfAuthorize(benchmark::State& state, ProbeKind kind) {
  MemoryStoreReads(state, [kind](Authorizer& authorizer, size_t i) {
    Probe probe = MakeProbe(kind, kMemoryAgents, i * 0x9e3779b97f4a7c15ULL);
    absl::StatusOr<Decision> decision = authorizer.Authorize(probe.request);
    return decision.ok() && DescribeDifference(probe.expected, OutcomeOf(*decision)).empty();
  });
}

void BM_MemoryStoreReadsOfAuthorizeDirect(benchmark::State& state) {
  MemoryStoreReadsOfAuthorize(state, ProbeKind::kDirect);
}
BENCHMARK(BM_MemoryStoreReadsOfAuthorizeDirect);

void BM_MemoryStoreReadsOfAuthorizeThreeHops(benchmark::State& state) {
  MemoryStoreReadsOfAuthorize(state, ProbeKind::kThreeHops);
}
BENCHMARK(BM_MemoryStoreReadsOfAuthorizeThreeHops);

void BM_MemoryStoreReadsOfValidateTokenChainEnd(benchmark::State& state) {
  const std::vector<std::string> tokens = BenchTokens(/*chain_ends=*/true);
  MemoryStoreReads(state, [&tokens](Authorizer& authorizer, size_t i) {
    return ValidTokenOfAgentWith(authorizer.ValidateToken(tokens[i]), kPermissionsPerAgent + 1);
  });
}
BENCHMARK(BM_MemoryStoreReadsOfValidateTokenChainEnd);

}  // namespace
}  // namespace verdict::bench
