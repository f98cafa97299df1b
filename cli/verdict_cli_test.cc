// `verdict`'s command line, run in process: what it accepts and how it explains itself, before
// any server is involved.
#include "cli/verdict_cli.h"

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_environment.h"
#include "cli/command_table.h"
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

// Options may come before the command words. A switch there takes no value, so the word after
// it is still a command word: every switch of every command, not only --json.
TEST(VerdictCliTest, ASwitchBeforeTheCommandWordsLeavesThemToTheCommand) {
  for (const char* spelling : {"--dry-run", "--dry_run"}) {
    const Outcome help = RunCli({spelling, "policy", "apply", "--file=p.yaml", "--help"});
    EXPECT_EQ(help.exit_code, kExitOk) << spelling << ": " << help.err;
    EXPECT_THAT(help.out, HasSubstr("Usage: verdict policy apply")) << spelling;
  }
  const Outcome follow = RunCli({"--follow", "log", "query", "--help"});
  EXPECT_EQ(follow.exit_code, kExitOk) << follow.err;
  EXPECT_THAT(follow.out, HasSubstr("Usage: verdict log query"));
  // An option that takes a value still takes the next word as its value.
  const Outcome valued = RunCli({"--timeout", "5s", "agents", "list", "--help"});
  EXPECT_EQ(valued.exit_code, kExitOk) << valued.err;
  EXPECT_THAT(valued.out, HasSubstr("Usage: verdict agents list"));
}

// Which is why no option may be a switch for one command and take a value for another: before
// the command words, verdict could not tell whether the next word is its value.
TEST(VerdictCliTest, EveryOptionIsASwitchForEveryCommandOrForNone) {
  struct Declared {
    std::string command;
    OptionSpec spec;
  };
  std::vector<Declared> options;
  for (const cli::Command& command : cli::Commands()) {
    for (const OptionSpec& spec : cli::AllOptions(command)) {
      options.push_back({cli::CommandLine(command), spec});
    }
  }
  for (const Declared& one : options) {
    for (const Declared& other : options) {
      if (!SameOptionName(one.spec.name, other.spec.name)) continue;
      EXPECT_EQ(one.spec.need == Need::kSwitch, other.spec.need == Need::kSwitch)
          << "--" << one.spec.name << " is a switch in one of \"" << one.command << "\" and \""
          << other.command << "\" and takes a value in the other";
    }
  }
  EXPECT_TRUE(cli::IsSwitchOfAnyCommand("--dry-run"));
  EXPECT_TRUE(cli::IsSwitchOfAnyCommand("--help"));
  EXPECT_FALSE(cli::IsSwitchOfAnyCommand("--timeout"));
  EXPECT_FALSE(cli::IsSwitchOfAnyCommand("dry-run"));
}

}  // namespace
}  // namespace verdict
