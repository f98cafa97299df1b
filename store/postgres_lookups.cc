#include "store/postgres_lookups.h"

#include <utility>

#include "store/row_readers.h"
#include "store/signing_keys.h"

namespace verdict {
namespace {

template <typename T, typename Read>
absl::StatusOr<std::optional<T>> First(absl::StatusOr<PgResult> rows, Read read) {
  if (!rows.ok()) return rows.status();
  return PgReadFirst<T>(*rows, read);
}

template <typename T, typename Read>
absl::StatusOr<std::vector<T>> All(absl::StatusOr<PgResult> rows, Read read) {
  if (!rows.ok()) return rows.status();
  return PgReadAll<T>(*rows, read);
}

}  // namespace

absl::StatusOr<std::optional<Agent>> PgLookupAgent(PostgresConnection& connection,
                                                   absl::string_view agent_id) {
  return First<Agent>(connection.Execute(PgStatement::kFindAgent, PgParams().Text(agent_id)),
                      ReadAgentColumns<PgRow>);
}

absl::StatusOr<std::optional<Agent>> PgLookupAgentByTokenHash(PostgresConnection& connection,
                                                              absl::string_view token_sha256,
                                                              absl::Time now) {
  absl::StatusOr<std::optional<Agent>> current = First<Agent>(
      connection.Execute(PgStatement::kFindAgentByTokenHash, PgParams().Bytes(token_sha256)),
      ReadAgentColumns<PgRow>);
  if (!current.ok() || current->has_value()) return current;
  return First<Agent>(connection.Execute(PgStatement::kFindAgentByPreviousTokenHash,
                                         PgParams().Bytes(token_sha256).Time(now)),
                      ReadAgentColumns<PgRow>);
}

absl::StatusOr<std::vector<Permission>> PgLookupPermissionsOf(PostgresConnection& connection,
                                                              absl::string_view agent_id) {
  return All<Permission>(connection.Execute(PgStatement::kPermissionsOf, PgParams().Text(agent_id)),
                         ReadPermissionColumns<PgRow>);
}

absl::StatusOr<std::vector<Delegation>> PgLookupActiveDelegationsInto(
    PostgresConnection& connection, absl::string_view agent_id, absl::Time now) {
  return All<Delegation>(
      connection.Execute(PgStatement::kActiveDelegationsInto, PgParams().Text(agent_id).Time(now)),
      ReadDelegationColumns<PgRow>);
}

absl::StatusOr<std::vector<Delegation>> PgLookupActiveDelegationsFrom(
    PostgresConnection& connection, absl::string_view agent_id, absl::Time now) {
  return All<Delegation>(
      connection.Execute(PgStatement::kActiveDelegationsFrom, PgParams().Text(agent_id).Time(now)),
      ReadDelegationColumns<PgRow>);
}

absl::StatusOr<std::optional<ApprovalRequest>> PgLookupOpenApproval(
    PostgresConnection& connection, absl::string_view agent_id, absl::string_view action,
    absl::string_view resource, absl::string_view arguments_hash, absl::Time now) {
  return First<ApprovalRequest>(
      connection.Execute(
          PgStatement::kFindOpenApproval,
          PgParams().Text(agent_id).Text(action).Text(resource).Text(arguments_hash).Time(now)),
      ReadApprovalColumns<PgRow>);
}

absl::StatusOr<std::optional<ApprovalRequest>> PgLookupApproval(PostgresConnection& connection,
                                                                absl::string_view approval_id,
                                                                absl::Time now) {
  return First<ApprovalRequest>(
      connection.Execute(PgStatement::kFindApproval, PgParams().Text(approval_id).Time(now)),
      ReadApprovalColumns<PgRow>);
}

absl::StatusOr<std::optional<Permission>> PgLookupPermission(PostgresConnection& connection,
                                                             absl::string_view permission_id) {
  return First<Permission>(
      connection.Execute(PgStatement::kFindPermission, PgParams().Text(permission_id)),
      ReadPermissionColumns<PgRow>);
}

absl::StatusOr<std::optional<Delegation>> PgLookupDelegation(PostgresConnection& connection,
                                                             absl::string_view delegation_id) {
  return First<Delegation>(
      connection.Execute(PgStatement::kFindDelegation, PgParams().Text(delegation_id)),
      ReadDelegationColumns<PgRow>);
}

absl::StatusOr<std::optional<SigningKey>> PgLookupActiveSigningKey(PostgresConnection& connection,
                                                                   absl::string_view kid) {
  return First<SigningKey>(
      connection.Execute(PgStatement::kFindActiveSigningKey, PgParams().Text(kid)),
      ReadSigningKeyColumns<PgRow>);
}

absl::StatusOr<std::optional<SigningKey>> PgLookupSigningKey(PostgresConnection& connection,
                                                             absl::string_view kid) {
  return First<SigningKey>(connection.Execute(PgStatement::kFindSigningKey, PgParams().Text(kid)),
                           ReadSigningKeyColumns<PgRow>);
}

absl::StatusOr<bool> PgLookupTokenIdRevoked(PostgresConnection& connection, absl::string_view jti) {
  absl::StatusOr<PgResult> rows =
      connection.Execute(PgStatement::kIsTokenIdRevoked, PgParams().Text(jti));
  if (!rows.ok()) return rows.status();
  return rows->size() > 0;
}

absl::StatusOr<int64_t> PgCountPendingApprovals(PostgresConnection& connection,
                                                absl::string_view agent_id, absl::Time now,
                                                int64_t up_to) {
  absl::StatusOr<PgResult> rows = connection.Execute(
      PgStatement::kCountPendingApprovals, PgParams().Text(agent_id).Time(now).Int64(up_to));
  if (!rows.ok()) return rows.status();
  return static_cast<int64_t>(rows->size());
}

absl::StatusOr<int64_t> PgLookupRateCount(PostgresConnection& connection,
                                          absl::string_view agent_id,
                                          absl::string_view permission_id,
                                          int64_t window_start_unix) {
  absl::StatusOr<PgResult> rows =
      connection.Execute(PgStatement::kRateCount,
                         PgParams().Text(agent_id).Text(permission_id).Int64(window_start_unix));
  if (!rows.ok()) return rows.status();
  return rows->size() == 0 ? 0 : rows->row(0).Int64(0);
}

}  // namespace verdict
