#include "decision/admin/change_rules.h"

#include "absl/strings/str_cat.h"
#include "decision/type_names.h"

namespace verdict {

absl::StatusOr<std::optional<absl::Time>> PreviousTokenValidUntil(absl::Duration grace,
                                                                  absl::Time now) {
  if (grace < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("grace: must not be negative");
  }
  if (grace == absl::ZeroDuration()) return std::nullopt;
  // The last time an answer can carry (google.protobuf.Timestamp ends with the year 9999).
  static const absl::Time kLatest = absl::FromUnixSeconds(253402300799);
  const absl::Time until = now + grace;
  if (until > kLatest) {
    return absl::InvalidArgumentError("grace: must end by 9999-12-31T23:59:59Z");
  }
  return until;
}

absl::StatusOr<bool> StatusChangeNeeded(const Agent& agent, AgentStatus wanted) {
  if (agent.status == wanted) return false;
  if (agent.status == AgentStatus::kRevoked) {
    return absl::FailedPreconditionError(
        absl::StrCat("agent ", agent.id, " is revoked, and revocation is final: it cannot become ",
                     AgentStatusName(wanted)));
  }
  return true;
}

absl::Status CheckTokenRotatable(const Agent& agent) {
  if (agent.status == AgentStatus::kRevoked) {
    return absl::FailedPreconditionError(
        absl::StrCat("agent ", agent.id, " is revoked: its token cannot be rotated"));
  }
  return absl::OkStatus();
}

absl::Status CheckGrantable(const Agent& agent) {
  if (agent.status == AgentStatus::kRevoked) {
    return absl::FailedPreconditionError(
        absl::StrCat("agent ", agent.id, " is revoked: it cannot be granted anything"));
  }
  return absl::OkStatus();
}

absl::Status CheckDelegationParties(const Agent& from, const Agent& to, absl::Time now) {
  if (from.status != AgentStatus::kActive || from.expires_at <= now) {
    return absl::FailedPreconditionError(
        absl::StrCat("delegator ", from.id, " is ",
                     from.status != AgentStatus::kActive ? AgentStatusName(from.status) : "expired",
                     ": it cannot lend anything"));
  }
  if (to.status == AgentStatus::kRevoked) {
    return absl::FailedPreconditionError(
        absl::StrCat("delegate ", to.id, " is revoked: it cannot be lent anything"));
  }
  return absl::OkStatus();
}

absl::Status ImportNeedsEmptyStore() {
  return absl::FailedPreconditionError(
      "the store already holds a policy: import only into an empty store");
}

}  // namespace verdict
