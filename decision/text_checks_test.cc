#include "decision/text_checks.h"

#include <string>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

bool IsLowerLetter(char c) { return c >= 'a' && c <= 'z'; }

TEST(CheckPrintableUtf8, AcceptsPrintableTextUpToTheLimit) {
  const std::string kAccepted[] = {
      "docs:read:123",
      "/api/v1/items",
      "caf\xc3\xa9",               // é
      "\xe6\x97\xa5\xe6\x9c\xac",  // 日本
      "\xf0\x9f\x94\x91",          // 🔑, four bytes
      "non\xc2\xa0"
      "breaking",  // U+00A0 is printable, its neighbour U+009F is not
      std::string(16, 'x'),
  };
  for (const std::string& text : kAccepted) {
    EXPECT_TRUE(CheckPrintableUtf8("resource", text, 16).ok()) << text;
  }
}

TEST(CheckPrintableUtf8, RefusesWithAMessageThatNamesTheFieldAndTheProblem) {
  const struct {
    std::string text;
    std::string message;
  } kCases[] = {
      {"", "resource: must not be empty"},
      {std::string(17, 'x'), "resource: is 17 bytes, longer than the limit of 16"},
      {"abc\x01", "resource: contains a control character at byte 3"},
      {"\t", "resource: contains a control character at byte 0"},
      {"a\nb", "resource: contains a control character at byte 1"},
      {"del\x7f", "resource: contains a control character at byte 3"},
      {"c1\xc2\x85", "resource: contains a control character at byte 2"},  // U+0085 NEL
      {std::string("nul\0x", 5), "resource: contains a control character at byte 3"},
      {"\xff", "resource: is not valid UTF-8"},
      {"\xc3", "resource: is not valid UTF-8"},          // truncated sequence
      {"\xc0\xaf", "resource: is not valid UTF-8"},      // overlong '/'
      {"\xed\xa0\x80", "resource: is not valid UTF-8"},  // a surrogate
  };
  for (const auto& c : kCases) {
    const absl::Status status = CheckPrintableUtf8("resource", c.text, 16);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.message;
    EXPECT_EQ(status.message(), c.message);
  }
}

TEST(IsAsciiAlphanumeric, AcceptsLettersAndDigitsOnly) {
  for (char c : std::string("AZaz09")) EXPECT_TRUE(IsAsciiAlphanumeric(c)) << c;
  for (char c : std::string("@[`{/:_-. \x7f\x80\xc3")) EXPECT_FALSE(IsAsciiAlphanumeric(c)) << c;
}

TEST(CheckAsciiCharset, AcceptsAllowedBytesWithinTheBounds) {
  EXPECT_TRUE(CheckAsciiCharset("id", "", 0, 3, IsLowerLetter, "a-z").ok());
  EXPECT_TRUE(CheckAsciiCharset("id", "abc", 1, 3, IsLowerLetter, "a-z").ok());
}

TEST(CheckAsciiCharset, RefusesWithAMessageThatNamesTheFieldAndTheByte) {
  const struct {
    std::string text;
    std::string message;
  } kCases[] = {
      {"", "id: must not be empty"},
      {"abcd", "id: is 4 bytes, longer than the limit of 3"},
      {"aB", "id: byte 1 ('B') is not allowed; use a-z"},
      {"a\x07", "id: byte 1 (0x07) is not allowed; use a-z"},
      {"\xc3\xa9", "id: byte 0 (0xc3) is not allowed; use a-z"},
  };
  for (const auto& c : kCases) {
    const absl::Status status = CheckAsciiCharset("id", c.text, 1, 3, IsLowerLetter, "a-z");
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.message;
    EXPECT_EQ(status.message(), c.message);
  }
  EXPECT_EQ(CheckAsciiCharset("id", "a", 2, 3, IsLowerLetter, "a-z").message(),
            "id: is 1 bytes, shorter than the minimum of 2");
}

}  // namespace
}  // namespace verdict
