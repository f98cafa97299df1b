// What a caller may see of a grant's constraints (decision/constraints.h): an argument rule that
// guards a secret keeps its path and kind, never its operand (reviews h41, h42).
//
//   ConstraintsForCaller(R"({"arguments":[{"path":"api_key","equals":"sk_live_..."}]})")
//     // {"arguments":[{"equals":"[REDACTED]","path":"api_key"}]}
#ifndef VERDICT_DECISION_CONSTRAINT_REDACTION_H_
#define VERDICT_DECISION_CONSTRAINT_REDACTION_H_

#include <string>

#include "absl/strings/string_view.h"
#include "common/json.h"

namespace verdict {

// A rule whose argument's name marks a secret, or whose operand holds a credential ("dsn" must
// equal "postgres://app:pw@db/x"): its operand is never shown to a caller (common/redaction.h).
bool RuleGuardsASecret(absl::string_view path, const JsonValue& operand);

// The constraints as a caller may see them in a decision (a matched grant, a trace, effective
// permissions): the operand of an argument rule that guards a secret (its argument's name marks
// one, or the operand holds a credential) replaced by "[REDACTED]". The rule's path and kind stay.
std::string ConstraintsForCaller(absl::string_view constraints_json);

}  // namespace verdict

#endif  // VERDICT_DECISION_CONSTRAINT_REDACTION_H_
