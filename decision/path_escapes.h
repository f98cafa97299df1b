// Percent-escapes in paths (RFC 3986 section 2.1), as verdict compares them: byte for byte, so
// each character has exactly one spelling. A character a path may carry as it is (letters,
// digits, "-._~", "!$&'()*+,;=", ":" and "@") is written as it is; an escape is only for one it
// may not (space, '"', "<>", "?#", "[]", "^`{|}", bytes of non-ASCII UTF-8), with uppercase hex
// digits, as a normalising proxy (Envoy's normalize_path) writes it. Escapes of '/', '\', '%'
// and control characters have no place in a path verdict matches: a server would read another
// path than the one matched.
//
// ext_authz refuses a request path that breaks these rules (server/http_mapping.h), and a new
// path pattern must keep them too (decision/new_grant_rules.h), so that "/users/%40me" can never
// slip past a deny on "/users/@me/**".
//
//   absl::Status ok = CheckPathEscapes("/docs/caf%C3%A9");  // OK
#ifndef VERDICT_DECISION_PATH_ESCAPES_H_
#define VERDICT_DECISION_PATH_ESCAPES_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace verdict {

// OK when every '%' in `path` starts an escape of the one spelling above; INVALID_ARGUMENT
// naming the first one that does not.
absl::Status CheckPathEscapes(absl::string_view path);

}  // namespace verdict

#endif  // VERDICT_DECISION_PATH_ESCAPES_H_
