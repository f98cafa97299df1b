// PostgresStore's PolicyAdmin half: the admin plane's writes and reads (store/policy_admin.h).
// The checks and rows are store/admin_input.h's, shared with the SQLite store; what is here is
// the SQL around them.
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
#include "store/postgres_lookups.h"
#include "store/postgres_store.h"
#include "store/row_readers.h"

namespace verdict {
namespace {

// The delegation rules' view of the store, inside the caller's write transaction.
class ConnectionGraph final : public DelegationGraph {
 public:
  ConnectionGraph(PostgresConnection& connection, absl::Time now)
      : connection_(connection), now_(now) {}

  absl::StatusOr<std::vector<Permission>> PermissionsOf(absl::string_view agent_id) override {
    return PgLookupPermissionsOf(connection_, agent_id);
  }
  absl::StatusOr<std::vector<Delegation>> ActiveDelegationsInto(
      absl::string_view agent_id) override {
    return PgLookupActiveDelegationsInto(connection_, agent_id, now_);
  }
  absl::StatusOr<std::vector<Delegation>> ActiveDelegationsFrom(
      absl::string_view agent_id) override {
    return PgLookupActiveDelegationsFrom(connection_, agent_id, now_);
  }
  absl::StatusOr<bool> IsLive(absl::string_view agent_id) override {
    absl::StatusOr<std::optional<Agent>> agent = PgLookupAgent(connection_, agent_id);
    if (!agent.ok()) return agent.status();
    return agent->has_value() && LivenessOf(**agent, now_) == ReasonCode::kAllowed;
  }

