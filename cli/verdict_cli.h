// `verdict`, the operators' command line: the admin plane (AdminService on verdictd's admin
// listener) and `check` (one Authorize on the decision port).
//
//   verdict agents create --owner=alice --name=reporter --json
//   verdict check --agent=agt_1 --action=read --resource=docs:1
//
// Every subcommand answers --help. Exit codes are in cli/exit_codes.h. The admin secret comes
// from --admin_secret_file or the VERDICT_ADMIN_SECRET environment variable, never from the
// command line itself.
#ifndef VERDICT_CLI_VERDICT_CLI_H_
#define VERDICT_CLI_VERDICT_CLI_H_

#include <string>
#include <vector>

#include "cli/cli_environment.h"

namespace verdict {

// Runs one command line (without the program name) and returns its exit code.
int RunVerdictCli(const std::vector<std::string>& args, CliEnvironment& env);

}  // namespace verdict

#endif  // VERDICT_CLI_VERDICT_CLI_H_
