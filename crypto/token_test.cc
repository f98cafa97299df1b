#include "crypto/token.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(Base64UrlTest, EncodesAndDecodesTheRfc4648Vectors) {
  const struct {
    std::string bytes;
    const char* text;
  } kVectors[] = {
      {"", ""},
      {"f", "Zg"},
      {"fo", "Zm8"},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg"},
      {"fooba", "Zm9vYmE"},
      {"foobar", "Zm9vYmFy"},
      // The two characters where base64url differs from base64 ("+/8", "+/+/").
      {"\xfb\xff", "-_8"},
      {"\xfb\xff\xbf", "-_-_"},
      {std::string("\0\0\0", 3), "AAAA"},
  };
  for (const auto& vector : kVectors) {
    EXPECT_EQ(Base64UrlEncode(vector.bytes), vector.text);
    absl::StatusOr<std::string> decoded = Base64UrlDecode(vector.text);
    ASSERT_TRUE(decoded.ok()) << vector.text << ": " << decoded.status();
    EXPECT_EQ(*decoded, vector.bytes) << vector.text;
  }
}

TEST(Base64UrlTest, DecodeRejectsEverythingButCanonicalUnpaddedBase64Url) {
  const struct {
    const char* text;
    const char* message;
  } kCases[] = {
      {"Zg==", "offset 2 is not in the base64url alphabet"},
      {"Zm8=", "offset 3 is not in the base64url alphabet"},
      {"+/8", "offset 0 is not in the base64url alphabet"},
      {"-/8", "offset 1 is not in the base64url alphabet"},
      {"Zm9 vw", "offset 3 is not in the base64url alphabet"},
      {"Zm9v\n", "cannot encode whole bytes"},
      {"Zm9v\nYg", "offset 4 is not in the base64url alphabet"},
      {"Z", "cannot encode whole bytes"},
      {"Zm9vY", "cannot encode whole bytes"},
      {"Zh", "non-zero trailing bits"},   // 'h' leaves 4 bits 0001
      {"Zm9", "non-zero trailing bits"},  // '9' leaves 2 bits 01
      {"-_9", "non-zero trailing bits"},
  };
  for (const auto& c : kCases) {
    absl::StatusOr<std::string> decoded = Base64UrlDecode(c.text);
    ASSERT_FALSE(decoded.ok()) << "accepted: " << c.text;
    EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(decoded.status().message()), HasSubstr(c.message)) << c.text;
  }
}

TEST(Base64UrlTest, DecodeInvertsEncodeForEveryLength) {
  for (size_t length = 0; length <= 64; ++length) {
    const std::string bytes = RandomBytes(length);
    const std::string text = Base64UrlEncode(bytes);
    EXPECT_EQ(text.size(), (length * 4 + 2) / 3);
    absl::StatusOr<std::string> decoded = Base64UrlDecode(text);
    ASSERT_TRUE(decoded.ok()) << text << ": " << decoded.status();
    EXPECT_EQ(*decoded, bytes);
  }
}

TEST(RandomBytesTest, ReturnsTheRequestedNumberOfUnpredictableBytes) {
  EXPECT_EQ(RandomBytes(0), "");
  EXPECT_EQ(RandomBytes(17).size(), 17u);
  // Two equal 32-byte draws would mean the generator is broken (probability 2^-256).
  EXPECT_NE(RandomBytes(32), RandomBytes(32));
}

TEST(AgentTokenTest, NewTokensHaveTheAgentTokenShape) {
  const std::string token = NewAgentToken();
  EXPECT_EQ(token.size(), kAgentTokenLength);
  EXPECT_EQ(token.substr(0, kAgentTokenPrefix.size()), kAgentTokenPrefix);
  EXPECT_TRUE(CheckAgentTokenShape(token).ok()) << CheckAgentTokenShape(token);
  absl::StatusOr<std::string> random_part =
      Base64UrlDecode(absl::string_view(token).substr(kAgentTokenPrefix.size()));
  ASSERT_TRUE(random_part.ok());
  EXPECT_EQ(random_part->size(), 32u);
}

TEST(AgentTokenTest, NewTokensDiffer) { EXPECT_NE(NewAgentToken(), NewAgentToken()); }

