// The voting rule of approval requests, as every store applies it.
#include "decision/admin/voting.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

const absl::Time kNow = absl::FromUnixSeconds(1767225600);

ApprovalRequest Pending(int quorum, int approvals = 0) {
  return {.id = "apr_1",
          .quorum = quorum,
          .approvals = approvals,
          .status = ApprovalStatus::kPending,
          .expires_at = kNow + absl::Hours(1)};
}

TEST(Voting, AnApprovalBelowTheQuorumIsRecordedAndLeavesTheRequestPending) {
  absl::StatusOr<Vote> vote = JudgeVote(Pending(2), false, "alice", /*approve=*/true, kNow);
  ASSERT_TRUE(vote.ok()) << vote.status();
  EXPECT_TRUE(vote->record);
  EXPECT_FALSE(vote->new_status.has_value());
  EXPECT_EQ(vote->approval.approvals, 1);
  EXPECT_EQ(vote->approval.status, ApprovalStatus::kPending);
  EXPECT_TRUE(vote->answer.ok());
}

TEST(Voting, TheApprovalThatReachesTheQuorumApproves) {
  absl::StatusOr<Vote> vote = JudgeVote(Pending(2, 1), false, "bob", /*approve=*/true, kNow);
  ASSERT_TRUE(vote.ok()) << vote.status();
  EXPECT_TRUE(vote->record);
  EXPECT_EQ(vote->new_status, ApprovalStatus::kApproved);
  EXPECT_EQ(vote->approval.approvals, 2);
}

TEST(Voting, OneDenyDenies) {
  absl::StatusOr<Vote> vote = JudgeVote(Pending(3, 2), false, "carol", /*approve=*/false, kNow);
  ASSERT_TRUE(vote.ok()) << vote.status();
  EXPECT_TRUE(vote->record);
  EXPECT_EQ(vote->new_status, ApprovalStatus::kDenied);
}

TEST(Voting, ASecondVoteOfTheSameApproverIsAnError) {
  absl::StatusOr<Vote> vote = JudgeVote(Pending(2, 1), /*approver_has_voted=*/true, "alice",
                                        /*approve=*/true, kNow);
  EXPECT_EQ(vote.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(vote.status().message(), HasSubstr("alice has already voted on approval apr_1"));
}

TEST(Voting, AVoteOnAnExpiredRequestIsRefusedAndMarksItExpired) {
  ApprovalRequest expiring = Pending(1);
  expiring.expires_at = kNow;  // its expiry has come
  absl::StatusOr<Vote> vote = JudgeVote(expiring, false, "alice", /*approve=*/true, kNow);
  ASSERT_TRUE(vote.ok()) << vote.status();
  EXPECT_FALSE(vote->record);
  EXPECT_EQ(vote->new_status, ApprovalStatus::kExpired);
  EXPECT_EQ(vote->answer.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(vote->answer.message(), HasSubstr("expired at"));
}

TEST(Voting, AnApprovedRequestPastItsExpiryReadsAsExpired) {
  ApprovalRequest approved = Pending(1, 1);
  approved.status = ApprovalStatus::kApproved;
  EXPECT_FALSE(ApprovalExpiredAt(approved, kNow));
  EXPECT_TRUE(ApprovalExpiredAt(approved, kNow + absl::Hours(1)));
  ApprovalRequest denied = approved;
  denied.status = ApprovalStatus::kDenied;
  EXPECT_FALSE(ApprovalExpiredAt(denied, kNow + absl::Hours(1)));
}

TEST(Voting, NobodyVotesOnARequestThatIsNoLongerPending) {
  for (ApprovalStatus closed :
       {ApprovalStatus::kApproved, ApprovalStatus::kDenied, ApprovalStatus::kUsed}) {
    ApprovalRequest request = Pending(1);
    request.status = closed;
    absl::StatusOr<Vote> vote = JudgeVote(request, false, "alice", /*approve=*/true, kNow);
    EXPECT_EQ(vote.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(vote.status().message(), HasSubstr("voting is closed"));
  }
}

}  // namespace
}  // namespace verdict
