// The admin plane's rows in SQLite (store/admin_transaction.h); the calls themselves are
// store/admin_calls.cc's, shared with the PostgreSQL store. SQLite failures throw, and are
// caught where SqliteStore::InTransaction ends the transaction.
#include <optional>
#include <utility>
#include <vector>

#include "store/admin_transaction.h"
#include "store/ids.h"
#include "store/policy_encoding.h"
#include "store/row_readers.h"
#include "store/signing_keys.h"
#include "store/sqlite_lookups.h"
#include "store/sqlite_signing_keys.h"
#include "store/sqlite_store.h"

namespace verdict {
namespace {

class SqliteAdminTransaction final : public AdminTransaction {
 public:
  explicit SqliteAdminTransaction(SqliteConnection& connection) : c_(connection) {}

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
    ScopedStatement list = c_.Use(StatementId::kListAgents);
    list.BindText(1, after_id);
    list.BindInt64(2, limit);
    return ReadAllRows<Agent>(list, ReadAgentColumns<ScopedStatement>);
  }
  absl::StatusOr<std::vector<ApprovalRequest>> ListApprovals(const ApprovalPageStart& start,
                                                             std::optional<ApprovalStatus> status,
                                                             int64_t limit,
                                                             absl::Time now) override {
    ScopedStatement list = c_.Use(StatementId::kListApprovals);
    list.BindInt64(1, start.after_created_micros);
    if (status.has_value()) {
      list.BindText(2, ApprovalStatusName(*status));
    } else {
      list.BindNull(2);
    }
    list.BindInt64(3, limit);
    list.BindText(4, start.after_id);
    list.BindTime(9, now);
    return ReadAllRows<ApprovalRequest>(list, ReadApprovalColumns<ScopedStatement>);
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
    ScopedStatement find = c_.Use(StatementId::kFindVote);
    find.BindText(1, approval_id);
    find.BindText(2, approver);
    return find.Step();
  }
  absl::StatusOr<bool> PolicyIsEmpty() override {
    ScopedStatement empty = c_.Use(StatementId::kPolicyIsEmpty);
    empty.Step();
    return empty.Int64(0) != 0;
  }
  absl::StatusOr<PolicyContents> ReadPolicy() override {
    PolicyContents policy;
    {
      ScopedStatement agents = c_.Use(StatementId::kExportAgents);
      while (agents.Step()) {
        absl::StatusOr<Agent> agent = ReadAgentColumns(agents);
        if (!agent.ok()) return agent.status();
        StoredAgent& stored = policy.agents.emplace_back();
        stored.agent = *std::move(agent);
        stored.token_sha256 = agents.Text(9);
        stored.previous_token_sha256 = agents.Text(10);
        stored.previous_token_expires_at = agents.Time(11);
      }
    }
    ScopedStatement permissions = c_.Use(StatementId::kExportPermissions);
    absl::StatusOr<std::vector<Permission>> permission_rows =
        ReadAllRows<Permission>(permissions, ReadPermissionColumns<ScopedStatement>);
    if (!permission_rows.ok()) return permission_rows.status();
    policy.permissions = *std::move(permission_rows);
    ScopedStatement delegations = c_.Use(StatementId::kExportDelegations);
    absl::StatusOr<std::vector<Delegation>> delegation_rows =
        ReadAllRows<Delegation>(delegations, ReadDelegationColumns<ScopedStatement>);
    if (!delegation_rows.ok()) return delegation_rows.status();
    policy.delegations = *std::move(delegation_rows);
    ScopedStatement revoked = c_.Use(StatementId::kExportRevokedTokenIds);
    while (revoked.Step()) {
      policy.revoked_token_ids.push_back({std::string(revoked.Text(0)), revoked.Time(1)});
    }
    return policy;
  }

