#include "decision/new_grant_rules.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "decision/constraints.h"

namespace verdict {
namespace {

absl::Status CheckColonStars(absl::string_view pattern) {
  for (absl::string_view segment : absl::StrSplit(pattern, ':')) {
    if (segment.size() > 1 && segment.find_first_not_of('*') == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "resource: \"", segment,
          "\" in a colon pattern would match only that literal text; a trailing '*' segment "
          "already matches the rest (docs:secret:*)"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckPathHasNoEscape(absl::string_view pattern) {
  for (size_t i = 0; i + 2 < pattern.size(); ++i) {
    if (pattern[i] == '%' && absl::ascii_isxdigit(static_cast<unsigned char>(pattern[i + 1])) &&
        absl::ascii_isxdigit(static_cast<unsigned char>(pattern[i + 2]))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "resource: \"", pattern.substr(i, 3),
          "\" is a percent-escape, and paths are matched decoded: write the character itself"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckNewGrantReadsAsWritten(absl::string_view resource, Effect effect,
                                         absl::string_view constraints_json) {
  absl::Status pattern =
      absl::StartsWith(resource, "/") ? CheckPathHasNoEscape(resource) : CheckColonStars(resource);
  if (!pattern.ok()) return pattern;
  if (effect == Effect::kDeny) {
    absl::StatusOr<Constraints> constraints = ParseConstraints(constraints_json);
    if (constraints.ok() && !constraints->empty()) {
      return absl::InvalidArgumentError(
          "constraints: a deny permission takes none (it denies whenever it matches)");
    }
  }
  return absl::OkStatus();
}

}  // namespace verdict
