// verdictd's --help and --version, answered before the flags are parsed: abseil's own --help
// lists only flags defined in a file named after the program (none here: they live in
// server/flags.cc and beside the parts they configure) and exits 1.
//
//   switch (FindInfoRequest(args)) {
//     case InfoRequest::kHelp: std::cout << FlagsHelp(absl::ProgramUsageMessage()); return 0;
//     case InfoRequest::kVersion: std::cout << VersionLine("verdictd"); return 0;
//     case InfoRequest::kNone: break;
//   }
#ifndef VERDICT_SERVER_USAGE_H_
#define VERDICT_SERVER_USAGE_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace verdict {

enum class InfoRequest { kNone, kHelp, kVersion };

// --help (-h, -help, --helpfull, --helpshort) or --version (-version) among the arguments
// (args[0] is the program; a "--" ends the flags). Help wins when both are given.
InfoRequest FindInfoRequest(const std::vector<std::string>& args);

// `usage`, then every flag the program defines (abseil's own excepted), sorted, each with its
// type, default and help text.
std::string FlagsHelp(absl::string_view usage);

}  // namespace verdict

#endif  // VERDICT_SERVER_USAGE_H_