  absl::Status InsertAgent(const Agent& agent, absl::string_view token_sha256) override {
    ScopedStatement insert = c_.Use(StatementId::kInsertAgent);
    insert.BindText(1, agent.id);
    insert.BindText(2, agent.owner);
    insert.BindText(3, agent.name);
    insert.BindText(4, AgentKindName(agent.kind));
    insert.BindText(5, AgentStatusName(agent.status));
    insert.BindTime(6, agent.expires_at);
    insert.BindBlob(7, token_sha256);
    insert.BindText(8, agent.token_prefix);
    insert.BindTime(9, agent.created_at);
    insert.Execute();
    return absl::OkStatus();
  }
  absl::Status SetPreviousToken(absl::string_view agent_id, absl::string_view previous_token_sha256,
                                absl::Time expires_at) override {
    ScopedStatement update = c_.Use(StatementId::kSetPreviousToken);
    update.BindText(1, agent_id);
    update.BindBlob(2, previous_token_sha256);
    update.BindTime(3, expires_at);
    update.Execute();
    return absl::OkStatus();
  }
  absl::Status SetAgentStatus(absl::string_view agent_id, AgentStatus status,
                              absl::Time now) override {
    ScopedStatement update = c_.Use(StatementId::kSetAgentStatus);
    update.BindText(1, agent_id);
    update.BindText(2, AgentStatusName(status));
    update.BindTime(3, now);
    update.Execute();
    return absl::OkStatus();
  }
  absl::Status ReplaceToken(absl::string_view agent_id, std::optional<absl::Time> previous_until,
                            absl::string_view token_sha256, absl::string_view token_prefix,
                            absl::Time now) override {
    ScopedStatement update = c_.Use(StatementId::kRotateToken);
    update.BindText(1, agent_id);
    if (previous_until.has_value()) {
      update.BindTime(2, *previous_until);
    } else {
      update.BindNull(2);  // the old token stops now
    }
    update.BindBlob(3, token_sha256);
    update.BindText(4, token_prefix);
    update.BindTime(5, now);
    update.Execute();
    return absl::OkStatus();
  }
  absl::Status InsertPermission(const Permission& permission) override {
    ScopedStatement insert = c_.Use(StatementId::kInsertPermission);
    insert.BindText(1, permission.id);
    insert.BindText(2, permission.agent_id);
    insert.BindText(3, permission.resource);
    insert.BindText(4, JoinActions(permission.actions));
    insert.BindText(5, EffectName(permission.effect));
    insert.BindText(6, permission.constraints_json);
    insert.BindTime(7, permission.created_at);
    insert.Execute();
    return absl::OkStatus();
  }
  absl::StatusOr<bool> DeletePermission(absl::string_view permission_id) override {
    ScopedStatement remove = c_.Use(StatementId::kDeletePermission);
    remove.BindText(1, permission_id);
    return remove.Execute() > 0;
  }
  absl::Status InsertDelegation(const Delegation& delegation,
                                absl::string_view lent_json) override {
    ScopedStatement insert = c_.Use(StatementId::kInsertDelegation);
    insert.BindText(1, delegation.id);
    insert.BindText(2, delegation.from_agent_id);
    insert.BindText(3, delegation.to_agent_id);
    insert.BindText(4, lent_json);
    insert.BindInt64(5, delegation.max_depth);
    insert.BindText(6, DelegationStatusName(delegation.status));
    insert.BindTime(7, delegation.expires_at);
    insert.BindTime(8, delegation.created_at);
    insert.Execute();
    return absl::OkStatus();
  }
  absl::Status RevokeDelegation(absl::string_view delegation_id) override {
    ScopedStatement revoke = c_.Use(StatementId::kRevokeDelegation);
    revoke.BindText(1, delegation_id);
    revoke.Execute();
    return absl::OkStatus();
  }
  absl::StatusOr<bool> DeferForeignKeyChecks() override {
    c_.database().exec("PRAGMA defer_foreign_keys = ON");  // until this transaction ends
    return true;
  }
  absl::Status DeleteRateCountersOfPermission(absl::string_view permission_id) override {
    ScopedStatement remove = c_.Use(StatementId::kDeleteRateCountersOfPermission);
    remove.BindText(1, permission_id);
    remove.Execute();
    return absl::OkStatus();
  }
  absl::Status DeleteRateCountersOfDelegation(absl::string_view delegation_id) override {
    const LentPermissionIdRange range = LentPermissionIdsOf(delegation_id);
    ScopedStatement remove = c_.Use(StatementId::kDeleteRateCountersOfLentPermissions);
    remove.BindText(1, range.first);
    remove.BindText(2, range.past_last);
    remove.Execute();
    return absl::OkStatus();
  }
  absl::Status DeleteRateCountersOfAgent(absl::string_view agent_id) override {
    ScopedStatement remove = c_.Use(StatementId::kDeleteRateCountersOfAgent);
    remove.BindText(1, agent_id);
    remove.Execute();
    return absl::OkStatus();
  }
  absl::Status InsertVote(absl::string_view approval_id, absl::string_view approver, bool approve,
                          absl::Time now) override {
    ScopedStatement insert = c_.Use(StatementId::kInsertVote);
    insert.BindText(1, approval_id);
    insert.BindText(2, approver);
    insert.BindText(3, approve ? "approve" : "deny");
    insert.BindTime(4, now);
    insert.Execute();
    return absl::OkStatus();
  }
  absl::Status SetApprovalStatus(absl::string_view approval_id, ApprovalStatus status,
                                 absl::Time now) override {
    ScopedStatement update = c_.Use(StatementId::kSetApprovalStatus);
    update.BindText(1, approval_id);
    update.BindText(2, ApprovalStatusName(status));
    update.BindTime(3, now);
    update.Execute();
    return absl::OkStatus();
  }

