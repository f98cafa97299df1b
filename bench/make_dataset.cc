// make_dataset: generates (or finds in the cache) the benchmark dataset's SQLite file and
// prints its path, for serving it with verdictd (bench/e2e.sh) or opening it by hand.
//
//   bazel run -c opt //bench:make_dataset -- --agents=1000000
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "bench/dataset_db.h"

ABSL_FLAG(int64_t, agents, 50000, "agents in the dataset");
ABSL_FLAG(std::string, bench_dir, "",
          "where generated files are kept (default $VERDICT_BENCH_DIR or /tmp/verdict-bench)");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  verdict::bench::DatasetDbOptions options;
  options.agents = absl::GetFlag(FLAGS_agents);
  options.directory = absl::GetFlag(FLAGS_bench_dir);
  absl::StatusOr<std::string> path = verdict::bench::EnsureDatasetDb(options);
  if (!path.ok()) {
    std::fprintf(stderr, "make_dataset: %s\n", path.status().ToString().c_str());
    return 1;
  }
  std::printf("%s\n", path->c_str());
  return 0;
}
