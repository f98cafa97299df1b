// The decision calls on a SQLite file, each call in a fresh read transaction exactly as the
// server makes it (the Authorizer over SqliteStore), at several sizes of the same dataset:
//
//   bazel run -c opt //bench:store_bench                      # 1,000, 50,000, 1,000,000 agents
//   bazel run -c opt //bench:store_bench -- --agents=1000,100000 --drop_index=token_hash
//
// Data files are generated once into $VERDICT_BENCH_DIR (default /tmp/verdict-bench) and reused.
// The benchmarks themselves, and how they check their answers: bench/store_paths.h.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "bench/dataset_db.h"
#include "bench/store_paths.h"
#include "benchmark/benchmark.h"
#include "decision/authorizer.h"
#include "store/sqlite_store.h"

ABSL_FLAG(std::string, agents, "1000,50000,1000000", "dataset sizes to measure, comma-separated");
ABSL_FLAG(std::string, bench_dir, "",
          "where generated data files are kept (default "
          "$VERDICT_BENCH_DIR or /tmp/verdict-bench)");
ABSL_FLAG(bool, keep_read_lock, true,
          "keep the write-ahead log's read lock while the benchmarks read, as verdictd does "
          "(store/sqlite/read_lock_keeper.h); false takes it in every call");
ABSL_FLAG(int64_t, mmap_mib, -1,
          "how much of the file each connection maps into memory, in MiB (SqliteOptions::"
          "mmap_bytes), 0..2048; -1 keeps the store's default");
ABSL_FLAG(std::string, drop_index, "",
          "measure a broken variant without this index (\"token_hash\" for the token's unique "
          "index): the gate's controls");

namespace verdict::bench {
namespace {

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
    SqliteOptions sqlite_options;
    sqlite_options.keep_read_lock = absl::GetFlag(FLAGS_keep_read_lock);
    const int64_t mmap_mib = absl::GetFlag(FLAGS_mmap_mib);
    // SQLite maps at most 2 GiB (SQLITE_MAX_MMAP_SIZE); past it the shift below could overflow.
    if (mmap_mib < -1 || mmap_mib > 2048) {
      return absl::InvalidArgumentError(
          absl::StrCat("--mmap_mib: must be -1 (the store's default) or 0..2048, got ", mmap_mib));
    }
    if (mmap_mib >= 0) sqlite_options.mmap_bytes = mmap_mib << 20;
    absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(*path, sqlite_options);
    if (!store.ok()) return store.status();
    Sized sized{agents, *std::move(store), nullptr};
    sized.authorizer = std::make_unique<Authorizer>(*sized.store, [] { return absl::Now(); });
    sizes.push_back(std::move(sized));
  }
  for (Sized& sized : sizes) {
    RegisterStorePathBenchmarks("BM_Store", sized.agents, *sized.authorizer);
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
