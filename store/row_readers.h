// Reading the policy model from a result row, for any store whose row type offers
// Text(column) (a std::string or an absl::string_view), Int64(column) and Time(column) (NULL as
// absl::InfiniteFuture()): the SQLite store's ScopedStatement, the PostgreSQL store's PgRow and
// the decision records' fields (store/decision_record.cc). The columns are the lists every
// store's statements select, in this order:
//   agent:      VERDICT_AGENT_COLUMNS (below): the nine a decision reads, then the admin plane's
//   permission: id, agent_id, resource, actions, effect, constraints, created_at
//   delegation: id, from_agent_id, to_agent_id, permissions, max_depth, status, expires_at,
//               created_at
//   approval:   id, agent_id, action, resource, arguments_hash, quorum, approvals, status,
//               expires_at, created_at
// A stored value that does not decode means the database was written by something else or is
// damaged: INTERNAL, never a guess.
//
//   absl::StatusOr<Agent> agent = ReadAgentColumns(row);
#ifndef VERDICT_STORE_ROW_READERS_H_
#define VERDICT_STORE_ROW_READERS_H_

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "decision/types.h"
#include "store/policy_encoding.h"

// An agent's columns, in the order the statements select and insert them
// (store/statements.cc): the nine a decision reads (ReadAgentColumnsInto: SQLite's decision
// records hold these), then the descriptive ones (decision/types.h's VERDICT_AGENT_TEXT_COLUMNS),
// which only the admin plane reads.
#define VERDICT_AGENT_TEXT_COLUMN_SQL(name, help) ", " #name
#define VERDICT_AGENT_COLUMNS                                             \
  "id, owner, name, kind, status, expires_at, token_prefix, created_at, " \
  "updated_at" VERDICT_AGENT_TEXT_COLUMNS(VERDICT_AGENT_TEXT_COLUMN_SQL)

