#include "store/sqlite_lookups.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "store/policy_encoding.h"

namespace verdict {
namespace {

// A stored value that does not decode means the file was written by something else or is
// damaged: refuse (INTERNAL) rather than decide on a guess.
absl::Status CorruptRow(absl::string_view table, absl::string_view id,
                        const absl::Status& problem) {
  return absl::InternalError(
      absl::StrCat("policy store: ", table, " row ", id, " is invalid: ", problem.message()));
}

}  // namespace

absl::StatusOr<Agent> ReadAgentRow(const ScopedStatement& row) {
  Agent agent;
  agent.id = row.Text(0);
  agent.owner = row.Text(1);
  agent.name = row.Text(2);
  absl::StatusOr<AgentKind> kind = ParseAgentKind(row.TextView(3));
  if (!kind.ok()) return CorruptRow("agents", agent.id, kind.status());
  agent.kind = *kind;
  absl::StatusOr<AgentStatus> status = ParseAgentStatus(row.TextView(4));
  if (!status.ok()) return CorruptRow("agents", agent.id, status.status());
  agent.status = *status;
  agent.expires_at = row.Time(5);
  agent.token_prefix = row.Text(6);
  agent.created_at = row.Time(7);
  agent.updated_at = row.Time(8);
  return agent;
}

absl::StatusOr<Permission> ReadPermissionRow(const ScopedStatement& row) {
  Permission permission;
  permission.id = row.Text(0);
  permission.agent_id = row.Text(1);
  permission.resource = row.Text(2);
  permission.actions = SplitActions(row.TextView(3));
  absl::StatusOr<Effect> effect = ParseEffect(row.TextView(4));
  if (!effect.ok()) return CorruptRow("permissions", permission.id, effect.status());
  permission.effect = *effect;
  permission.constraints_json = row.Text(5);
  permission.created_at = row.Time(6);
  return permission;
}

absl::StatusOr<Delegation> ReadDelegationRow(const ScopedStatement& row) {
  Delegation delegation;
  delegation.id = row.Text(0);
  delegation.from_agent_id = row.Text(1);
  delegation.to_agent_id = row.Text(2);
  absl::StatusOr<std::vector<LentPermission>> lent = DecodeLentPermissions(row.TextView(3));
  if (!lent.ok()) return CorruptRow("delegations", delegation.id, lent.status());
  delegation.permissions = *std::move(lent);
  delegation.max_depth = static_cast<int>(row.Int64(4));
  absl::StatusOr<DelegationStatus> status = ParseDelegationStatus(row.TextView(5));
  if (!status.ok()) return CorruptRow("delegations", delegation.id, status.status());
  delegation.status = *status;
  delegation.expires_at = row.Time(6);
  delegation.created_at = row.Time(7);
  return delegation;
}

absl::StatusOr<ApprovalRequest> ReadApprovalRow(const ScopedStatement& row) {
  ApprovalRequest approval;
  approval.id = row.Text(0);
  approval.agent_id = row.Text(1);
  approval.action = row.Text(2);
  approval.resource = row.Text(3);
  approval.arguments_hash = row.Text(4);
  approval.quorum = static_cast<int>(row.Int64(5));
  approval.approvals = static_cast<int>(row.Int64(6));
  absl::StatusOr<ApprovalStatus> status = ParseApprovalStatus(row.TextView(7));
  if (!status.ok()) return CorruptRow("approval_requests", approval.id, status.status());
  approval.status = *status;
  approval.expires_at = row.Time(8);
  approval.created_at = row.Time(9);
  return approval;
}

absl::StatusOr<std::optional<Agent>> LookupAgent(SqliteConnection& connection,
                                                 absl::string_view agent_id) {
  ScopedStatement find = connection.Use(StatementId::kFindAgent);
  find.BindText(1, agent_id);
  return ReadFirstRow<Agent>(find, ReadAgentRow);
}

absl::StatusOr<std::optional<Agent>> LookupAgentByTokenHash(SqliteConnection& connection,
                                                            absl::string_view token_sha256,
                                                            absl::Time now) {
  {
    ScopedStatement current = connection.Use(StatementId::kFindAgentByTokenHash);
    current.BindBlob(1, token_sha256);
    absl::StatusOr<std::optional<Agent>> agent = ReadFirstRow<Agent>(current, ReadAgentRow);
    if (!agent.ok() || agent->has_value()) return agent;
  }
  ScopedStatement previous = connection.Use(StatementId::kFindAgentByPreviousTokenHash);
  previous.BindBlob(1, token_sha256);
  previous.BindTime(2, now);
  return ReadFirstRow<Agent>(previous, ReadAgentRow);
}

absl::StatusOr<std::vector<Permission>> LookupPermissionsOf(SqliteConnection& connection,
                                                            absl::string_view agent_id) {
  ScopedStatement list = connection.Use(StatementId::kPermissionsOf);
  list.BindText(1, agent_id);
  return ReadAllRows<Permission>(list, ReadPermissionRow);
}

absl::StatusOr<std::vector<Delegation>> LookupActiveDelegationsInto(SqliteConnection& connection,
                                                                    absl::string_view agent_id,
                                                                    absl::Time now) {
  ScopedStatement list = connection.Use(StatementId::kActiveDelegationsInto);
  list.BindText(1, agent_id);
  list.BindTime(2, now);
  return ReadAllRows<Delegation>(list, ReadDelegationRow);
}

absl::StatusOr<std::vector<Delegation>> LookupActiveDelegationsFrom(SqliteConnection& connection,
                                                                    absl::string_view agent_id,
                                                                    absl::Time now) {
  ScopedStatement list = connection.Use(StatementId::kActiveDelegationsFrom);
  list.BindText(1, agent_id);
  list.BindTime(2, now);
  return ReadAllRows<Delegation>(list, ReadDelegationRow);
}

absl::StatusOr<std::optional<ApprovalRequest>> LookupOpenApproval(
    SqliteConnection& connection, absl::string_view agent_id, absl::string_view action,
    absl::string_view resource, absl::string_view arguments_hash, absl::Time now) {
  ScopedStatement find = connection.Use(StatementId::kFindOpenApproval);
  find.BindText(1, agent_id);
  find.BindText(2, action);
  find.BindText(3, resource);
  find.BindText(4, arguments_hash);
  find.BindTime(9, now);
  return ReadFirstRow<ApprovalRequest>(find, ReadApprovalRow);
}

absl::StatusOr<std::optional<ApprovalRequest>> LookupApproval(SqliteConnection& connection,
                                                              absl::string_view approval_id,
                                                              absl::Time now) {
  ScopedStatement find = connection.Use(StatementId::kFindApproval);
  find.BindText(1, approval_id);
  find.BindTime(9, now);
  return ReadFirstRow<ApprovalRequest>(find, ReadApprovalRow);
}

absl::StatusOr<std::optional<Permission>> LookupPermission(SqliteConnection& connection,
                                                           absl::string_view permission_id) {
  ScopedStatement find = connection.Use(StatementId::kFindPermission);
  find.BindText(1, permission_id);
  return ReadFirstRow<Permission>(find, ReadPermissionRow);
}

absl::StatusOr<std::optional<Delegation>> LookupDelegation(SqliteConnection& connection,
                                                           absl::string_view delegation_id) {
  ScopedStatement find = connection.Use(StatementId::kFindDelegation);
  find.BindText(1, delegation_id);
  return ReadFirstRow<Delegation>(find, ReadDelegationRow);
}

absl::StatusOr<int64_t> LookupRateCount(SqliteConnection& connection,
                                        absl::string_view permission_id,
                                        int64_t window_start_unix) {
  ScopedStatement find = connection.Use(StatementId::kRateCount);
  find.BindText(1, permission_id);
  find.BindInt64(2, window_start_unix);
  return find.Step() ? find.Int64(0) : 0;
}

}  // namespace verdict
