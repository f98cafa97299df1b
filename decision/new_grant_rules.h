// What a new grant must mean as it reads, beyond what verdict can store and match
// (decision/resource_match.h, decision/constraints.h). A grant that breaks one of these rules
// would still be matched exactly, but not as its author meant: the admin plane refuses it in a
// new permission, a new delegation and a Simulate what-if. A policy stored before a rule existed
// imports and decides as it always did.
//
//   absl::Status ok = CheckNewGrantReadsAsWritten(resource, effect, constraints_json);
#ifndef VERDICT_DECISION_NEW_GRANT_RULES_H_
#define VERDICT_DECISION_NEW_GRANT_RULES_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "decision/types.h"

namespace verdict {

// INVALID_ARGUMENT, naming the rule, when:
//  - a colon pattern holds an empty segment ("docs::secret:*", ":docs", "docs:"): every request
//    that names one is refused (decision/resource_match.h), so the pattern would never match;
//  - a colon pattern holds a segment of stars only ("docs:secret:**", "**"), which matches only
//    that literal text, where a trailing '*' segment matches everything below;
//  - a path pattern holds an escape no request path may hold ("/users/%40me/**",
//    "/docs/caf%c3%a9"): ext_authz refuses such paths (decision/path_escapes.h), so the pattern
//    would never match one;
//  - a deny carries constraints, which only narrow an allow (design section 2, step 5): a deny
//    denies whenever it matches, and its constraints would be kept and never read.
// The constraints must parse (decision/constraints.h); only their presence is checked here.
absl::Status CheckNewGrantReadsAsWritten(absl::string_view resource, Effect effect,
                                         absl::string_view constraints_json);

}  // namespace verdict

#endif  // VERDICT_DECISION_NEW_GRANT_RULES_H_