namespace verdict {

inline constexpr int kDecisionAgentColumnCount = 9;
inline constexpr int kAgentColumnCount =
    kDecisionAgentColumnCount + static_cast<int>(std::size(kAgentTextColumns<Agent>));

inline absl::Status CorruptRow(absl::string_view table, absl::string_view id,
                               const absl::Status& problem) {
  return absl::InternalError(
      absl::StrCat("policy store: ", table, " row ", id, " is invalid: ", problem.message()));
}

// Sets `out` to a column's text, reusing its storage: a row gives its text as a std::string
// or, when the text outlives the call, as a view.
inline void AssignText(std::string& out, std::string&& text) { out = std::move(text); }
inline void AssignText(std::string& out, absl::string_view text) {
  // clear + append: std::string::assign goes through the general replace, which handles
  // overlapping text at a cost the decision records pay dozens of times per decision.
  out.clear();
  out.append(text.data(), text.size());
}

// The readers that fill a row the caller already holds overwrite its strings and vectors in
// place, so a row decoded again into the same object allocates nothing new
// (store/decision_record.h).
template <typename Row>
absl::Status ReadAgentColumnsInto(const Row& row, Agent& agent) {
  AssignText(agent.id, row.Text(0));
  AssignText(agent.owner, row.Text(1));
  AssignText(agent.name, row.Text(2));
  absl::StatusOr<AgentKind> kind = ParseAgentKind(row.Text(3));
  if (!kind.ok()) return CorruptRow("agents", agent.id, kind.status());
  agent.kind = *kind;
  absl::StatusOr<AgentStatus> status = ParseAgentStatus(row.Text(4));
  if (!status.ok()) return CorruptRow("agents", agent.id, status.status());
  agent.status = *status;
  agent.expires_at = row.Time(5);
  AssignText(agent.token_prefix, row.Text(6));
  agent.created_at = row.Time(7);
  agent.updated_at = row.Time(8);
  return absl::OkStatus();
}

// Every column of VERDICT_AGENT_COLUMNS.
template <typename Row>
absl::StatusOr<Agent> ReadAgentColumns(const Row& row) {
  Agent agent;
  absl::Status read = ReadAgentColumnsInto(row, agent);
  if (!read.ok()) return read;
  int column = kDecisionAgentColumnCount;
  for (const AgentTextColumn<Agent>& text : kAgentTextColumns<Agent>) {
    AssignText(agent.*text.member, row.Text(column++));
  }
  return agent;
}

// An agent's VERDICT_AGENT_COLUMNS added to `first` (store/connection.h's Params, holding $1).
template <typename Params>
Params AgentParams(Params first, const Agent& agent) {
  first.Text(agent.id)
      .Text(agent.owner)
      .Text(agent.name)
      .Text(AgentKindName(agent.kind))
      .Text(AgentStatusName(agent.status))
      .Time(agent.expires_at)
      .Text(agent.token_prefix)
      .Time(agent.created_at)
      .Time(agent.updated_at);
  for (const AgentTextColumn<Agent>& text : kAgentTextColumns<Agent>) {
    first.Text(agent.*text.member);
  }
  return first;
}

template <typename Row>
absl::Status ReadPermissionColumnsInto(const Row& row, Permission& permission) {
  AssignText(permission.id, row.Text(0));
  AssignText(permission.agent_id, row.Text(1));
  AssignText(permission.resource, row.Text(2));
  SplitActionsInto(row.Text(3), permission.actions);
  // A permission that could match nothing is not a guess to make quietly: a deny read that way
  // would stop denying.
  if (permission.resource.empty() || permission.actions.empty() ||
      std::any_of(permission.actions.begin(), permission.actions.end(),
                  [](const std::string& action) { return action.empty(); })) {
    return CorruptRow("permissions", permission.id,
                      absl::InvalidArgumentError("an empty resource pattern or action"));
  }
  absl::StatusOr<Effect> effect = ParseEffect(row.Text(4));
  if (!effect.ok()) return CorruptRow("permissions", permission.id, effect.status());
  permission.effect = *effect;
  AssignText(permission.constraints_json, row.Text(5));
  permission.created_at = row.Time(6);
  return absl::OkStatus();
}

template <typename Row>
absl::StatusOr<Permission> ReadPermissionColumns(const Row& row) {
  Permission permission;
  absl::Status read = ReadPermissionColumnsInto(row, permission);
  if (!read.ok()) return read;
  return permission;
}

template <typename Row>
absl::Status ReadDelegationColumnsInto(const Row& row, Delegation& delegation) {
  AssignText(delegation.id, row.Text(0));
  AssignText(delegation.from_agent_id, row.Text(1));
  AssignText(delegation.to_agent_id, row.Text(2));
  absl::Status lent = DecodeLentPermissionsInto(row.Text(3), delegation.permissions);
  if (!lent.ok()) return CorruptRow("delegations", delegation.id, lent);
  delegation.max_depth = static_cast<int>(row.Int64(4));
  absl::StatusOr<DelegationStatus> status = ParseDelegationStatus(row.Text(5));
  if (!status.ok()) return CorruptRow("delegations", delegation.id, status.status());
  delegation.status = *status;
  delegation.expires_at = row.Time(6);
  delegation.created_at = row.Time(7);
  return absl::OkStatus();
}

template <typename Row>
absl::StatusOr<Delegation> ReadDelegationColumns(const Row& row) {
  Delegation delegation;
  absl::Status read = ReadDelegationColumnsInto(row, delegation);
  if (!read.ok()) return read;
  return delegation;
}

template <typename Row>
absl::StatusOr<ApprovalRequest> ReadApprovalColumns(const Row& row) {
  ApprovalRequest approval;
  approval.id = row.Text(0);
  approval.agent_id = row.Text(1);
  approval.action = row.Text(2);
  approval.resource = row.Text(3);
  approval.arguments_hash = row.Text(4);
  approval.quorum = static_cast<int>(row.Int64(5));
  approval.approvals = static_cast<int>(row.Int64(6));
  absl::StatusOr<ApprovalStatus> status = ParseApprovalStatus(row.Text(7));
  if (!status.ok()) return CorruptRow("approval_requests", approval.id, status.status());
  approval.status = *status;
  approval.expires_at = row.Time(8);
  approval.created_at = row.Time(9);
  return approval;
}

}  // namespace verdict

#endif  // VERDICT_STORE_ROW_READERS_H_
