#include "decision/path_escapes.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

// Each character has one spelling, so a path is compared with a pattern byte for byte.
TEST(CheckPathEscapes, AcceptsEscapesOfWhatAPathCannotCarryAsItIs) {
  for (const char* path :
       {"/docs/7", "/users/@me/x", "/v1/docs/1:export", "/~alice", "/docs/caf%C3%A9/menu",
        "/files/annual%20report%3F.pdf", "/a%7B%7D", "/100%22"}) {
    EXPECT_TRUE(CheckPathEscapes(path).ok()) << path;
  }
}

TEST(CheckPathEscapes, RefusesASecondSpellingOfACharacter) {
  for (const char* path :
       {"/users/%40me", "/docs/%73ecret", "/v1/docs/1%3Aexport", "/%7Ealice", "/a%3Bb", "/a%2Cb"}) {
    EXPECT_THAT(CheckPathEscapes(path).message(), HasSubstr("which a path carries as it is"))
        << path;
  }
  // Lowercase hex is a second spelling of the uppercase escape.
  EXPECT_THAT(CheckPathEscapes("/docs/caf%c3%a9").message(), HasSubstr("two uppercase hex"));
}

TEST(CheckPathEscapes, RefusesEscapesAServerWouldReadAsAnotherPath) {
  for (const char* path : {"/docs%2Fsecret", "/docs%5Csecret", "/docs/%2541", "/docs/a%00",
                           "/docs/a%0A", "/docs/a%7F"}) {
    EXPECT_THAT(CheckPathEscapes(path).message(), HasSubstr("another path")) << path;
  }
}

TEST(CheckPathEscapes, RefusesMalformedEscapes) {
  for (const char* path : {"/docs/secret%", "/docs/secret%4", "/docs/secret%zz/1", "/100%"}) {
    EXPECT_EQ(CheckPathEscapes(path).code(), absl::StatusCode::kInvalidArgument) << path;
  }
}

}  // namespace
}  // namespace verdict
