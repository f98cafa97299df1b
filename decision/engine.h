// The decision engine (design section 2): pure, deterministic, no I/O of its own.
//
// It takes a request, one consistent PolicyView and the time, and returns a decision with its
// reason, the matched grant and the delegation path, plus the side effects the decision needs
// (a rate slot to spend, an approval to open or use). It never writes: decision/authorizer.h
// applies side effects for Authorize and drops them for Simulate.
//
//   absl::StatusOr<Decision> d = Decide(request, view, now, /*trace=*/nullptr);
//   if (!d.ok()) ...  // the view failed: the caller denies (fail closed)
//
// Its parts, each in its own file: who the subject is (decision/subject.h), the delegation search
// (decision/delegation_walker.h), chains and their check (decision/chain.h,
// decision/chain_check.h, decision/constraint_cache.h), the texts (decision/decision_messages.h),
// the trace (decision/decision_trace.h), and what an agent holds
// (decision/effective_permissions.h). This header includes the public ones, so its includers see
// ResolveSubject, LivenessOf, EffectivePermissions, EvaluationLimitMessage and kMaxDelegationDepth
// (decision/budget.h) here.
#ifndef VERDICT_DECISION_ENGINE_H_
#define VERDICT_DECISION_ENGINE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "decision/access_token_authenticator.h"
#include "decision/budget.h"
#include "decision/decision_messages.h"
#include "decision/effective_permissions.h"
#include "decision/policy_view.h"
#include "decision/subject.h"
#include "decision/trace.h"
#include "decision/types.h"

namespace verdict {

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

// Decide for a subject already resolved: `subject` is what ResolveSubject answered for
// request.subject in the same `view` at the same `now`, and it is not looked up again. A call
// deciding many checks for one subject (BatchAuthorize) resolves and authenticates it once.
absl::StatusOr<Decision> DecideFor(const SubjectResolution& subject, const Request& request,
                                   PolicyView& view, absl::Time now, Trace* trace,
                                   DecisionBudget* budget = nullptr);

}  // namespace verdict

#endif  // VERDICT_DECISION_ENGINE_H_
