#include "cli/e2e_test_support.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::EndsWith;
using ::testing::StartsWith;

TEST(ShellQuoteTest, TheShellReadsBackEveryCharacterAsOneWord) {
  for (const std::string arg :
       {"", "plain", "two words", "it's", "''", "a\\b", "$HOME `id` *", "line\nbreak", "'\\''"}) {
    const Outcome echoed = RunCommand(absl::StrCat("printf %s ", ShellQuote(arg)));
    EXPECT_EQ(echoed.exit_code, 0) << arg;
    EXPECT_EQ(echoed.out, arg);
  }
}

TEST(RunCommandTest, KeepsStandardOutputStandardErrorAndTheExitCode) {
  const Outcome outcome = RunCommand("{ echo out; echo err >&2; exit 3; }",
                                     absl::StrCat(std::getenv("TEST_TMPDIR"), "/stderr.txt"));
  EXPECT_EQ(outcome.exit_code, 3);
  EXPECT_EQ(outcome.out, "out\n");
  EXPECT_EQ(outcome.err, "err\n");

  EXPECT_EQ(RunCommand("true").exit_code, 0);
  EXPECT_EQ(RunCommand("kill -9 $$").exit_code, -1) << "killed: no exit code";
}

TEST(ReadFileTest, ReadsAWholeFileAndNothingForAMissingOne) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/read-file.txt");
  std::ofstream(path) << "one\ntwo\n";
  EXPECT_EQ(ReadFile(path), "one\ntwo\n");
  EXPECT_EQ(ReadFile(absl::StrCat(path, ".missing")), "");
}

TEST(VerdictCommandLineTest, QuotesTheBinaryAndEveryArgument) {
  const std::string line = VerdictCommandLine({"agents", "create", "--name=it's mine"});
  EXPECT_THAT(line, StartsWith("'/"));
  EXPECT_THAT(line, EndsWith("/cli/verdict' 'agents' 'create' '--name=it'\\''s mine'"));
}

}  // namespace
}  // namespace verdict
