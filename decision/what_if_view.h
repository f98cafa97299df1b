// The policy as Simulate's what-if inputs describe it: a PolicyView laid over another one,
// without writing anything.
//
// Extra permissions with an empty agent_id belong to the subject (a permission naming another
// agent belongs to that agent); extra delegations join the real ones under the same rules
// (active and unexpired at `now`); removed delegations disappear, real or extra. Entries without
// an id get "whatif:perm:N" / "whatif:dlg:N", N being their index in the what-if lists.
// The what-if time and client IP are not the view's business: the caller decides at that time
// with that IP. A token, though, is a credential presented now: an opaque token is looked up at
// `presented_at` (the real time of the call) whatever time the caller asks about, so a token
// rotated out is not accepted by setting the what-if time back into its grace period.
//
//   WhatIfView view(*snapshot, what_if, "agt_subject", clock());
//   absl::StatusOr<Decision> d = Decide(request, view, what_if.at.value_or(now), &trace);
#ifndef VERDICT_DECISION_WHAT_IF_VIEW_H_
#define VERDICT_DECISION_WHAT_IF_VIEW_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "decision/policy_view.h"
#include "decision/what_if.h"

namespace verdict {

class WhatIfView : public PolicyView {
 public:
  // `base` must outlive the view; `what_if` is copied.
  WhatIfView(PolicyView& base, const WhatIf& what_if, std::string subject_agent_id,
             absl::Time presented_at);

  absl::StatusOr<std::optional<Agent>> FindAgent(absl::string_view agent_id) override;
  absl::StatusOr<std::optional<Agent>> FindAgentByTokenHash(absl::string_view token_sha256,
                                                            absl::Time now) override;
  absl::StatusOr<std::vector<Permission>> PermissionsOf(absl::string_view agent_id) override;
  absl::StatusOr<std::vector<Delegation>> ActiveDelegationsInto(absl::string_view agent_id,
                                                                absl::Time now) override;
  absl::StatusOr<std::optional<ApprovalRequest>> FindOpenApproval(absl::string_view agent_id,
                                                                  absl::string_view action,
                                                                  absl::string_view resource,
                                                                  absl::string_view arguments_hash,
                                                                  absl::Time now) override;
  absl::StatusOr<int64_t> CountPendingApprovals(absl::string_view agent_id, absl::Time now,
                                                int64_t up_to) override;
  absl::StatusOr<int64_t> RateCount(absl::string_view agent_id, absl::string_view permission_id,
                                    int64_t window_start_unix) override;
  absl::StatusOr<std::optional<SigningKey>> FindActiveSigningKey(absl::string_view kid) override;
  absl::StatusOr<bool> IsTokenIdRevoked(absl::string_view jti) override;

 private:
  bool Removed(absl::string_view delegation_id) const;

  PolicyView& base_;
  const absl::Time presented_at_;
  std::vector<Permission> extra_permissions_;  // with ids and owners filled in
  std::vector<Delegation> extra_delegations_;  // with ids filled in
  std::vector<std::string> removed_delegation_ids_;
};

}  // namespace verdict

#endif  // VERDICT_DECISION_WHAT_IF_VIEW_H_
