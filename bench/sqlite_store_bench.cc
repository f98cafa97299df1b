// The store's share of a decision: one read snapshot with the lookups a direct Authorize makes.
//   bazel run -c opt //bench:sqlite_store_bench
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "crypto/sha256.h"
#include "store/sqlite_store.h"

namespace verdict {
namespace {

constexpr int kAgents = 10000;
constexpr int kPermissionsPerAgent = 4;

struct Fixture {
  std::unique_ptr<SqliteStore> store;
  std::vector<std::string> token_hashes;
};

Fixture& SharedFixture() {
  static Fixture* fixture = [] {
    const char* dir = std::getenv("TEST_TMPDIR");
    const std::string path = absl::StrCat(dir != nullptr ? dir : "/tmp", "/store_bench.db");
    for (const char* suffix : {"", "-wal", "-shm"}) {
      std::remove(absl::StrCat(path, suffix).c_str());
    }
    auto* f = new Fixture;
    f->store = *SqliteStore::Open(path);
    PolicyContents policy;
    for (int a = 0; a < kAgents; ++a) {
      const std::string id = absl::StrCat("agt_", a);
      const std::string hash = Sha256(id);
      policy.agents.push_back({Agent{.id = id, .owner = "bench", .name = id}, hash});
      f->token_hashes.push_back(hash);
      for (int p = 0; p < kPermissionsPerAgent; ++p) {
        policy.permissions.push_back({.id = absl::StrCat("perm_", a, "_", p),
                                      .agent_id = id,
                                      .resource = absl::StrCat("docs:", p, ":*"),
                                      .actions = {"read", "write"}});
      }
    }
    if (absl::Status s = f->store->admin().ImportPolicy(policy); !s.ok()) {
      std::fprintf(stderr, "import failed: %s\n", std::string(s.message()).c_str());
      std::abort();
    }
    return f;
  }();
  return *fixture;
}

void BM_EmptyReadSnapshot(benchmark::State& state) {
  Fixture& f = SharedFixture();
  for (auto _ : state) {
    auto snapshot = f.store->BeginRead();
    benchmark::DoNotOptimize(snapshot);
  }
}
BENCHMARK(BM_EmptyReadSnapshot);

void BM_DirectDecisionLookups(benchmark::State& state) {
  Fixture& f = SharedFixture();
  const absl::Time now = absl::Now();
  int i = 0;
  for (auto _ : state) {
    const std::string id = absl::StrCat("agt_", (i++ * 7919) % kAgents);
    auto snapshot = *f.store->BeginRead();
    benchmark::DoNotOptimize(snapshot->FindAgent(id));
    benchmark::DoNotOptimize(snapshot->PermissionsOf(id));
    benchmark::DoNotOptimize(snapshot->ActiveDelegationsInto(id, now));
  }
}
BENCHMARK(BM_DirectDecisionLookups);

void BM_FindAgentByTokenHash(benchmark::State& state) {
  Fixture& f = SharedFixture();
  const absl::Time now = absl::Now();
  int i = 0;
  for (auto _ : state) {
    auto snapshot = *f.store->BeginRead();
    benchmark::DoNotOptimize(
        snapshot->FindAgentByTokenHash(f.token_hashes[(i++ * 7919) % kAgents], now));
  }
}
BENCHMARK(BM_FindAgentByTokenHash);

}  // namespace
}  // namespace verdict
