#include "server/process_stats.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace verdict {
namespace {

// Fields of /proc/PID/stat (proc(5)), counted from 1; the text after the command name's closing
// parenthesis starts at field 3.
constexpr int kFirstFieldAfterName = 3;
constexpr int kUserTicks = 14;
constexpr int kSystemTicks = 15;
constexpr int kStartTicksSinceBoot = 22;
constexpr int kVirtualBytes = 23;
constexpr int kResidentPages = 24;

absl::StatusOr<std::string> ReadWholeFile(const char* path) {
  std::ifstream file(path);
  if (!file) return absl::UnavailableError(absl::StrCat("cannot read ", path));
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace

absl::StatusOr<ProcessStats> ParseProcessStat(absl::string_view self_stat,
                                              absl::string_view system_stat,
                                              int64_t clock_ticks_per_second, int64_t page_size) {
  // The command name may hold spaces and parentheses: the fields start after the last ')'.
  const size_t name_end = self_stat.rfind(')');
  if (name_end == absl::string_view::npos || clock_ticks_per_second <= 0 || page_size <= 0) {
    return absl::InvalidArgumentError("malformed /proc/self/stat");
  }
  const std::vector<absl::string_view> fields = absl::StrSplit(
      absl::StripAsciiWhitespace(self_stat.substr(name_end + 1)), ' ', absl::SkipEmpty());
  auto field = [&fields](int number, int64_t* value) {
    const size_t index = number - kFirstFieldAfterName;
    return index < fields.size() && absl::SimpleAtoi(fields[index], value);
  };
  int64_t user = 0, system = 0, start = 0, virtual_bytes = 0, resident_pages = 0;
  if (!field(kUserTicks, &user) || !field(kSystemTicks, &system) ||
      !field(kStartTicksSinceBoot, &start) || !field(kVirtualBytes, &virtual_bytes) ||
      !field(kResidentPages, &resident_pages)) {
    return absl::InvalidArgumentError("malformed /proc/self/stat");
  }
  int64_t boot_time = -1;
  for (absl::string_view line : absl::StrSplit(system_stat, '\n')) {
    if (absl::ConsumePrefix(&line, "btime ") &&
        absl::SimpleAtoi(absl::StripAsciiWhitespace(line), &boot_time)) {
      break;
    }
  }
  if (boot_time < 0) return absl::InvalidArgumentError("no btime in /proc/stat");

  ProcessStats stats;
  const double ticks = static_cast<double>(clock_ticks_per_second);
  stats.cpu_seconds = static_cast<double>(user + system) / ticks;
  stats.start_time_seconds = static_cast<double>(boot_time) + static_cast<double>(start) / ticks;
  stats.virtual_memory_bytes = virtual_bytes;
  stats.resident_memory_bytes = resident_pages * page_size;
  return stats;
}

absl::StatusOr<ProcessStats> ReadProcessStats() {
  absl::StatusOr<std::string> self_stat = ReadWholeFile("/proc/self/stat");
  if (!self_stat.ok()) return self_stat.status();
  absl::StatusOr<std::string> system_stat = ReadWholeFile("/proc/stat");
  if (!system_stat.ok()) return system_stat.status();
  absl::StatusOr<ProcessStats> stats =
      ParseProcessStat(*self_stat, *system_stat, sysconf(_SC_CLK_TCK), sysconf(_SC_PAGESIZE));
  if (!stats.ok()) return stats.status();

  DIR* fds = opendir("/proc/self/fd");
  if (fds == nullptr) return absl::UnavailableError("cannot list /proc/self/fd");
  int64_t entries = 0;
  while (const dirent* entry = readdir(fds)) {
    if (entry->d_name[0] != '.') ++entries;
  }
  closedir(fds);
  stats->open_fds = entries - 1;  // less the descriptor that listed the directory
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    stats->max_fds = static_cast<int64_t>(limit.rlim_cur);
  }
  return stats;
}

}  // namespace verdict
