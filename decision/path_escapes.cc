#include "decision/path_escapes.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace verdict {
namespace {

// RFC 3986 section 3.3: pchar = unreserved / pct-encoded / sub-delims / ":" / "@".
bool MayAppearAsItIs(unsigned char c) {
  return absl::ascii_isalnum(c) || absl::StrContains("-._~!$&'()*+,;=:@", static_cast<char>(c));
}

int UppercaseHexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

absl::Status CheckPathEscapes(absl::string_view path) {
  for (size_t i = path.find('%'); i != absl::string_view::npos; i = path.find('%', i + 1)) {
    const absl::string_view escape = path.substr(i, 3);
    const int high = escape.size() == 3 ? UppercaseHexValue(escape[1]) : -1;
    const int low = escape.size() == 3 ? UppercaseHexValue(escape[2]) : -1;
    if (high < 0 || low < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("\"", escape, "\" is not a percent-escape with two uppercase hex digits"));
    }
    const unsigned char byte = static_cast<unsigned char>(high * 16 + low);
    if (MayAppearAsItIs(byte)) {
      return absl::InvalidArgumentError(absl::StrCat("\"", escape, "\" escapes '",
                                                     std::string(1, static_cast<char>(byte)),
                                                     "', which a path carries as it is"));
    }
    if (byte == '/' || byte == '\\' || byte == '%' || byte < 0x20 || byte == 0x7f) {
      return absl::InvalidArgumentError(absl::StrCat(
          "\"", escape, "\" would make a server read another path than the one matched"));
    }
  }
  return absl::OkStatus();
}

}  // namespace verdict
