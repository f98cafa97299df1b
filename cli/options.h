// Command-line options of one `verdict` subcommand: what it accepts, parsing, and --help text.
//
// Every subcommand declares its options; anything else on its command line is a usage error
// (exit code 1), so a typo never silently does something else.
//
//   const std::vector<OptionSpec> specs = {{"id", "ID", "the agent's id", Need::kRequired}};
//   absl::StatusOr<ParsedOptions> options = ParseOptions(args, specs);
//   if (!options.ok()) ... options.status().message() ...
//   std::string id = options->Get("id");
#ifndef VERDICT_CLI_OPTIONS_H_
#define VERDICT_CLI_OPTIONS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace verdict {

enum class Need { kOptional, kRequired, kSwitch };

struct OptionSpec {
  std::string name;        // "agent", written --agent; help shows it as spelled here
  std::string value_name;  // "ID" in "--agent=ID"; unused for switches
  std::string help;
  Need need = Need::kOptional;
  std::string default_value;  // for optional options
};

// True when `a` and `b` name one option: "dry-run" and "dry_run" do.
bool SameOptionName(absl::string_view a, absl::string_view b);

class ParsedOptions {
 public:
  // The value given, else the spec's default; "" for an unset switch, "true" for a set one.
  const std::string& Get(absl::string_view name) const;
  bool Has(absl::string_view name) const;  // given on the command line
  bool Switch(absl::string_view name) const { return Get(name) == "true"; }
  bool help() const { return help_; }

 private:
  friend absl::StatusOr<ParsedOptions> ParseOptions(absl::Span<const std::string> args,
                                                    absl::Span<const OptionSpec> specs);
  std::map<std::string, std::string, std::less<>> given_;
  std::map<std::string, std::string, std::less<>> defaults_;
  bool help_ = false;
};

// Accepts "--name=value", "--name value" and, for switches, "--name". A name's words may be
// joined by '-' or '_' whatever the spec's spelling: "--dry-run" and "--dry_run" are one option
// (given both, it is given twice), and Get, Has and Switch take either spelling. "--help" (or
// "-h") sets help() and skips the required-option check. INVALID_ARGUMENT naming the problem for an
// unknown option, a missing value, a positional argument, or a required option left out.
absl::StatusOr<ParsedOptions> ParseOptions(absl::Span<const std::string> args,
                                           absl::Span<const OptionSpec> specs);

// One line per option: "  --agent=ID    the agent's id (required)".
std::string OptionsHelp(absl::Span<const OptionSpec> specs);

}  // namespace verdict

#endif  // VERDICT_CLI_OPTIONS_H_
