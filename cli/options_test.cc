#include "cli/options.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

const std::vector<OptionSpec>& Specs() {
  static const std::vector<OptionSpec>* const kSpecs = new std::vector<OptionSpec>{
      {"id", "ID", "the id", Need::kRequired},
      {"grace", "DURATION", "the grace", Need::kOptional, "0s"},
      {"json", "", "as JSON", Need::kSwitch},
  };
  return *kSpecs;
}

absl::StatusOr<ParsedOptions> Parse(std::vector<std::string> args) {
  return ParseOptions(args, Specs());
}

struct BadCommandLine {
  std::vector<std::string> args;
  std::string says;
};

TEST(ParseOptionsTest, TakesBothValueFormsSwitchesAndDefaults) {
  absl::StatusOr<ParsedOptions> equals = Parse({"--id=agt_1", "--json"});
  ASSERT_TRUE(equals.ok()) << equals.status();
  EXPECT_EQ(equals->Get("id"), "agt_1");
  EXPECT_TRUE(equals->Switch("json"));
  EXPECT_EQ(equals->Get("grace"), "0s");
  EXPECT_FALSE(equals->Has("grace"));

  absl::StatusOr<ParsedOptions> spaced = Parse({"--grace", "5m", "--id", "agt_2"});
  ASSERT_TRUE(spaced.ok()) << spaced.status();
  EXPECT_EQ(spaced->Get("id"), "agt_2");
  EXPECT_EQ(spaced->Get("grace"), "5m");
  EXPECT_TRUE(spaced->Has("grace"));
  EXPECT_FALSE(spaced->Switch("json"));

  absl::StatusOr<ParsedOptions> dashes = Parse({"--id=--odd"});
  ASSERT_TRUE(dashes.ok()) << dashes.status();
  EXPECT_EQ(dashes->Get("id"), "--odd");

  absl::StatusOr<ParsedOptions> empty_value = Parse({"--id="});
  ASSERT_TRUE(empty_value.ok()) << empty_value.status();
  EXPECT_EQ(empty_value->Get("id"), "");
}

// A long option is one flag whether its words are joined by '-' (the issue's `--dry-run`, as
// kubectl and terraform write them) or '_' (absl's `--dry_run`, as verdictd's flags are written).
const std::vector<OptionSpec>& SpecsWithSpellings() {
  static const std::vector<OptionSpec>* const kSpecs = new std::vector<OptionSpec>{
      {"dry-run", "", "plan only", Need::kSwitch},
      {"admin_addr", "ADDRESS", "the admin listener", Need::kOptional, "unix:verdict.sock"},
      {"page_size", "N", "rows per page", Need::kRequired},
  };
  return *kSpecs;
}

TEST(ParseOptionsTest, AHyphenAndAnUnderscoreSpellOneFlag) {
  const std::vector<std::vector<std::string>> spellings = {
      {"--dry-run", "--admin-addr=unix:a.sock", "--page-size", "5"},
      {"--dry_run", "--admin_addr=unix:a.sock", "--page_size", "5"},
      {"--dry-run", "--admin_addr", "unix:a.sock", "--page-size=5"},
      {"--dry_run", "--admin-addr", "unix:a.sock", "--page_size=5"},
  };
  for (const std::vector<std::string>& args : spellings) {
    absl::StatusOr<ParsedOptions> parsed = ParseOptions(args, SpecsWithSpellings());
    ASSERT_TRUE(parsed.ok()) << parsed.status() << " " << args[0] << " " << args[1];
    // The command reads an option by either spelling too.
    EXPECT_TRUE(parsed->Switch("dry-run")) << args[0];
    EXPECT_TRUE(parsed->Switch("dry_run")) << args[0];
    EXPECT_EQ(parsed->Get("admin_addr"), "unix:a.sock") << args[1];
    EXPECT_EQ(parsed->Get("admin-addr"), "unix:a.sock") << args[1];
    EXPECT_TRUE(parsed->Has("admin_addr")) << args[1];
    EXPECT_EQ(parsed->Get("page_size"), "5");
  }
  absl::StatusOr<ParsedOptions> defaults = ParseOptions({"--page-size=1"}, SpecsWithSpellings());
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  EXPECT_FALSE(defaults->Switch("dry_run"));
  EXPECT_EQ(defaults->Get("admin-addr"), "unix:verdict.sock");
  EXPECT_FALSE(defaults->Has("admin-addr"));
}

TEST(ParseOptionsTest, TwoSpellingsOfOneFlagAreItGivenTwiceAndATypoIsStillUnknown) {
  for (const BadCommandLine& bad : std::vector<BadCommandLine>{
           {{"--page-size=1", "--dry-run", "--dry_run"}, "--dry_run is given twice"},
           {{"--page_size=1", "--page-size=2"}, "--page-size is given twice"},
           {{"--page-size=1", "--dry-runn"}, "unknown option --dry-runn"},
           {{"--page-size=1", "--dry--run"}, "unknown option --dry--run"},
           {{"--page-size=1", "--dryrun"}, "unknown option --dryrun"},
           {{"--page-size=1", "--dry-run=yes"}, "--dry-run takes no value"},
           {{"--dry-run"}, "--page_size=N is required"},
       }) {
    absl::StatusOr<ParsedOptions> parsed = ParseOptions(bad.args, SpecsWithSpellings());
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << bad.says;
    EXPECT_THAT(parsed.status().message(), HasSubstr(bad.says));
  }
}

TEST(OptionsHelpTest, ShowsEachOptionAsItsSpecSpellsIt) {
  const std::string help = OptionsHelp(SpecsWithSpellings());
  EXPECT_THAT(help, HasSubstr("  --dry-run "));
  EXPECT_THAT(help, HasSubstr("  --admin_addr=ADDRESS "));
}

TEST(ParseOptionsTest, HelpNeedsNoRequiredOption) {
  absl::StatusOr<ParsedOptions> help = Parse({"--help"});
  ASSERT_TRUE(help.ok()) << help.status();
  EXPECT_TRUE(help->help());
}

TEST(ParseOptionsTest, RefusesWhatItWasNotToldAbout) {
  for (const BadCommandLine& bad : std::vector<BadCommandLine>{
           {{}, "--id=ID is required"},
           {{"--id=a", "--color=red"}, "unknown option --color"},
           {{"--id=a", "extra"}, "unexpected argument \"extra\""},
           {{"--id"}, "the value is missing"},
           // A forgotten value never swallows the next option.
           {{"--id", "--json"}, "the value is missing"},
           {{"--grace", "--id=a"}, "the value is missing"},
           {{"--id=a", "--id=b"}, "given twice"},
           {{"--id=a", "--json=yes"}, "takes no value"},
           {{"--id=a", "--"}, "unexpected argument"},
       }) {
    absl::StatusOr<ParsedOptions> parsed = Parse(bad.args);
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(parsed.status().message(), HasSubstr(bad.says));
  }
}

TEST(OptionsHelpTest, ListsEveryOptionWithWhatItNeeds) {
  const std::string help = OptionsHelp(Specs());
  EXPECT_THAT(help, HasSubstr("--id=ID"));
  EXPECT_THAT(help, HasSubstr("the id (required)"));
  EXPECT_THAT(help, HasSubstr("the grace (default 0s)"));
  EXPECT_THAT(help, HasSubstr("--json "));
}

}  // namespace
}  // namespace verdict
