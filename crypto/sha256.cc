#include "crypto/sha256.h"

#include <cstdint>

#include "openssl/mem.h"
#include "openssl/sha.h"

namespace verdict {

static_assert(SHA256_DIGEST_LENGTH == 32);

Sha256Digest::Sha256Digest(absl::string_view data) {
  SHA256(reinterpret_cast<const uint8_t*>(data.data()), data.size(), digest_.data());
}

std::string Sha256(absl::string_view data) { return std::string(Sha256Digest(data).bytes()); }

std::string HexEncode(absl::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (const char c : bytes) {
    const unsigned char byte = static_cast<unsigned char>(c);
    hex.push_back(kHex[byte >> 4]);
    hex.push_back(kHex[byte & 0xF]);
  }
  return hex;
}

bool ConstantTimeEquals(absl::string_view a, absl::string_view b) {
  // The lengths of what is compared (digests, MACs) are public; only the content is secret.
  if (a.size() != b.size()) return false;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace verdict
