// The cap on an agent's pending approval requests (design section 8): a caller that varies its
// arguments would otherwise open one request per call, kept until it expires, and bury the
// approvers' queue. Past the cap the call is denied with TOO_MANY_PENDING_APPROVALS and nothing
// is written; the requests already pending still count, and free a place once decided or expired.
//
//   absl::StatusOr<Decision> decision = Decide(request, view, now);
//   absl::Status capped = CapPendingApprovals(view, max_pending, now, *decision);
#ifndef VERDICT_DECISION_PENDING_APPROVALS_H_
#define VERDICT_DECISION_PENDING_APPROVALS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "decision/policy_view.h"
#include "decision/types.h"

namespace verdict {

// verdictd's --max_pending_approvals unless told otherwise: far more than people review at once.
inline constexpr int64_t kDefaultMaxPendingApprovals = 100;

// When `decision` would open an approval request and its agent already has `max_pending`
// pending at `now`, as `view` reports, makes it a DENY with TOO_MANY_PENDING_APPROVALS that
// opens nothing. Any other decision is left as it is. A view's error is returned (the caller
// fails closed).
absl::Status CapPendingApprovals(PolicyView& view, int64_t max_pending, absl::Time now,
                                 Decision& decision);

}  // namespace verdict

#endif  // VERDICT_DECISION_PENDING_APPROVALS_H_
