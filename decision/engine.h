// The decision engine (design section 2): pure, deterministic, no I/O of its own.
//
// It takes a request, one consistent PolicyView and the time, and returns a decision with its
// reason, the matched grant and the delegation path, plus the side effects the decision needs
// (a rate slot to spend, an approval to open or use). It never writes: decision/authorizer.h
// applies side effects for Authorize and drops them for Simulate.
//
//   absl::StatusOr<Decision> d = Decide(request, view, absl::Now(), /*trace=*/nullptr);
//   if (!d.ok()) ...  // the view failed: the caller denies (fail closed)
#ifndef VERDICT_DECISION_ENGINE_H_
#define VERDICT_DECISION_ENGINE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "decision/access_token_authenticator.h"
#include "decision/budget.h"
#include "decision/policy_view.h"
#include "decision/trace.h"
#include "decision/types.h"

namespace verdict {

// The longest delegation path the engine follows, whatever the links' max_depth say.
inline constexpr int kMaxDelegationDepth = 8;

// `request` must already have passed ValidateRequest (decision/request_validation.h).
// A failed lookup is returned as its status; a decision is never made on partial data.
// When `trace` is non-null, every stage and grant tried is appended to it. `access_tokens`
// authenticates a subject that is a JWT access token; without it such a subject is refused.
//
// A lent permission has no id of its own: in grants, traces and rate-limit slots it is named
// "<delegation id>#<index in the delegation's permissions>".
//
// Every lookup and delegation step spends from `budget` (a default one when null): past it the
// decision is DENY with EVALUATION_LIMIT and a message naming the limit, never an ALLOW; when
// the budget's caller gave up, the status is CANCELLED and nothing is decided.
absl::StatusOr<Decision> Decide(const Request& request, PolicyView& view, absl::Time now,
                                Trace* trace, AccessTokenAuthenticator* access_tokens = nullptr,
                                DecisionBudget* budget = nullptr);

// "evaluation stopped after N steps: the decision exceeds the limit of M ..." for a spent budget.
std::string EvaluationLimitMessage(const DecisionBudget& budget);

// kAllowed when `agent` may act at `now` (active and unexpired); otherwise why not
// (AGENT_SUSPENDED, AGENT_REVOKED, AGENT_EXPIRED). A delegator on a chain must be live too.
ReasonCode LivenessOf(const Agent& agent, absl::Time now);

// Who a subject is (a token when agent_id is empty, checked for shape before any lookup): the
// agent when it exists and is live (active, unexpired) at `now`; otherwise the reason
// (TOKEN_INVALID, AGENT_NOT_FOUND, AGENT_SUSPENDED, AGENT_REVOKED, AGENT_EXPIRED) and a message.
// A JWT access token is authenticated by `access_tokens`, its "jti" must not be revoked (a fresh
// read), and its "sub" names the agent. Decide and ValidateToken both start here.
struct SubjectResolution {
  std::optional<Agent> agent;  // set only when live
  std::string agent_id;        // the agent the subject names, when it exists (live or not)
  ReasonCode reason = ReasonCode::kAllowed;
  std::string message;
};
absl::StatusOr<SubjectResolution> ResolveSubject(const Subject& subject, PolicyView& view,
                                                 absl::Time now,
                                                 AccessTokenAuthenticator* access_tokens = nullptr);

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

#endif  // VERDICT_DECISION_ENGINE_H_
