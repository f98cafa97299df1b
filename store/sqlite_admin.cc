// SqliteStore's PolicyAdmin half: the admin plane's writes and reads (store/policy_admin.h).
// The checks and rows are store/admin_input.h's, shared with the PostgreSQL store; what is here
// is the SQL around them.
#include <utility>

#include "absl/strings/str_cat.h"
#include "crypto/sha256.h"
#include "crypto/token.h"
#include "decision/engine.h"
#include "store/admin_input.h"
#include "store/delegation_rules.h"
#include "store/ids.h"
#include "store/policy_encoding.h"
#include "store/policy_validation.h"
#include "store/row_readers.h"
#include "store/sqlite_lookups.h"
#include "store/sqlite_store.h"

namespace verdict {
namespace {

// The delegation rules' view of the store, inside the caller's write transaction.
class ConnectionGraph final : public DelegationGraph {
 public:
  ConnectionGraph(SqliteConnection& connection, absl::Time now)
      : connection_(connection), now_(now) {}

  absl::StatusOr<std::vector<Permission>> PermissionsOf(absl::string_view agent_id) override {
    return LookupPermissionsOf(connection_, agent_id);
  }
  absl::StatusOr<std::vector<Delegation>> ActiveDelegationsInto(
      absl::string_view agent_id) override {
    return LookupActiveDelegationsInto(connection_, agent_id, now_);
  }
  absl::StatusOr<std::vector<Delegation>> ActiveDelegationsFrom(
      absl::string_view agent_id) override {
    return LookupActiveDelegationsFrom(connection_, agent_id, now_);
  }
  absl::StatusOr<bool> IsLive(absl::string_view agent_id) override {
    absl::StatusOr<std::optional<Agent>> agent = LookupAgent(connection_, agent_id);
    if (!agent.ok()) return agent.status();
    return agent->has_value() && LivenessOf(**agent, now_) == ReasonCode::kAllowed;
  }

