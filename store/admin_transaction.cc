#include "store/admin_transaction.h"

#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "store/admin_audit_log.h"
#include "store/admin_credentials.h"
#include "store/ids.h"
#include "store/lookups.h"
#include "store/policy_encoding.h"
#include "store/row_readers.h"
#include "store/signing_keys.h"

namespace verdict {
namespace {

class ConnectionAdminTransaction final : public AdminTransaction {
 public:
  explicit ConnectionAdminTransaction(Connection& connection) : c_(connection) {}

  absl::StatusOr<std::optional<Agent>> FindAgent(absl::string_view agent_id) override {
    return LookupAgent(c_, agent_id);
  }
  absl::StatusOr<std::optional<Permission>> FindPermission(
      absl::string_view permission_id) override {
    return LookupPermission(c_, permission_id);
  }
  absl::StatusOr<std::optional<Delegation>> FindDelegation(
      absl::string_view delegation_id) override {
    return LookupDelegation(c_, delegation_id);
  }
  absl::StatusOr<std::optional<ApprovalRequest>> FindApproval(absl::string_view approval_id,
                                                              absl::Time now) override {
    return LookupApproval(c_, approval_id, now);
  }

  absl::StatusOr<std::vector<Agent>> ListAgents(absl::string_view after_id,
                                                int64_t limit) override {
    return ReadAll<Agent>(c_.Execute(Statement::kListAgents, Params().Text(after_id).Int64(limit)),
                          ReadAgentColumns<ResultRow>);
  }
  absl::StatusOr<std::vector<ApprovalRequest>> ListApprovals(const ApprovalPageStart& start,
                                                             std::optional<ApprovalStatus> status,
                                                             int64_t limit,
                                                             absl::Time now) override {
    Params params;
    params.Int64(start.after_created_micros).Text(start.after_id);
    if (status.has_value()) {
      params.Text(ApprovalStatusName(*status));
    } else {
      params.NullText();
    }
    params.Int64(limit).Time(now);
    return ReadAll<ApprovalRequest>(c_.Execute(Statement::kListApprovals, params),
                                    ReadApprovalColumns<ResultRow>);
  }

  absl::StatusOr<std::vector<Permission>> PermissionsOf(absl::string_view agent_id) override {
    return LookupPermissionsOf(c_, agent_id);
  }
  absl::StatusOr<std::vector<Delegation>> ActiveDelegationsInto(absl::string_view agent_id,
                                                                absl::Time now) override {
    return LookupActiveDelegationsInto(c_, agent_id, now);
  }
  absl::StatusOr<std::vector<Delegation>> ActiveDelegationsFrom(absl::string_view agent_id,
                                                                absl::Time now) override {
    return LookupActiveDelegationsFrom(c_, agent_id, now);
  }

  absl::StatusOr<bool> HasVoted(absl::string_view approval_id,
                                absl::string_view approver) override {
    absl::StatusOr<ResultRows> vote =
        c_.Execute(Statement::kFindVote, Params().Text(approval_id).Text(approver));
    if (!vote.ok()) return vote.status();
    return vote->size() > 0;
  }
  absl::StatusOr<std::vector<ApprovalVoteCast>> VotesOn(absl::string_view approval_id) override {
    return ReadAll<ApprovalVoteCast>(
        c_.Execute(Statement::kApprovalVotes, Params().Text(approval_id)),
        [](const ResultRow& row) -> absl::StatusOr<ApprovalVoteCast> {
          return ApprovalVoteCast{.approver = row.Text(0), .approve = row.Text(1) == "approve"};
        });
  }
  absl::StatusOr<bool> PolicyIsEmpty() override {
    absl::StatusOr<ResultRows> empty = c_.Execute(Statement::kPolicyIsEmpty);
    if (!empty.ok()) return empty.status();
    return empty->row(0).Bool(0);
  }
  absl::StatusOr<PolicyContents> ReadPolicy() override {
    PolicyContents policy;
    absl::StatusOr<ResultRows> agents = c_.Execute(Statement::kExportAgents);
    if (!agents.ok()) return agents.status();
    for (int i = 0; i < agents->size(); ++i) {
      const ResultRow row = agents->row(i);
      absl::StatusOr<Agent> agent = ReadAgentColumns(row);
      if (!agent.ok()) return agent.status();
      StoredAgent& stored = policy.agents.emplace_back();
      stored.agent = *std::move(agent);
      stored.token_sha256 = row.Text(kAgentColumnCount);
      stored.previous_token_sha256 = row.Text(kAgentColumnCount + 1);
      stored.previous_token_expires_at = row.Time(kAgentColumnCount + 2);
    }
    absl::StatusOr<std::vector<Permission>> permissions = ReadAll<Permission>(
        c_.Execute(Statement::kExportPermissions), ReadPermissionColumns<ResultRow>);
    if (!permissions.ok()) return permissions.status();
    policy.permissions = *std::move(permissions);
    absl::StatusOr<std::vector<Delegation>> delegations = ReadAll<Delegation>(
        c_.Execute(Statement::kExportDelegations), ReadDelegationColumns<ResultRow>);
    if (!delegations.ok()) return delegations.status();
    policy.delegations = *std::move(delegations);
    for (auto [statement, managers] :
         {std::pair{Statement::kExportAgentManagers, &policy.managed_by.agents},
          std::pair{Statement::kExportPermissionManagers, &policy.managed_by.permissions},
          std::pair{Statement::kExportDelegationManagers, &policy.managed_by.delegations}}) {
      absl::StatusOr<ResultRows> rows = c_.Execute(statement);
      if (!rows.ok()) return rows.status();
      for (int i = 0; i < rows->size(); ++i) {
        (*managers)[std::string(rows->row(i).Text(0))] = std::string(rows->row(i).Text(1));
      }
    }
    absl::StatusOr<ResultRows> revoked = c_.Execute(Statement::kExportRevokedTokenIds);
    if (!revoked.ok()) return revoked.status();
    for (int i = 0; i < revoked->size(); ++i) {
      policy.revoked_token_ids.push_back(
          {std::string(revoked->row(i).Text(0)), revoked->row(i).Time(1)});
    }
    return policy;
  }

