#include "cli/verdict_cli.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "cli/command_table.h"
#include "cli/exit_codes.h"
#include "cli/help.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/session.h"
#include "common/build_info.h"
#include "common/version.h"

namespace verdict {
namespace {

using cli::AllOptions;
using cli::Command;
using cli::CommandHelp;
using cli::CommandLine;
using cli::Commands;
using cli::IsGroup;
using cli::IsSwitchOfAnyCommand;
using cli::OverviewHelp;
using cli::Session;

}  // namespace

int RunVerdictCli(const std::vector<std::string>& args, CliEnvironment& env) {
  // Options may come before the command words too: `verdict --json agents list`.
  std::vector<std::string> words;
  std::vector<std::string> option_args;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    // -o FORMAT, -oFORMAT and -o=FORMAT are --output=FORMAT.
    if (arg == "-o" && i + 1 < args.size()) {
      arg = absl::StrCat("--output=", args[++i]);
    } else if (absl::StartsWith(arg, "-o") && !absl::StartsWith(arg, "--")) {
      arg = absl::StrCat("--output=", absl::StripPrefix(arg.substr(2), "="));
    }
    if (absl::StartsWith(arg, "-")) {
      option_args.push_back(arg);
      // "--name value": the value is no command word.
      if (absl::StartsWith(arg, "--") && !absl::StrContains(arg, '=') &&
          !IsSwitchOfAnyCommand(arg) && i + 1 < args.size()) {
        option_args.push_back(args[++i]);
      }
    } else if (words.size() >= 2 || (words.size() == 1 && !IsGroup(words[0]))) {
      option_args.push_back(arg);  // left for the option parser to refuse
    } else {
      words.push_back(arg);
    }
  }
  const bool wants_help =
      std::find(option_args.begin(), option_args.end(), "--help") != option_args.end() ||
      std::find(option_args.begin(), option_args.end(), "-h") != option_args.end();
  // `verdict version` or `verdict --version`: no server involved.
  const bool wants_version = (words.size() == 1 && words[0] == "version") ||
                             (words.empty() && option_args.size() == 1 &&
                              (option_args[0] == "--version" || option_args[0] == "-version"));
  if (wants_version && wants_help && !words.empty()) {
    env.out << "Usage: verdict version\n\nPrint the version and the commit it was built from.\n";
    return kExitOk;
  }
  if (wants_version && !wants_help) {
    // `verdict version -o json`: the same three facts as a record.
    const std::vector<OptionSpec> specs = {{"output", "FORMAT", "", Need::kOptional, "table"},
                                           {"json", "", "", Need::kSwitch}};
    absl::StatusOr<ParsedOptions> options =
        words.empty() ? ParseOptions({}, specs) : ParseOptions(option_args, specs);
    absl::StatusOr<cli::OutputFormat> format =
        options.ok() ? cli::OutputFormatOf(*options) : options.status();
    if (!format.ok()) {
      env.err << "verdict version: " << format.status().message()
              << " (it takes only -o table|json|yaml)\n";
      return kExitUsage;
    }
    if (*format == cli::OutputFormat::kTable) {
      env.out << VersionLine("verdict");
    } else {
      env.out << cli::Render(cli::OutputValue::Record(
                                 {{"program", cli::OutputValue::Text("verdict")},
                                  {"version", cli::OutputValue::Text(std::string(kVerdictVersion))},
                                  {"commit", cli::OutputValue::Text(std::string(BuildCommit()))}}),
                             *format);
    }
    return kExitOk;
  }
  if (words.empty()) {
    (wants_help ? env.out : env.err) << OverviewHelp();
    return wants_help ? kExitOk : kExitUsage;
  }
  const std::string group = IsGroup(words[0]) ? words[0] : "";
  const std::string name = group.empty() ? words[0] : (words.size() > 1 ? words[1] : "");
  for (const Command& command : Commands()) {
    if (command.group != group || command.name != name) continue;
    const std::vector<OptionSpec> specs = AllOptions(command);
    absl::StatusOr<ParsedOptions> options = ParseOptions(option_args, specs);
    if (!options.ok()) {
      env.err << "verdict " << CommandLine(command) << ": " << options.status().message()
              << "\n(verdict " << CommandLine(command) << " --help lists the options)\n";
      return kExitUsage;
    }
    if (options->help()) {
      env.out << CommandHelp(command);
      return kExitOk;
    }
    if (absl::StatusOr<cli::OutputFormat> format = cli::OutputFormatOf(*options); !format.ok()) {
      env.err << "verdict " << CommandLine(command) << ": " << format.status().message() << "\n";
      return kExitUsage;
    }
    Session session(*options, env);
    return command.run(session);
  }
  if (!group.empty() && (name.empty() || wants_help)) {
    (wants_help && name.empty() ? env.out : env.err) << OverviewHelp(group);
    return wants_help && name.empty() ? kExitOk : kExitUsage;
  }
  env.err << "verdict: unknown command \"" << absl::StrJoin(words, " ")
          << "\" (verdict --help lists them)\n";
  return kExitUsage;
}

}  // namespace verdict
