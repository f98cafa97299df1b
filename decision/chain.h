// A chain (design section 2.5, attenuation): a way the subject may hold the requested right, the
// origin's permission and then each permission lent down to the subject, every element's
// constraints applying. Internal to the engine.
//
//   Chain chain = ChainOf(origin, walker.stack());
//   CutCycles(chain);
//   std::vector<DelegationHop> path = PathOf(chain);  // origin first
#ifndef VERDICT_DECISION_CHAIN_H_
#define VERDICT_DECISION_CHAIN_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "decision/budget.h"
#include "decision/delegation_walker.h"
#include "decision/grants.h"
#include "decision/types.h"

namespace verdict {
namespace engine_internal {

// The order in which a chain's constraints are checked, cheapest first; a failure at a later
// stage got further.
enum class CheckStage { kTimeWindow, kIpAllowlist, kArguments, kApproval, kRateLimit };

// One grant in a chain: the origin's permission, or a permission lent down a link.
struct ChainElement {
  const Permission* origin;  // null for a lent permission
  TakenLink lent;            // for a lent permission

  static ChainElement Own(const Permission& permission) { return {&permission, {nullptr, 0}}; }
  static ChainElement Lent(const Delegation& link, size_t index) {
    return {nullptr, {&link, index}};
  }

  const std::string& constraints_json() const {
    return origin ? origin->constraints_json
                  : lent.delegation->permissions[lent.lent_index].constraints_json;
  }
  // Names it in messages and rate-limit slots; built only when one of those needs it.
  std::string GrantId() const {
    return origin ? origin->id : LentPermissionId(*lent.delegation, lent.lent_index);
  }
  // The agent that holds it: the origin's owner, or the link's delegate.
  absl::string_view holder() const {
    return origin ? absl::string_view(origin->agent_id)
                  : absl::string_view(lent.delegation->to_agent_id);
  }
};

// A way the subject may hold the requested right: the origin's permission, then each lent
// permission down to the subject. Every element's constraints apply (attenuation). Never
// longer than the depth limit, so it lives on the stack.
using Chain = absl::InlinedVector<ChainElement, kMaxDelegationDepth + 1>;

// The chain of `origin` down the links taken from the subject upward.
Chain ChainOf(const Permission& origin, absl::Span<const TakenLink> taken);

// Origin first; empty for the subject's own permission.
std::vector<DelegationHop> PathOf(const Chain& chain);

// The chain with every cycle cut out: where an agent holds twice, the links between go. What
// the shorter chain needs is part of what the longer one needs, and it is no longer, so every
// depth limit still holds and it passes whenever the longer one does.
void CutCycles(Chain& chain);

struct ChainFailure {
  CheckStage stage;
  ReasonCode reason;
  std::string message;
  std::string approval_request_id;
  std::optional<ApprovalToOpen> approval_to_open;
};

struct ChainOutcome {
  std::optional<ChainFailure> failure;  // nullopt: the chain passed
  SideEffects side_effects;             // what passing needs written
};

// How far a chain got: the stage at which its first check failed, or all the way.
constexpr int kNoChain = -1;
constexpr int kPasses = static_cast<int>(CheckStage::kRateLimit) + 1;

}  // namespace engine_internal
}  // namespace verdict

#endif  // VERDICT_DECISION_CHAIN_H_
