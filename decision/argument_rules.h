// Rules on a call's arguments (decision/constraints.h), each on one argument named by a dotted
// path into the call's arguments object:
//
//   [{"path": "amount", "max": 100},
//    {"path": "to", "email_domain": "example.com"},
//    {"path": "file", "glob": "reports/*.pdf"},
//    {"path": "env", "one_of": ["dev", "staging"]},
//    {"path": "options.mode", "equals": "dry-run"}]
//
// A missing argument fails its rule. "equals" and "one_of" compare whole JSON values exactly.
// "glob" matches a string as a whole (decision/glob.h): '*' matches every character, so a glob
// cannot pin an address to a domain: "*@example.com" matches "evil@evil.net,bob@example.com".
// "email_domain" can: the value must be one e-mail address, a local part of 1 to 64 of
// A-Z a-z 0-9 . _ + - (no leading, trailing or doubled '.'), one '@', and exactly that domain
// (compared case-insensitively; a subdomain is another domain). The request's arguments hold no
// control character (decision/request_validation.h). "min"/"max" are inclusive bounds on
// numbers. One rule object may carry several operators; every rule must pass.
#ifndef VERDICT_DECISION_ARGUMENT_RULES_H_
#define VERDICT_DECISION_ARGUMENT_RULES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/json.h"

namespace verdict {

struct ArgumentRule {
  enum class Kind { kEquals, kOneOf, kGlob, kMin, kMax, kEmailDomain };
  std::string path;  // dotted: "options.mode"
  Kind kind = Kind::kEquals;
  JsonValue operand;  // the value, the list, the glob string, the bound, or the domain
};

// The "arguments" member of a grant's constraints, one ArgumentRule per operator;
// INVALID_ARGUMENT naming the key otherwise.
absl::StatusOr<std::vector<ArgumentRule>> ParseArgumentRules(const JsonValue& value);

// True when every rule passes on `arguments` (a JSON object). On failure, *why names the rule.
bool ArgumentsPass(const std::vector<ArgumentRule>& rules, const JsonValue& arguments,
                   std::string* why);

}  // namespace verdict

#endif  // VERDICT_DECISION_ARGUMENT_RULES_H_
