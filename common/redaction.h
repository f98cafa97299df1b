// Removes secrets from a call's arguments before they are written to the decision log.
//
// A value is redacted, whatever its type, when its key names a secret: the key, lower-cased and
// stripped of everything but letters and digits, contains a marker such as "token", "secret",
// "password", "authorization" or "cookie". Keys are checked at every depth, inside arrays too.
// So is the "value" beside a "name", "key" or "header" that names a secret
// ({"name":"DB_PASSWORD","value":"..."}), and any string that carries a credential of a known
// shape under whatever key: an authorization scheme ("Bearer ...", "DPoP ...", "Basic ..."), a
// compact JWS, a verdict agent token, a token in a query string ("...?access_token=...").
//
//   RedactSecrets(R"({"user":"ann","auth":{"Access-Token":"abc"}})")
//     == R"({"auth":{"Access-Token":"[REDACTED]"},"user":"ann"})"
#ifndef VERDICT_COMMON_REDACTION_H_
#define VERDICT_COMMON_REDACTION_H_

#include <string>

#include "absl/strings/string_view.h"

namespace verdict {

inline constexpr absl::string_view kRedactedValue = "[REDACTED]";

// True when a value under this key must not be logged.
bool IsSecretKey(absl::string_view key);

// True when a string carries a credential of a known shape, under whatever key: an
// authorization scheme and its credential, a compact JWS, a verdict agent token, a credential
// parameter of a query string, a password in a URL.
bool LooksLikeACredential(absl::string_view text);

// The canonical JSON of `arguments_json` with every secret-bearing value replaced by
// "[REDACTED]". "" becomes "{}". Text that does not parse is never logged: it becomes the JSON
// string "[REDACTED]" as a whole, since what it hides cannot be known.
std::string RedactSecrets(absl::string_view arguments_json);

// `text` with every occurrence of `secret` replaced by "[REDACTED]"; `text` itself when
// `secret` is empty. For free text, such as a decision's message, that might quote a token.
std::string RedactOccurrences(absl::string_view text, absl::string_view secret);

}  // namespace verdict

#endif  // VERDICT_COMMON_REDACTION_H_
