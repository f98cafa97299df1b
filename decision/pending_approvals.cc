#include "decision/pending_approvals.h"

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace verdict {

absl::Status CapPendingApprovals(PolicyView& view, int64_t max_pending, absl::Time now,
                                 Decision& decision) {
  if (!decision.side_effects.approval_to_open) return absl::OkStatus();
  const ApprovalToOpen& to_open = *decision.side_effects.approval_to_open;
  absl::StatusOr<int64_t> pending = view.CountPendingApprovals(to_open.agent_id, now, max_pending);
  if (!pending.ok()) return pending.status();
  if (*pending < max_pending) return absl::OkStatus();
  decision.verdict = Verdict::kDeny;
  decision.reason = ReasonCode::kTooManyPendingApprovals;
  decision.message =
      absl::StrCat(to_open.action, " on ", to_open.resource, " needs approval, but agent ",
                   to_open.agent_id, " already has ", *pending,
                   " approval requests pending, the most allowed: none is opened until some are "
                   "decided or expire");
  decision.approval_request_id.clear();
  decision.side_effects.approval_to_open.reset();
  return absl::OkStatus();
}

}  // namespace verdict
