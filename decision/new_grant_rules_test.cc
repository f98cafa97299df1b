#include "decision/new_grant_rules.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

TEST(CheckNewGrantReadsAsWritten, AcceptsGrantsThatMeanWhatTheySay) {
  for (const char* resource : {"*", "docs:*", "docs:secret:*", "docs:*:1", "doc*", "a**b",
                               "/api/**", "/users/@me/**", "/docs/caf%C3%A9/*"}) {
    EXPECT_TRUE(CheckNewGrantReadsAsWritten(resource, Effect::kDeny, "{}").ok()) << resource;
  }
  EXPECT_TRUE(
      CheckNewGrantReadsAsWritten("docs:*", Effect::kAllow, R"({"ip_allowlist":["10.0.0.0/8"]})")
          .ok());
}

TEST(CheckNewGrantReadsAsWritten, RefusesStarsAloneInAColonSegment) {
  for (const char* resource : {"docs:secret:**", "**", "a:***:b"}) {
    const absl::Status status = CheckNewGrantReadsAsWritten(resource, Effect::kDeny, "");
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << resource;
    EXPECT_THAT(status.message(), HasSubstr("would match only that literal text")) << resource;
  }
}

// Every request naming an empty colon segment is refused (issue 15): "docs::secret:1" must not
// pass a deny on "docs:secret:*", and a pattern holding one could never match.
TEST(CheckNewGrantReadsAsWritten, RefusesEmptyColonSegments) {
  for (const char* resource : {"docs::secret:*", ":docs:*", "docs:secret:", "docs:*::", ":"}) {
    const absl::Status status = CheckNewGrantReadsAsWritten(resource, Effect::kDeny, "{}");
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << resource;
    EXPECT_THAT(status.message(), HasSubstr("an empty segment")) << resource;
    EXPECT_THAT(status.message(), HasSubstr("so no request could match it")) << resource;
  }
}

// Every request path with these escapes or segments is refused (decision/path_escapes.h): a
// pattern holding one could never match.
TEST(CheckNewGrantReadsAsWritten, RefusesPathEscapesNoRequestMayHold) {
  for (const char* resource : {"/users/%40me/**", "/docs/caf%c3%a9/**", "/files/100%",
                               "/docs/../secret/**", "/docs//secret/**", "/docs;v=1/**"}) {
    const absl::Status status = CheckNewGrantReadsAsWritten(resource, Effect::kDeny, "{}");
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << resource;
    EXPECT_THAT(status.message(), HasSubstr("so no request path could match it")) << resource;
  }
}

TEST(CheckNewGrantReadsAsWritten, RefusesConstraintsOnADeny) {
  const absl::Status status = CheckNewGrantReadsAsWritten(
      "docs:*", Effect::kDeny, R"({"time_window":{"start":"02:00","end":"03:00"}})");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("a deny permission takes none"));
}

}  // namespace
}  // namespace verdict
