// The rules a new delegation must pass before it is stored (design section 1): it lends no
// more than the delegator holds, every path it joins stays within every max_depth on it, and
// it closes no cycle. The engine enforces the exact intersection of rights at decision time
// anyway; these checks refuse what can never work, with a message that says why. What the
// delegator holds is found by the engine's own delegation search (decision/delegation_walker.h).
//
//   absl::Status ok = CheckNewDelegation(delegation, graph, now);  // FAILED_PRECONDITION: refused
#ifndef VERDICT_DECISION_ADMIN_DELEGATION_RULES_H_
#define VERDICT_DECISION_ADMIN_DELEGATION_RULES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "decision/admin/admin_types.h"
#include "decision/policy_view.h"
#include "decision/types.h"

namespace verdict {

// True when every resource `lent` names is also named by `held`, approximately: the patterns
// are equal, `held` is "*", or `held` matches `lent` read as a literal resource (its '*' and
// '**' are then plain characters, so "docs:*" covers "docs:*:x" and "/api/**" covers
// "/api/v1/**"). A `lent` with a '**' segment needs a `held` with one too, since only '**'
// spans path segments. Not exact (held "a:*:*" is taken to cover lent "a:*", which also names
// "a"), which is why the engine intersects rights again on every decision.
bool ResourcePatternCovers(absl::string_view held, absl::string_view lent);

// True when `held` holds "*" or every action of `lent` ("*" only by "*").
bool ActionsCover(const std::vector<std::string>& held, const std::vector<std::string>& lent);

// The state the rules read: the engine's view of agents, permissions and the delegations into
// an agent (only those lookups), and the delegations out of an agent, for the cycle check.
class DelegationGraph : public PolicyView {
 public:
  // Delegations out of the agent whose status is active and that are unexpired at `now`.
  virtual absl::StatusOr<std::vector<Delegation>> ActiveDelegationsFrom(absl::string_view agent_id,
                                                                        absl::Time now) = 0;

  // Lookups the rules never make.
  absl::StatusOr<std::optional<Agent>> FindAgentByTokenHash(absl::string_view, absl::Time) final {
    return absl::UnimplementedError("not read by the delegation rules");
  }
  absl::StatusOr<std::optional<ApprovalRequest>> FindOpenApproval(absl::string_view,
                                                                  absl::string_view,
                                                                  absl::string_view,
                                                                  absl::string_view,
                                                                  absl::Time) final {
    return absl::UnimplementedError("not read by the delegation rules");
  }
  absl::StatusOr<int64_t> RateCount(absl::string_view, absl::string_view, int64_t) final {
    return absl::UnimplementedError("not read by the delegation rules");
  }
};

// OK, or FAILED_PRECONDITION when:
//  - the delegate can already reach the delegator through active delegations (a cycle);
//  - a lent permission is covered neither by an allow permission of the delegator's own nor,
//    recursively, by a permission lent to it through active delegations (more than held),
//    counting only live agents on the chain, none of which denies all of it (the engine passes
//    nothing through a dead agent or over such a deny);
//  - it is covered only through chains so long that, with the new link, some link's max_depth
//    (the new one's included) would be exceeded.
// Paths below the delegate are not checked: their links were checked when created, and the
// engine stops at each link's max_depth whatever joins above.
// Liveness and "active" are judged at `now`. Other statuses come from `graph`.
absl::Status CheckNewDelegation(const NewDelegation& delegation, DelegationGraph& graph,
                                absl::Time now);

}  // namespace verdict

#endif  // VERDICT_DECISION_ADMIN_DELEGATION_RULES_H_
