#include "server/grpc_status.h"

#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

TEST(ToGrpcStatusTest, OkStaysOk) { EXPECT_TRUE(ToGrpcStatus(absl::OkStatus()).ok()); }

TEST(ToGrpcStatusTest, OnlyFourErrorCodesLeaveTheServer) {
  struct Case {
    absl::Status status;
    grpc::StatusCode expected;
  };
  const Case cases[] = {
      {absl::InvalidArgumentError("action: empty"), grpc::StatusCode::INVALID_ARGUMENT},
      {absl::UnavailableError("database is locked"), grpc::StatusCode::UNAVAILABLE},
      {absl::CancelledError("the caller gave up"), grpc::StatusCode::CANCELLED},
      {absl::InternalError("bad constraints"), grpc::StatusCode::INTERNAL},
      {absl::FailedPreconditionError("approval already used"), grpc::StatusCode::INTERNAL},
      {absl::NotFoundError("no such table"), grpc::StatusCode::INTERNAL},
      {absl::DeadlineExceededError("slow"), grpc::StatusCode::INTERNAL},
      {absl::UnknownError("?"), grpc::StatusCode::INTERNAL},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ToGrpcStatus(c.status).error_code(), c.expected) << c.status;
  }
}

TEST(ToGrpcStatusTest, MessageSaysWhatIsWrong) {
  EXPECT_EQ(ToGrpcStatus(absl::InvalidArgumentError("action: empty")).error_message(),
            "action: empty");
  EXPECT_EQ(ToGrpcStatus(absl::UnavailableError("unable to open database file")).error_message(),
            "unable to open database file");
}

TEST(ToGrpcStatusTest, InternalKeepsTheOriginalCodeName) {
  const std::string message =
      ToGrpcStatus(absl::FailedPreconditionError("approval already used")).error_message();
  EXPECT_THAT(message, HasSubstr("FAILED_PRECONDITION"));
  EXPECT_THAT(message, HasSubstr("approval already used"));
}

}  // namespace
}  // namespace verdict
