#include "server/usage.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace verdict {

InfoRequest FindInfoRequest(const std::vector<std::string>& args) {
  static const auto* const kHelp = new absl::flat_hash_set<absl::string_view>(
      {"--help", "-help", "-h", "--helpfull", "-helpfull", "--helpshort", "-helpshort"});
  static const auto* const kVersion =
      new absl::flat_hash_set<absl::string_view>({"--version", "-version"});
  InfoRequest found = InfoRequest::kNone;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--") break;
    if (kHelp->contains(args[i])) return InfoRequest::kHelp;
    if (kVersion->contains(args[i])) found = InfoRequest::kVersion;
  }
  return found;
}

std::string FlagsHelp(absl::string_view usage) {
  std::vector<const absl::CommandLineFlag*> flags;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    // abseil's own (--flagfile, --fromenv, --undefok, ...) are no setting of verdictd's.
    if (absl::StrContains(flag->Filename(), "absl/")) continue;
    flags.push_back(flag);
  }
  std::sort(flags.begin(), flags.end(),
            [](const absl::CommandLineFlag* a, const absl::CommandLineFlag* b) {
              return a->Name() < b->Name();
            });
  std::string help = absl::StrCat(usage, "\n\nFlags (each given as --name=value):\n");
  for (const absl::CommandLineFlag* flag : flags) {
    const std::string default_value = flag->DefaultValue();
    absl::StrAppend(&help, "  --", flag->Name(),
                    "  (default: ", default_value.empty() ? "\"\"" : default_value, ")\n      ",
                    absl::StrReplaceAll(flag->Help(), {{"\n", "\n      "}}), "\n");
  }
  absl::StrAppend(&help,
                  "  --help\n      Print this list and exit.\n"
                  "  --version\n      Print the version and the commit built from, and exit.\n");
  return help;
}

}  // namespace verdict
