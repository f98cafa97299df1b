#include "store/lookups.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "store/ids.h"
#include "store/policy_encoding.h"
#include "store/row_readers.h"
#include "store/signing_keys.h"

namespace verdict {

absl::StatusOr<std::optional<Agent>> LookupAgent(Connection& connection,
                                                 absl::string_view agent_id) {
  return ReadFirst<Agent>(connection.Execute(Statement::kFindAgent, Params().Text(agent_id)),
                          ReadAgentColumns<ResultRow>);
}

absl::StatusOr<std::vector<Permission>> LookupPermissionsOf(Connection& connection,
                                                            absl::string_view agent_id) {
  return ReadAll<Permission>(connection.Execute(Statement::kPermissionsOf, Params().Text(agent_id)),
                             ReadPermissionColumns<ResultRow>);
}

absl::StatusOr<std::vector<Delegation>> LookupActiveDelegationsInto(Connection& connection,
                                                                    absl::string_view agent_id,
                                                                    absl::Time now) {
  return ReadAll<Delegation>(
      connection.Execute(Statement::kActiveDelegationsInto, Params().Text(agent_id).Time(now)),
      ReadDelegationColumns<ResultRow>);
}

absl::StatusOr<std::vector<Delegation>> LookupActiveDelegationsFrom(Connection& connection,
                                                                    absl::string_view agent_id,
                                                                    absl::Time now) {
  return ReadAll<Delegation>(
      connection.Execute(Statement::kActiveDelegationsFrom, Params().Text(agent_id).Time(now)),
      ReadDelegationColumns<ResultRow>);
}

absl::StatusOr<std::optional<ApprovalRequest>> LookupOpenApproval(
    Connection& connection, absl::string_view agent_id, absl::string_view action,
    absl::string_view resource, absl::string_view arguments_hash, absl::Time now) {
  return ReadFirst<ApprovalRequest>(
      connection.Execute(
          Statement::kFindOpenApproval,
          Params().Text(agent_id).Text(action).Text(resource).Text(arguments_hash).Time(now)),
      ReadApprovalColumns<ResultRow>);
}

absl::StatusOr<std::optional<ApprovalRequest>> LookupApproval(Connection& connection,
                                                              absl::string_view approval_id,
                                                              absl::Time now) {
  return ReadFirst<ApprovalRequest>(
      connection.Execute(Statement::kFindApproval, Params().Text(approval_id).Time(now)),
      ReadApprovalColumns<ResultRow>);
}

absl::StatusOr<std::optional<Permission>> LookupPermission(Connection& connection,
                                                           absl::string_view permission_id) {
  return ReadFirst<Permission>(
      connection.Execute(Statement::kFindPermission, Params().Text(permission_id)),
      ReadPermissionColumns<ResultRow>);
}

absl::StatusOr<std::optional<Delegation>> LookupDelegation(Connection& connection,
                                                           absl::string_view delegation_id) {
  return ReadFirst<Delegation>(
      connection.Execute(Statement::kFindDelegation, Params().Text(delegation_id)),
      ReadDelegationColumns<ResultRow>);
}

absl::StatusOr<std::optional<SigningKey>> LookupActiveSigningKey(Connection& connection,
                                                                 absl::string_view kid) {
  return ReadFirst<SigningKey>(
      connection.Execute(Statement::kFindActiveSigningKey, Params().Text(kid)),
      ReadSigningKeyColumns<ResultRow>);
}

absl::StatusOr<std::optional<SigningKey>> LookupSigningKey(Connection& connection,
                                                           absl::string_view kid) {
  return ReadFirst<SigningKey>(connection.Execute(Statement::kFindSigningKey, Params().Text(kid)),
                               ReadSigningKeyColumns<ResultRow>);
}

absl::StatusOr<bool> LookupTokenIdRevoked(Connection& connection, absl::string_view jti) {
  absl::StatusOr<ResultRows> rows =
      connection.Execute(Statement::kIsTokenIdRevoked, Params().Text(jti));
  if (!rows.ok()) return rows.status();
  return rows->size() > 0;
}

absl::StatusOr<int64_t> CountPendingApprovals(Connection& connection, absl::string_view agent_id,
                                              absl::Time now, int64_t up_to) {
  absl::StatusOr<ResultRows> rows = connection.Execute(
      Statement::kCountPendingApprovals, Params().Text(agent_id).Time(now).Int64(up_to));
  if (!rows.ok()) return rows.status();
  return static_cast<int64_t>(rows->size());
}

absl::StatusOr<int64_t> LookupRateCount(Connection& connection, absl::string_view agent_id,
                                        absl::string_view permission_id,
                                        int64_t window_start_unix) {
  absl::StatusOr<ResultRows> rows = connection.Execute(
      Statement::kRateCount, Params().Text(agent_id).Text(permission_id).Int64(window_start_unix));
  if (!rows.ok()) return rows.status();
  return rows->size() == 0 ? 0 : rows->row(0).Int64(0);
}

absl::Status SpendRateOn(Connection& connection, const RateSpend& spend) {
  Params params;
  params.Text(spend.agent_id).Text(spend.permission_id).Int64(spend.window_start_unix);
  if (std::optional<int64_t> kept_until = RateCountKeptUntil(spend)) {
    params.Int64(*kept_until);
  } else {
    params.NullInt64();
  }
  absl::Status spent = connection.Execute(Statement::kSpendRate, params).status();
  const std::optional<int64_t> earliest = EarliestKeptRateWindow(spend);
  if (!spent.ok() || !earliest) return spent;
  return connection
      .Execute(Statement::kForgetEndedRateWindows,
               Params().Text(spend.agent_id).Text(spend.permission_id).Int64(*earliest))
      .status();
}

absl::StatusOr<std::string> OpenApprovalOn(Connection& connection, const ApprovalToOpen& approval,
                                           absl::Time now) {
  std::string id = NewId(kApprovalIdPrefix);
  absl::StatusOr<ResultRows> inserted =
      connection.Execute(Statement::kInsertApproval, Params()
                                                         .Text(id)
                                                         .Text(approval.agent_id)
                                                         .Text(approval.action)
                                                         .Text(approval.resource)
                                                         .Text(approval.arguments_hash)
                                                         .Int64(approval.quorum)
                                                         .Time(approval.expires_at)
                                                         .Time(now));
  if (!inserted.ok()) return inserted.status();
  return id;
}

absl::StatusOr<std::vector<std::string>> ApproversOfOn(Connection& connection,
                                                       absl::string_view approval_id) {
  absl::StatusOr<ResultRows> rows =
      connection.Execute(Statement::kApproversOf, Params().Text(approval_id));
  if (!rows.ok()) return rows.status();
  std::vector<std::string> approvers;
  approvers.reserve(rows->size());
  for (int i = 0; i < rows->size(); ++i) approvers.push_back(rows->row(i).Text(0));
  return approvers;
}

absl::Status UseApprovalOn(Connection& connection, absl::string_view approval_id, absl::Time now) {
  absl::StatusOr<ResultRows> used =
      connection.Execute(Statement::kUseApproval, Params().Text(approval_id).Time(now));
  if (!used.ok()) return used.status();
  if (used->changed_rows() == 1) return absl::OkStatus();
  absl::StatusOr<std::optional<ApprovalRequest>> approval =
      LookupApproval(connection, approval_id, now);
  if (!approval.ok()) return approval.status();
  if (!approval->has_value()) {
    return absl::NotFoundError(absl::StrCat("approval ", approval_id, " does not exist"));
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "approval ", approval_id, " is ", ApprovalStatusName((*approval)->status), ", not approved"));
}

}  // namespace verdict
