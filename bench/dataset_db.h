// The benchmark dataset (bench/dataset.h) as a SQLite file, generated once and cached.
//
// The schema comes from the store's own migrations (the file is created by SqliteStore::Open);
// the rows go in through prepared INSERTs in one transaction, spelled by store/policy_encoding.h,
// because the admin API's per-row transactions would take hours at 1,000,000 agents.
// bench/dataset_db_test.cc proves the rows equal what ImportPolicy writes for the same policy.
//
//   absl::StatusOr<std::string> path = EnsureDatasetDb({.agents = 50000});
//   auto store = SqliteStore::Open(*path);
#ifndef VERDICT_BENCH_DATASET_DB_H_
#define VERDICT_BENCH_DATASET_DB_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace verdict::bench {

struct DatasetDbOptions {
  int64_t agents = 1000;
  // Where generated files are kept; "" means DefaultDatasetDir().
  std::string directory;
  // Generates a broken variant on purpose, for the gate's controls: "" (none),
  // "decision_records" for the records' primary key (every decision's agent lookups),
  // "token_hash" for every search by token, or the name of another index to drop
  // ("permissions_by_agent").
  std::string drop_index;
};

// $VERDICT_BENCH_DIR, or /tmp/verdict-bench.
std::string DefaultDatasetDir();

// The path of the file that holds the dataset, generating it first unless the directory
// already has it (files are named by the dataset's version, the schema version and a hash of
// the migrations' text, the agent count and the variant). Safe against concurrent generators:
// a file appears complete or not at all.
absl::StatusOr<std::string> EnsureDatasetDb(const DatasetDbOptions& options);

}  // namespace verdict::bench

#endif  // VERDICT_BENCH_DATASET_DB_H_
