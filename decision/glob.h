// The "glob" rule of an argument (decision/argument_rules.h): a string matched as a whole.
//
//   GlobMatches("reports/*.pdf", "reports/2026/q1.pdf")  // true: '*' crosses '/'
//
// '*' matches any run of characters (zero or more, and every character: ',', '@', ':', '/',
// spaces), '?' exactly one character (a code point, not a byte), anything else itself. The cost
// is at most the product of the lengths (decision/wildcard.h), never exponential.
#ifndef VERDICT_DECISION_GLOB_H_
#define VERDICT_DECISION_GLOB_H_

#include "absl/strings/string_view.h"

namespace verdict {

// `pattern` and `subject` are valid UTF-8 (they came from JSON).
bool GlobMatches(absl::string_view pattern, absl::string_view subject);

}  // namespace verdict

#endif  // VERDICT_DECISION_GLOB_H_
