#include "server/grpc_status.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace verdict {

grpc::Status ToGrpcStatus(const absl::Status& status) {
  const std::string message(status.message());
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return grpc::Status::OK;
    case absl::StatusCode::kInvalidArgument:
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, message);
    case absl::StatusCode::kUnavailable:
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, message);
    case absl::StatusCode::kCancelled:
      return grpc::Status(grpc::StatusCode::CANCELLED, message);
    default:
      // Keep the original code in the message: it is the first thing an operator needs.
      return grpc::Status(grpc::StatusCode::INTERNAL,
                          absl::StrCat(absl::StatusCodeToString(status.code()), ": ", message));
  }
}

}  // namespace verdict
