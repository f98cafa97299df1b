#include "decision/resource_match.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/ascii.h"
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

// Where the colon segment of `text` that starts at `from` ends: at the next ':' or at the end.
// memchr, unlike absl::string_view::find, is inlined by the compiler: this runs per segment.
size_t SegmentEnd(absl::string_view text, size_t from) {
  const void* colon = std::memchr(text.data() + from, ':', text.size() - from);
  return colon == nullptr ? text.size() : static_cast<const char*>(colon) - text.data();
}

// Walks both strings segment by segment without splitting them, so a megabyte resource costs
// one pass and no allocation.
bool ColonMatches(absl::string_view pattern, absl::string_view resource) {
  if (IsPath(resource)) return false;
  size_t p = 0;
  size_t r = 0;
  while (true) {
    const size_t pattern_end = SegmentEnd(pattern, p);
    const absl::string_view pattern_segment = pattern.substr(p, pattern_end - p);
    const bool last_pattern_segment = pattern_end == pattern.size();
    if (last_pattern_segment && pattern_segment == "*") return true;  // the rest, even nothing
    const size_t resource_end = SegmentEnd(resource, r);
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

// absl::ascii_isalnum is inline, so a name is checked without a call per byte.
bool IsActionCharacter(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == ':' ||
         c == '/' || c == '-';
}

}  // namespace

bool ResourceMatches(absl::string_view pattern, absl::string_view resource) {
  if (pattern == "*") return true;
  if (IsPath(pattern)) return PathMatches(pattern, resource);
  return ColonMatches(pattern, resource);
}

bool ActionMatches(const std::vector<std::string>& actions, absl::string_view action) {
  // Compared as string_views: inline, where std::string's comparisons call into the library.
  return std::any_of(actions.begin(), actions.end(), [&](absl::string_view allowed) {
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
  // A well-formed name passes in one inlined pass; the shared checker, which calls through a
  // function pointer per byte, runs only to find and word what is wrong.
  if (!action.empty() && action.size() <= kMaxActionBytes &&
      std::all_of(action.begin(), action.end(), [](char c) { return IsActionCharacter(c); })) {
    return absl::OkStatus();
  }
  return CheckAsciiCharset("action", action, 1, kMaxActionBytes, IsActionCharacter,
                           "A-Z a-z 0-9 _ . : / - (or \"*\" alone)");
}

}  // namespace verdict
