// The voting rule of approval requests (design section 1): quorum distinct approvers approve a
// request, one deny denies it, each approver votes once, and nobody votes on a request that is no
// longer pending or has expired. Every store applies it to the rows it read and writes what it
// decided, so the SQL stores and the in-memory one answer alike.
//
//   absl::StatusOr<Vote> vote = JudgeVote(approval, has_voted, "alice", /*approve=*/true, now);
//   if (!vote.ok()) return vote.status();   // nothing to write
//   ... write vote->record and vote->new_status, then answer vote->answer ...
#ifndef VERDICT_DECISION_ADMIN_VOTING_H_
#define VERDICT_DECISION_ADMIN_VOTING_H_

#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "decision/types.h"

namespace verdict {

// True when a pending or approved request's expiry has come at `now` (or it is marked expired):
// it then reads as expired, whether or not a vote has marked it yet.
bool ApprovalExpiredAt(const ApprovalRequest& approval, absl::Time now);

// What a vote changes.
struct Vote {
  bool record = false;                       // write the approver's vote
  std::optional<ApprovalStatus> new_status;  // write the request's new status
  ApprovalRequest approval;                  // the request as it is after the vote
  absl::Status answer;  // the call's answer once the writes above are committed
};

// The vote of `approver` (who has voted on it already when `approver_has_voted`) on `approval`
// as read at `now`:
//  - expired: the request is marked expired (for everyone, so it is written) and the answer is
//    FAILED_PRECONDITION "expired at ...: voting is closed";
//  - not pending: FAILED_PRECONDITION "is <status>: voting is closed", nothing written;
//  - a second vote of the same approver: ALREADY_EXISTS, nothing written;
//  - else the vote is recorded; a deny denies, and the approval that reaches the quorum
//    approves.
absl::StatusOr<Vote> JudgeVote(const ApprovalRequest& approval, bool approver_has_voted,
                               absl::string_view approver, bool approve, absl::Time now);

}  // namespace verdict

#endif  // VERDICT_DECISION_ADMIN_VOTING_H_