 private:
  PostgresConnection& connection_;
  absl::Time now_;
};

absl::Status InsertAgent(PostgresConnection& connection, const Agent& agent,
                         absl::string_view token_sha256) {
  return connection
      .Execute(PgStatement::kInsertAgent, PgParams()
                                              .Text(agent.id)
                                              .Text(agent.owner)
                                              .Text(agent.name)
                                              .Text(AgentKindName(agent.kind))
                                              .Text(AgentStatusName(agent.status))
                                              .Time(agent.expires_at)
                                              .Bytes(token_sha256)
                                              .Text(agent.token_prefix)
                                              .Time(agent.created_at))
      .status();
}

// `permission.constraints_json` must be canonical (CanonicalConstraintsJson).
absl::Status InsertPermission(PostgresConnection& connection, const Permission& permission) {
  return connection
      .Execute(PgStatement::kInsertPermission, PgParams()
                                                   .Text(permission.id)
                                                   .Text(permission.agent_id)
                                                   .Text(permission.resource)
                                                   .Text(JoinActions(permission.actions))
                                                   .Text(EffectName(permission.effect))
                                                   .Text(permission.constraints_json)
                                                   .Time(permission.created_at))
      .status();
}

absl::Status InsertDelegation(PostgresConnection& connection, const Delegation& delegation,
                              absl::string_view lent_json) {
  return connection
      .Execute(PgStatement::kInsertDelegation, PgParams()
                                                   .Text(delegation.id)
                                                   .Text(delegation.from_agent_id)
                                                   .Text(delegation.to_agent_id)
                                                   .Text(lent_json)
                                                   .Int64(delegation.max_depth)
                                                   .Text(DelegationStatusName(delegation.status))
                                                   .Time(delegation.expires_at)
                                                   .Time(delegation.created_at))
      .status();
}

absl::StatusOr<bool> PolicyIsEmpty(PostgresConnection& connection) {
  absl::StatusOr<PgResult> empty = connection.Execute(PgStatement::kPolicyIsEmpty);
  if (!empty.ok()) return empty.status();
  return empty->row(0).Bool(0);
}

absl::Status SetApprovalStatus(PostgresConnection& connection, ApprovalRequest& approval,
                               ApprovalStatus status, absl::Time now) {
  absl::StatusOr<PgResult> updated =
      connection.Execute(PgStatement::kSetApprovalStatus,
                         PgParams().Text(approval.id).Text(ApprovalStatusName(status)).Time(now));
  if (!updated.ok()) return updated.status();
  approval.status = status;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CreatedAgent> PostgresStore::CreateAgent(const NewAgent& agent) {
  absl::StatusOr<AgentToCreate> row = PrepareNewAgent(agent, StoredTime(options_.clock()));
  if (!row.ok()) return row.status();
  absl::Status status = InTransaction(TransactionKind::kWrite, [&](PostgresConnection& c) {
    const std::string& id = row->agent.id;
    if (absl::Status s = CheckUnused(Found(PgLookupAgent(c, id)), "agent", id); !s.ok()) {
      return s;
    }
    return InsertAgent(c, row->agent, row->token_sha256);
  });
  if (!status.ok()) return status;
  return CreatedAgent{std::move(row->agent), std::move(row->token)};
}

absl::StatusOr<Agent> PostgresStore::GetAgent(absl::string_view agent_id) {
  if (absl::Status s = CheckId("agent_id", agent_id, kAgentIdPrefix); !s.ok()) return s;
  Agent agent;
  absl::Status status = InTransaction(TransactionKind::kRead, [&](PostgresConnection& c) {
    absl::StatusOr<Agent> found = ExistingRow(PgLookupAgent(c, agent_id), "agent", agent_id);
    if (!found.ok()) return found.status();
    agent = *std::move(found);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return agent;
}

absl::StatusOr<AgentPage> PostgresStore::ListAgents(const PageRequest& page) {
  absl::StatusOr<int> page_size = PageSizeOf(page);
  if (!page_size.ok()) return page_size.status();
  // A page token is the last agent id of the page before.
  if (!page.page_token.empty()) {
    if (absl::Status s = CheckId("page_token", page.page_token, kAgentIdPrefix); !s.ok()) return s;
  }
  AgentPage result;
  absl::Status status = InTransaction(TransactionKind::kRead, [&](PostgresConnection& c) {
    // Ids sort after "" and the token is the last id of the previous page; one row more than
    // the page tells whether another page follows.
    absl::StatusOr<PgResult> rows =
        c.Execute(PgStatement::kListAgents, PgParams().Text(page.page_token).Int64(*page_size + 1));
    if (!rows.ok()) return rows.status();
    absl::StatusOr<std::vector<Agent>> agents = PgReadAll<Agent>(*rows, ReadAgentColumns<PgRow>);
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

absl::StatusOr<Agent> PostgresStore::SetAgentStatus(absl::string_view agent_id,
                                                    AgentStatus status) {
  if (absl::Status s = CheckId("agent_id", agent_id, kAgentIdPrefix); !s.ok()) return s;
  if (absl::Status s = CheckAgentStatus(status); !s.ok()) return s;
  const absl::Time now = StoredTime(options_.clock());
  Agent agent;
  absl::Status result = InTransaction(TransactionKind::kWrite, [&](PostgresConnection& c) {
    absl::StatusOr<Agent> found = ExistingRow(PgLookupAgent(c, agent_id), "agent", agent_id);
    if (!found.ok()) return found.status();
    agent = *std::move(found);
    absl::StatusOr<bool> change = StatusChangeNeeded(agent, status);
    if (!change.ok() || !*change) return change.status();
    absl::StatusOr<PgResult> updated =
        c.Execute(PgStatement::kSetAgentStatus,
                  PgParams().Text(agent_id).Text(AgentStatusName(status)).Time(now));
    if (!updated.ok()) return updated.status();
    agent.status = status;
    agent.updated_at = now;
    return absl::OkStatus();
  });
  if (!result.ok()) return result;
  return agent;
}

absl::StatusOr<RotatedToken> PostgresStore::RotateToken(absl::string_view agent_id,
                                                        absl::Duration grace) {
  if (absl::Status s = CheckId("agent_id", agent_id, kAgentIdPrefix); !s.ok()) return s;
  const absl::Time now = StoredTime(options_.clock());
  absl::StatusOr<std::optional<absl::Time>> previous_until = PreviousTokenValidUntil(grace, now);
  if (!previous_until.ok()) return previous_until.status();
  RotatedToken rotated;
  rotated.token = NewAgentToken();
  rotated.previous_token_expires_at = previous_until->value_or(now);
  const std::string token_sha256 = Sha256(rotated.token);
  absl::Status status = InTransaction(TransactionKind::kWrite, [&](PostgresConnection& c) {
    absl::StatusOr<Agent> found = ExistingRow(PgLookupAgent(c, agent_id), "agent", agent_id);
    if (!found.ok()) return found.status();
    rotated.agent = *std::move(found);
    if (absl::Status s = CheckTokenRotatable(rotated.agent); !s.ok()) return s;
    rotated.agent.token_prefix = TokenDisplayPrefix(rotated.token);
    rotated.agent.updated_at = now;
    PgParams params;
    params.Text(agent_id);
    if (previous_until->has_value()) {
      params.Time(rotated.previous_token_expires_at);
    } else {
      params.NullInt64();  // the old token stops now
    }
    params.Bytes(token_sha256).Text(rotated.agent.token_prefix).Time(now);
    return c.Execute(PgStatement::kRotateToken, params).status();
  });
  if (!status.ok()) return status;
  return rotated;
}

absl::StatusOr<Permission> PostgresStore::GrantPermission(const NewPermission& permission) {
  absl::StatusOr<Permission> row = PrepareNewPermission(permission, StoredTime(options_.clock()));
  if (!row.ok()) return row.status();
  absl::Status status = InTransaction(TransactionKind::kWrite, [&](PostgresConnection& c) {
    absl::StatusOr<Agent> agent =
        ExistingRow(PgLookupAgent(c, row->agent_id), "agent", row->agent_id);
    if (!agent.ok()) return agent.status();
    if (absl::Status s = CheckGrantable(*agent); !s.ok()) return s;
    if (absl::Status s = CheckUnused(Found(PgLookupPermission(c, row->id)), "permission", row->id);
        !s.ok()) {
      return s;
    }
    return InsertPermission(c, *row);
  });
  if (!status.ok()) return status;
  return row;
}

absl::Status PostgresStore::RevokePermission(absl::string_view permission_id) {
  if (absl::Status s = CheckId("permission_id", permission_id, kPermissionIdPrefix); !s.ok())
    return s;
  return InTransaction(TransactionKind::kWrite, [&](PostgresConnection& c) {
    absl::StatusOr<PgResult> removed =
        c.Execute(PgStatement::kDeletePermission, PgParams().Text(permission_id));
    if (!removed.ok()) return removed.status();
    if (removed->changed_rows() == 0) {
      return absl::NotFoundError(absl::StrCat("permission ", permission_id, " does not exist"));
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<Delegation> PostgresStore::CreateDelegation(const NewDelegation& delegation) {
  const absl::Time now = StoredTime(options_.clock());
  absl::StatusOr<DelegationToCreate> prepared = PrepareNewDelegation(delegation, now);
  if (!prepared.ok()) return prepared.status();
  const Delegation& row = prepared->delegation;
  absl::Status status = InTransaction(TransactionKind::kWrite, [&](PostgresConnection& c) {
    absl::StatusOr<Agent> from =
        ExistingRow(PgLookupAgent(c, row.from_agent_id), "agent", row.from_agent_id);
    if (!from.ok()) return from.status();
    absl::StatusOr<Agent> to =
        ExistingRow(PgLookupAgent(c, row.to_agent_id), "agent", row.to_agent_id);
    if (!to.ok()) return to.status();
    if (absl::Status s = CheckDelegationParties(*from, *to, now); !s.ok()) return s;
    if (absl::Status s = CheckUnused(Found(PgLookupDelegation(c, row.id)), "delegation", row.id);
        !s.ok()) {
      return s;
    }
    ConnectionGraph graph(c, now);
    if (absl::Status s = CheckNewDelegation(prepared->checked, graph); !s.ok()) return s;
    return InsertDelegation(c, row, prepared->lent_json);
  });
  if (!status.ok()) return status;
  return row;
}

absl::Status PostgresStore::RevokeDelegation(absl::string_view delegation_id) {
  if (absl::Status s = CheckId("delegation_id", delegation_id, kDelegationIdPrefix); !s.ok())
    return s;
  return InTransaction(TransactionKind::kWrite, [&](PostgresConnection& c) {
    absl::StatusOr<Delegation> found =
        ExistingRow(PgLookupDelegation(c, delegation_id), "delegation", delegation_id);
    if (!found.ok()) return found.status();
    if (found->status == DelegationStatus::kRevoked) return absl::OkStatus();
    return c.Execute(PgStatement::kRevokeDelegation, PgParams().Text(delegation_id)).status();
  });
}

absl::StatusOr<ApprovalPage> PostgresStore::ListApprovals(std::optional<ApprovalStatus> status,
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
  absl::Status outcome = InTransaction(TransactionKind::kRead, [&](PostgresConnection& c) {
    PgParams params;
    params.Int64(start->after_created_micros).Text(start->after_id);
    if (status.has_value()) {
      params.Text(ApprovalStatusName(*status));
    } else {
      params.NullText();
    }
    params.Int64(*page_size + 1).Time(now);  // one more tells whether another page follows
    absl::StatusOr<PgResult> rows = c.Execute(PgStatement::kListApprovals, params);
    if (!rows.ok()) return rows.status();
    absl::StatusOr<std::vector<ApprovalRequest>> approvals =
        PgReadAll<ApprovalRequest>(*rows, ReadApprovalColumns<PgRow>);
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

absl::StatusOr<ApprovalRequest> PostgresStore::GetApproval(absl::string_view approval_id) {
  if (absl::Status s = CheckId("approval_id", approval_id, kApprovalIdPrefix); !s.ok()) return s;
  const absl::Time now = options_.clock();
  ApprovalRequest approval;
  absl::Status status = InTransaction(TransactionKind::kRead, [&](PostgresConnection& c) {
    absl::StatusOr<ApprovalRequest> found =
        ExistingRow(PgLookupApproval(c, approval_id, now), "approval", approval_id);
    if (!found.ok()) return found.status();
    approval = *std::move(found);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return approval;
}

absl::StatusOr<ApprovalRequest> PostgresStore::VoteOnApproval(absl::string_view approval_id,
                                                              absl::string_view approver,
                                                              bool approve, absl::Time now) {
  if (absl::Status s = CheckId("approval_id", approval_id, kApprovalIdPrefix); !s.ok()) return s;
  if (absl::Status s = CheckDisplayText("approver", approver); !s.ok()) return s;
  now = StoredTime(now);
  ApprovalRequest approval;
  bool expired = false;
  absl::Status status = InTransaction(TransactionKind::kWrite, [&](PostgresConnection& c) {
    absl::StatusOr<ApprovalRequest> found =
        ExistingRow(PgLookupApproval(c, approval_id, now), "approval", approval_id);
    if (!found.ok()) return found.status();
    approval = *std::move(found);
    if (approval.status == ApprovalStatus::kExpired) {
      // Committed although the vote is refused: the request is expired for everyone.
      expired = true;
      return SetApprovalStatus(c, approval, ApprovalStatus::kExpired, now);
    }
    if (approval.status != ApprovalStatus::kPending) return VotingClosed(approval);
    absl::StatusOr<PgResult> vote =
        c.Execute(PgStatement::kFindVote, PgParams().Text(approval_id).Text(approver));
    if (!vote.ok()) return vote.status();
    if (vote->size() > 0) {
      return absl::AlreadyExistsError(
          absl::StrCat(approver, " has already voted on approval ", approval_id));
    }
    absl::StatusOr<PgResult> inserted = c.Execute(
        PgStatement::kInsertVote,
        PgParams().Text(approval_id).Text(approver).Text(approve ? "approve" : "deny").Time(now));
    if (!inserted.ok()) return inserted.status();
    if (!approve) return SetApprovalStatus(c, approval, ApprovalStatus::kDenied, now);
    if (++approval.approvals >= approval.quorum) {
      return SetApprovalStatus(c, approval, ApprovalStatus::kApproved, now);
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  if (expired) return ExpiredApproval(approval);
  return approval;
}

absl::StatusOr<PolicyContents> PostgresStore::ExportPolicy() {
  PolicyContents policy;
  absl::Status status = InTransaction(TransactionKind::kRead, [&](PostgresConnection& c) {
    absl::StatusOr<PgResult> agents = c.Execute(PgStatement::kExportAgents);
    if (!agents.ok()) return agents.status();
    for (int i = 0; i < agents->size(); ++i) {
      absl::StatusOr<Agent> agent = ReadAgentColumns(agents->row(i));
      if (!agent.ok()) return agent.status();
      policy.agents.push_back(StoredAgent{*std::move(agent), agents->row(i).Text(9)});
    }
    absl::StatusOr<PgResult> permissions = c.Execute(PgStatement::kExportPermissions);
    if (!permissions.ok()) return permissions.status();
    absl::StatusOr<std::vector<Permission>> permission_rows =
        PgReadAll<Permission>(*permissions, ReadPermissionColumns<PgRow>);
    if (!permission_rows.ok()) return permission_rows.status();
    policy.permissions = *std::move(permission_rows);
    absl::StatusOr<PgResult> delegations = c.Execute(PgStatement::kExportDelegations);
    if (!delegations.ok()) return delegations.status();
    absl::StatusOr<std::vector<Delegation>> delegation_rows =
        PgReadAll<Delegation>(*delegations, ReadDelegationColumns<PgRow>);
    if (!delegation_rows.ok()) return delegation_rows.status();
    policy.delegations = *std::move(delegation_rows);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return policy;
}

absl::Status PostgresStore::ImportPolicy(const PolicyContents& policy) {
  // Everything is validated before the database is touched: an import is all or nothing.
  absl::StatusOr<PolicyToImport> prepared =
      PreparePolicyImport(policy, StoredTime(options_.clock()));
  if (!prepared.ok()) return prepared.status();
  return InTransaction(TransactionKind::kWrite, [&](PostgresConnection& c) {
    absl::StatusOr<bool> empty = PolicyIsEmpty(c);
    if (!empty.ok()) return empty.status();
    if (!*empty) return ImportNeedsEmptyStore();
    for (const StoredAgent& stored : prepared->agents) {
      if (absl::Status s = InsertAgent(c, stored.agent, stored.token_sha256); !s.ok()) return s;
    }
    for (const Permission& permission : prepared->permissions) {
      if (absl::Status s = InsertPermission(c, permission); !s.ok()) return s;
    }
    for (size_t i = 0; i < prepared->delegations.size(); ++i) {
      if (absl::Status s = InsertDelegation(c, prepared->delegations[i], prepared->lent_json[i]);
          !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<bool> PostgresStore::IsEmpty() {
  bool empty = false;
  absl::Status status = InTransaction(TransactionKind::kRead, [&](PostgresConnection& c) {
    absl::StatusOr<bool> is_empty = PolicyIsEmpty(c);
    if (!is_empty.ok()) return is_empty.status();
    empty = *is_empty;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return empty;
}

}  // namespace verdict
