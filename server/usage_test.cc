#include "server/usage.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/flags.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

TEST(FindInfoRequestTest, HelpAndVersionAreFoundAnywhereBeforeTheEndOfFlags) {
  EXPECT_EQ(FindInfoRequest({"verdictd"}), InfoRequest::kNone);
  EXPECT_EQ(FindInfoRequest({"verdictd", "--db=x.db"}), InfoRequest::kNone);
  EXPECT_EQ(FindInfoRequest({"verdictd", "--help"}), InfoRequest::kHelp);
  EXPECT_EQ(FindInfoRequest({"verdictd", "--db=x.db", "-h"}), InfoRequest::kHelp);
  EXPECT_EQ(FindInfoRequest({"verdictd", "--helpfull"}), InfoRequest::kHelp);
  EXPECT_EQ(FindInfoRequest({"verdictd", "--version"}), InfoRequest::kVersion);
  EXPECT_EQ(FindInfoRequest({"verdictd", "-version", "--listen=:1"}), InfoRequest::kVersion);
  EXPECT_EQ(FindInfoRequest({"verdictd", "--version", "--help"}), InfoRequest::kHelp);
  EXPECT_EQ(FindInfoRequest({"verdictd", "--", "--help"}), InfoRequest::kNone);
  // A value is no request: --seed=--help names a file.
  EXPECT_EQ(FindInfoRequest({"verdictd", "--seed=--help"}), InfoRequest::kNone);
}

TEST(FlagsHelpTest, ListsEveryVerdictFlagWithDefaultAndHelp) {
  const std::string help = FlagsHelp("verdict's policy-decision sidecar.");
  EXPECT_THAT(help, StartsWith("verdict's policy-decision sidecar.\n"));
  EXPECT_THAT(help, HasSubstr("  --listen  (default: 127.0.0.1:50051)\n      "));
  EXPECT_THAT(help, HasSubstr("  --db  (default: ./verdict.db)\n"));
  EXPECT_THAT(help, HasSubstr("  --workers  (default: 4)\n"));
  EXPECT_THAT(help, HasSubstr("  --seed  (default: \"\")\n"));
  EXPECT_THAT(help, HasSubstr("  --version\n"));
  // abseil's own flags are not verdictd's settings.
  EXPECT_THAT(help, Not(HasSubstr("--flagfile")));
  EXPECT_THAT(help, Not(HasSubstr("--undefok")));
}

}  // namespace
}  // namespace verdict
