#include "cli/options.h"

#include <algorithm>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace verdict {
namespace {

// One key per option however it is spelled: "--dry-run" and "--dry_run" are one flag.
std::string Key(absl::string_view name) { return absl::StrReplaceAll(name, {{"-", "_"}}); }

const OptionSpec* FindSpec(absl::Span<const OptionSpec> specs, absl::string_view name) {
  const std::string key = Key(name);
  for (const OptionSpec& spec : specs) {
    if (Key(spec.name) == key) return &spec;
  }
  return nullptr;
}

std::string Usage(const OptionSpec& spec) {
  return spec.need == Need::kSwitch ? absl::StrCat("--", spec.name)
                                    : absl::StrCat("--", spec.name, "=", spec.value_name);
}

}  // namespace

bool SameOptionName(absl::string_view a, absl::string_view b) { return Key(a) == Key(b); }

const std::string& ParsedOptions::Get(absl::string_view name) const {
  static const std::string* const kEmpty = new std::string();
  const std::string key = Key(name);
  if (auto it = given_.find(key); it != given_.end()) return it->second;
  if (auto it = defaults_.find(key); it != defaults_.end()) return it->second;
  return *kEmpty;
}

bool ParsedOptions::Has(absl::string_view name) const { return given_.count(Key(name)) > 0; }

absl::StatusOr<ParsedOptions> ParseOptions(absl::Span<const std::string> args,
                                           absl::Span<const OptionSpec> specs) {
  ParsedOptions parsed;
  for (const OptionSpec& spec : specs) parsed.defaults_[Key(spec.name)] = spec.default_value;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      parsed.help_ = true;
      continue;
    }
    if (!absl::StartsWith(arg, "--") || arg.size() == 2) {
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument \"", arg, "\""));
    }
    const size_t equals = arg.find('=');
    const std::string name = arg.substr(2, equals == std::string::npos ? equals : equals - 2);
    const OptionSpec* spec = FindSpec(specs, name);
    if (spec == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("unknown option --", name));
    }
    const std::string key = Key(spec->name);
    if (parsed.given_.count(key) > 0) {
      return absl::InvalidArgumentError(absl::StrCat("--", name, " is given twice"));
    }
    if (spec->need == Need::kSwitch) {
      if (equals != std::string::npos) {
        return absl::InvalidArgumentError(absl::StrCat("--", name, " takes no value"));
      }
      parsed.given_[key] = "true";
      continue;
    }
    if (equals != std::string::npos) {
      parsed.given_[key] = arg.substr(equals + 1);
    } else if (i + 1 < args.size() && !absl::StartsWith(args[i + 1], "--")) {
      parsed.given_[key] = args[++i];
    } else {
      // "--name --kind=x" is a forgotten value, never the name "--kind=x" (write --name=--x for
      // a value that starts with two dashes).
      return absl::InvalidArgumentError(absl::StrCat(Usage(*spec), ": the value is missing"));
    }
  }
  if (parsed.help_) return parsed;
  for (const OptionSpec& spec : specs) {
    if (spec.need == Need::kRequired && parsed.given_.count(Key(spec.name)) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(Usage(spec), " is required"));
    }
  }
  return parsed;
}

std::string OptionsHelp(absl::Span<const OptionSpec> specs) {
  size_t width = 0;
  for (const OptionSpec& spec : specs) width = std::max(width, Usage(spec).size());
  std::string help;
  for (const OptionSpec& spec : specs) {
    const std::string usage = Usage(spec);
    absl::StrAppend(&help, "  ", usage, std::string(width - usage.size() + 2, ' '), spec.help);
    if (spec.need == Need::kRequired) {
      absl::StrAppend(&help, " (required)");
    } else if (!spec.default_value.empty()) {
      absl::StrAppend(&help, " (default ", spec.default_value, ")");
    }
    absl::StrAppend(&help, "\n");
  }
  return help;
}

}  // namespace verdict
