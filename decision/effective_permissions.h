// What an agent holds now (design section 2.2), listed for ValidateToken's answer and for
// checks of new delegations: its own permissions and every permission lent to it that holds,
// from the same delegation search as Decide's (decision/engine.h).
//
//   absl::StatusOr<std::vector<EffectivePermission>> held =
//       EffectivePermissions(agent, view, now, &budget);
#ifndef VERDICT_DECISION_EFFECTIVE_PERMISSIONS_H_
#define VERDICT_DECISION_EFFECTIVE_PERMISSIONS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "decision/budget.h"
#include "decision/policy_view.h"
#include "decision/types.h"

namespace verdict {

// A permission the agent holds, and what else must cover a call for it to hold: a call is
// covered when `grant` and every grant of `within` cover it (action and resource) and no grant
// of `excluded_by` does. For a lent permission, `within` are the grants it was lent under, up to
// the origin's own (the intersection of resource patterns is in general no single pattern, so
// it is kept as the patterns that must all match), and `excluded_by` the denies of the
// delegators on its path. Constraints of every grant apply as in a decision.
struct EffectivePermission {
  Grant grant;
  std::vector<DelegationHop> via;  // empty for the agent's own; else origin first
  std::vector<Grant> within;       // nearest first, ending with the origin's permission
  std::vector<Grant> excluded_by;  // delegators' denies on the path
};

// The live agent's own permissions (allow and deny, as stored), then each permission lent to it
// that holds now: what Decide allows is exactly what some listed allow covers and no listed deny
// covers (for grants without constraints; with constraints, a call must also pass them). Lent
// permissions come from the same delegation search as Decide's, so liveness, depth limits and
// the delegators' own rights and denies apply alike; paths that say the same are listed once.
// Over budget: RESOURCE_EXHAUSTED with EvaluationLimitMessage; the caller gave up: CANCELLED.
absl::StatusOr<std::vector<EffectivePermission>> EffectivePermissions(
    const Agent& agent, PolicyView& view, absl::Time now, DecisionBudget* budget = nullptr);

}  // namespace verdict

#endif  // VERDICT_DECISION_EFFECTIVE_PERMISSIONS_H_
