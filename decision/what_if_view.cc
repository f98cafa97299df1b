#include "decision/what_if_view.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace verdict {

WhatIfView::WhatIfView(PolicyView& base, const WhatIf& what_if, std::string subject_agent_id,
                       absl::Time presented_at)
    : base_(base),
      presented_at_(presented_at),
      extra_permissions_(what_if.extra_permissions),
      extra_delegations_(what_if.extra_delegations),
      removed_delegation_ids_(what_if.removed_delegation_ids) {
  for (size_t i = 0; i < extra_permissions_.size(); ++i) {
    Permission& permission = extra_permissions_[i];
    if (permission.id.empty()) permission.id = absl::StrCat("whatif:perm:", i);
    if (permission.agent_id.empty()) permission.agent_id = subject_agent_id;
  }
  for (size_t i = 0; i < extra_delegations_.size(); ++i) {
    Delegation& delegation = extra_delegations_[i];
    if (delegation.id.empty()) delegation.id = absl::StrCat("whatif:dlg:", i);
  }
}

absl::StatusOr<std::optional<Agent>> WhatIfView::FindAgent(absl::string_view agent_id) {
  return base_.FindAgent(agent_id);
}

absl::StatusOr<std::optional<Agent>> WhatIfView::FindAgentByTokenHash(
    absl::string_view token_sha256, absl::Time /*decision_time*/) {
  return base_.FindAgentByTokenHash(token_sha256, presented_at_);
}

absl::StatusOr<std::vector<Permission>> WhatIfView::PermissionsOf(absl::string_view agent_id) {
  absl::StatusOr<std::vector<Permission>> permissions = base_.PermissionsOf(agent_id);
  if (!permissions.ok()) return permissions.status();
  // Appended: the extras are the newest permissions.
  for (const Permission& extra : extra_permissions_) {
    if (extra.agent_id == agent_id) permissions->push_back(extra);
  }
  return permissions;
}

absl::StatusOr<std::vector<Delegation>> WhatIfView::ActiveDelegationsInto(
    absl::string_view agent_id, absl::Time now) {
  absl::StatusOr<std::vector<Delegation>> delegations = base_.ActiveDelegationsInto(agent_id, now);
  if (!delegations.ok()) return delegations.status();
  delegations->erase(
      std::remove_if(delegations->begin(), delegations->end(),
                     [this](const Delegation& delegation) { return Removed(delegation.id); }),
      delegations->end());
  for (const Delegation& extra : extra_delegations_) {
    if (extra.to_agent_id == agent_id && extra.status == DelegationStatus::kActive &&
        now < extra.expires_at && !Removed(extra.id)) {
      delegations->push_back(extra);
    }
  }
  return delegations;
}

absl::StatusOr<std::optional<ApprovalRequest>> WhatIfView::FindOpenApproval(
    absl::string_view agent_id, absl::string_view action, absl::string_view resource,
    absl::string_view arguments_hash, absl::Time now) {
  return base_.FindOpenApproval(agent_id, action, resource, arguments_hash, now);
}

absl::StatusOr<int64_t> WhatIfView::CountPendingApprovals(absl::string_view agent_id,
                                                          absl::Time now, int64_t up_to) {
  return base_.CountPendingApprovals(agent_id, now, up_to);
}

absl::StatusOr<int64_t> WhatIfView::RateCount(absl::string_view agent_id,
                                              absl::string_view permission_id,
                                              int64_t window_start_unix) {
  return base_.RateCount(agent_id, permission_id, window_start_unix);
}

absl::StatusOr<std::optional<SigningKey>> WhatIfView::FindActiveSigningKey(absl::string_view kid) {
  return base_.FindActiveSigningKey(kid);
}

absl::StatusOr<bool> WhatIfView::IsTokenIdRevoked(absl::string_view jti) {
  return base_.IsTokenIdRevoked(jti);
}

bool WhatIfView::Removed(absl::string_view delegation_id) const {
  return std::find(removed_delegation_ids_.begin(), removed_delegation_ids_.end(), delegation_id) !=
         removed_delegation_ids_.end();
}

}  // namespace verdict
