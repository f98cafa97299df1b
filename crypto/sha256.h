// SHA-256 and constant-time comparison, from BoringSSL.
//
//   std::string digest = Sha256("abc");        // 32 raw bytes
//   std::string hex = HexEncode(digest);        // "ba7816bf..."
//   Sha256Digest held("abc");                   // the same bytes, held in place: held.bytes()
#ifndef VERDICT_CRYPTO_SHA256_H_
#define VERDICT_CRYPTO_SHA256_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace verdict {

// 32 raw bytes.
std::string Sha256(absl::string_view data);

// The same 32 bytes held in place, for a hash that is only looked up: every call with an agent
// token hashes it, and a std::string of 32 bytes is an allocation.
class Sha256Digest {
 public:
  explicit Sha256Digest(absl::string_view data);
  absl::string_view bytes() const {
    return absl::string_view(reinterpret_cast<const char*>(digest_.data()), digest_.size());
  }

 private:
  std::array<uint8_t, 32> digest_;
};

// Lower-case hex.
std::string HexEncode(absl::string_view bytes);

// Compares in time that depends only on the lengths, never on where the inputs differ.
bool ConstantTimeEquals(absl::string_view a, absl::string_view b);

}  // namespace verdict

#endif  // VERDICT_CRYPTO_SHA256_H_
