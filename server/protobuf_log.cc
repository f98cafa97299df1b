#include "server/protobuf_log.h"

#include <google/protobuf/stubs/logging.h>

#include <string>

#include "absl/strings/match.h"
#include "common/log.h"

namespace verdict {
namespace {

LogLevel LevelOf(google::protobuf::LogLevel level) {
  switch (level) {
    case google::protobuf::LOGLEVEL_INFO:
      return LogLevel::kInfo;
    case google::protobuf::LOGLEVEL_WARNING:
      return LogLevel::kWarning;
    default:
      return LogLevel::kError;  // ERROR, and FATAL (protobuf aborts after it)
  }
}

void ToSinkUnlessInvalidUtf8Parse(google::protobuf::LogLevel level, const char* filename, int line,
                                  const std::string& message) {
  if (absl::StrContains(message, "contains invalid UTF-8 data when parsing")) return;
  Log(LevelOf(level), message, LogOrigin{"protobuf", filename == nullptr ? "" : filename, line});
}

}  // namespace

void QuietInvalidUtf8ParseErrors() {
  google::protobuf::SetLogHandler(&ToSinkUnlessInvalidUtf8Parse);
}

}  // namespace verdict
