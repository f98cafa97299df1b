// What may be changed, by the state read inside the call's transaction (design section 1): a
// revoked agent stays revoked, keeps no token and is granted nothing; only a live delegator
// lends, and only to an agent that is not revoked; a token's grace ends within the times a store
// keeps; a policy is imported only into an empty store. Each refusal says why.
//
//   absl::StatusOr<bool> change = StatusChangeNeeded(agent, AgentStatus::kSuspended);
//   if (!change.ok()) return change.status();  // FAILED_PRECONDITION: revocation is final
#ifndef VERDICT_DECISION_ADMIN_CHANGE_RULES_H_
#define VERDICT_DECISION_ADMIN_CHANGE_RULES_H_

#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "decision/types.h"

namespace verdict {

// FAILED_PRECONDITION when a revoked agent would leave revocation; OK and false when the agent
// has `wanted` already.
absl::StatusOr<bool> StatusChangeNeeded(const Agent& agent, AgentStatus wanted);
// FAILED_PRECONDITION for a revoked agent.
absl::Status CheckTokenRotatable(const Agent& agent);
absl::Status CheckGrantable(const Agent& agent);
// FAILED_PRECONDITION unless `from` is active and unexpired at `now` and `to` is not revoked.
absl::Status CheckDelegationParties(const Agent& from, const Agent& to, absl::Time now);

// Until when the token an agent had keeps working after a rotation at `now` with `grace`:
// nullopt when it stops at once (no grace). INVALID_ARGUMENT for a negative grace or one that
// reaches past any time a store can keep (an infinite grace would otherwise be stored as
// "never", which for a previous token means "already gone").
absl::StatusOr<std::optional<absl::Time>> PreviousTokenValidUntil(absl::Duration grace,
                                                                  absl::Time now);

// FAILED_PRECONDITION: an import into a store that holds a policy.
absl::Status ImportNeedsEmptyStore();

}  // namespace verdict

#endif  // VERDICT_DECISION_ADMIN_CHANGE_RULES_H_
