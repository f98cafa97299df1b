#include "decision/resource_match.h"

#include <algorithm>
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

// Walks both strings once, byte by byte, without splitting them: a megabyte resource costs one
// pass and no allocation, and a short one a handful of comparisons.
bool ColonMatches(absl::string_view pattern, absl::string_view resource) {
  if (IsPath(resource)) return false;
  size_t p = 0;
  size_t r = 0;
  while (true) {
    // One pattern segment against one resource segment: both indexes end on the ':' that
    // follows their segment, or at the end.
    const bool star = p < pattern.size() && pattern[p] == '*' &&
                      (p + 1 == pattern.size() || pattern[p + 1] == ':');
    if (star) {
      ++p;
      if (p == pattern.size()) return true;  // a trailing '*': the rest, even nothing
      while (r < resource.size() && resource[r] != ':') ++r;
    } else {
      for (; p < pattern.size() && pattern[p] != ':'; ++p, ++r) {
        if (r == resource.size() || resource[r] != pattern[p]) return false;
      }
      if (r < resource.size() && resource[r] != ':') return false;
    }
    const bool last_pattern_segment = p == pattern.size();
    if (r == resource.size()) {
      // Only a trailing '*' may be left over: it matches zero segments.
      return last_pattern_segment || pattern.substr(p + 1) == "*";
    }
    if (last_pattern_segment) return false;
    ++p;
    ++r;
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

absl::Status CheckColonSegments(absl::string_view name) {
  constexpr absl::string_view kWhy = ", and no resource has one";
  if (absl::StartsWith(name, ":")) {
    return absl::InvalidArgumentError(absl::StrCat("an empty segment (a leading ':')", kWhy));
  }
  if (absl::EndsWith(name, ":")) {
    return absl::InvalidArgumentError(absl::StrCat("an empty segment (a trailing ':')", kWhy));
  }
  if (const size_t doubled = name.find("::"); doubled != absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("an empty segment (\"::\" at byte ", doubled, ")", kWhy));
  }
  return absl::OkStatus();
}

absl::Status ValidateResourcePattern(absl::string_view pattern) {
  if (absl::Status status = CheckPrintableUtf8("resource", pattern, kMaxPatternBytes);
      !status.ok()) {
    return status;
  }
  if (!IsPath(pattern)) {
    absl::Status segments = CheckColonSegments(pattern);
    if (segments.ok()) return segments;
    return absl::InvalidArgumentError(absl::StrCat("resource: ", segments.message()));
  }
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
