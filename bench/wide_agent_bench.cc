// Authorize for an agent holding 10,000 permissions, and one holding 100, against one holding
// four (issue 16: "an agent with 10,000 permissions ... Authorize 7x slower"), through the
// Authorizer over a SQLite file exactly as the server decides (a fresh read transaction per call):
//
//   bazel run -c opt //bench:wide_agent_bench -- --benchmark_repetitions=5
//
// Each wide permission names its own resource (docs:<i>:*, read and write), as an agent that
// was granted one document at a time would hold them. The calls: allowed by the last of the
// agent's permissions (a scan in creation order goes through all of them), allowed by the first,
// and refused because none matches. Every answer is checked.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "benchmark/benchmark.h"
#include "crypto/sha256.h"
#include "decision/authorizer.h"
#include "store/sqlite_store.h"

namespace verdict {
namespace {

constexpr int kWidePermissions = 10000;
constexpr int kNormalPermissions = 4;
// Below store/wide_permissions.h's 16 KiB, so decoded per call: an agent granted a hundred
// documents one at a time.
constexpr int kMediumPermissions = 100;

struct Fixture {
  std::unique_ptr<SqliteStore> store;
  std::unique_ptr<Authorizer> authorizer;
};

void AddAgent(PolicyContents& policy, const std::string& id, int permissions) {
  policy.agents.push_back({Agent{.id = id, .owner = "bench", .name = id}, Sha256(id)});
  for (int p = 0; p < permissions; ++p) {
    policy.permissions.push_back({.id = absl::StrCat("perm_", id, "_", p),
                                  .agent_id = id,
                                  .resource = absl::StrCat("docs:", p, ":*"),
                                  .actions = {"read", "write"}});
  }
}

Fixture& SharedFixture() {
  static Fixture* fixture = [] {
    const char* dir = std::getenv("TEST_TMPDIR");
    const std::string path = absl::StrCat(dir != nullptr ? dir : "/tmp", "/wide_agent_bench.db");
    for (const char* suffix : {"", "-wal", "-shm"}) std::remove(absl::StrCat(path, suffix).c_str());
    auto* f = new Fixture;
    absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(path);
    if (!store.ok()) {
      std::fprintf(stderr, "open failed: %s\n", std::string(store.status().message()).c_str());
      std::abort();
    }
    f->store = *std::move(store);
    PolicyContents policy;
    AddAgent(policy, "agt_normal", kNormalPermissions);
    AddAgent(policy, "agt_medium", kMediumPermissions);
    AddAgent(policy, "agt_wide", kWidePermissions);
    if (absl::Status s = f->store->admin().ImportPolicy(policy); !s.ok()) {
      std::fprintf(stderr, "import failed: %s\n", std::string(s.message()).c_str());
      std::abort();
    }
    f->authorizer = std::make_unique<Authorizer>(*f->store, [] { return absl::Now(); });
    return f;
  }();
  return *fixture;
}

// Authorize `agent` to read docs:<document>:page; the answer must be `allowed`.
void AuthorizeRead(benchmark::State& state, const char* agent, int document, bool allowed) {
  Fixture& f = SharedFixture();
  Request request;
  request.subject.agent_id = agent;
  request.action = "read";
  request.resource = absl::StrCat("docs:", document, ":page");
  for (auto _ : state) {
    absl::StatusOr<Decision> decision = f.authorizer->Authorize(request);
    if (!decision.ok() || (decision->verdict == Verdict::kAllow) != allowed) {
      state.SkipWithError("wrong answer");
      return;
    }
    benchmark::DoNotOptimize(decision);
  }
}

void BM_Authorize_Normal_LastPermission(benchmark::State& state) {
  AuthorizeRead(state, "agt_normal", kNormalPermissions - 1, true);
}
BENCHMARK(BM_Authorize_Normal_LastPermission);

void BM_Authorize_Normal_NoMatch(benchmark::State& state) {
  AuthorizeRead(state, "agt_normal", kWidePermissions, false);
}
BENCHMARK(BM_Authorize_Normal_NoMatch);

void BM_Authorize_Medium_LastPermission(benchmark::State& state) {
  AuthorizeRead(state, "agt_medium", kMediumPermissions - 1, true);
}
BENCHMARK(BM_Authorize_Medium_LastPermission);

void BM_Authorize_Medium_NoMatch(benchmark::State& state) {
  AuthorizeRead(state, "agt_medium", kWidePermissions, false);
}
BENCHMARK(BM_Authorize_Medium_NoMatch);

void BM_Authorize_Wide_LastPermission(benchmark::State& state) {
  AuthorizeRead(state, "agt_wide", kWidePermissions - 1, true);
}
BENCHMARK(BM_Authorize_Wide_LastPermission);

void BM_Authorize_Wide_FirstPermission(benchmark::State& state) {
  AuthorizeRead(state, "agt_wide", 0, true);
}
BENCHMARK(BM_Authorize_Wide_FirstPermission);

void BM_Authorize_Wide_NoMatch(benchmark::State& state) {
  AuthorizeRead(state, "agt_wide", kWidePermissions, false);
}
BENCHMARK(BM_Authorize_Wide_NoMatch);

}  // namespace
}  // namespace verdict
