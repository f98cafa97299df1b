#include "bench/latency.h"

#include <numeric>

#include "gtest/gtest.h"

namespace verdict::bench {
namespace {

TEST(SummarizeLatencies, EmptyInputGivesZeros) {
  const LatencySummary summary = SummarizeLatencies({});
  EXPECT_EQ(summary.count, 0);
  EXPECT_EQ(summary.p50_us, 0);
  EXPECT_EQ(summary.max_us, 0);
}

TEST(SummarizeLatencies, PercentilesAreNearestRankSamples) {
  // 1..1000 microseconds, shuffled order must not matter.
  std::vector<int64_t> nanos(1000);
  std::iota(nanos.begin(), nanos.end(), 1);
  for (int64_t& n : nanos) n *= 1000;
  std::reverse(nanos.begin(), nanos.end());
  const LatencySummary summary = SummarizeLatencies(nanos);
  EXPECT_EQ(summary.count, 1000);
  EXPECT_DOUBLE_EQ(summary.p50_us, 500);
  EXPECT_DOUBLE_EQ(summary.p90_us, 900);
  EXPECT_DOUBLE_EQ(summary.p99_us, 990);
  EXPECT_DOUBLE_EQ(summary.p999_us, 999);
  EXPECT_DOUBLE_EQ(summary.max_us, 1000);
}

TEST(SummarizeLatencies, OneSampleIsEveryPercentile) {
  const LatencySummary summary = SummarizeLatencies({2500});
  EXPECT_DOUBLE_EQ(summary.p50_us, 2.5);
  EXPECT_DOUBLE_EQ(summary.p999_us, 2.5);
}

}  // namespace
}  // namespace verdict::bench
