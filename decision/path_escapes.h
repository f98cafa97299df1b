// How a path is spelled, as verdict compares paths: byte for byte, so each character must have
// exactly one spelling (RFC 3986 sections 2.1 and 3.3). A character a path may carry as it is
// (letters, digits, "-._~", "!$&'()*+,;=", ":", "@" and "/") is written as it is; every other
// character (space, '"', "<>", "?#", "[]", "^`{|}", each byte of non-ASCII UTF-8) only as an
// escape with uppercase hex digits, as a normalising proxy (Envoy's normalize_path) writes it,
// and the escaped bytes must be well-formed, shortest-form UTF-8 (an overlong "%C0%AE" is a '.'
// to a lenient server). Escapes of '/', '\', '%' and control characters have no place in a path
// verdict matches: a server would read another path than the one matched.
//
// ext_authz refuses a request path that breaks these rules (server/http_mapping.h), and a new
// path pattern must keep them too (decision/new_grant_rules.h), so that neither "/users/%40me"
// nor "/docs/café" can slip past a deny on "/users/@me/**" or "/docs/caf%C3%A9/**".
//
//   absl::Status ok = CheckPathSpelling("/docs/caf%C3%A9");  // OK
#ifndef VERDICT_DECISION_PATH_ESCAPES_H_
#define VERDICT_DECISION_PATH_ESCAPES_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace verdict {

// OK when `path` is spelled the one way above; INVALID_ARGUMENT naming the first character or
// escape that is not.
absl::Status CheckPathSpelling(absl::string_view path);

}  // namespace verdict

#endif  // VERDICT_DECISION_PATH_ESCAPES_H_
