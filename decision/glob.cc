#include "decision/glob.h"

#include <vector>

#include "decision/wildcard.h"

namespace verdict {
namespace {

// Splits a string into its UTF-8 code points (the input is valid UTF-8: it came from JSON).
std::vector<absl::string_view> CodePoints(absl::string_view s) {
  std::vector<absl::string_view> code_points;
  size_t start = 0;
  for (size_t i = 1; i <= s.size(); ++i) {
    if (i == s.size() || (static_cast<unsigned char>(s[i]) & 0xc0) != 0x80) {
      code_points.push_back(s.substr(start, i - start));
      start = i;
    }
  }
  return code_points;
}

}  // namespace

bool GlobMatches(absl::string_view pattern, absl::string_view subject) {
  const std::vector<absl::string_view> pattern_chars = CodePoints(pattern);
  const std::vector<absl::string_view> subject_chars = CodePoints(subject);
  return MatchWithStars(
      pattern_chars.size(), subject_chars.size(), [&](size_t p) { return pattern_chars[p] == "*"; },
      [&](size_t p, size_t s) {
        return pattern_chars[p] == "?" || pattern_chars[p] == subject_chars[s];
      });
}

}  // namespace verdict
