// SHA-256 and constant-time comparison, from BoringSSL.
//
//   std::string digest = Sha256("abc");        // 32 raw bytes
//   std::string hex = HexEncode(digest);        // "ba7816bf..."
#ifndef VERDICT_CRYPTO_SHA256_H_
#define VERDICT_CRYPTO_SHA256_H_

#include <string>

#include "absl/strings/string_view.h"

namespace verdict {

// 32 raw bytes.
std::string Sha256(absl::string_view data);

// Lower-case hex.
std::string HexEncode(absl::string_view bytes);

// Compares in time that depends only on the lengths, never on where the inputs differ.
bool ConstantTimeEquals(absl::string_view a, absl::string_view b);

}  // namespace verdict

#endif  // VERDICT_CRYPTO_SHA256_H_
