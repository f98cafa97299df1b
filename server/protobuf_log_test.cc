#include "server/protobuf_log.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "verdict/v1/decision.pb.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

// A string field holding a Latin-1 byte: what a client may send, and what verdict refuses.
std::string RequestBytesWithInvalidUtf8() {
  v1::AuthorizeRequest request;
  request.set_action("caf\xe9");
  testing::internal::CaptureStderr();
  std::string bytes = request.SerializeAsString();
  testing::internal::GetCapturedStderr();
  return bytes;
}

TEST(QuietInvalidUtf8ParseErrors, AClientsInvalidUtf8WritesNothingToTheLog) {
  QuietInvalidUtf8ParseErrors();
  const std::string bytes = RequestBytesWithInvalidUtf8();
  v1::AuthorizeRequest parsed;
  testing::internal::CaptureStderr();
  EXPECT_FALSE(parsed.ParseFromString(bytes));
  EXPECT_THAT(testing::internal::GetCapturedStderr(), IsEmpty());
}

// verdict serializing invalid UTF-8 would be verdict's own bug: that line still shows.
TEST(QuietInvalidUtf8ParseErrors, EveryOtherProtobufMessageIsStillPrinted) {
  QuietInvalidUtf8ParseErrors();
  QuietInvalidUtf8ParseErrors();  // twice is once
  v1::AuthorizeRequest request;
  request.set_action("caf\xe9");
  testing::internal::CaptureStderr();
  request.SerializeAsString();
  const std::string logged = testing::internal::GetCapturedStderr();
  EXPECT_THAT(logged, HasSubstr("contains invalid UTF-8 data when serializing"));
  // Through verdict's log: a level and where it comes from.
  EXPECT_THAT(logged, HasSubstr(" ERROR protobuf "));
}

}  // namespace
}  // namespace verdict
