#include "common/grpc_log.h"

#include <grpc/support/log.h>

#include "absl/strings/string_view.h"
#include "common/log.h"

namespace verdict {
namespace {

void ToSink(gpr_log_func_args* args) {
  LogLevel level = LogLevel::kInfo;
  switch (args->severity) {
    case GPR_LOG_SEVERITY_DEBUG:
      level = LogLevel::kDebug;
      break;
    case GPR_LOG_SEVERITY_INFO:
      level = LogLevel::kInfo;
      break;
    case GPR_LOG_SEVERITY_ERROR:
      level = LogLevel::kError;
      break;
  }
  Log(level, args->message == nullptr ? "" : args->message,
      LogOrigin{"grpc", args->file == nullptr ? "" : args->file, args->line});
}

}  // namespace

void RouteGrpcLogToSink() { gpr_set_log_function(&ToSink); }

}  // namespace verdict
