// What the kernel says about this process, for the standard process_* metrics of Prometheus's
// client libraries (process_cpu_seconds_total, process_resident_memory_bytes, ...), read from
// /proc at each scrape.
//
//   absl::StatusOr<ProcessStats> stats = ReadProcessStats();
//   if (stats.ok()) use(stats->cpu_seconds, stats->resident_memory_bytes);
#ifndef VERDICT_SERVER_PROCESS_STATS_H_
#define VERDICT_SERVER_PROCESS_STATS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace verdict {

struct ProcessStats {
  double cpu_seconds = 0;  // user + system
  int64_t resident_memory_bytes = 0;
  int64_t virtual_memory_bytes = 0;
  double start_time_seconds = 0;  // since the Unix epoch
  int64_t open_fds = 0;
  int64_t max_fds = 0;  // the soft limit (RLIMIT_NOFILE)
};

// The CPU, memory and start time from the text of /proc/self/stat and /proc/stat (its "btime"
// line: boot time). Pure, for tests; INVALID_ARGUMENT when either text is malformed.
absl::StatusOr<ProcessStats> ParseProcessStat(absl::string_view self_stat,
                                              absl::string_view system_stat,
                                              int64_t clock_ticks_per_second, int64_t page_size);

// This process's figures, from /proc/self/stat, /proc/stat, /proc/self/fd and getrlimit.
absl::StatusOr<ProcessStats> ReadProcessStats();

}  // namespace verdict

#endif  // VERDICT_SERVER_PROCESS_STATS_H_
