#include "crypto/token.h"

#include <algorithm>
#include <array>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "openssl/rand.h"

namespace verdict {
namespace {

constexpr char kBase64UrlAlphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// Every byte that is not a base64url character maps to this; its top bit sets it apart from the
// 6-bit values, so one test on a whole group of four finds any of them.
constexpr uint8_t kNotBase64Url = 0xFF;

constexpr std::array<uint8_t, 256> MakeBase64UrlValues() {
  std::array<uint8_t, 256> values{};
  for (uint8_t& value : values) value = kNotBase64Url;
  for (uint8_t i = 0; i < 64; ++i) values[static_cast<uint8_t>(kBase64UrlAlphabet[i])] = i;
  return values;
}

constexpr std::array<uint8_t, 256> kBase64UrlValues = MakeBase64UrlValues();

// The 6-bit value of a base64url character, or kNotBase64Url for any other byte.
uint8_t Base64UrlValue(char c) { return kBase64UrlValues[static_cast<uint8_t>(c)]; }

absl::Status NotBase64UrlAt(absl::string_view text, size_t from) {
  size_t offset = from;
  while (Base64UrlValue(text[offset]) != kNotBase64Url) ++offset;
  return absl::InvalidArgumentError(
      absl::StrCat("character at offset ", offset,
                   " is not in the base64url alphabet (no padding, no '+', '/' "
                   "or white space)"));
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
    if (Base64UrlValue(token[i]) == kNotBase64Url) {
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

bool LooksLikeCompactJws(absl::string_view token) {
  return token.find('.') != absl::string_view::npos;
}

absl::Status CheckCompactJwsShape(absl::string_view token) {
  if (token.size() > kMaxAccessTokenLength) {
    return absl::InvalidArgumentError(absl::StrCat("access token has ", token.size(),
                                                   " characters, over ", kMaxAccessTokenLength));
  }
  int dots = 0;
  size_t segment_start = 0;
  for (size_t i = 0; i <= token.size(); ++i) {
    if (i == token.size() || token[i] == '.') {
      if (i == segment_start) {
        return absl::InvalidArgumentError(
            absl::StrCat("access token has an empty segment at position ", i));
      }
      segment_start = i + 1;
      if (i < token.size()) ++dots;
      continue;
    }
    if (Base64UrlValue(token[i]) == kNotBase64Url) {
      return absl::InvalidArgumentError(
          absl::StrCat("access token has a character outside base64url and '.' at position ", i));
    }
  }
  if (dots != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("a JWT access token has 3 dot-separated segments, not ", dots + 1));
  }
  return absl::OkStatus();
}

std::string TokenDisplayPrefix(absl::string_view token) {
  return std::string(token.substr(0, kTokenDisplayPrefixLength));
}

absl::Status CheckTokenDisplayPrefix(absl::string_view prefix) {
  const bool shaped = prefix.size() == kTokenDisplayPrefixLength &&
                      prefix.substr(0, kAgentTokenPrefix.size()) == kAgentTokenPrefix &&
                      std::all_of(prefix.begin() + kAgentTokenPrefix.size(), prefix.end(),
                                  [](char c) { return Base64UrlValue(c) != kNotBase64Url; });
  if (shaped) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("token prefix must be the first ", kTokenDisplayPrefixLength,
                   " characters of an agent token (\"", kAgentTokenPrefix, "...\")"));
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
  std::string bytes(text.size() * 3 / 4, '\0');
  const unsigned char* in = reinterpret_cast<const unsigned char*>(text.data());
  unsigned char* out = reinterpret_cast<unsigned char*>(bytes.data());
  // Whole groups of four characters make three bytes each.
  const size_t whole_groups_end = text.size() - text.size() % 4;
  for (size_t i = 0; i < whole_groups_end; i += 4) {
    const uint32_t a = kBase64UrlValues[in[i]];
    const uint32_t b = kBase64UrlValues[in[i + 1]];
    const uint32_t c = kBase64UrlValues[in[i + 2]];
    const uint32_t d = kBase64UrlValues[in[i + 3]];
    if (((a | b | c | d) & 0x80) != 0) return NotBase64UrlAt(text, i);
    const uint32_t group = a << 18 | b << 12 | c << 6 | d;
    out[0] = static_cast<unsigned char>(group >> 16);
    out[1] = static_cast<unsigned char>(group >> 8);
    out[2] = static_cast<unsigned char>(group);
    out += 3;
  }
  // A last group of 2 or 3 characters makes 1 or 2 bytes and leaves 4 or 2 bits over.
  const size_t rest = text.size() - whole_groups_end;
  if (rest == 0) return bytes;
  uint32_t group = 0;
  for (size_t i = whole_groups_end; i < text.size(); ++i) {
    const uint32_t value = Base64UrlValue(text[i]);
    if (value == kNotBase64Url) return NotBase64UrlAt(text, i);
    group = group << 6 | value;
  }
  const int leftover_bits = rest == 2 ? 4 : 2;
  // An encoder always writes the leftover bits as zero, so anything else is a second spelling
  // of the same bytes.
  if ((group & ((1u << leftover_bits) - 1)) != 0) {
    return absl::InvalidArgumentError("base64url text has non-zero trailing bits");
  }
  group >>= leftover_bits;
  if (rest == 3) *out++ = static_cast<unsigned char>(group >> 8);
  *out = static_cast<unsigned char>(group);
  return bytes;
}

}  // namespace verdict
