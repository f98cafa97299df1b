// The admin plane's rows in PostgreSQL (store/admin_transaction.h); the calls themselves are
// store/admin_calls.cc's, shared with the SQLite store.
#include <optional>
#include <utility>
#include <vector>

#include "store/admin_transaction.h"
#include "store/ids.h"
#include "store/policy_encoding.h"
#include "store/postgres_lookups.h"
#include "store/postgres_store.h"
#include "store/row_readers.h"
#include "store/signing_keys.h"

namespace verdict {
namespace {

class PostgresAdminTransaction final : public AdminTransaction {
 public:
  explicit PostgresAdminTransaction(PostgresConnection& connection) : c_(connection) {}

  absl::StatusOr<std::optional<Agent>> FindAgent(absl::string_view agent_id) override {
    return PgLookupAgent(c_, agent_id);
  }
  absl::StatusOr<std::optional<Permission>> FindPermission(
      absl::string_view permission_id) override {
    return PgLookupPermission(c_, permission_id);
  }
  absl::StatusOr<std::optional<Delegation>> FindDelegation(
      absl::string_view delegation_id) override {
    return PgLookupDelegation(c_, delegation_id);
  }
  absl::StatusOr<std::optional<ApprovalRequest>> FindApproval(absl::string_view approval_id,
                                                              absl::Time now) override {
    return PgLookupApproval(c_, approval_id, now);
  }

  absl::StatusOr<std::vector<Agent>> ListAgents(absl::string_view after_id,
                                                int64_t limit) override {
    absl::StatusOr<PgResult> rows =
        c_.Execute(PgStatement::kListAgents, PgParams().Text(after_id).Int64(limit));
    if (!rows.ok()) return rows.status();
    return PgReadAll<Agent>(*rows, ReadAgentColumns<PgRow>);
  }
  absl::StatusOr<std::vector<ApprovalRequest>> ListApprovals(const ApprovalPageStart& start,
                                                             std::optional<ApprovalStatus> status,
                                                             int64_t limit,
                                                             absl::Time now) override {
    PgParams params;
    params.Int64(start.after_created_micros).Text(start.after_id);
    if (status.has_value()) {
      params.Text(ApprovalStatusName(*status));
    } else {
      params.NullText();
    }
    params.Int64(limit).Time(now);
    absl::StatusOr<PgResult> rows = c_.Execute(PgStatement::kListApprovals, params);
    if (!rows.ok()) return rows.status();
    return PgReadAll<ApprovalRequest>(*rows, ReadApprovalColumns<PgRow>);
  }

  absl::StatusOr<std::vector<Permission>> PermissionsOf(absl::string_view agent_id) override {
    return PgLookupPermissionsOf(c_, agent_id);
  }
  absl::StatusOr<std::vector<Delegation>> ActiveDelegationsInto(absl::string_view agent_id,
                                                                absl::Time now) override {
    return PgLookupActiveDelegationsInto(c_, agent_id, now);
  }
  absl::StatusOr<std::vector<Delegation>> ActiveDelegationsFrom(absl::string_view agent_id,
                                                                absl::Time now) override {
    return PgLookupActiveDelegationsFrom(c_, agent_id, now);
  }

