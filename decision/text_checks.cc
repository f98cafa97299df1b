#include "decision/text_checks.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/json.h"

namespace verdict {
namespace {

absl::Status LengthError(absl::string_view field, size_t length, size_t min_bytes,
                         size_t max_bytes) {
  if (length == 0) return absl::InvalidArgumentError(absl::StrCat(field, ": must not be empty"));
  if (length < min_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": is ", length, " bytes, shorter than the minimum of ", min_bytes));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": is ", length, " bytes, longer than the limit of ", max_bytes));
}

// "'!'" for a printable byte, "0x07" otherwise, so a message never carries a raw control byte.
std::string DescribeByte(char c) {
  const unsigned char byte = static_cast<unsigned char>(c);
  if (byte >= 0x20 && byte < 0x7f) return absl::StrFormat("'%c'", c);
  return absl::StrFormat("0x%02x", byte);
}

// `text` must already be valid UTF-8, so a 0xc2 byte here always starts a two-byte sequence.
bool IsControlCharacterAt(absl::string_view text, size_t i) {
  const unsigned char byte = static_cast<unsigned char>(text[i]);
  if (byte < 0x20 || byte == 0x7f) return true;
  if (byte != 0xc2 || i + 1 >= text.size()) return false;
  const unsigned char next = static_cast<unsigned char>(text[i + 1]);
  return next >= 0x80 && next <= 0x9f;
}

}  // namespace

bool IsAsciiAlphanumeric(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

absl::Status CheckPrintableUtf8(absl::string_view field, absl::string_view text, size_t max_bytes) {
  if (text.empty() || text.size() > max_bytes) {
    return LengthError(field, text.size(), 1, max_bytes);
  }
  if (!IsValidUtf8(text)) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": is not valid UTF-8"));
  }
  for (size_t i = 0; i < text.size(); ++i) {
    if (IsControlCharacterAt(text, i)) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": contains a control character at byte ", i));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckAsciiCharset(absl::string_view field, absl::string_view text, size_t min_bytes,
                               size_t max_bytes, bool (*allowed)(char),
                               absl::string_view allowed_description) {
  if (text.size() < min_bytes || text.size() > max_bytes) {
    return LengthError(field, text.size(), min_bytes, max_bytes);
  }
  for (size_t i = 0; i < text.size(); ++i) {
    if (!allowed(text[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": byte ", i, " (", DescribeByte(text[i]), ") is not allowed; use ",
                       allowed_description));
    }
  }
  return absl::OkStatus();
}

}  // namespace verdict
