#include "server/process_stats.h"

#include <unistd.h>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

// /proc/self/stat of a process named "verd (x) d": utime 250, stime 50 ticks, started 1000 ticks
// after boot, 200 MiB virtual, 3000 resident pages.
constexpr char kSelfStat[] =
    "4242 (verd (x) d) S 1 4242 4242 0 -1 4194560 1234 0 0 0 250 50 0 0 20 0 9 0 1000 "
    "209715200 3000 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0\n";
constexpr char kSystemStat[] =
    "cpu  1 2 3 4 5 6 7 0 0 0\nintr 1\nctxt 99\nbtime 1764547200\nprocesses 7\n";

TEST(ProcessStatsTest, CpuMemoryAndStartTimeComeFromProcFields) {
  absl::StatusOr<ProcessStats> stats = ParseProcessStat(kSelfStat, kSystemStat, 100, 4096);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_DOUBLE_EQ(stats->cpu_seconds, 3.0);  // (250 + 50) / 100
  EXPECT_EQ(stats->resident_memory_bytes, 3000 * 4096);
  EXPECT_EQ(stats->virtual_memory_bytes, 209715200);
  EXPECT_DOUBLE_EQ(stats->start_time_seconds, 1764547200.0 + 10.0);
}

TEST(ProcessStatsTest, MalformedTextIsRefused) {
  EXPECT_FALSE(ParseProcessStat("4242 verdictd S 1", kSystemStat, 100, 4096).ok());
  EXPECT_FALSE(ParseProcessStat("4242 (verdictd) S 1 2 3", kSystemStat, 100, 4096).ok());
  EXPECT_FALSE(ParseProcessStat(kSelfStat, "cpu 1 2 3\n", 100, 4096).ok());
  EXPECT_FALSE(ParseProcessStat(kSelfStat, kSystemStat, 0, 4096).ok());
}

TEST(ProcessStatsTest, ThisProcessIsSeenAsItIs) {
  absl::StatusOr<ProcessStats> stats = ReadProcessStats();
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_GT(stats->resident_memory_bytes, 0);
  EXPECT_GE(stats->virtual_memory_bytes, stats->resident_memory_bytes);
  EXPECT_GE(stats->cpu_seconds, 0);
  const double now = absl::ToUnixMicros(absl::Now()) / 1e6;
  EXPECT_LE(stats->start_time_seconds, now + 1);
  EXPECT_GT(stats->start_time_seconds, now - 24 * 3600);  // a test started today
  // stdin, stdout and stderr at least; one more descriptor open counts once more.
  EXPECT_GE(stats->open_fds, 3);
  const int extra = dup(1);
  ASSERT_GE(extra, 0);
  absl::StatusOr<ProcessStats> with_extra = ReadProcessStats();
  close(extra);
  ASSERT_TRUE(with_extra.ok());
  EXPECT_EQ(with_extra->open_fds, stats->open_fds + 1);
  EXPECT_GT(stats->max_fds, 0);
}

}  // namespace
}  // namespace verdict