  absl::StatusOr<bool> HasVoted(absl::string_view approval_id,
                                absl::string_view approver) override {
    absl::StatusOr<PgResult> vote =
        c_.Execute(PgStatement::kFindVote, PgParams().Text(approval_id).Text(approver));
    if (!vote.ok()) return vote.status();
    return vote->size() > 0;
  }
  absl::StatusOr<bool> PolicyIsEmpty() override {
    absl::StatusOr<PgResult> empty = c_.Execute(PgStatement::kPolicyIsEmpty);
    if (!empty.ok()) return empty.status();
    return empty->row(0).Bool(0);
  }
  absl::StatusOr<PolicyContents> ReadPolicy() override {
    PolicyContents policy;
    absl::StatusOr<PgResult> agents = c_.Execute(PgStatement::kExportAgents);
    if (!agents.ok()) return agents.status();
    for (int i = 0; i < agents->size(); ++i) {
      absl::StatusOr<Agent> agent = ReadAgentColumns(agents->row(i));
      if (!agent.ok()) return agent.status();
      StoredAgent& stored = policy.agents.emplace_back();
      stored.agent = *std::move(agent);
      stored.token_sha256 = agents->row(i).Text(9);
      stored.previous_token_sha256 = agents->row(i).Text(10);
      stored.previous_token_expires_at = agents->row(i).Time(11);
    }
    absl::StatusOr<PgResult> permissions = c_.Execute(PgStatement::kExportPermissions);
    if (!permissions.ok()) return permissions.status();
    absl::StatusOr<std::vector<Permission>> permission_rows =
        PgReadAll<Permission>(*permissions, ReadPermissionColumns<PgRow>);
    if (!permission_rows.ok()) return permission_rows.status();
    policy.permissions = *std::move(permission_rows);
    absl::StatusOr<PgResult> delegations = c_.Execute(PgStatement::kExportDelegations);
    if (!delegations.ok()) return delegations.status();
    absl::StatusOr<std::vector<Delegation>> delegation_rows =
        PgReadAll<Delegation>(*delegations, ReadDelegationColumns<PgRow>);
    if (!delegation_rows.ok()) return delegation_rows.status();
    policy.delegations = *std::move(delegation_rows);
    absl::StatusOr<PgResult> revoked = c_.Execute(PgStatement::kExportRevokedTokenIds);
    if (!revoked.ok()) return revoked.status();
    for (int i = 0; i < revoked->size(); ++i) {
      policy.revoked_token_ids.push_back(
          {std::string(revoked->row(i).Text(0)), revoked->row(i).Time(1)});
    }
    return policy;
  }

