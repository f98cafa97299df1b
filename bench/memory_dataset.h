// The benchmark dataset (bench/dataset.h) in an in-memory store: for the engine's benchmarks
// and for checking that the dataset's predictions are the engine's decisions.
//
//   MemoryPolicyStore store;
//   absl::Status loaded = LoadDataset(/*agents=*/1000, store);
#ifndef VERDICT_BENCH_MEMORY_DATASET_H_
#define VERDICT_BENCH_MEMORY_DATASET_H_

#include <cstdint>

#include "absl/status/status.h"
#include "testing/memory_store.h"

namespace verdict::bench {

// Adds every agent (with its token), permission and delegation link of the dataset.
absl::Status LoadDataset(int64_t agents, MemoryPolicyStore& store);

}  // namespace verdict::bench

#endif  // VERDICT_BENCH_MEMORY_DATASET_H_
