#include "bench/latency.h"

#include <algorithm>
#include <cmath>

namespace verdict::bench {
namespace {

double NearestRankMicros(const std::vector<int64_t>& sorted, double q) {
  const size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  const size_t index = rank == 0 ? 0 : rank - 1;
  return static_cast<double>(sorted[std::min(index, sorted.size() - 1)]) / 1000.0;
}

}  // namespace

LatencySummary SummarizeLatencies(std::vector<int64_t> nanos) {
  LatencySummary summary;
  summary.count = static_cast<int64_t>(nanos.size());
  if (nanos.empty()) return summary;
  std::sort(nanos.begin(), nanos.end());
  summary.p50_us = NearestRankMicros(nanos, 0.50);
  summary.p90_us = NearestRankMicros(nanos, 0.90);
  summary.p99_us = NearestRankMicros(nanos, 0.99);
  summary.p999_us = NearestRankMicros(nanos, 0.999);
  summary.max_us = static_cast<double>(nanos.back()) / 1000.0;
  return summary;
}

}  // namespace verdict::bench