TEST(AgentTokenTest, ShapeCheckSaysWhatIsWrong) {
  const std::string body = Base64UrlEncode(std::string(32, '\x5a'));  // 43 characters
  const std::string good = absl::StrCat(kAgentTokenPrefix, body);
  ASSERT_TRUE(CheckAgentTokenShape(good).ok());
  const auto with_char_at = [&](size_t position, char c) {
    std::string token = good;
    token[position] = c;
    return token;
  };
  const struct {
    std::string token;
    const char* message;
  } kCases[] = {
      {"", "must start with \"vdt_\""},
      {"vdt", "must start with \"vdt_\""},
      {"VDT_" + body, "must start with \"vdt_\""},
      {"vdx_" + body, "must start with \"vdt_\""},
      {"Bearer " + good, "must start with \"vdt_\""},
      {"vdt_", "must be 47 characters long, not 4"},
      {good.substr(0, 46), "must be 47 characters long, not 46"},
      {good + "A", "must be 47 characters long, not 48"},
      {good + "\n", "must be 47 characters long, not 48"},
      {with_char_at(10, '+'), "outside the base64url alphabet at position 10"},
      {with_char_at(4, '/'), "outside the base64url alphabet at position 4"},
      {with_char_at(46, '='), "outside the base64url alphabet at position 46"},
      {with_char_at(20, ' '), "outside the base64url alphabet at position 20"},
      {with_char_at(30, '\0'), "outside the base64url alphabet at position 30"},
      {with_char_at(46, 'B'), "canonical base64url"},
  };
  for (const auto& c : kCases) {
    const absl::Status status = CheckAgentTokenShape(c.token);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.token;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.message)) << c.token;
    // A malformed token may still be someone's secret with a typo: never echo it.
    if (c.token.size() > kAgentTokenPrefix.size()) {
      EXPECT_THAT(std::string(status.message()), Not(HasSubstr(c.token)));
    }
  }
}

TEST(AgentTokenTest, DisplayPrefixIsTheFirstTwelveCharacters) {
  const std::string token = NewAgentToken();
  EXPECT_EQ(TokenDisplayPrefix(token), token.substr(0, 12));
  EXPECT_EQ(TokenDisplayPrefix("vdt_abc"), "vdt_abc");
}

TEST(CompactJwsShapeTest, AnAgentTokenNeverLooksLikeAJws) {
  EXPECT_FALSE(LooksLikeCompactJws(NewAgentToken()));
  EXPECT_TRUE(LooksLikeCompactJws("a.b.c"));
  EXPECT_TRUE(LooksLikeCompactJws("vdt_."));
}

TEST(CompactJwsShapeTest, ShapeCheckSaysWhatIsWrongWithoutQuotingTheToken) {
  const std::string good = "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhZ3RfYSJ9.c2lnbmF0dXJl";
  EXPECT_TRUE(CheckCompactJwsShape(good).ok());
  EXPECT_TRUE(CheckCompactJwsShape(std::string(kMaxAccessTokenLength - 4, 'a') + ".b.c").ok());
  const struct {
    std::string token;
    const char* message;
  } kCases[] = {
      {std::string(kMaxAccessTokenLength - 3, 'a') + ".b.c", "8193 characters, over 8192"},
      {"eyJh.eyJz", "3 dot-separated segments, not 2"},
      {good + ".more", "3 dot-separated segments, not 4"},
      {".eyJz.c2ln", "empty segment at position 0"},
      {"eyJh..c2ln", "empty segment at position 5"},
      {"eyJh.eyJz.", "empty segment at position 10"},
      {"eyJh.ey+z.c2ln", "outside base64url and '.' at position 7"},
      {"eyJh.eyJz.c2ln=", "outside base64url and '.' at position 14"},
      {"Bearer eyJh.eyJz.c2ln", "outside base64url and '.' at position 6"},
  };
  for (const auto& c : kCases) {
    const absl::Status status = CheckCompactJwsShape(c.token);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.message;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.message));
    EXPECT_THAT(std::string(status.message()), Not(HasSubstr(c.token)));
  }
}

}  // namespace
}  // namespace verdict
