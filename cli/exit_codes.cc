#include "cli/exit_codes.h"

namespace verdict {

ExitCode ExitCodeForStatus(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return kExitOk;
    // The server understood the request and said no to it: retrying the same will not help.
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::NOT_FOUND:
    case grpc::StatusCode::ALREADY_EXISTS:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::OUT_OF_RANGE:
    case grpc::StatusCode::PERMISSION_DENIED:
    case grpc::StatusCode::UNIMPLEMENTED:
    case grpc::StatusCode::ABORTED:
      return kExitRefused;
    default:
      return kExitNoAnswer;
  }
}

}  // namespace verdict
