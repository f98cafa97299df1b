// verdict's operational log: one line per event on stderr, each with a time (UTC, RFC 3339,
// microseconds) and a level, as text or as JSON (verdictd --log_format). stdout is left to what
// a caller asked for there (verdictd --decision_json_log=-), so it never mixes with this log.
//
//   SetLogFormat(LogFormat::kJson);
//   LogInfo("verdictd serving on 127.0.0.1:50051");
//   // {"time":"2026-12-01T18:00:00.123456Z","level":"INFO","msg":"verdictd serving on ..."}
//   LogInfo("verdictd serving on 127.0.0.1:50051");   // with kText:
//   // 2026-12-01T18:00:00.123456Z INFO verdictd serving on 127.0.0.1:50051
//
// gRPC's and protobuf's own log lines come through the same sink once RouteGrpcLogToSink()
// (common/grpc_log.h) and RouteProtobufLogToSink() ran, tagged with where they come from.
//
// Why verdict's own sink and not a library: Debian 12's abseil (20220623) predates absl/log
// (20230125). glog 0.6 and spdlog 1.10 are in Debian, but neither writes JSON lines (glog's
// line format is fixed; spdlog's patterns do not escape a message for JSON), so the JSON half,
// most of this file, would be verdict's either way, beside a second flag system (gflags) or
// formatting library (fmt) in the process. What is left is a time, a level and one write(2)
// per line under a mutex: lines from several threads never interleave.
#ifndef VERDICT_COMMON_LOG_H_
#define VERDICT_COMMON_LOG_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace verdict {

enum class LogLevel { kDebug, kInfo, kWarning, kError };
enum class LogFormat { kText, kJson };

// "text" or "json"; INVALID_ARGUMENT naming both otherwise.
absl::StatusOr<LogFormat> ParseLogFormat(absl::string_view name);

// For the whole process; text until set. Set it before other threads log.
void SetLogFormat(LogFormat format);
LogFormat GetLogFormat();

// Where a line comes from, besides verdict itself: `source` ("grpc") and its code position.
struct LogOrigin {
  absl::string_view source;  // empty: verdict's own line
  absl::string_view file;
  int line = 0;
};

// One line, newline included. Text: "<time> <LEVEL> [<source> <file>:<line>] <message>", with
// control characters of the message escaped (\n, \t, \xNN) so an event is always one line.
// JSON: {"time","level","msg"} plus "source", "file" and "line" when `origin` names a source.
std::string FormatLogLine(LogFormat format, absl::Time time, LogLevel level,
                          absl::string_view message, const LogOrigin& origin = {});

// Writes one line to stderr (file descriptor 2) in the process's format, at the current time.
void Log(LogLevel level, absl::string_view message, const LogOrigin& origin = {});

inline void LogInfo(absl::string_view message) { Log(LogLevel::kInfo, message); }
inline void LogWarning(absl::string_view message) { Log(LogLevel::kWarning, message); }
inline void LogError(absl::string_view message) { Log(LogLevel::kError, message); }

}  // namespace verdict

#endif  // VERDICT_COMMON_LOG_H_
