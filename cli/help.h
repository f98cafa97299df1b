// What `verdict --help`, `verdict <group> --help` and `verdict <command> --help` print: the
// commands of the table (cli/command_table.h) with their summaries, or one command's options,
// and the exit codes.
//
//   env.out << CommandHelp(command);  // "Usage: verdict agents create [options]..."
#ifndef VERDICT_CLI_HELP_H_
#define VERDICT_CLI_HELP_H_

#include <string>

#include "absl/strings/string_view.h"
#include "cli/command_table.h"

namespace verdict {
namespace cli {

// Every command, or those of `group` when given.
std::string OverviewHelp(absl::string_view group = "");

// One command's usage, summary and options.
std::string CommandHelp(const Command& command);

}  // namespace cli
}  // namespace verdict

#endif  // VERDICT_CLI_HELP_H_
