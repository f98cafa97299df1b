#include "decision/resource_match.h"

#include <algorithm>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "decision/text_checks.h"
#include "decision/wildcard.h"

namespace verdict {
namespace {

constexpr size_t kMaxPatternBytes = 1024;
constexpr size_t kMaxActionBytes = 128;

bool IsPath(absl::string_view s) { return !s.empty() && s.front() == '/'; }

// '*' within one path segment: any run of bytes (segments never hold '/').
bool SegmentGlobMatches(absl::string_view pattern, absl::string_view segment) {
  return MatchWithStars(
      pattern.size(), segment.size(), [&](size_t p) { return pattern[p] == '*'; },
      [&](size_t p, size_t s) { return pattern[p] == segment[s]; });
}

bool PathMatches(absl::string_view pattern, absl::string_view resource) {
  if (!IsPath(resource)) return false;
  const std::vector<absl::string_view> pattern_segments = absl::StrSplit(pattern, '/');
  const std::vector<absl::string_view> resource_segments = absl::StrSplit(resource, '/');
  return MatchWithStars(
      pattern_segments.size(), resource_segments.size(),
      [&](size_t p) { return pattern_segments[p] == "**"; },
      [&](size_t p, size_t s) {
        return SegmentGlobMatches(pattern_segments[p], resource_segments[s]);
      });
}

// Walks both strings segment by segment without splitting them, so a megabyte resource costs
// one pass and no allocation.
bool ColonMatches(absl::string_view pattern, absl::string_view resource) {
  if (IsPath(resource)) return false;
  size_t p = 0;
  size_t r = 0;
  while (true) {
    const size_t pattern_end = std::min(pattern.find(':', p), pattern.size());
    const absl::string_view pattern_segment = pattern.substr(p, pattern_end - p);
    const bool last_pattern_segment = pattern_end == pattern.size();
    if (last_pattern_segment && pattern_segment == "*") return true;  // the rest, even nothing
    const size_t resource_end = std::min(resource.find(':', r), resource.size());
    const absl::string_view resource_segment = resource.substr(r, resource_end - r);
    if (pattern_segment != "*" && pattern_segment != resource_segment) return false;
    const bool last_resource_segment = resource_end == resource.size();
    if (last_resource_segment) {
      // Only a trailing '*' may be left over: it matches zero segments.
      return last_pattern_segment || pattern.substr(pattern_end + 1) == "*";
    }
    if (last_pattern_segment) return false;
    p = pattern_end + 1;
    r = resource_end + 1;
  }
}

bool IsActionCharacter(char c) {
  return IsAsciiAlphanumeric(c) || c == '_' || c == '.' || c == ':' || c == '/' || c == '-';
}

}  // namespace

bool ResourceMatches(absl::string_view pattern, absl::string_view resource) {
  if (pattern == "*") return true;
  if (IsPath(pattern)) return PathMatches(pattern, resource);
  return ColonMatches(pattern, resource);
}

bool ActionMatches(const std::vector<std::string>& actions, absl::string_view action) {
  return std::any_of(actions.begin(), actions.end(), [&](const std::string& allowed) {
    return allowed == "*" || allowed == action;
  });
}

absl::Status ValidateResourcePattern(absl::string_view pattern) {
  if (absl::Status status = CheckPrintableUtf8("resource", pattern, kMaxPatternBytes);
      !status.ok()) {
    return status;
  }
  if (!IsPath(pattern)) return absl::OkStatus();
  for (absl::string_view segment : absl::StrSplit(pattern, '/')) {
    if (segment != "**" && absl::StrContains(segment, "**")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "resource: '**' must be a whole path segment, not part of \"", segment, "\""));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateActionName(absl::string_view action) {
  if (action == "*") return absl::OkStatus();
  return CheckAsciiCharset("action", action, 1, kMaxActionBytes, IsActionCharacter,
                           "A-Z a-z 0-9 _ . : / - (or \"*\" alone)");
}

}  // namespace verdict