  absl::Status InsertAgent(const Agent& agent, absl::string_view token_sha256) override {
    return Run(Statement::kInsertAgent, AgentParams(Params().Bytes(token_sha256), agent));
  }
  absl::Status SetPreviousToken(absl::string_view agent_id, absl::string_view previous_token_sha256,
                                absl::Time expires_at) override {
    return Run(Statement::kSetPreviousToken,
               Params().Text(agent_id).Bytes(previous_token_sha256).Time(expires_at));
  }
  absl::Status SetAgentStatus(absl::string_view agent_id, AgentStatus status,
                              absl::Time now) override {
    return Run(Statement::kSetAgentStatus,
               Params().Text(agent_id).Text(AgentStatusName(status)).Time(now));
  }
  absl::Status ReplaceToken(absl::string_view agent_id, std::optional<absl::Time> previous_until,
                            absl::string_view token_sha256, absl::string_view token_prefix,
                            absl::Time now) override {
    Params params;
    params.Text(agent_id);
    if (previous_until.has_value()) {
      params.Time(*previous_until);
    } else {
      params.NullInt64();  // the old token stops now
    }
    params.Bytes(token_sha256).Text(token_prefix).Time(now);
    return Run(Statement::kRotateToken, params);
  }
  absl::Status InsertPermission(const Permission& permission) override {
    return Run(Statement::kInsertPermission, Params()
                                                 .Text(permission.id)
                                                 .Text(permission.agent_id)
                                                 .Text(permission.resource)
                                                 .Text(JoinActions(permission.actions))
                                                 .Text(EffectName(permission.effect))
                                                 .Text(permission.constraints_json)
                                                 .Time(permission.created_at));
  }
  absl::StatusOr<bool> DeletePermission(absl::string_view permission_id) override {
    absl::StatusOr<ResultRows> removed =
        c_.Execute(Statement::kDeletePermission, Params().Text(permission_id));
    if (!removed.ok()) return removed.status();
    return removed->changed_rows() > 0;
  }
  absl::Status InsertDelegation(const Delegation& delegation,
                                absl::string_view lent_json) override {
    return Run(Statement::kInsertDelegation, Params()
                                                 .Text(delegation.id)
                                                 .Text(delegation.from_agent_id)
                                                 .Text(delegation.to_agent_id)
                                                 .Text(lent_json)
                                                 .Int64(delegation.max_depth)
                                                 .Text(DelegationStatusName(delegation.status))
                                                 .Time(delegation.expires_at)
                                                 .Time(delegation.created_at));
  }
  absl::Status RevokeDelegation(absl::string_view delegation_id) override {
    return Run(Statement::kRevokeDelegation, Params().Text(delegation_id));
  }
  absl::StatusOr<bool> DeferForeignKeyChecks() override {
    if (GetStatementSql(Statement::kDeferForeignKeys, c_.dialect()).sql == nullptr) return false;
    absl::Status deferred = Run(Statement::kDeferForeignKeys, Params());
    if (!deferred.ok()) return deferred;
    return true;
  }
  absl::Status SetDecisionRecordsAside(const std::vector<std::string>& agent_ids) override {
    if (GetStatementSql(Statement::kSetDecisionRecordAside, c_.dialect()).sql == nullptr) {
      return absl::OkStatus();
    }
    for (const std::string& agent_id : agent_ids) {
      if (absl::Status s = Run(Statement::kSetDecisionRecordAside, Params().Text(agent_id));
          !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  }
  absl::Status PutDecisionRecordsBack(const std::vector<std::string>& agent_ids) override {
    if (GetStatementSql(Statement::kPutDecisionRecordBack, c_.dialect()).sql == nullptr) {
      return absl::OkStatus();
    }
    for (const std::string& agent_id : agent_ids) {
      // Out again first: an agent written since it was set aside has had its record rebuilt.
      for (Statement statement :
           {Statement::kSetDecisionRecordAside, Statement::kPutDecisionRecordBack}) {
        if (absl::Status s = Run(statement, Params().Text(agent_id)); !s.ok()) return s;
      }
    }
    return absl::OkStatus();
  }
  absl::Status DeleteRateCountersOfPermission(absl::string_view permission_id) override {
    return Run(Statement::kDeleteRateCountersOfPermission, Params().Text(permission_id));
  }
  absl::Status DeleteRateCountersOfDelegation(absl::string_view delegation_id) override {
    const LentPermissionIdRange range = LentPermissionIdsOf(delegation_id);
    return Run(Statement::kDeleteRateCountersOfLentPermissions,
               Params().Text(range.first).Text(range.past_last));
  }
  absl::Status DeleteRateCountersOfAgent(absl::string_view agent_id) override {
    return Run(Statement::kDeleteRateCountersOfAgent, Params().Text(agent_id));
  }
  absl::Status InsertVote(absl::string_view approval_id, absl::string_view approver, bool approve,
                          absl::Time now) override {
    return Run(
        Statement::kInsertVote,
        Params().Text(approval_id).Text(approver).Text(approve ? "approve" : "deny").Time(now));
  }
  absl::Status SetApprovalStatus(absl::string_view approval_id, ApprovalStatus status,
                                 absl::Time now) override {
    return Run(Statement::kSetApprovalStatus,
               Params().Text(approval_id).Text(ApprovalStatusName(status)).Time(now));
  }

  absl::StatusOr<std::optional<SigningKey>> FindSigningKey(absl::string_view kid) override {
    return LookupSigningKey(c_, kid);
  }
  absl::StatusOr<std::vector<SigningKey>> ListSigningKeys() override {
    return ReadAll<SigningKey>(c_.Execute(Statement::kListSigningKeys),
                               ReadSigningKeyColumns<ResultRow>);
  }
  absl::Status InsertSigningKey(const SigningKey& key) override {
    return Run(Statement::kInsertSigningKey, Params()
                                                 .Text(key.kid)
                                                 .Text(key.jwk_json)
                                                 .Text(JoinAlgorithms(key.allowed_algorithms))
                                                 .Text(SigningKeyStatusName(key.status))
                                                 .Time(key.created_at)
                                                 .Time(key.updated_at)
                                                 .Time(key.retired_at));
  }
  absl::Status ReplaceSigningKeyContent(const SigningKey& content) override {
    return Run(Statement::kRotateSigningKey, Params()
                                                 .Text(content.kid)
                                                 .Text(content.jwk_json)
                                                 .Text(JoinAlgorithms(content.allowed_algorithms))
                                                 .Time(content.updated_at));
  }
  absl::Status RetireSigningKey(absl::string_view kid, absl::Time now) override {
    return Run(Statement::kRetireSigningKey, Params().Text(kid).Time(now));
  }
  absl::Status PruneRevokedTokenIds(absl::Time expired_before) override {
    return Run(Statement::kPruneRevokedTokenIds, Params().Time(expired_before));
  }
  absl::Status RevokeTokenId(absl::string_view jti, absl::Time expires_at) override {
    return Run(Statement::kRevokeTokenId, Params().Text(jti).Time(expires_at));
  }
  absl::Status AppendAdminAudit(AdminAuditRow& row) override {
    return AppendAdminAuditRow(c_, row);
  }

  absl::StatusOr<PolicyContents> ReadManaged(absl::string_view manager) override {
    PolicyContents managed;
    absl::StatusOr<ResultRows> agents =
        c_.Execute(Statement::kManagedAgents, Params().Text(manager));
    if (!agents.ok()) return agents.status();
    for (int i = 0; i < agents->size(); ++i) {
      const ResultRow row = agents->row(i);
      absl::StatusOr<Agent> agent = ReadAgentColumns(row);
      if (!agent.ok()) return agent.status();
      StoredAgent& stored = managed.agents.emplace_back();
      stored.agent = *std::move(agent);
      stored.token_sha256 = row.Text(kAgentColumnCount);
    }
    absl::StatusOr<std::vector<Permission>> permissions =
        ReadAll<Permission>(c_.Execute(Statement::kManagedPermissions, Params().Text(manager)),
                            ReadPermissionColumns<ResultRow>);
    if (!permissions.ok()) return permissions.status();
    managed.permissions = *std::move(permissions);
    absl::StatusOr<std::vector<Delegation>> delegations =
        ReadAll<Delegation>(c_.Execute(Statement::kManagedDelegations, Params().Text(manager)),
                            ReadDelegationColumns<ResultRow>);
    if (!delegations.ok()) return delegations.status();
    managed.delegations = *std::move(delegations);
    return managed;
  }
  absl::Status SetAgentManager(absl::string_view agent_id, absl::string_view manager) override {
    return Run(Statement::kSetAgentManager, Params().Text(agent_id).Text(manager));
  }
  absl::Status SetPermissionManager(absl::string_view permission_id,
                                    absl::string_view manager) override {
    return Run(Statement::kSetPermissionManager, Params().Text(permission_id).Text(manager));
  }
  absl::Status SetDelegationManager(absl::string_view delegation_id,
                                    absl::string_view manager) override {
    return Run(Statement::kSetDelegationManager, Params().Text(delegation_id).Text(manager));
  }
  absl::Status UpdateAgentFields(const Agent& agent) override {
    Params params;
    params.Text(agent.id)
        .Text(agent.owner)
        .Text(agent.name)
        .Text(AgentKindName(agent.kind))
        .Text(AgentStatusName(agent.status))
        .Time(agent.expires_at);
    for (const AgentTextColumn<Agent>& text : kAgentTextColumns<Agent>) {
      params.Text(agent.*text.member);
    }
    params.Time(agent.updated_at);
    return Run(Statement::kUpdateAgentFields, params);
  }
  absl::StatusOr<bool> DeleteAgent(absl::string_view agent_id) override {
    absl::StatusOr<ResultRows> removed =
        c_.Execute(Statement::kDeleteAgent, Params().Text(agent_id));
    if (!removed.ok()) return removed.status();
    return removed->changed_rows() > 0;
  }
  absl::StatusOr<bool> DeleteDelegation(absl::string_view delegation_id) override {
    absl::StatusOr<ResultRows> removed =
        c_.Execute(Statement::kDeleteDelegation, Params().Text(delegation_id));
    if (!removed.ok()) return removed.status();
    return removed->changed_rows() > 0;
  }

  absl::Status SetAgentCreator(absl::string_view agent_id, absl::string_view principal) override {
    return Run(Statement::kSetAgentCreator, Params().Text(agent_id).Text(principal));
  }
  absl::StatusOr<std::string> AgentCreator(absl::string_view agent_id) override {
    absl::StatusOr<ResultRows> found =
        c_.Execute(Statement::kAgentCreator, Params().Text(agent_id));
    if (!found.ok()) return found.status();
    if (found->size() == 0) {
      return absl::NotFoundError(absl::StrCat("agent ", agent_id, " does not exist"));
    }
    return std::string(found->row(0).Text(0));
  }
  absl::Status CreatePrincipal(const StoredAdminPrincipal& principal) override {
    return CreatePrincipalOn(c_, principal);
  }
  absl::StatusOr<StoredAdminPrincipal> ChangePrincipal(
      absl::string_view name, const std::function<absl::Status(StoredAdminPrincipal&)>& change,
      absl::Time now) override {
    return ChangePrincipalOn(c_, name, change, now);
  }

 private:
  absl::Status Run(Statement statement, const Params& params) {
    return c_.Execute(statement, params).status();
  }

  Connection& c_;
};

}  // namespace

std::unique_ptr<AdminTransaction> AdminTransactionOn(Connection& connection) {
  return std::make_unique<ConnectionAdminTransaction>(connection);
}

}  // namespace verdict
