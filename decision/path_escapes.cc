#include "decision/path_escapes.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/json.h"

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

std::string Shown(unsigned char c) {
  return absl::ascii_isprint(c) ? std::string(1, static_cast<char>(c))
                                : absl::StrCat("byte 0x", absl::Hex(c, absl::kZeroPad2));
}

}  // namespace

absl::Status CheckPathSpelling(absl::string_view path) {
  std::string decoded;  // what a server reads: checked to be UTF-8 once every escape is read
  decoded.reserve(path.size());
  for (size_t i = 0; i < path.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(path[i]);
    if (c != '%') {
      if (c != '/' && !MayAppearAsItIs(c)) {
        return absl::InvalidArgumentError(
            absl::StrCat("'", Shown(c), "' at byte ", i, " must be written as an escape"));
      }
      decoded.push_back(static_cast<char>(c));
      continue;
    }
    const absl::string_view escape = path.substr(i, 3);
    const int high = escape.size() == 3 ? UppercaseHexValue(escape[1]) : -1;
    const int low = escape.size() == 3 ? UppercaseHexValue(escape[2]) : -1;
    if (high < 0 || low < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("\"", escape, "\" is not a percent-escape with two uppercase hex digits"));
    }
    const unsigned char byte = static_cast<unsigned char>(high * 16 + low);
    if (MayAppearAsItIs(byte)) {
      return absl::InvalidArgumentError(absl::StrCat("\"", escape, "\" escapes '", Shown(byte),
                                                     "', which a path carries as it is"));
    }
    if (byte == '/' || byte == '\\' || byte == '%' || byte < 0x20 || byte == 0x7f) {
      return absl::InvalidArgumentError(absl::StrCat(
          "\"", escape, "\" would make a server read another path than the one matched"));
    }
    decoded.push_back(static_cast<char>(byte));
    i += 2;
  }
  if (!IsValidUtf8(decoded)) {
    return absl::InvalidArgumentError(
        "its escapes are not well-formed, shortest-form UTF-8, which servers read in different "
        "ways");
  }
  return absl::OkStatus();
}

}  // namespace verdict
