#include "decision/path_escapes.h"

#include <array>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/json.h"

namespace verdict {
namespace {

// RFC 3986 section 3.3: pchar = unreserved / pct-encoded / sub-delims / ":" / "@".
bool MayAppearAsItIs(unsigned char c) {
  return absl::ascii_isalnum(c) || absl::StrContains("-._~!$&'()*+,;=:@", static_cast<char>(c));
}

// Every byte a path may carry as it is, and no escape: the common case, which every Authorize
// on a path resource checks, so it is one pass over a table and allocates nothing.
bool IsPlainPath(absl::string_view path) {
  static const std::array<bool, 256> kPlain = [] {
    std::array<bool, 256> plain{};
    for (int c = 0; c < 256; ++c) plain[c] = c == '/' || MayAppearAsItIs(c);
    return plain;
  }();
  for (char c : path) {
    if (!kPlain[static_cast<unsigned char>(c)]) return false;
  }
  return true;
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
  if (IsPlainPath(path)) return absl::OkStatus();  // ASCII without escapes: one spelling
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

absl::Status CheckMatchablePath(absl::string_view path) {
  if (!absl::StartsWith(path, "/")) return absl::InvalidArgumentError("a path begins with '/'");
  if (absl::Status spelling = CheckPathSpelling(path); !spelling.ok()) return spelling;
  if (absl::StrContains(path, "//")) {
    return absl::InvalidArgumentError(
        "an empty segment (\"//\") is read as one slash by many servers");
  }
  if (const size_t semicolon = path.find(';'); semicolon != absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "';' at byte ", semicolon, " starts a path parameter, which servers strip before routing"));
  }
  for (absl::string_view segment : absl::StrSplit(path, '/')) {
    if (segment == "." || segment == "..") {
      return absl::InvalidArgumentError(
          absl::StrCat("the dot segment \"", segment, "\" makes a server read another path"));
    }
  }
  return absl::OkStatus();
}

}  // namespace verdict
