// How a path is spelled, as verdict compares paths: byte for byte, so each character must have
// exactly one spelling (RFC 3986 sections 2.1 and 3.3). A character a path may carry as it is
// (letters, digits, "-._~", "!$&'()*+,;=", ":", "@" and "/") is written as it is; every other
// character (space, '"', "<>", "?#", "[]", "^`{|}", each byte of non-ASCII UTF-8) only as an
// escape with uppercase hex digits, as a normalising proxy (Envoy's normalize_path) writes it,
// and the escaped bytes must be well-formed, shortest-form UTF-8 (an overlong "%C0%AE" is a '.'
// to a lenient server). Escapes of '/', '\', '%' and control characters have no place in a path
// verdict matches: a server would read another path than the one matched.
//
// A path verdict matches also has no segment a server reads as another path: no dot segment
// ("/a/../admin"), no empty segment ("/docs//secret", which many servers merge into one slash)
// and no path parameter ("/docs/secret;v=1/7", "/x/..;/secret", which servlet containers strip
// before routing).
//
// Every request whose resource is a path keeps these rules (decision/request_validation.h, and
// ext_authz's 400, server/http_mapping.h), and a new path pattern must keep them too
// (decision/new_grant_rules.h), so that neither "/users/%40me", "/docs/café" nor
// "/docs/7/../secret/1" can slip past a deny on "/users/@me/**", "/docs/caf%C3%A9/**" or
// "/docs/secret/**".
//
//   absl::Status ok = CheckPathSpelling("/docs/caf%C3%A9");  // OK
//   absl::Status no = CheckMatchablePath("/docs/./secret");  // INVALID_ARGUMENT
#ifndef VERDICT_DECISION_PATH_ESCAPES_H_
#define VERDICT_DECISION_PATH_ESCAPES_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace verdict {

// OK when `path` is spelled the one way above; INVALID_ARGUMENT naming the first character or
// escape that is not.
absl::Status CheckPathSpelling(absl::string_view path);

// OK when `path` begins with '/', is spelled the one way and has no dot segment, empty segment or
// path parameter; INVALID_ARGUMENT saying which rule it breaks.
absl::Status CheckMatchablePath(absl::string_view path);

}  // namespace verdict

#endif  // VERDICT_DECISION_PATH_ESCAPES_H_
