#include "decision/types.h"

#include <string>

#include "gtest/gtest.h"

namespace verdict {
namespace {

TEST(ReasonCodeName, EveryCodeIsSpelledAsInTheProto) {
  const struct {
    ReasonCode code;
    std::string name;
  } kCases[] = {
      {ReasonCode::kAllowed, "ALLOWED"},
      {ReasonCode::kAgentNotFound, "AGENT_NOT_FOUND"},
      {ReasonCode::kAgentSuspended, "AGENT_SUSPENDED"},
      {ReasonCode::kAgentRevoked, "AGENT_REVOKED"},
      {ReasonCode::kAgentExpired, "AGENT_EXPIRED"},
      {ReasonCode::kTokenInvalid, "TOKEN_INVALID"},
      {ReasonCode::kDeniedByPolicy, "DENIED_BY_POLICY"},
      {ReasonCode::kNoMatchingPermission, "NO_MATCHING_PERMISSION"},
      {ReasonCode::kOutsideTimeWindow, "OUTSIDE_TIME_WINDOW"},
      {ReasonCode::kIpNotAllowed, "IP_NOT_ALLOWED"},
      {ReasonCode::kArgumentsRejected, "ARGUMENTS_REJECTED"},
      {ReasonCode::kApprovalRequired, "APPROVAL_REQUIRED"},
      {ReasonCode::kApprovalDenied, "APPROVAL_DENIED"},
      {ReasonCode::kRateLimited, "RATE_LIMITED"},
      {ReasonCode::kTooManyPendingApprovals, "TOO_MANY_PENDING_APPROVALS"},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(ReasonCodeName(c.code), c.name);
  }
}

TEST(VerdictName, EveryVerdictIsSpelledAsInTheProto) {
  EXPECT_EQ(std::string(VerdictName(Verdict::kAllow)), "ALLOW");
  EXPECT_EQ(std::string(VerdictName(Verdict::kDeny)), "DENY");
  EXPECT_EQ(std::string(VerdictName(Verdict::kNeedsApproval)), "NEEDS_APPROVAL");
}

// Spending in a window keeps that window and the previous one: older counts are never read.
TEST(EarliestKeptRateWindow, IsThePreviousWindowsStartOrNoneWhenTheLengthIsUnknown) {
  EXPECT_EQ(EarliestKeptRateWindow(
                {.permission_id = "p", .window_start_unix = 120, .limit = 5, .window_seconds = 60}),
            60);
  EXPECT_EQ(EarliestKeptRateWindow({.permission_id = "p", .window_start_unix = 120, .limit = 5}),
            std::nullopt);
}

}  // namespace
}  // namespace verdict
