#include "decision/wildcard.h"

#include <chrono>
#include <string>

#include "absl/strings/string_view.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

// A byte glob where '*' is the only wildcard: the simplest use of the matcher.
bool ByteGlob(absl::string_view pattern, absl::string_view subject) {
  return MatchWithStars(
      pattern.size(), subject.size(), [&](size_t p) { return pattern[p] == '*'; },
      [&](size_t p, size_t s) { return pattern[p] == subject[s]; });
}

TEST(MatchWithStars, FollowsGlobSemantics) {
  const struct {
    const char* pattern;
    const char* subject;
    bool matches;
  } kCases[] = {
      {"", "", true},
      {"", "a", false},
      {"a", "", false},
      {"*", "", true},
      {"*", "anything", true},
      {"**", "", true},
      {"abc", "abc", true},
      {"abc", "abd", false},
      {"abc", "ab", false},
      {"ab", "abc", false},
      {"a*", "a", true},
      {"a*", "abc", true},
      {"*c", "abc", true},
      {"*c", "abcd", false},
      {"a*c", "ac", true},
      {"a*c", "abbbc", true},
      {"a*c", "abbbcd", false},
      // The first place the star could stop is wrong; the matcher must retry a later one.
      {"*ab", "aab", true},
      {"*aab", "aaab", true},
      {"a*b*c", "abxbyc", true},
      {"a*b*c", "acb", false},
      {"*a*b*", "xxaxxbxx", true},
      {"*a*b*", "xxbxxaxx", false},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(ByteGlob(c.pattern, c.subject), c.matches)
        << "pattern \"" << c.pattern << "\" subject \"" << c.subject << "\"";
  }
}

// Stars followed by a tail that almost matches everywhere make backtracking matchers explode;
// this one stays within O(pattern x subject) and finishes at once.
TEST(MatchWithStars, PathologicalPatternFinishesFast) {
  const std::string pattern = std::string(20, 'a') + "*a*a*a*a*a*a*a*a*a*a*b";
  const std::string subject(100000, 'a');
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(ByteGlob(pattern, subject));
  EXPECT_TRUE(ByteGlob(pattern, subject + "b"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

}  // namespace
}  // namespace verdict
