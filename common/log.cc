#include "common/log.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <string>

#include "absl/base/const_init.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "common/json.h"

namespace verdict {
namespace {

std::atomic<LogFormat> process_format{LogFormat::kText};
ABSL_CONST_INIT absl::Mutex stderr_mutex(absl::kConstInit);

absl::string_view LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "DEBUG";
    case LogLevel::kInfo:
      return "INFO";
    case LogLevel::kWarning:
      return "WARNING";
    case LogLevel::kError:
      return "ERROR";
  }
  return "INFO";
}

// The message on one line: control characters (and backslash, so the escaping reads back)
// escaped.
void AppendOneLine(absl::string_view message, std::string* out) {
  for (char c : message) {
    const unsigned char byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      out->append("\\n");
    } else if (c == '\t') {
      out->append("\\t");
    } else if (c == '\r') {
      out->append("\\r");
    } else if (c == '\\') {
      out->append("\\\\");
    } else if (byte < 0x20 || byte == 0x7f) {
      absl::StrAppendFormat(out, "\\x%02x", byte);
    } else {
      out->push_back(c);
    }
  }
}

}  // namespace

absl::StatusOr<LogFormat> ParseLogFormat(absl::string_view name) {
  if (name == "text") return LogFormat::kText;
  if (name == "json") return LogFormat::kJson;
  return absl::InvalidArgumentError(
      absl::StrCat("--log_format: \"", name, "\" is neither text nor json"));
}

void SetLogFormat(LogFormat format) { process_format.store(format, std::memory_order_relaxed); }

LogFormat GetLogFormat() { return process_format.load(std::memory_order_relaxed); }

std::string FormatLogLine(LogFormat format, absl::Time time, LogLevel level,
                          absl::string_view message, const LogOrigin& origin) {
  const std::string stamp = absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", time, absl::UTCTimeZone());
  std::string line;
  if (format == LogFormat::kJson) {
    absl::StrAppend(&line, "{\"time\":", JsonQuote(stamp), ",\"level\":\"", LevelName(level),
                    "\",\"msg\":", JsonQuote(message));
    if (!origin.source.empty()) {
      absl::StrAppend(&line, ",\"source\":", JsonQuote(origin.source));
      if (!origin.file.empty()) {
        absl::StrAppend(&line, ",\"file\":", JsonQuote(origin.file), ",\"line\":", origin.line);
      }
    }
    line.append("}\n");
    return line;
  }
  absl::StrAppend(&line, stamp, " ", LevelName(level), " ");
  if (!origin.source.empty()) {
    line.append(origin.source.data(), origin.source.size());
    if (!origin.file.empty()) absl::StrAppend(&line, " ", origin.file, ":", origin.line);
    line.append(": ");
  }
  AppendOneLine(message, &line);
  line.push_back('\n');
  return line;
}

void Log(LogLevel level, absl::string_view message, const LogOrigin& origin) {
  const std::string line = FormatLogLine(GetLogFormat(), absl::Now(), level, message, origin);
  absl::MutexLock lock(&stderr_mutex);
  size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = write(STDERR_FILENO, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // nowhere to log to: the line is lost, never the process
    written += static_cast<size_t>(n);
  }
}

}  // namespace verdict
