// The read-only view of the policy store that the engine decides on.
//
// One PolicyView is one consistent snapshot (one read transaction): every lookup a decision
// makes sees the same committed state, and nothing is cached across views. Implementations:
// store/sqlite_store.h (and the what-if overlay in decision/what_if.h).
//
//   absl::StatusOr<std::optional<Agent>> agent = view.FindAgent("agt_123");
//   if (!agent.ok()) return agent.status();  // storage fault: the caller denies
#ifndef VERDICT_DECISION_POLICY_VIEW_H_
#define VERDICT_DECISION_POLICY_VIEW_H_

#include <algorithm>
#include <cstdint>
#include <list>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "decision/types.h"

namespace verdict {

class PolicyView {
 public:
  virtual ~PolicyView() = default;

  // The agent with this id, or nullopt.
  virtual absl::StatusOr<std::optional<Agent>> FindAgent(absl::string_view agent_id) = 0;

  // The agent whose current token, or previous token still in its grace period at `now`, has
  // this SHA-256 (32 raw bytes); nullopt when none.
  virtual absl::StatusOr<std::optional<Agent>> FindAgentByTokenHash(absl::string_view token_sha256,
                                                                    absl::Time now) = 0;

  // The agent's own permissions (allow and deny), in creation order.
  virtual absl::StatusOr<std::vector<Permission>> PermissionsOf(absl::string_view agent_id) = 0;

  // Delegations into the agent whose status is active and that are unexpired at `now`.
  // The engine checks the delegator's liveness and rights itself.
  virtual absl::StatusOr<std::vector<Delegation>> ActiveDelegationsInto(absl::string_view agent_id,
                                                                        absl::Time now) = 0;

  // The same answers as pointers and spans that stay valid until this view is destroyed, which
  // is what the engine reads: a view that keeps the rows it read answers without copying them
  // (store/sqlite_store.cc). By default the view keeps what the methods above return.
  // FindAgentRef and FindAgentRefByTokenHash answer nullptr when there is no such agent.
  virtual absl::StatusOr<const Agent*> FindAgentRef(absl::string_view agent_id);
  virtual absl::StatusOr<const Agent*> FindAgentRefByTokenHash(absl::string_view token_sha256,
                                                               absl::Time now);
  virtual absl::StatusOr<absl::Span<const Permission>> PermissionsSpan(absl::string_view agent_id);
  virtual absl::StatusOr<absl::Span<const Delegation>> ActiveDelegationsIntoSpan(
      absl::string_view agent_id, absl::Time now);

  // The agent's own permissions that may match `action` on `resource`, in creation order: at
  // least every one that matches both, possibly more. By default all of them (PermissionsSpan);
  // the stores' views decode only those whose pattern matches `resource` (store/lookups.h), and
  // SQLite's view looks an agent's many permissions up in an index (store/sqlite_store.cc).
  virtual absl::StatusOr<absl::Span<const Permission>> PermissionsThatMayMatch(
      absl::string_view agent_id, absl::string_view action, absl::string_view resource);

  // Whether any of the agent's own permissions allows: what makes a delegator the origin of a
  // chain. By default read from PermissionsSpan; a view that can tell without decoding every
  // permission answers itself (store/sqlite_store.cc).
  virtual absl::StatusOr<bool> HoldsAllowPermission(absl::string_view agent_id);

  // The newest approval request for exactly this call that is pending, approved or denied (and
  // not expired at `now`), or nullopt. A denied one blocks identical calls until it expires.
  virtual absl::StatusOr<std::optional<ApprovalRequest>> FindOpenApproval(
      absl::string_view agent_id, absl::string_view action, absl::string_view resource,
      absl::string_view arguments_hash, absl::Time now) = 0;

  // How many of the agent's approval requests are pending and unexpired at `now`, counted no
  // further than `up_to`: what caps an agent's pending requests (decision/pending_approvals.h).
  // A view that keeps no approvals answers UNIMPLEMENTED, so no request is opened through it.
  virtual absl::StatusOr<int64_t> CountPendingApprovals(absl::string_view agent_id, absl::Time now,
                                                        int64_t up_to);

