// One wildcard matcher for every place verdict matches with a "match any run" token: '**' over
// path segments, '*' within a path segment, and '*' / '?' in argument globs
// (decision/resource_match.h, decision/glob.h).
//
// It walks the pattern once and, on a mismatch, retries from the most recent star with that star
// swallowing one more subject token. Because only the latest star ever needs to be revisited,
// the work is at most O(pattern tokens x subject tokens) token comparisons, never exponential,
// with no recursion and no allocation.
//
//   bool m = MatchWithStars(pattern.size(), subject.size(),
//                           [&](size_t p) { return pattern[p] == '*'; },
//                           [&](size_t p, size_t s) { return pattern[p] == subject[s]; });
#ifndef VERDICT_DECISION_WILDCARD_H_
#define VERDICT_DECISION_WILDCARD_H_

#include <cstddef>

namespace verdict {

// `is_star(p)`: pattern token p matches any run (zero or more) of subject tokens.
// `token_matches(p, s)`: the non-star pattern token p matches exactly the subject token s.
template <typename IsStar, typename TokenMatches>
bool MatchWithStars(size_t pattern_size, size_t subject_size, IsStar is_star,
                    TokenMatches token_matches) {
  constexpr size_t kNoStar = static_cast<size_t>(-1);
  size_t p = 0;
  size_t s = 0;
  size_t last_star = kNoStar;
  size_t resume_subject = 0;  // the subject token the last star will swallow next on a retry
  while (s < subject_size) {
    if (p < pattern_size && is_star(p)) {
      last_star = p++;
      resume_subject = s;
    } else if (p < pattern_size && token_matches(p, s)) {
      ++p;
      ++s;
    } else if (last_star != kNoStar) {
      p = last_star + 1;
      s = ++resume_subject;
    } else {
      return false;
    }
  }
  while (p < pattern_size && is_star(p)) ++p;
  return p == pattern_size;
}

}  // namespace verdict

#endif  // VERDICT_DECISION_WILDCARD_H_
