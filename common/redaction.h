// Removes secrets from a call's arguments before they are written to the decision log.
//
// A value is redacted, whatever its type, when its key names a secret: the key, lower-cased and
// stripped of everything but letters and digits, contains a marker such as "token", "secret",
// "password", "authorization" or "cookie". Keys are checked at every depth, inside arrays too.
// So is the "value" beside a "name", "key" or "header" that names a secret
// ({"name":"DB_PASSWORD","value":"..."}), and any string that carries a credential of a known
// shape under whatever key: an authorization scheme ("Bearer ...", "DPoP ...", "Basic ..."), a
// compact JWS, a verdict agent token, a token in a query string ("...?access_token=...").
// A key that itself carries such a credential ({"vdt_...": 1}) is never written either: its
// member becomes "[REDACTED]": "[REDACTED]" (several such members, one).
//
// Free text a caller sends outside the arguments (a resource, an action, a request id) and the
// messages that quote it go through RedactTokens before a log keeps them.
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

// `text` with every token-shaped run replaced by "[REDACTED]": a verdict agent token ("vdt_"
// followed by more base64url characters than the token's display prefix shows, which is meant
// to be shown) and a compact JWS ("eyJ" and base64url segments joined by at least two dots).
// The rest of `text` stays: "docs:vdt_<43 characters>:1" becomes "docs:[REDACTED]:1".
std::string RedactTokens(absl::string_view text);

// `text` with every occurrence of `secret` replaced by "[REDACTED]"; `text` itself when
// `secret` is empty. For free text, such as a decision's message, that might quote a token.
std::string RedactOccurrences(absl::string_view text, absl::string_view secret);

}  // namespace verdict

#endif  // VERDICT_COMMON_REDACTION_H_
