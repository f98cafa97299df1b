#include "decision/new_grant_rules.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "decision/constraints.h"
#include "decision/path_escapes.h"
#include "decision/resource_match.h"

namespace verdict {
namespace {

absl::Status CheckColonPattern(absl::string_view pattern) {
  // Every request with an empty colon segment is refused (decision/resource_match.h).
  if (absl::Status segments = CheckColonSegments(pattern); !segments.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("resource: ", segments.message(), ", so no request could match it"));
  }
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

absl::Status CheckPathPattern(absl::string_view pattern) {
  absl::Status escapes = CheckMatchablePath(pattern);
  if (escapes.ok()) return escapes;
  return absl::InvalidArgumentError(
      absl::StrCat("resource: ", escapes.message(), ", so no request path could match it"));
}

}  // namespace

absl::Status CheckNewGrantReadsAsWritten(absl::string_view resource, Effect effect,
                                         absl::string_view constraints_json) {
  absl::Status pattern =
      absl::StartsWith(resource, "/") ? CheckPathPattern(resource) : CheckColonPattern(resource);
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