 private:
  SqliteConnection& connection_;
  absl::Time now_;
};

void InsertAgent(SqliteConnection& connection, const Agent& agent, absl::string_view token_sha256) {
  ScopedStatement insert = connection.Use(StatementId::kInsertAgent);
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
}

// `permission.constraints_json` must be canonical (CanonicalConstraintsJson).
void InsertPermission(SqliteConnection& connection, const Permission& permission) {
  ScopedStatement insert = connection.Use(StatementId::kInsertPermission);
  insert.BindText(1, permission.id);
  insert.BindText(2, permission.agent_id);
  insert.BindText(3, permission.resource);
  insert.BindText(4, JoinActions(permission.actions));
  insert.BindText(5, EffectName(permission.effect));
  insert.BindText(6, permission.constraints_json);
  insert.BindTime(7, permission.created_at);
  insert.Execute();
}

void InsertDelegation(SqliteConnection& connection, const Delegation& delegation,
                      absl::string_view lent_json) {
  ScopedStatement insert = connection.Use(StatementId::kInsertDelegation);
  insert.BindText(1, delegation.id);
  insert.BindText(2, delegation.from_agent_id);
  insert.BindText(3, delegation.to_agent_id);
  insert.BindText(4, lent_json);
  insert.BindInt64(5, delegation.max_depth);
  insert.BindText(6, DelegationStatusName(delegation.status));
  insert.BindTime(7, delegation.expires_at);
  insert.BindTime(8, delegation.created_at);
  insert.Execute();
}

absl::StatusOr<bool> PolicyIsEmpty(SqliteConnection& connection) {
  ScopedStatement empty = connection.Use(StatementId::kPolicyIsEmpty);
  empty.Step();
  return empty.Int64(0) != 0;
}

void SetApprovalStatus(SqliteConnection& connection, ApprovalRequest& approval,
                       ApprovalStatus status, absl::Time now) {
  ScopedStatement update = connection.Use(StatementId::kSetApprovalStatus);
  update.BindText(1, approval.id);
  update.BindText(2, ApprovalStatusName(status));
  update.BindTime(3, now);
  update.Execute();
  approval.status = status;
}

}  // namespace

absl::StatusOr<CreatedAgent> SqliteStore::CreateAgent(const NewAgent& agent) {
  absl::StatusOr<AgentToCreate> row = PrepareNewAgent(agent, StoredTime(options_.clock()));
  if (!row.ok()) return row.status();
  absl::Status status = InTransaction(TransactionKind::kWrite, [&](SqliteConnection& c) {
    const std::string& id = row->agent.id;
    if (absl::Status s = CheckUnused(Found(LookupAgent(c, id)), "agent", id); !s.ok()) return s;
    InsertAgent(c, row->agent, row->token_sha256);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return CreatedAgent{std::move(row->agent), std::move(row->token)};
}

absl::StatusOr<Agent> SqliteStore::GetAgent(absl::string_view agent_id) {
  if (absl::Status s = CheckId("agent_id", agent_id, kAgentIdPrefix); !s.ok()) return s;
  Agent agent;
  absl::Status status = InTransaction(TransactionKind::kRead, [&](SqliteConnection& c) {
    absl::StatusOr<Agent> found = ExistingRow(LookupAgent(c, agent_id), "agent", agent_id);
    if (!found.ok()) return found.status();
    agent = *std::move(found);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return agent;
}

absl::StatusOr<AgentPage> SqliteStore::ListAgents(const PageRequest& page) {
  absl::StatusOr<int> page_size = PageSizeOf(page);
  if (!page_size.ok()) return page_size.status();
  // A page token is the last agent id of the page before.
  if (!page.page_token.empty()) {
    if (absl::Status s = CheckId("page_token", page.page_token, kAgentIdPrefix); !s.ok()) return s;
  }
  AgentPage result;
  absl::Status status = InTransaction(TransactionKind::kRead, [&](SqliteConnection& c) {
    ScopedStatement list = c.Use(StatementId::kListAgents);
    // Ids sort after "" and the token is the last id of the previous page; one row more than
    // the page tells whether another page follows.
    list.BindText(1, page.page_token);
    list.BindInt64(2, *page_size + 1);
    absl::StatusOr<std::vector<Agent>> agents =
        ReadAllRows<Agent>(list, ReadAgentColumns<ScopedStatement>);
    if (!agents.ok()) return agents.status();
    result.agents = *std::move(agents);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  if (result.agents.size() > static_cast<size_t>(*page_size)) {
    result.agents.resize(*page_size);
    result.next_page_token = result.agents.back().id;
  }
  return result;
}

absl::StatusOr<Agent> SqliteStore::SetAgentStatus(absl::string_view agent_id, AgentStatus status) {
  if (absl::Status s = CheckId("agent_id", agent_id, kAgentIdPrefix); !s.ok()) return s;
  if (absl::Status s = CheckAgentStatus(status); !s.ok()) return s;
  const absl::Time now = StoredTime(options_.clock());
  Agent agent;
  absl::Status result = InTransaction(TransactionKind::kWrite, [&](SqliteConnection& c) {
    absl::StatusOr<Agent> found = ExistingRow(LookupAgent(c, agent_id), "agent", agent_id);
    if (!found.ok()) return found.status();
    agent = *std::move(found);
    absl::StatusOr<bool> change = StatusChangeNeeded(agent, status);
    if (!change.ok() || !*change) return change.status();
    ScopedStatement update = c.Use(StatementId::kSetAgentStatus);
    update.BindText(1, agent_id);
    update.BindText(2, AgentStatusName(status));
    update.BindTime(3, now);
    update.Execute();
    agent.status = status;
    agent.updated_at = now;
    return absl::OkStatus();
  });
  if (!result.ok()) return result;
  return agent;
}

absl::StatusOr<RotatedToken> SqliteStore::RotateToken(absl::string_view agent_id,
                                                      absl::Duration grace) {
  if (absl::Status s = CheckId("agent_id", agent_id, kAgentIdPrefix); !s.ok()) return s;
  const absl::Time now = StoredTime(options_.clock());
  absl::StatusOr<std::optional<absl::Time>> previous_until = PreviousTokenValidUntil(grace, now);
  if (!previous_until.ok()) return previous_until.status();
  RotatedToken rotated;
  rotated.token = NewAgentToken();
  rotated.previous_token_expires_at = previous_until->value_or(now);
  const std::string token_sha256 = Sha256(rotated.token);
  absl::Status status = InTransaction(TransactionKind::kWrite, [&](SqliteConnection& c) {
    absl::StatusOr<Agent> found = ExistingRow(LookupAgent(c, agent_id), "agent", agent_id);
    if (!found.ok()) return found.status();
    rotated.agent = *std::move(found);
    if (absl::Status s = CheckTokenRotatable(rotated.agent); !s.ok()) return s;
    rotated.agent.token_prefix = TokenDisplayPrefix(rotated.token);
    rotated.agent.updated_at = now;
    ScopedStatement update = c.Use(StatementId::kRotateToken);
    update.BindText(1, agent_id);
    if (previous_until->has_value()) {
      update.BindTime(2, rotated.previous_token_expires_at);
    } else {
      update.BindNull(2);  // the old token stops now
    }
    update.BindBlob(3, token_sha256);
    update.BindText(4, rotated.agent.token_prefix);
    update.BindTime(5, now);
    update.Execute();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return rotated;
}

absl::StatusOr<Permission> SqliteStore::GrantPermission(const NewPermission& permission) {
  absl::StatusOr<Permission> row = PrepareNewPermission(permission, StoredTime(options_.clock()));
  if (!row.ok()) return row.status();
  absl::Status status = InTransaction(TransactionKind::kWrite, [&](SqliteConnection& c) {
    absl::StatusOr<Agent> agent =
        ExistingRow(LookupAgent(c, row->agent_id), "agent", row->agent_id);
    if (!agent.ok()) return agent.status();
    if (absl::Status s = CheckGrantable(*agent); !s.ok()) return s;
    if (absl::Status s = CheckUnused(Found(LookupPermission(c, row->id)), "permission", row->id);
        !s.ok()) {
      return s;
    }
    InsertPermission(c, *row);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return row;
}

absl::Status SqliteStore::RevokePermission(absl::string_view permission_id) {
  if (absl::Status s = CheckId("permission_id", permission_id, kPermissionIdPrefix); !s.ok())
    return s;
  return InTransaction(TransactionKind::kWrite, [&](SqliteConnection& c) {
    ScopedStatement remove = c.Use(StatementId::kDeletePermission);
    remove.BindText(1, permission_id);
    if (remove.Execute() == 0) {
      return absl::NotFoundError(absl::StrCat("permission ", permission_id, " does not exist"));
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<Delegation> SqliteStore::CreateDelegation(const NewDelegation& delegation) {
  const absl::Time now = StoredTime(options_.clock());
  absl::StatusOr<DelegationToCreate> row = PrepareNewDelegation(delegation, now);
  if (!row.ok()) return row.status();
  const Delegation& created = row->delegation;
  absl::Status status = InTransaction(TransactionKind::kWrite, [&](SqliteConnection& c) {
    absl::StatusOr<Agent> from =
        ExistingRow(LookupAgent(c, created.from_agent_id), "agent", created.from_agent_id);
    if (!from.ok()) return from.status();
    absl::StatusOr<Agent> to =
        ExistingRow(LookupAgent(c, created.to_agent_id), "agent", created.to_agent_id);
    if (!to.ok()) return to.status();
    if (absl::Status s = CheckDelegationParties(*from, *to, now); !s.ok()) return s;
    if (absl::Status s =
            CheckUnused(Found(LookupDelegation(c, created.id)), "delegation", created.id);
        !s.ok()) {
      return s;
    }
    ConnectionGraph graph(c, now);
    if (absl::Status s = CheckNewDelegation(row->checked, graph); !s.ok()) return s;
    InsertDelegation(c, created, row->lent_json);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return std::move(row->delegation);
}

absl::Status SqliteStore::RevokeDelegation(absl::string_view delegation_id) {
  if (absl::Status s = CheckId("delegation_id", delegation_id, kDelegationIdPrefix); !s.ok())
    return s;
  return InTransaction(TransactionKind::kWrite, [&](SqliteConnection& c) {
    absl::StatusOr<Delegation> found =
        ExistingRow(LookupDelegation(c, delegation_id), "delegation", delegation_id);
    if (!found.ok()) return found.status();
    if (found->status == DelegationStatus::kRevoked) return absl::OkStatus();
    ScopedStatement revoke = c.Use(StatementId::kRevokeDelegation);
    revoke.BindText(1, delegation_id);
    revoke.Execute();
    return absl::OkStatus();
  });
}

absl::StatusOr<ApprovalPage> SqliteStore::ListApprovals(std::optional<ApprovalStatus> status,
                                                        const PageRequest& page) {
  absl::StatusOr<int> page_size = PageSizeOf(page);
  if (!page_size.ok()) return page_size.status();
  if (status.has_value()) {
    if (absl::Status s = CheckApprovalStatus(*status); !s.ok()) return s;
  }
  absl::StatusOr<ApprovalPageStart> start = ParseApprovalPageToken(page.page_token);
  if (!start.ok()) return start.status();
  const absl::Time now = options_.clock();
  ApprovalPage result;
  absl::Status outcome = InTransaction(TransactionKind::kRead, [&](SqliteConnection& c) {
    ScopedStatement list = c.Use(StatementId::kListApprovals);
    list.BindInt64(1, start->after_created_micros);
    if (status.has_value()) {
      list.BindText(2, ApprovalStatusName(*status));
    } else {
      list.BindNull(2);
    }
    list.BindInt64(3, *page_size + 1);  // one more tells whether another page follows
    list.BindText(4, start->after_id);
    list.BindTime(9, now);
    absl::StatusOr<std::vector<ApprovalRequest>> approvals =
        ReadAllRows<ApprovalRequest>(list, ReadApprovalColumns<ScopedStatement>);
    if (!approvals.ok()) return approvals.status();
    result.approvals = *std::move(approvals);
    return absl::OkStatus();
  });
  if (!outcome.ok()) return outcome;
  if (result.approvals.size() > static_cast<size_t>(*page_size)) {
    result.approvals.resize(*page_size);
    result.next_page_token = ApprovalPageToken(result.approvals.back());
  }
  return result;
}

absl::StatusOr<ApprovalRequest> SqliteStore::GetApproval(absl::string_view approval_id) {
  if (absl::Status s = CheckId("approval_id", approval_id, kApprovalIdPrefix); !s.ok()) return s;
  const absl::Time now = options_.clock();
  ApprovalRequest approval;
  absl::Status status = InTransaction(TransactionKind::kRead, [&](SqliteConnection& c) {
    absl::StatusOr<ApprovalRequest> found =
        ExistingRow(LookupApproval(c, approval_id, now), "approval", approval_id);
    if (!found.ok()) return found.status();
    approval = *std::move(found);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return approval;
}

absl::StatusOr<ApprovalRequest> SqliteStore::VoteOnApproval(absl::string_view approval_id,
                                                            absl::string_view approver,
                                                            bool approve, absl::Time now) {
  if (absl::Status s = CheckId("approval_id", approval_id, kApprovalIdPrefix); !s.ok()) return s;
  if (absl::Status s = CheckDisplayText("approver", approver); !s.ok()) return s;
  now = StoredTime(now);
  ApprovalRequest approval;
  bool expired = false;
  absl::Status status = InTransaction(TransactionKind::kWrite, [&](SqliteConnection& c) {
    absl::StatusOr<ApprovalRequest> found =
        ExistingRow(LookupApproval(c, approval_id, now), "approval", approval_id);
    if (!found.ok()) return found.status();
    approval = *std::move(found);
    if (approval.status == ApprovalStatus::kExpired) {
      // Committed although the vote is refused: the request is expired for everyone.
      SetApprovalStatus(c, approval, ApprovalStatus::kExpired, now);
      expired = true;
      return absl::OkStatus();
    }
    if (approval.status != ApprovalStatus::kPending) return VotingClosed(approval);
    ScopedStatement find_vote = c.Use(StatementId::kFindVote);
    find_vote.BindText(1, approval_id);
    find_vote.BindText(2, approver);
    if (find_vote.Step()) {
      return absl::AlreadyExistsError(
          absl::StrCat(approver, " has already voted on approval ", approval_id));
    }
    ScopedStatement insert = c.Use(StatementId::kInsertVote);
    insert.BindText(1, approval_id);
    insert.BindText(2, approver);
    insert.BindText(3, approve ? "approve" : "deny");
    insert.BindTime(4, now);
    insert.Execute();
    if (!approve) {
      SetApprovalStatus(c, approval, ApprovalStatus::kDenied, now);
    } else if (++approval.approvals >= approval.quorum) {
      SetApprovalStatus(c, approval, ApprovalStatus::kApproved, now);
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  if (expired) return ExpiredApproval(approval);
  return approval;
}

absl::StatusOr<PolicyContents> SqliteStore::ExportPolicy() {
  PolicyContents policy;
  absl::Status status = InTransaction(TransactionKind::kRead, [&](SqliteConnection& c) {
    {
      ScopedStatement agents = c.Use(StatementId::kExportAgents);
      while (agents.Step()) {
        absl::StatusOr<Agent> agent = ReadAgentColumns(agents);
        if (!agent.ok()) return agent.status();
        policy.agents.push_back(StoredAgent{*std::move(agent), agents.Text(9)});
      }
    }
    ScopedStatement permissions = c.Use(StatementId::kExportPermissions);
    absl::StatusOr<std::vector<Permission>> permission_rows =
        ReadAllRows<Permission>(permissions, ReadPermissionColumns<ScopedStatement>);
    if (!permission_rows.ok()) return permission_rows.status();
    policy.permissions = *std::move(permission_rows);
    ScopedStatement delegations = c.Use(StatementId::kExportDelegations);
    absl::StatusOr<std::vector<Delegation>> delegation_rows =
        ReadAllRows<Delegation>(delegations, ReadDelegationColumns<ScopedStatement>);
    if (!delegation_rows.ok()) return delegation_rows.status();
    policy.delegations = *std::move(delegation_rows);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return policy;
}

absl::Status SqliteStore::ImportPolicy(const PolicyContents& policy) {
  // Validated before the file is touched: an import is all or nothing.
  absl::StatusOr<PolicyToImport> prepared =
      PreparePolicyImport(policy, StoredTime(options_.clock()));
  if (!prepared.ok()) return prepared.status();
  return InTransaction(TransactionKind::kWrite, [&](SqliteConnection& c) {
    absl::StatusOr<bool> empty = PolicyIsEmpty(c);
    if (!empty.ok()) return empty.status();
    if (!*empty) return ImportNeedsEmptyStore();
    for (const StoredAgent& stored : prepared->agents) {
      InsertAgent(c, stored.agent, stored.token_sha256);
    }
    for (const Permission& permission : prepared->permissions) InsertPermission(c, permission);
    for (size_t i = 0; i < prepared->delegations.size(); ++i) {
      InsertDelegation(c, prepared->delegations[i], prepared->lent_json[i]);
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<bool> SqliteStore::IsEmpty() {
  bool empty = false;
  absl::Status status = InTransaction(TransactionKind::kRead, [&](SqliteConnection& c) {
    absl::StatusOr<bool> is_empty = PolicyIsEmpty(c);
    if (!is_empty.ok()) return is_empty.status();
    empty = *is_empty;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return empty;
}

}  // namespace verdict
