// The table of `verdict`'s commands: for each, its group and name ("agents create"), what it
// does, its options (with those of the listener it talks to) and the function that runs it
// (cli/commands.h). The help (cli/help.h) and the dispatch (cli/verdict_cli.cc) read it.
//
//   for (const Command& command : Commands()) std::cout << CommandLine(command) << "\n";
#ifndef VERDICT_CLI_COMMAND_TABLE_H_
#define VERDICT_CLI_COMMAND_TABLE_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "cli/options.h"
#include "cli/session.h"

namespace verdict {
namespace cli {

struct Command {
  std::string group;  // "agents"; "" for a command of its own ("check")
  std::string name;   // "create"
  std::string summary;
  std::vector<OptionSpec> options;
  bool decision_port = false;  // check: the decision listener, not the admin one
  std::function<int(Session&)> run;
  bool offline = false;    // talks to no server (policy test): no listener's options
  std::string exit_codes;  // its own exit codes' help; "" for verdict's usual ones
};

// Every command, in the order the help lists them.
const std::vector<Command>& Commands();

// The command's own options, then those of its listener (admin or decision).
std::vector<OptionSpec> AllOptions(const Command& command);

// True when `arg` is "--NAME" (either spelling) and some command takes NAME as a switch, or it
// is --help: an option with no value, so the word after it is not its value. No option is a
// switch for one command and takes a value for another (verdict_cli_test keeps it so), so this
// holds before the command is known.
bool IsSwitchOfAnyCommand(absl::string_view arg);

// "agents create", or "check" for a command of its own.
std::string CommandLine(const Command& command);

// True when `word` names a group of commands ("agents").
bool IsGroup(absl::string_view word);

}  // namespace cli
}  // namespace verdict

#endif  // VERDICT_CLI_COMMAND_TABLE_H_