  absl::Status InsertAgent(const Agent& agent, absl::string_view token_sha256) override {
    return Run(PgStatement::kInsertAgent, PgParams()
                                              .Text(agent.id)
                                              .Text(agent.owner)
                                              .Text(agent.name)
                                              .Text(AgentKindName(agent.kind))
                                              .Text(AgentStatusName(agent.status))
                                              .Time(agent.expires_at)
                                              .Bytes(token_sha256)
                                              .Text(agent.token_prefix)
                                              .Time(agent.created_at));
  }
  absl::Status SetPreviousToken(absl::string_view agent_id, absl::string_view previous_token_sha256,
                                absl::Time expires_at) override {
    return Run(PgStatement::kSetPreviousToken,
               PgParams().Text(agent_id).Bytes(previous_token_sha256).Time(expires_at));
  }
  absl::Status SetAgentStatus(absl::string_view agent_id, AgentStatus status,
                              absl::Time now) override {
    return Run(PgStatement::kSetAgentStatus,
               PgParams().Text(agent_id).Text(AgentStatusName(status)).Time(now));
  }
  absl::Status ReplaceToken(absl::string_view agent_id, std::optional<absl::Time> previous_until,
                            absl::string_view token_sha256, absl::string_view token_prefix,
                            absl::Time now) override {
    PgParams params;
    params.Text(agent_id);
    if (previous_until.has_value()) {
      params.Time(*previous_until);
    } else {
      params.NullInt64();  // the old token stops now
    }
    params.Bytes(token_sha256).Text(token_prefix).Time(now);
    return Run(PgStatement::kRotateToken, params);
  }
  absl::Status InsertPermission(const Permission& permission) override {
    return Run(PgStatement::kInsertPermission, PgParams()
                                                   .Text(permission.id)
                                                   .Text(permission.agent_id)
                                                   .Text(permission.resource)
                                                   .Text(JoinActions(permission.actions))
                                                   .Text(EffectName(permission.effect))
                                                   .Text(permission.constraints_json)
                                                   .Time(permission.created_at));
  }
  absl::StatusOr<bool> DeletePermission(absl::string_view permission_id) override {
    absl::StatusOr<PgResult> removed =
        c_.Execute(PgStatement::kDeletePermission, PgParams().Text(permission_id));
    if (!removed.ok()) return removed.status();
    return removed->changed_rows() > 0;
  }
  absl::Status InsertDelegation(const Delegation& delegation,
                                absl::string_view lent_json) override {
    return Run(PgStatement::kInsertDelegation, PgParams()
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
    return Run(PgStatement::kRevokeDelegation, PgParams().Text(delegation_id));
  }
  absl::StatusOr<bool> DeferForeignKeyChecks() override { return false; }
  absl::Status DeleteRateCountersOfPermission(absl::string_view permission_id) override {
    return Run(PgStatement::kDeleteRateCountersOfPermission, PgParams().Text(permission_id));
  }
  absl::Status DeleteRateCountersOfDelegation(absl::string_view delegation_id) override {
    const LentPermissionIdRange range = LentPermissionIdsOf(delegation_id);
    return Run(PgStatement::kDeleteRateCountersOfLentPermissions,
               PgParams().Text(range.first).Text(range.past_last));
  }
  absl::Status DeleteRateCountersOfAgent(absl::string_view agent_id) override {
    return Run(PgStatement::kDeleteRateCountersOfAgent, PgParams().Text(agent_id));
  }
  absl::Status InsertVote(absl::string_view approval_id, absl::string_view approver, bool approve,
                          absl::Time now) override {
    return Run(
        PgStatement::kInsertVote,
        PgParams().Text(approval_id).Text(approver).Text(approve ? "approve" : "deny").Time(now));
  }
  absl::Status SetApprovalStatus(absl::string_view approval_id, ApprovalStatus status,
                                 absl::Time now) override {
    return Run(PgStatement::kSetApprovalStatus,
               PgParams().Text(approval_id).Text(ApprovalStatusName(status)).Time(now));
  }

  absl::StatusOr<std::optional<SigningKey>> FindSigningKey(absl::string_view kid) override {
    return PgLookupSigningKey(c_, kid);
  }
  absl::StatusOr<std::vector<SigningKey>> ListSigningKeys() override {
    absl::StatusOr<PgResult> rows = c_.Execute(PgStatement::kListSigningKeys);
    if (!rows.ok()) return rows.status();
    return PgReadAll<SigningKey>(*rows, ReadSigningKeyColumns<PgRow>);
  }
  absl::Status InsertSigningKey(const SigningKey& key) override {
    return Run(PgStatement::kInsertSigningKey, PgParams()
                                                   .Text(key.kid)
                                                   .Text(key.jwk_json)
                                                   .Text(JoinAlgorithms(key.allowed_algorithms))
                                                   .Text(SigningKeyStatusName(key.status))
                                                   .Time(key.created_at)
                                                   .Time(key.updated_at)
                                                   .Time(key.retired_at));
  }
  absl::Status ReplaceSigningKeyContent(const SigningKey& content) override {
    return Run(PgStatement::kRotateSigningKey, PgParams()
                                                   .Text(content.kid)
                                                   .Text(content.jwk_json)
                                                   .Text(JoinAlgorithms(content.allowed_algorithms))
                                                   .Time(content.updated_at));
  }
  absl::Status RetireSigningKey(absl::string_view kid, absl::Time now) override {
    return Run(PgStatement::kRetireSigningKey, PgParams().Text(kid).Time(now));
  }
  absl::Status PruneRevokedTokenIds(absl::Time expired_before) override {
    return Run(PgStatement::kPruneRevokedTokenIds, PgParams().Time(expired_before));
  }
  absl::Status RevokeTokenId(absl::string_view jti, absl::Time expires_at) override {
    return Run(PgStatement::kRevokeTokenId, PgParams().Text(jti).Time(expires_at));
  }

 private:
  // A statement whose rows nobody reads.
  absl::Status Run(PgStatement statement, const PgParams& params) {
    return c_.Execute(statement, params).status();
  }

  PostgresConnection& c_;
};

}  // namespace

absl::Status PostgresStore::InAdminTransaction(
    TransactionKind kind, absl::FunctionRef<absl::Status(AdminTransaction&)> body) {
  return InTransaction(kind, [&](PostgresConnection& connection) {
    PostgresAdminTransaction rows(connection);
    return body(rows);
  });
}

absl::Time PostgresStore::AdminClock() { return options_.clock(); }

}  // namespace verdict
