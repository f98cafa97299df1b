#include "decision/path_escapes.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

// Each character has one spelling, so a path is compared with a pattern byte for byte.
TEST(CheckPathSpelling, AcceptsEscapesOfWhatAPathCannotCarryAsItIs) {
  for (const char* path :
       {"/docs/7", "/users/@me/x", "/v1/docs/1:export", "/~alice", "/docs/caf%C3%A9/menu",
        "/files/annual%20report%3F.pdf", "/a%7B%7D", "/100%22"}) {
    EXPECT_TRUE(CheckPathSpelling(path).ok()) << path;
  }
}

TEST(CheckPathSpelling, RefusesASecondSpellingOfACharacter) {
  for (const char* path :
       {"/users/%40me", "/docs/%73ecret", "/v1/docs/1%3Aexport", "/%7Ealice", "/a%3Bb", "/a%2Cb"}) {
    EXPECT_THAT(CheckPathSpelling(path).message(), HasSubstr("which a path carries as it is"))
        << path;
  }
  // Lowercase hex is a second spelling of the uppercase escape.
  EXPECT_THAT(CheckPathSpelling("/docs/caf%c3%a9").message(), HasSubstr("two uppercase hex"));
}

TEST(CheckPathSpelling, RefusesEscapesAServerWouldReadAsAnotherPath) {
  for (const char* path : {"/docs%2Fsecret", "/docs%5Csecret", "/docs/%2541", "/docs/a%00",
                           "/docs/a%0A", "/docs/a%7F"}) {
    EXPECT_THAT(CheckPathSpelling(path).message(), HasSubstr("another path")) << path;
  }
}

TEST(CheckPathSpelling, RefusesCharactersAPathMustEscape) {
  for (const char* path : {"/docs/caf\xc3\xa9", "/files/a b", "/a{}", "/a|b", "/a[0]", "/a\"q\"",
                           "/a^b", "/a`b", "/a<b>"}) {
    EXPECT_THAT(CheckPathSpelling(path).message(), HasSubstr("must be written as an escape"))
        << path;
  }
}

// A lenient server reads the overlong "%C0%AE" as '.', and "%C0%AF" as '/'.
TEST(CheckPathSpelling, RefusesEscapesThatAreNoWellFormedUtf8) {
  for (const char* path :
       {"/x/%C0%AE%C0%AE/admin", "/x%C0%AFadmin", "/docs/%FF", "/docs/caf%C3", "/docs/%ED%A0%80"}) {
    EXPECT_THAT(CheckPathSpelling(path).message(), HasSubstr("shortest-form UTF-8")) << path;
  }
}

TEST(CheckPathSpelling, RefusesMalformedEscapes) {
  for (const char* path : {"/docs/secret%", "/docs/secret%4", "/docs/secret%zz/1", "/100%"}) {
    EXPECT_EQ(CheckPathSpelling(path).code(), absl::StatusCode::kInvalidArgument) << path;
  }
}

// A path verdict matches is spelled the one way and has no segment a server reads as another
// path; its patterns may hold '*' and '**', which are characters a path carries as they are.
TEST(CheckMatchablePath, AcceptsPathsWithOneReading) {
  for (const char* path : {"/", "/docs/7", "/docs/caf%C3%A9/menu", "/users/@me/~alice",
                           "/api/**/docs/*", "/a.b/..c/...", "/docs/7/"}) {
    EXPECT_TRUE(CheckMatchablePath(path).ok()) << path << ": " << CheckMatchablePath(path);
  }
}

TEST(CheckMatchablePath, RefusesSegmentsAServerReadsAsAnotherPath) {
  const struct {
    const char* path;
    const char* message;
  } kRefused[] = {
      {"docs/7", "a path begins with '/'"},
      {"/docs/7/../secret", "the dot segment \"..\" makes a server read another path"},
      {"/docs/..", "the dot segment \"..\" makes a server read another path"},
      {"/./docs", "the dot segment \".\" makes a server read another path"},
      {"/docs//secret", "an empty segment (\"//\") is read as one slash by many servers"},
      {"/x/..;/secret",
       "';' at byte 5 starts a path parameter, which servers strip before routing"},
      {"/docs/%73ecret", "\"%73\" escapes 's', which a path carries as it is"},
  };
  for (const auto& c : kRefused) {
    const absl::Status status = CheckMatchablePath(c.path);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.path;
    EXPECT_EQ(status.message(), c.message) << c.path;
  }
}

}  // namespace
}  // namespace verdict
