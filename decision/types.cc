#include "decision/types.h"

namespace verdict {

// The spellings are the proto's enum value names (verdict.v1.ReasonCode, verdict.v1.Verdict), so
// a name in a log line or a decision row reads the same as on the wire.
const char* ReasonCodeName(ReasonCode code) {
  switch (code) {
    case ReasonCode::kAllowed:
      return "ALLOWED";
    case ReasonCode::kAgentNotFound:
      return "AGENT_NOT_FOUND";
    case ReasonCode::kAgentSuspended:
      return "AGENT_SUSPENDED";
    case ReasonCode::kAgentRevoked:
      return "AGENT_REVOKED";
    case ReasonCode::kAgentExpired:
      return "AGENT_EXPIRED";
    case ReasonCode::kTokenInvalid:
      return "TOKEN_INVALID";
    case ReasonCode::kDeniedByPolicy:
      return "DENIED_BY_POLICY";
    case ReasonCode::kNoMatchingPermission:
      return "NO_MATCHING_PERMISSION";
    case ReasonCode::kOutsideTimeWindow:
      return "OUTSIDE_TIME_WINDOW";
    case ReasonCode::kIpNotAllowed:
      return "IP_NOT_ALLOWED";
    case ReasonCode::kArgumentsRejected:
      return "ARGUMENTS_REJECTED";
    case ReasonCode::kApprovalRequired:
      return "APPROVAL_REQUIRED";
    case ReasonCode::kApprovalDenied:
      return "APPROVAL_DENIED";
    case ReasonCode::kRateLimited:
      return "RATE_LIMITED";
    case ReasonCode::kEvaluationLimit:
      return "EVALUATION_LIMIT";
    case ReasonCode::kTooManyPendingApprovals:
      return "TOO_MANY_PENDING_APPROVALS";
  }
  // Only reachable with a value cast from outside the enum.
  return "REASON_UNSPECIFIED";
}

const char* VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kAllow:
      return "ALLOW";
    case Verdict::kDeny:
      return "DENY";
    case Verdict::kNeedsApproval:
      return "NEEDS_APPROVAL";
  }
  return "VERDICT_UNSPECIFIED";
}

}  // namespace verdict
