// Opaque agent tokens: "vdt_" followed by 32 random bytes in unpadded base64url (43
// characters), 47 characters in all. Only the token's SHA-256 is ever stored.
//
//   std::string token = NewAgentToken();
//   if (!CheckAgentTokenShape(token).ok()) ...   // before any lookup
//   std::string hash = Sha256(token);             // the unique-index key
#ifndef VERDICT_CRYPTO_TOKEN_H_
#define VERDICT_CRYPTO_TOKEN_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace verdict {

inline constexpr absl::string_view kAgentTokenPrefix = "vdt_";
inline constexpr size_t kAgentTokenLength = 47;
// How many leading characters of a token are kept for people to recognise it.
inline constexpr size_t kTokenDisplayPrefixLength = 12;

// `n` bytes from BoringSSL's CSPRNG.
std::string RandomBytes(size_t n);

std::string NewAgentToken();

// INVALID_ARGUMENT unless `token` has the exact shape of an agent token (prefix, length,
// base64url alphabet). Says nothing about whether it is valid.
absl::Status CheckAgentTokenShape(absl::string_view token);

// JWT access tokens (crypto/jwt.h) travel as compact JWS: three base64url segments joined by
// dots. Longer tokens are refused before any decoding.
inline constexpr size_t kMaxAccessTokenLength = 8 * 1024;

// True when `token` is meant as a compact JWS rather than an agent token, which never holds a
// '.'. Says nothing about whether it is well-formed.
bool LooksLikeCompactJws(absl::string_view token);

// INVALID_ARGUMENT unless `token` has the shape of a compact JWS: at most kMaxAccessTokenLength
// characters, three non-empty segments of the base64url alphabet. Never quotes the token.
absl::Status CheckCompactJwsShape(absl::string_view token);

// The first kTokenDisplayPrefixLength characters.
std::string TokenDisplayPrefix(absl::string_view token);
// OK when `prefix` is what TokenDisplayPrefix cuts from an agent token: kAgentTokenPrefix and
// base64url characters, kTokenDisplayPrefixLength in all; INVALID_ARGUMENT otherwise.
absl::Status CheckTokenDisplayPrefix(absl::string_view prefix);

// RFC 4648 section 5, without padding.
std::string Base64UrlEncode(absl::string_view bytes);
// Rejects padding, other alphabets and non-canonical trailing bits.
absl::StatusOr<std::string> Base64UrlDecode(absl::string_view text);

}  // namespace verdict

#endif  // VERDICT_CRYPTO_TOKEN_H_
