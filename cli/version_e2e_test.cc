// The built binaries explain themselves: `verdictd --help` lists its flags and exits 0,
// `verdictd --version` and `verdict version` print the version and the commit they were built
// from, and both binaries of one build name the same commit.
#include <stdlib.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "cli/e2e_test_support.h"
#include "common/version.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/verdictd_process.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;
using ::testing::StartsWith;

// Runs `program args` through the shell (no quoting needed for these arguments).
Outcome RunProgram(const std::string& program, const std::string& args) {
  return RunCommand(absl::StrCat(RunfilePath(program), " ", args, " 2>/dev/null"));
}

TEST(VersionTest, VerdictdHelpListsTheFlagsAndExitsZero) {
  for (const char* flag : {"--help", "-h", "--helpfull"}) {
    const Outcome help = RunProgram("server/verdictd", flag);
    EXPECT_EQ(help.exit_code, 0) << flag;
    EXPECT_THAT(help.out, StartsWith("verdict's policy-decision sidecar.")) << flag;
    for (const char* listed : {"--listen", "--db", "--seed", "--workers", "--metrics_listen",
                               "--admin_listen", "--decision_log", "--version"}) {
      EXPECT_THAT(help.out, HasSubstr(absl::StrCat("\n  ", listed))) << flag << " " << listed;
    }
    EXPECT_THAT(help.out, Not(HasSubstr("No flags matched"))) << flag;
  }
}

TEST(VersionTest, VerdictdAndVerdictPrintVersionAndTheSameCommit) {
  const std::string line_shape = absl::StrCat(" ", std::string(kVerdictVersion),
                                              " \\(commit ([0-9a-f]{7,40}(-dirty)?|unknown)\\)\n");
  const Outcome server = RunProgram("server/verdictd", "--version");
  EXPECT_EQ(server.exit_code, 0);
  EXPECT_THAT(server.out, MatchesRegex(absl::StrCat("verdictd", line_shape)));
  // --version wins over flags that would otherwise start a server.
  EXPECT_EQ(RunProgram("server/verdictd", "--db=/nonexistent/dir/x.db --version").out, server.out);

  const Outcome cli = RunProgram("cli/verdict", "version");
  EXPECT_EQ(cli.exit_code, 0);
  EXPECT_THAT(cli.out, MatchesRegex(absl::StrCat("verdict", line_shape)));
  EXPECT_EQ(RunProgram("cli/verdict", "--version").out, cli.out);
  EXPECT_EQ(cli.out.substr(cli.out.find(' ')), server.out.substr(server.out.find(' ')));
  EXPECT_THAT(RunProgram("cli/verdict", "--help").out, HasSubstr("\n  version "));
  // In JSON or YAML too (-o, as every command that prints data); no other option.
  const Outcome json = RunProgram("cli/verdict", "version -o json");
  EXPECT_EQ(json.exit_code, 0);
  EXPECT_THAT(json.out,
              MatchesRegex(absl::StrCat(
                  R"re(\{"program":"verdict","version":")re", std::string(kVerdictVersion),
                  R"re(","commit":"([0-9a-f]{7,40}(-dirty)?|unknown)"\})re", "\n")));
  EXPECT_EQ(RunProgram("cli/verdict", "version --json").out, json.out);
  EXPECT_EQ(RunProgram("cli/verdict", "version --colour=red").exit_code, 1);
  EXPECT_EQ(RunProgram("cli/verdict", "version -o xml").exit_code, 1);
  const Outcome help = RunProgram("cli/verdict", "version --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, StartsWith("Usage: verdict version\n"));
}

}  // namespace
}  // namespace verdict
