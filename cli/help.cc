#include "cli/help.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "cli/cli_environment.h"

namespace verdict {
namespace cli {

namespace {

constexpr char kExitCodesHelp[] =
    "Exit codes:\n"
    "  0  done (check: ALLOW; log verify: the chain is intact)\n"
    "  1  usage error (unknown subcommand or option, bad value, no admin secret)\n"
    "  2  a negative answer (check: DENY or NEEDS_APPROVAL; log verify: the chain is broken)\n"
    "  3  refused by the server (invalid argument, not found, already exists, failed "
    "precondition)\n"
    "  4  no answer (unreachable, unavailable, bad admin credential, throttled, internal "
    "error)\n";

}  // namespace

std::string CommandHelp(const Command& command) {
  return absl::StrCat("Usage: verdict ", CommandLine(command), " [options]\n\n", command.summary,
                      "\n\nOptions:\n", OptionsHelp(AllOptions(command)), "\n",
                      command.exit_codes.empty() ? kExitCodesHelp : command.exit_codes);
}

std::string OverviewHelp(absl::string_view group) {
  std::string help =
      "Usage: verdict <command> [options]   (verdict <command> --help for its options)\n\n"
      "Manage what verdictd decides on, over its admin listener, and ask it for decisions.\n\n"
      "Commands:\n";
  for (const Command& command : Commands()) {
    if (!group.empty() && command.group != group) continue;
    absl::StrAppend(&help, "  ", CommandLine(command),
                    std::string(22 - std::min<size_t>(21, CommandLine(command).size()), ' '),
                    command.summary, "\n");
  }
  if (group.empty()) {
    absl::StrAppend(&help,
                    "  version               Print the version and the commit it was built "
                    "from.\n");
  }
  absl::StrAppend(&help, "\nThe admin secret comes from --admin_secret_file=PATH or $",
                  kAdminSecretEnv, ".\n\n", kExitCodesHelp);
  return help;
}

}  // namespace cli
}  // namespace verdict
