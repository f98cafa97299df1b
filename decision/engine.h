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
absl::StatusOr<Decision> Decide(const Request& request, PolicyView& view, absl::Time now,
                                Trace* trace, AccessTokenAuthenticator* access_tokens = nullptr);

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

struct EffectivePermission {
  Grant grant;
  std::vector<DelegationHop> via;  // empty for the agent's own
};

// The live agent's own permissions, then each permission lent to it through a live link whose
// delegator reaches an origin holding an allow permission of its own over live links (the first
// such path, depth-first, listed as `via`, origin first). Whether the delegator holds the lent
// right in particular can only be known for a concrete request: Decide checks that.
absl::StatusOr<std::vector<EffectivePermission>> EffectivePermissions(const Agent& agent,
                                                                      PolicyView& view,
                                                                      absl::Time now);

}  // namespace verdict

#endif  // VERDICT_DECISION_ENGINE_H_
