// Latency percentiles for the benchmarks and the load generator.
//
//   std::vector<int64_t> nanos = ...;  // one entry per call
//   LatencySummary s = SummarizeLatencies(std::move(nanos));
//   printf("p99 %.1f us\n", s.p99_us);
#ifndef VERDICT_BENCH_LATENCY_H_
#define VERDICT_BENCH_LATENCY_H_

#include <cstdint>
#include <vector>

namespace verdict::bench {

struct LatencySummary {
  int64_t count = 0;
  double p50_us = 0;
  double p90_us = 0;
  double p99_us = 0;
  double p999_us = 0;
  double max_us = 0;
};

// Nearest-rank percentiles (the smallest sample with at least q of all samples at or below
// it), so every figure is a latency that some call really had. All zero when empty.
LatencySummary SummarizeLatencies(std::vector<int64_t> nanos);

}  // namespace verdict::bench

#endif  // VERDICT_BENCH_LATENCY_H_
