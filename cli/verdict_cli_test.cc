// `verdict`'s command line, run in process: what it accepts and how it explains itself, before
// any server is involved.
#include "cli/verdict_cli.h"

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_environment.h"
#include "cli/exit_codes.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

Outcome RunCli(const std::vector<std::string>& args) {
  std::ostringstream out;
  std::ostringstream err;
  std::istringstream in;
  CliEnvironment env{out, err, in, [](const std::string&) { return std::nullopt; }};
  Outcome outcome;
  outcome.exit_code = RunVerdictCli(args, env);
  outcome.out = out.str();
  outcome.err = err.str();
  return outcome;
}

TEST(VerdictCliTest, PolicyApplysHelpSpellsDryRunAsTheIssueDoes) {
  const Outcome help = RunCli({"policy", "apply", "--help"});
  EXPECT_EQ(help.exit_code, kExitOk);
  EXPECT_THAT(help.out, HasSubstr("  --dry-run "));
  EXPECT_THAT(help.out, Not(HasSubstr("--dry_run")));
}

TEST(VerdictCliTest, BothSpellingsOfDryRunAreAccepted) {
  for (const char* spelling : {"--dry-run", "--dry_run"}) {
    const Outcome help = RunCli({"policy", "apply", "--file=p.yaml", spelling, "--help"});
    EXPECT_EQ(help.exit_code, kExitOk) << spelling << ": " << help.err;
    EXPECT_THAT(help.out, HasSubstr("Usage: verdict policy apply")) << spelling;
  }
}

TEST(VerdictCliTest, AnUnknownFlagIsAUsageErrorNamingItAsTyped) {
  for (const char* typo : {"--dry-runn", "--dryrun", "--dry--run"}) {
    const Outcome refused = RunCli({"policy", "apply", "--file=p.yaml", typo});
    EXPECT_EQ(refused.exit_code, kExitUsage) << typo;
    EXPECT_THAT(refused.err, HasSubstr(std::string("unknown option ") + typo));
    EXPECT_THAT(refused.err, HasSubstr("verdict policy apply --help lists the options"));
    EXPECT_EQ(refused.out, "");
  }
  // `diff` only plans: it has no --dry-run in either spelling.
  const Outcome diff = RunCli({"policy", "diff", "--file=p.yaml", "--dry-run"});
  EXPECT_EQ(diff.exit_code, kExitUsage);
  EXPECT_THAT(diff.err, HasSubstr("unknown option --dry-run"));
}

}  // namespace
}  // namespace verdict