  absl::StatusOr<std::optional<SigningKey>> FindSigningKey(absl::string_view kid) override {
    return LookupSigningKey(c_, kid);
  }
  absl::StatusOr<std::vector<SigningKey>> ListSigningKeys() override {
    ScopedStatement list = c_.Use(StatementId::kListSigningKeys);
    return ReadAllRows<SigningKey>(list, ReadSigningKeyColumns<ScopedStatement>);
  }
  absl::Status InsertSigningKey(const SigningKey& key) override {
    ScopedStatement insert = c_.Use(StatementId::kInsertSigningKey);
    insert.BindText(1, key.kid);
    insert.BindText(2, key.jwk_json);
    insert.BindText(3, JoinAlgorithms(key.allowed_algorithms));
    insert.BindText(4, SigningKeyStatusName(key.status));
    insert.BindTime(5, key.created_at);
    insert.BindTime(6, key.updated_at);
    insert.BindTime(7, key.retired_at);
    insert.Execute();
    return absl::OkStatus();
  }
  absl::Status ReplaceSigningKeyContent(const SigningKey& content) override {
    ScopedStatement update = c_.Use(StatementId::kRotateSigningKey);
    update.BindText(1, content.kid);
    update.BindText(2, content.jwk_json);
    update.BindText(3, JoinAlgorithms(content.allowed_algorithms));
    update.BindTime(4, content.updated_at);
    update.Execute();
    return absl::OkStatus();
  }
  absl::Status RetireSigningKey(absl::string_view kid, absl::Time now) override {
    ScopedStatement update = c_.Use(StatementId::kRetireSigningKey);
    update.BindText(1, kid);
    update.BindTime(2, now);
    update.Execute();
    return absl::OkStatus();
  }
  absl::Status PruneRevokedTokenIds(absl::Time expired_before) override {
    ScopedStatement prune = c_.Use(StatementId::kPruneRevokedTokenIds);
    prune.BindTime(1, expired_before);
    prune.Execute();
    return absl::OkStatus();
  }
  absl::Status RevokeTokenId(absl::string_view jti, absl::Time expires_at) override {
    ScopedStatement revoke = c_.Use(StatementId::kRevokeTokenId);
    revoke.BindText(1, jti);
    revoke.BindTime(2, expires_at);
    revoke.Execute();
    return absl::OkStatus();
  }

 private:
  SqliteConnection& c_;
};

}  // namespace

absl::Status SqliteStore::InAdminTransaction(
    TransactionKind kind, absl::FunctionRef<absl::Status(AdminTransaction&)> body) {
  return InTransaction(kind, [&](SqliteConnection& connection) {
    SqliteAdminTransaction rows(connection);
    return body(rows);
  });
}

absl::Time SqliteStore::AdminClock() { return options_.clock(); }

}  // namespace verdict
