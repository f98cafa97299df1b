#include "decision/admin/voting.h"

#include "absl/strings/str_cat.h"
#include "decision/type_names.h"

namespace verdict {

bool ApprovalExpiredAt(const ApprovalRequest& approval, absl::Time now) {
  if (approval.status == ApprovalStatus::kExpired) return true;
  return (approval.status == ApprovalStatus::kPending ||
          approval.status == ApprovalStatus::kApproved) &&
         approval.expires_at <= now;
}

absl::StatusOr<Vote> JudgeVote(const ApprovalRequest& approval, bool approver_has_voted,
                               absl::string_view approver, bool approve, absl::Time now) {
  Vote vote;
  vote.approval = approval;
  if (ApprovalExpiredAt(approval, now)) {
    vote.new_status = ApprovalStatus::kExpired;
    vote.approval.status = ApprovalStatus::kExpired;
    vote.answer = absl::FailedPreconditionError(
        absl::StrCat("approval ", approval.id, " expired at ",
                     absl::FormatTime(absl::RFC3339_full, approval.expires_at, absl::UTCTimeZone()),
                     ": voting is closed"));
    return vote;
  }
  if (approval.status != ApprovalStatus::kPending) {
    return absl::FailedPreconditionError(absl::StrCat("approval ", approval.id, " is ",
                                                      ApprovalStatusName(approval.status),
                                                      ": voting is closed"));
  }
  if (approver_has_voted) {
    return absl::AlreadyExistsError(
        absl::StrCat(approver, " has already voted on approval ", approval.id));
  }
  vote.record = true;
  if (!approve) {
    vote.new_status = ApprovalStatus::kDenied;
  } else if (++vote.approval.approvals >= approval.quorum) {
    vote.new_status = ApprovalStatus::kApproved;
  }
  if (vote.new_status) vote.approval.status = *vote.new_status;
  return vote;
}

}  // namespace verdict
