// Matching a request's resource and action against a permission (design section 2.3).
//
// A pattern that starts with '/' is a path pattern: '*' matches within one path segment
// (zero or more characters, never '/'), '**' as a whole segment matches zero or more whole
// segments. Any other pattern is colon-separated ("docs:read:123"): a '*' segment matches
// exactly one segment, a trailing '*' segment matches the rest (zero or more segments), and
// the pattern "*" alone matches every resource, paths included. Elsewhere '*' is literal
// only inside a longer segment ("doc*" matches the segment "doc*" exactly): wildcards are
// whole segments in colon patterns. Matching is byte-exact (case-sensitive, no normalisation).
//
// No segment of a colon resource is empty: "docs::secret:1" would otherwise be a resource no
// deny on "docs:secret:*" names. Every request refuses one (decision/request_validation.h), and
// so does every pattern verdict stores from now on. A pattern stored before this rule is
// matched as it was written, an empty segment matching only an empty one, which no request can
// hold any more: such an allow grants nothing and such a deny denies nothing, both as before for
// every request that is accepted, so the rule never widens access.
//
//   ResourceMatches("docs:*:123", "docs:read:123")   // true
//   ResourceMatches("/api/**/edit", "/api/a/b/edit") // true
#ifndef VERDICT_DECISION_RESOURCE_MATCH_H_
#define VERDICT_DECISION_RESOURCE_MATCH_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace verdict {

bool ResourceMatches(absl::string_view pattern, absl::string_view resource);

// True when actions holds `action` exactly or "*".
bool ActionMatches(const std::vector<std::string>& actions, absl::string_view action);

// INVALID_ARGUMENT unless the pattern is one verdict can store: non-empty, at most 1024 bytes,
// valid UTF-8, no control characters; for path patterns no '**' inside a longer segment, for
// colon patterns no empty segment (CheckColonSegments).
absl::Status ValidateResourcePattern(absl::string_view pattern);

// OK when the colon resource or pattern `name` has no empty segment; otherwise INVALID_ARGUMENT
// saying where: a leading ':', a trailing ':' or a doubled "::". The message names no field.
absl::Status CheckColonSegments(absl::string_view name);

// INVALID_ARGUMENT unless the action name is "*" or 1..128 bytes of [A-Za-z0-9_.:/-].
absl::Status ValidateActionName(absl::string_view action);

}  // namespace verdict

#endif  // VERDICT_DECISION_RESOURCE_MATCH_H_
