#include "store/database_store.h"

#include <optional>
#include <utility>

#include "store/statements.h"

namespace verdict {

absl::Status DatabaseStore::RunAdminTransaction(
    TransactionKind kind, absl::FunctionRef<absl::Status(AdminTransaction&)> body) {
  return database_.InTransaction(
      kind, [&](Connection& connection) { return body(*AdminTransactionOn(connection)); });
}

absl::StatusOr<PrunedRows> DatabaseStore::PruneDeadRows(const PruneLimits& limits, absl::Time now) {
  return Prune(limits, now);
}

absl::StatusOr<PrunedRows> DatabaseStore::PruneDeadRowsByDatabaseClock(const PruneLimits& limits) {
  return Prune(limits, std::nullopt);
}

absl::StatusOr<PrunedRows> DatabaseStore::Prune(const PruneLimits& limits,
                                                std::optional<absl::Time> given_now) {
  if (absl::Status valid = CheckPruneLimits(limits); !valid.ok()) return valid;
  PrunedRows pruned;
  absl::Status status =
      prune_database_.InTransaction(TransactionKind::kLockFreeWrite, [&](Connection& connection) {
        absl::Time now;
        if (given_now.has_value()) {
          now = *given_now;
        } else if (GetStatementSql(Statement::kDatabaseClock, connection.dialect()).sql ==
                   nullptr) {
          now = clock_();  // the database is a file of this host: its clock is the host's
        } else {
          absl::StatusOr<ResultRows> clock =
              connection.Execute(Statement::kDatabaseClock, Params());
          if (!clock.ok()) return clock.status();
          if (clock->size() != 1) return absl::InternalError("the database's clock read no row");
          now = clock->row(0).Time(0);
        }
        absl::StatusOr<ResultRows> approvals = connection.Execute(
            Statement::kPruneApprovals,
            Params().Time(now - limits.approval_retention).Int64(limits.max_rows));
        if (!approvals.ok()) return approvals.status();
        pruned.approvals = approvals->changed_rows();
        absl::StatusOr<ResultRows> counters =
            connection.Execute(Statement::kPruneRateCounters,
                               Params().Int64(absl::ToUnixSeconds(now)).Int64(limits.max_rows));
        if (!counters.ok()) return counters.status();
        pruned.rate_counters = counters->changed_rows();
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return pruned;
}

absl::Status DatabaseStore::CheckAvailable() { return IsEmpty().status(); }

std::unique_ptr<PolicyAdmin> DatabaseStore::WithCancel(CancelToken cancel) {
  return admin_.WithCancel(std::move(cancel));
}

absl::StatusOr<CreatedAgent> DatabaseStore::CreateAgent(const NewAgent& agent) {
  return admin_.CreateAgent(agent);
}

absl::StatusOr<Agent> DatabaseStore::GetAgent(absl::string_view agent_id) {
  return admin_.GetAgent(agent_id);
}

absl::StatusOr<AgentPage> DatabaseStore::ListAgents(const PageRequest& page) {
  return admin_.ListAgents(page);
}

absl::StatusOr<Agent> DatabaseStore::SetAgentStatus(absl::string_view agent_id,
                                                    AgentStatus status) {
  return admin_.SetAgentStatus(agent_id, status);
}

absl::StatusOr<RotatedToken> DatabaseStore::RotateToken(absl::string_view agent_id,
                                                        absl::Duration grace) {
  return admin_.RotateToken(agent_id, grace);
}

absl::StatusOr<Permission> DatabaseStore::GrantPermission(const NewPermission& permission) {
  return admin_.GrantPermission(permission);
}

absl::Status DatabaseStore::RevokePermission(absl::string_view permission_id) {
  return admin_.RevokePermission(permission_id);
}

absl::StatusOr<Delegation> DatabaseStore::CreateDelegation(const NewDelegation& delegation) {
  return admin_.CreateDelegation(delegation);
}

absl::Status DatabaseStore::RevokeDelegation(absl::string_view delegation_id) {
  return admin_.RevokeDelegation(delegation_id);
}

absl::StatusOr<ApprovalPage> DatabaseStore::ListApprovals(std::optional<ApprovalStatus> status,
                                                          const PageRequest& page) {
  return admin_.ListApprovals(status, page);
}

absl::StatusOr<ApprovalRequest> DatabaseStore::GetApproval(absl::string_view approval_id) {
  return admin_.GetApproval(approval_id);
}

absl::StatusOr<ApprovalRequest> DatabaseStore::VoteOnApproval(absl::string_view approval_id,
                                                              absl::string_view approver,
                                                              bool approve, absl::Time now) {
  return admin_.VoteOnApproval(approval_id, approver, approve, now);
}

absl::StatusOr<PolicyContents> DatabaseStore::ExportPolicy() { return admin_.ExportPolicy(); }

absl::Status DatabaseStore::ImportPolicy(const PolicyContents& policy) {
  return admin_.ImportPolicy(policy);
}

absl::StatusOr<bool> DatabaseStore::IsEmpty() { return admin_.IsEmpty(); }

absl::Status DatabaseStore::RevokeTokenId(absl::string_view jti, absl::Time expires_at) {
  return admin_.RevokeTokenId(jti, expires_at);
}

absl::StatusOr<SigningKey> DatabaseStore::AddSigningKey(const NewSigningKey& key) {
  return admin_.AddSigningKey(key);
}

absl::StatusOr<SigningKey> DatabaseStore::RotateSigningKey(const NewSigningKey& key) {
  return admin_.RotateSigningKey(key);
}

absl::StatusOr<SigningKey> DatabaseStore::RetireSigningKey(absl::string_view kid) {
  return admin_.RetireSigningKey(kid);
}

absl::StatusOr<std::vector<SigningKey>> DatabaseStore::ListSigningKeys() {
  return admin_.ListSigningKeys();
}

}  // namespace verdict
