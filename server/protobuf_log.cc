#include "server/protobuf_log.h"

#include <google/protobuf/stubs/logging.h>

#include <string>

#include "absl/strings/match.h"

namespace verdict {
namespace {

google::protobuf::LogHandler* previous_handler = nullptr;

void DropInvalidUtf8ParseErrors(google::protobuf::LogLevel level, const char* filename, int line,
                                const std::string& message) {
  if (absl::StrContains(message, "contains invalid UTF-8 data when parsing")) return;
  if (previous_handler != nullptr) previous_handler(level, filename, line, message);
}

}  // namespace

void QuietInvalidUtf8ParseErrors() {
  google::protobuf::LogHandler* replaced =
      google::protobuf::SetLogHandler(&DropInvalidUtf8ParseErrors);
  if (replaced != &DropInvalidUtf8ParseErrors) previous_handler = replaced;
}

}  // namespace verdict
