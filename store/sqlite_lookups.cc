#include "store/sqlite_lookups.h"

#include <utility>

#include "store/row_readers.h"

namespace verdict {
namespace {

// The first row's columns into `record`, overwriting its strings in place; false when there is
// no row.
bool ReadFirstDecisionRecord(ScopedStatement& statement, DecisionRecord& record) {
  if (!statement.Step()) return false;
  AssignText(record.agent, statement.TextView(0));
  AssignText(record.permissions, statement.TextView(1));
  AssignText(record.delegations_into, statement.TextView(2));
  return true;
}

}  // namespace

bool LookupDecisionRecord(SqliteConnection& connection, absl::string_view agent_id,
                          DecisionRecord& record) {
  ScopedStatement find = connection.Use(StatementId::kFindDecisionRecord);
  find.BindText(1, agent_id);
  return ReadFirstDecisionRecord(find, record);
}

// Asked for the previous token only when no current token matches: one unique-index search
// each, cheaper than one statement with OR.
bool LookupDecisionRecordByTokenHash(SqliteConnection& connection, absl::string_view token_sha256,
                                     absl::Time now, DecisionRecord& record) {
  {
    ScopedStatement current = connection.Use(StatementId::kFindDecisionRecordByTokenHash);
    current.BindBlob(1, token_sha256);
    if (ReadFirstDecisionRecord(current, record)) return true;
  }
  ScopedStatement previous = connection.Use(StatementId::kFindDecisionRecordByPreviousTokenHash);
  previous.BindBlob(1, token_sha256);
  previous.BindTime(2, now);
  return ReadFirstDecisionRecord(previous, record);
}

absl::StatusOr<std::optional<Agent>> LookupAgent(SqliteConnection& connection,
                                                 absl::string_view agent_id) {
  ScopedStatement find = connection.Use(StatementId::kFindAgent);
  find.BindText(1, agent_id);
  return ReadFirstRow<Agent>(find, ReadAgentColumns<ScopedStatement>);
}

absl::StatusOr<std::vector<Permission>> LookupPermissionsOf(SqliteConnection& connection,
                                                            absl::string_view agent_id) {
  ScopedStatement list = connection.Use(StatementId::kPermissionsOf);
  list.BindText(1, agent_id);
  return ReadAllRows<Permission>(list, ReadPermissionColumns<ScopedStatement>);
}

absl::StatusOr<std::vector<Delegation>> LookupActiveDelegationsInto(SqliteConnection& connection,
                                                                    absl::string_view agent_id,
                                                                    absl::Time now) {
  ScopedStatement list = connection.Use(StatementId::kActiveDelegationsInto);
  list.BindText(1, agent_id);
  list.BindTime(2, now);
  return ReadAllRows<Delegation>(list, ReadDelegationColumns<ScopedStatement>);
}

absl::StatusOr<std::vector<Delegation>> LookupActiveDelegationsFrom(SqliteConnection& connection,
                                                                    absl::string_view agent_id,
                                                                    absl::Time now) {
  ScopedStatement list = connection.Use(StatementId::kActiveDelegationsFrom);
  list.BindText(1, agent_id);
  list.BindTime(2, now);
  return ReadAllRows<Delegation>(list, ReadDelegationColumns<ScopedStatement>);
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
  return ReadFirstRow<ApprovalRequest>(find, ReadApprovalColumns<ScopedStatement>);
}

absl::StatusOr<std::optional<ApprovalRequest>> LookupApproval(SqliteConnection& connection,
                                                              absl::string_view approval_id,
                                                              absl::Time now) {
  ScopedStatement find = connection.Use(StatementId::kFindApproval);
  find.BindText(1, approval_id);
  find.BindTime(9, now);
  return ReadFirstRow<ApprovalRequest>(find, ReadApprovalColumns<ScopedStatement>);
}

absl::StatusOr<std::optional<Permission>> LookupPermission(SqliteConnection& connection,
                                                           absl::string_view permission_id) {
  ScopedStatement find = connection.Use(StatementId::kFindPermission);
  find.BindText(1, permission_id);
  return ReadFirstRow<Permission>(find, ReadPermissionColumns<ScopedStatement>);
}

absl::StatusOr<std::optional<Delegation>> LookupDelegation(SqliteConnection& connection,
                                                           absl::string_view delegation_id) {
  ScopedStatement find = connection.Use(StatementId::kFindDelegation);
  find.BindText(1, delegation_id);
  return ReadFirstRow<Delegation>(find, ReadDelegationColumns<ScopedStatement>);
}

absl::StatusOr<int64_t> LookupRateCount(SqliteConnection& connection, absl::string_view agent_id,
                                        absl::string_view permission_id,
                                        int64_t window_start_unix) {
  ScopedStatement find = connection.Use(StatementId::kRateCount);
  find.BindText(1, agent_id);
  find.BindText(2, permission_id);
  find.BindInt64(3, window_start_unix);
  return find.Step() ? find.Int64(0) : 0;
}

absl::StatusOr<int64_t> CountPendingApprovals(SqliteConnection& connection,
                                              absl::string_view agent_id, absl::Time now,
                                              int64_t up_to) {
  ScopedStatement find = connection.Use(StatementId::kCountPendingApprovals);
  find.BindText(1, agent_id);
  find.BindTime(2, now);
  find.BindInt64(3, up_to);
  int64_t pending = 0;
  while (find.Step()) ++pending;
  return pending;
}

}  // namespace verdict
