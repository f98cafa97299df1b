// The one spelling of each policy enum ("active", "allow", "pending", ...), shared by storage,
// the policy JSON, the admin rules' messages and the CLI. Pure: no I/O.
//
//   absl::string_view name = ApprovalStatusName(ApprovalStatus::kExpired);  // "expired"
//   absl::StatusOr<AgentStatus> s = ParseAgentStatus("suspended");
#ifndef VERDICT_DECISION_TYPE_NAMES_H_
#define VERDICT_DECISION_TYPE_NAMES_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "decision/types.h"

namespace verdict {

absl::string_view AgentKindName(AgentKind kind);                  // "autonomous" ...
absl::string_view AgentStatusName(AgentStatus status);            // "active" ...
absl::string_view EffectName(Effect effect);                      // "allow" | "deny"
absl::string_view DelegationStatusName(DelegationStatus status);  // "active" | "revoked"
absl::string_view ApprovalStatusName(ApprovalStatus status);      // "pending" ...

// INVALID_ARGUMENT naming the accepted spellings when `name` is none of them.
absl::StatusOr<AgentKind> ParseAgentKind(absl::string_view name);
absl::StatusOr<AgentStatus> ParseAgentStatus(absl::string_view name);
absl::StatusOr<Effect> ParseEffect(absl::string_view name);
absl::StatusOr<DelegationStatus> ParseDelegationStatus(absl::string_view name);
absl::StatusOr<ApprovalStatus> ParseApprovalStatus(absl::string_view name);

}  // namespace verdict

#endif  // VERDICT_DECISION_TYPE_NAMES_H_
