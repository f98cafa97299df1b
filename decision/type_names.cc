#include "decision/type_names.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace verdict {
namespace {

template <typename Enum>
struct Spelling {
  Enum value;
  absl::string_view name;
};

constexpr Spelling<AgentKind> kAgentKinds[] = {
    {AgentKind::kAutonomous, "autonomous"},
    {AgentKind::kDelegated, "delegated"},
    {AgentKind::kService, "service"},
};
constexpr Spelling<AgentStatus> kAgentStatuses[] = {
    {AgentStatus::kActive, "active"},
    {AgentStatus::kSuspended, "suspended"},
    {AgentStatus::kRevoked, "revoked"},
};
constexpr Spelling<Effect> kEffects[] = {
    {Effect::kAllow, "allow"},
    {Effect::kDeny, "deny"},
};
constexpr Spelling<DelegationStatus> kDelegationStatuses[] = {
    {DelegationStatus::kActive, "active"},
    {DelegationStatus::kRevoked, "revoked"},
};
constexpr Spelling<ApprovalStatus> kApprovalStatuses[] = {
    {ApprovalStatus::kPending, "pending"}, {ApprovalStatus::kApproved, "approved"},
    {ApprovalStatus::kDenied, "denied"},   {ApprovalStatus::kExpired, "expired"},
    {ApprovalStatus::kUsed, "used"},
};

template <typename Enum, size_t N>
absl::string_view NameOf(const Spelling<Enum> (&spellings)[N], Enum value) {
  for (const Spelling<Enum>& s : spellings) {
    if (s.value == value) return s.name;
  }
  return "unknown";
}

template <typename Enum, size_t N>
absl::StatusOr<Enum> ValueOf(const Spelling<Enum> (&spellings)[N], absl::string_view what,
                             absl::string_view name) {
  for (const Spelling<Enum>& s : spellings) {
    if (s.name == name) return s.value;
  }
  std::string accepted;
  for (const Spelling<Enum>& s : spellings) {
    absl::StrAppend(&accepted, accepted.empty() ? "" : ", ", s.name);
  }
  return absl::InvalidArgumentError(
      absl::StrCat(what, ": \"", name, "\" is not one of ", accepted));
}

}  // namespace

absl::string_view AgentKindName(AgentKind kind) { return NameOf(kAgentKinds, kind); }
absl::string_view AgentStatusName(AgentStatus status) { return NameOf(kAgentStatuses, status); }
absl::string_view EffectName(Effect effect) { return NameOf(kEffects, effect); }
absl::string_view DelegationStatusName(DelegationStatus status) {
  return NameOf(kDelegationStatuses, status);
}
absl::string_view ApprovalStatusName(ApprovalStatus status) {
  return NameOf(kApprovalStatuses, status);
}

absl::StatusOr<AgentKind> ParseAgentKind(absl::string_view name) {
  return ValueOf(kAgentKinds, "agent kind", name);
}
absl::StatusOr<AgentStatus> ParseAgentStatus(absl::string_view name) {
  return ValueOf(kAgentStatuses, "agent status", name);
}
absl::StatusOr<Effect> ParseEffect(absl::string_view name) {
  return ValueOf(kEffects, "effect", name);
}
absl::StatusOr<DelegationStatus> ParseDelegationStatus(absl::string_view name) {
  return ValueOf(kDelegationStatuses, "delegation status", name);
}
absl::StatusOr<ApprovalStatus> ParseApprovalStatus(absl::string_view name) {
  return ValueOf(kApprovalStatuses, "approval status", name);
}

}  // namespace verdict
