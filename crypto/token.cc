#include "crypto/token.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "openssl/rand.h"

namespace verdict {
namespace {

constexpr char kBase64UrlAlphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// The 6-bit value of a base64url character, or -1 for any other byte.
int Base64UrlValue(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

constexpr size_t kAgentTokenRandomBytes = 32;

}  // namespace

std::string RandomBytes(size_t n) {
  std::string bytes(n, '\0');
  // BoringSSL's RAND_bytes always fills the buffer: it aborts the process rather than fail.
  RAND_bytes(reinterpret_cast<uint8_t*>(&bytes[0]), n);
  return bytes;
}

std::string NewAgentToken() {
  return absl::StrCat(kAgentTokenPrefix, Base64UrlEncode(RandomBytes(kAgentTokenRandomBytes)));
}

// The messages never quote the token: it is a secret even when malformed.
absl::Status CheckAgentTokenShape(absl::string_view token) {
  if (token.substr(0, kAgentTokenPrefix.size()) != kAgentTokenPrefix) {
    return absl::InvalidArgumentError(
        absl::StrCat("agent token must start with \"", kAgentTokenPrefix, "\""));
  }
  if (token.size() != kAgentTokenLength) {
    return absl::InvalidArgumentError(absl::StrCat("agent token must be ", kAgentTokenLength,
                                                   " characters long, not ", token.size()));
  }
  for (size_t i = kAgentTokenPrefix.size(); i < token.size(); ++i) {
    if (Base64UrlValue(token[i]) < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "agent token has a character outside the base64url alphabet at position ", i));
    }
  }
  // 32 bytes take 43 characters; the last one carries 2 bits that must be zero.
  if (Base64UrlValue(token.back()) & 0x3) {
    return absl::InvalidArgumentError("agent token does not end in canonical base64url");
  }
  return absl::OkStatus();
}

std::string TokenDisplayPrefix(absl::string_view token) {
  return std::string(token.substr(0, kTokenDisplayPrefixLength));
}

std::string Base64UrlEncode(absl::string_view bytes) {
  std::string text;
  text.reserve((bytes.size() * 4 + 2) / 3);
  const auto byte = [&](size_t i) { return static_cast<uint32_t>(static_cast<uint8_t>(bytes[i])); };
  // Each group of up to 3 bytes becomes one character more than its byte count.
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t group_bytes = std::min<size_t>(3, bytes.size() - i);
    uint32_t group = byte(i) << 16;
    if (group_bytes > 1) group |= byte(i + 1) << 8;
    if (group_bytes > 2) group |= byte(i + 2);
    for (size_t k = 0; k <= group_bytes; ++k) {
      text.push_back(kBase64UrlAlphabet[(group >> (18 - 6 * k)) & 0x3F]);
    }
  }
  return text;
}

absl::StatusOr<std::string> Base64UrlDecode(absl::string_view text) {
  if (text.size() % 4 == 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("base64url text of ", text.size(), " characters cannot encode whole bytes"));
  }
  std::string bytes;
  bytes.reserve(text.size() * 3 / 4);
  uint32_t bits = 0;
  int bit_count = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const int value = Base64UrlValue(text[i]);
    if (value < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("character at offset ", i,
                       " is not in the base64url alphabet (no padding, no '+', '/' "
                       "or white space)"));
    }
    bits = bits << 6 | static_cast<uint32_t>(value);
    bit_count += 6;
    if (bit_count >= 8) {
      bit_count -= 8;
      bytes.push_back(static_cast<char>((bits >> bit_count) & 0xFF));
    }
  }
  // 2 or 4 bits are left over after a partial group; an encoder always writes them as zero, so
  // anything else is a second spelling of the same bytes.
  if ((bits & ((1u << bit_count) - 1)) != 0) {
    return absl::InvalidArgumentError("base64url text has non-zero trailing bits");
  }
  return bytes;
}

}  // namespace verdict