  // Calls of `agent_id` already counted against the permission in the window that starts at
  // window_start_unix (seconds).
  virtual absl::StatusOr<int64_t> RateCount(absl::string_view agent_id,
                                            absl::string_view permission_id,
                                            int64_t window_start_unix) = 0;

  // JWT access tokens (design section 2). A view that keeps neither signing keys nor revoked
  // token ids answers UNIMPLEMENTED, so a JWT subject is refused (fail closed) rather than let
  // through unchecked.

  // The active signing key with this kid, or nullopt (none, or retired).
  virtual absl::StatusOr<std::optional<SigningKey>> FindActiveSigningKey(absl::string_view kid);

  // True when the access token with this "jti" has been revoked.
  virtual absl::StatusOr<bool> IsTokenIdRevoked(absl::string_view jti);

 private:
  // The answer of FindAgent or FindAgentByTokenHash, kept for the Ref forms.
  absl::StatusOr<const Agent*> KeepAgent(absl::StatusOr<std::optional<Agent>> agent);

  // The default answers' rows. Lists: keeping another answer moves none of them, and an empty
  // list allocates nothing (a deque would, in every view, even one that never uses them).
  std::list<Agent> kept_agents_;
  std::list<std::vector<Permission>> kept_permissions_;
  std::list<std::vector<Delegation>> kept_delegations_;
};

inline absl::StatusOr<const Agent*> PolicyView::KeepAgent(
    absl::StatusOr<std::optional<Agent>> agent) {
  if (!agent.ok()) return agent.status();
  if (!agent->has_value()) return nullptr;
  return &kept_agents_.emplace_back(**std::move(agent));
}

inline absl::StatusOr<const Agent*> PolicyView::FindAgentRef(absl::string_view agent_id) {
  return KeepAgent(FindAgent(agent_id));
}

inline absl::StatusOr<const Agent*> PolicyView::FindAgentRefByTokenHash(
    absl::string_view token_sha256, absl::Time now) {
  return KeepAgent(FindAgentByTokenHash(token_sha256, now));
}

inline absl::StatusOr<absl::Span<const Permission>> PolicyView::PermissionsSpan(
    absl::string_view agent_id) {
  absl::StatusOr<std::vector<Permission>> permissions = PermissionsOf(agent_id);
  if (!permissions.ok()) return permissions.status();
  return absl::MakeConstSpan(kept_permissions_.emplace_back(*std::move(permissions)));
}

inline absl::StatusOr<absl::Span<const Delegation>> PolicyView::ActiveDelegationsIntoSpan(
    absl::string_view agent_id, absl::Time now) {
  absl::StatusOr<std::vector<Delegation>> delegations = ActiveDelegationsInto(agent_id, now);
  if (!delegations.ok()) return delegations.status();
  return absl::MakeConstSpan(kept_delegations_.emplace_back(*std::move(delegations)));
}

inline absl::StatusOr<absl::Span<const Permission>> PolicyView::PermissionsThatMayMatch(
    absl::string_view agent_id, absl::string_view, absl::string_view) {
  return PermissionsSpan(agent_id);
}

inline absl::StatusOr<bool> PolicyView::HoldsAllowPermission(absl::string_view agent_id) {
  absl::StatusOr<absl::Span<const Permission>> permissions = PermissionsSpan(agent_id);
  if (!permissions.ok()) return permissions.status();
  return std::any_of(permissions->begin(), permissions->end(),
                     [](const Permission& p) { return p.effect == Effect::kAllow; });
}

inline absl::StatusOr<int64_t> PolicyView::CountPendingApprovals(absl::string_view, absl::Time,
                                                                 int64_t) {
  return absl::UnimplementedError("this policy store keeps no approval requests");
}

inline absl::StatusOr<std::optional<SigningKey>> PolicyView::FindActiveSigningKey(
    absl::string_view) {
  return absl::UnimplementedError("this policy store keeps no JWT signing keys");
}

inline absl::StatusOr<bool> PolicyView::IsTokenIdRevoked(absl::string_view) {
  return absl::UnimplementedError("this policy store keeps no revoked JWT ids");
}

}  // namespace verdict

#endif  // VERDICT_DECISION_POLICY_VIEW_H_
