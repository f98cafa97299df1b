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

TEST(ParseOptionsTest, HelpNeedsNoRequiredOption) {
  absl::StatusOr<ParsedOptions> help = Parse({"--help"});
  ASSERT_TRUE(help.ok()) << help.status();
  EXPECT_TRUE(help->help());
}

struct BadCommandLine {
  std::vector<std::string> args;
  std::string says;
};

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
