#include "common/log.h"

#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

const absl::Time kAt = absl::FromUnixMicros(1796122800123456);  // 2026-12-01T11:00:00.123456Z

TEST(LogFormatTest, OnlyTextAndJsonAreFormats) {
  EXPECT_EQ(*ParseLogFormat("text"), LogFormat::kText);
  EXPECT_EQ(*ParseLogFormat("json"), LogFormat::kJson);
  const absl::StatusOr<LogFormat> bad = ParseLogFormat("JSON");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("neither text nor json"));
}

TEST(LogFormatTest, ATextLineStartsWithTheTimeAndTheLevel) {
  EXPECT_EQ(FormatLogLine(LogFormat::kText, kAt, LogLevel::kInfo, "verdictd serving on x"),
            "2026-12-01T11:00:00.123456Z INFO verdictd serving on x\n");
  EXPECT_EQ(FormatLogLine(LogFormat::kText, kAt, LogLevel::kError, "bind failed",
                          {"grpc", "src/core/x.cc", 42}),
            "2026-12-01T11:00:00.123456Z ERROR grpc src/core/x.cc:42: bind failed\n");
}

TEST(LogFormatTest, ATextLineIsOneLineWhateverTheMessageHolds) {
  EXPECT_EQ(FormatLogLine(LogFormat::kText, kAt, LogLevel::kWarning, "a\nb\tc\\d\x01"),
            "2026-12-01T11:00:00.123456Z WARNING a\\nb\\tc\\\\d\\x01\n");
}

TEST(LogFormatTest, AJsonLineIsOneObjectWithTimeLevelAndMessage) {
  const std::string line = FormatLogLine(LogFormat::kJson, kAt, LogLevel::kWarning,
                                         "quote \" newline \n bad \xff", {"grpc", "f.cc", 7});
  ASSERT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  absl::StatusOr<JsonValue> parsed = ParseJson(line.substr(0, line.size() - 1));
  ASSERT_TRUE(parsed.ok()) << parsed.status() << ": " << line;
  EXPECT_EQ(parsed->Find("time")->as_string(), "2026-12-01T11:00:00.123456Z");
  EXPECT_EQ(parsed->Find("level")->as_string(), "WARNING");
  EXPECT_EQ(parsed->Find("msg")->as_string(), "quote \" newline \n bad \xEF\xBF\xBD");
  EXPECT_EQ(parsed->Find("source")->as_string(), "grpc");
  EXPECT_EQ(parsed->Find("file")->as_string(), "f.cc");
  EXPECT_EQ(parsed->Find("line")->as_number(), 7);
}

TEST(LogFormatTest, VerdictsOwnJsonLinesNameNoSource) {
  const std::string line = FormatLogLine(LogFormat::kJson, kAt, LogLevel::kInfo, "hello");
  EXPECT_EQ(line,
            "{\"time\":\"2026-12-01T11:00:00.123456Z\",\"level\":\"INFO\",\"msg\":\"hello\"}\n");
}

}  // namespace
}  // namespace verdict
