// SqliteStore's PolicyAdmin half: the admin plane's writes and reads (store/policy_admin.h).
#include <cstdint>
#include <limits>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "crypto/sha256.h"
#include "crypto/token.h"
#include "store/delegation_rules.h"
#include "store/ids.h"
#include "store/policy_encoding.h"
#include "store/policy_validation.h"
#include "store/sqlite_lookups.h"
#include "store/sqlite_store.h"

namespace verdict {
namespace {

constexpr size_t kTokenHashBytes = 32;

// Times as the store keeps them (whole microseconds), so what a write returns equals what a
// later read returns.
absl::Time Stored(absl::Time time) { return TimeFromMicros(TimeToMicros(time)); }

absl::StatusOr<int> PageSize(const PageRequest& page) {
  if (page.page_size == 0) return kDefaultPageSize;
  if (page.page_size < 0 || page.page_size > kMaxPageSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_size: must be 0 (the default) to ", kMaxPageSize));
  }
  return page.page_size;
}

absl::Status BadPageToken() {
  return absl::InvalidArgumentError("page_token: not a token from a previous page");
}

absl::Status CheckFuture(absl::string_view field, absl::Time time, absl::Time now) {
  if (time <= now) return absl::InvalidArgumentError(absl::StrCat(field, ": is in the past"));
  return absl::OkStatus();
}

// Refuses an enum value outside its declared range (a cast from a wire integer).
template <typename Enum>
absl::Status CheckEnum(Enum value, absl::string_view (*name)(Enum),
                       absl::StatusOr<Enum> (*parse)(absl::string_view)) {
  return parse(name(value)).status();
}

absl::Status CheckAgentFields(const Agent& agent) {
  if (absl::Status s = CheckId("id", agent.id, kAgentIdPrefix); !s.ok()) return s;
  if (absl::Status s = CheckDisplayText("owner", agent.owner); !s.ok()) return s;
  if (absl::Status s = CheckDisplayText("name", agent.name); !s.ok()) return s;
  if (absl::Status s = CheckEnum(agent.kind, AgentKindName, ParseAgentKind); !s.ok()) return s;
  return CheckEnum(agent.status, AgentStatusName, ParseAgentStatus);
}

absl::Status CheckPermissionFields(const Permission& permission) {
  if (absl::Status s = CheckId("id", permission.id, kPermissionIdPrefix); !s.ok()) return s;
  if (absl::Status s = CheckEnum(permission.effect, EffectName, ParseEffect); !s.ok()) return s;
  return CheckPermissionSpec("", permission.resource, permission.actions,
                             permission.constraints_json);
}

absl::Status CheckDelegationFields(const Delegation& delegation) {
  if (absl::Status s = CheckId("id", delegation.id, kDelegationIdPrefix); !s.ok()) return s;
  if (delegation.from_agent_id == delegation.to_agent_id) {
    return absl::InvalidArgumentError(
        absl::StrCat("an agent cannot delegate to itself (", delegation.from_agent_id, ")"));
  }
  if (absl::Status s = CheckLentPermissions(delegation.permissions); !s.ok()) return s;
  if (absl::Status s = CheckMaxDepth(delegation.max_depth); !s.ok()) return s;
  return CheckEnum(delegation.status, DelegationStatusName, ParseDelegationStatus);
}

template <typename Row>
absl::StatusOr<Row> Existing(absl::StatusOr<std::optional<Row>> found, absl::string_view what,
                             absl::string_view id) {
  if (!found.ok()) return found.status();
  if (!found->has_value()) {
    return absl::NotFoundError(absl::StrCat(what, " ", id, " does not exist"));
  }
  return **std::move(found);
}

absl::Status CheckUnused(absl::StatusOr<bool> in_use, absl::string_view what,
                         absl::string_view id) {
  if (!in_use.ok()) return in_use.status();
  if (*in_use) return absl::AlreadyExistsError(absl::StrCat(what, " ", id, " already exists"));
  return absl::OkStatus();
}

template <typename Row>
absl::StatusOr<bool> Found(absl::StatusOr<std::optional<Row>> found) {
  if (!found.ok()) return found.status();
  return found->has_value();
}

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

// Constraints in their stored (canonical) form, so equal constraints read back equal.
absl::Status CanonicalizeLent(std::vector<LentPermission>& lent) {
  for (LentPermission& permission : lent) {
    absl::StatusOr<std::string> canonical = CanonicalConstraintsJson(permission.constraints_json);
    if (!canonical.ok()) return canonical.status();
    permission.constraints_json = *std::move(canonical);
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> PolicyIsEmpty(SqliteConnection& connection) {
  ScopedStatement empty = connection.Use(StatementId::kPolicyIsEmpty);
  empty.Step();
  return empty.Int64(0) != 0;
}

std::string ApprovalPageToken(const ApprovalRequest& last) {
  return absl::StrCat(absl::ToUnixMicros(last.created_at), "/", last.id);
}

}  // namespace

absl::StatusOr<CreatedAgent> SqliteStore::CreateAgent(const NewAgent& agent) {
  const absl::Time now = Stored(options_.clock());
  CreatedAgent created;
  created.token = NewAgentToken();
  Agent& row = created.agent;
  row.id = agent.id.empty() ? NewId(kAgentIdPrefix) : agent.id;
  row.owner = agent.owner;
  row.name = agent.name;
  row.kind = agent.kind;
  row.status = AgentStatus::kActive;
  row.expires_at = Stored(agent.expires_at);
  row.token_prefix = TokenDisplayPrefix(created.token);
  row.created_at = now;
  row.updated_at = now;
  if (absl::Status s = CheckAgentFields(row); !s.ok()) return s;
  if (absl::Status s = CheckFuture("expires_at", row.expires_at, now); !s.ok()) return s;
  const std::string token_sha256 = Sha256(created.token);
  absl::Status status = InTransaction(TransactionKind::kWrite, [&](SqliteConnection& c) {
    if (absl::Status s = CheckUnused(Found(LookupAgent(c, row.id)), "agent", row.id); !s.ok()) {
      return s;
    }
    InsertAgent(c, row, token_sha256);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return created;
}

absl::StatusOr<Agent> SqliteStore::GetAgent(absl::string_view agent_id) {
  Agent agent;
  absl::Status status = InTransaction(TransactionKind::kRead, [&](SqliteConnection& c) {
    absl::StatusOr<Agent> found = Existing(LookupAgent(c, agent_id), "agent", agent_id);
    if (!found.ok()) return found.status();
    agent = *std::move(found);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return agent;
}

absl::StatusOr<AgentPage> SqliteStore::ListAgents(const PageRequest& page) {
  absl::StatusOr<int> page_size = PageSize(page);
  if (!page_size.ok()) return page_size.status();
  AgentPage result;
  absl::Status status = InTransaction(TransactionKind::kRead, [&](SqliteConnection& c) {
    ScopedStatement list = c.Use(StatementId::kListAgents);
    // Ids sort after "" and the token is the last id of the previous page.
    list.BindText(1, page.page_token);
    list.BindInt64(2, *page_size + 1);  // one more tells whether another page follows
    absl::StatusOr<std::vector<Agent>> agents = ReadAllRows<Agent>(list, ReadAgentRow);
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
  if (absl::Status s = CheckEnum(status, AgentStatusName, ParseAgentStatus); !s.ok()) return s;
  const absl::Time now = Stored(options_.clock());
  Agent agent;
  absl::Status result = InTransaction(TransactionKind::kWrite, [&](SqliteConnection& c) {
    absl::StatusOr<Agent> found = Existing(LookupAgent(c, agent_id), "agent", agent_id);
    if (!found.ok()) return found.status();
    agent = *std::move(found);
    if (agent.status == status) return absl::OkStatus();
    if (agent.status == AgentStatus::kRevoked) {
      return absl::FailedPreconditionError(absl::StrCat(
          "agent ", agent_id, " is revoked, and revocation is final: it cannot become ",
          AgentStatusName(status)));
    }
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
  if (grace < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("grace: must not be negative");
  }
  const absl::Time now = Stored(options_.clock());
  RotatedToken rotated;
  rotated.token = NewAgentToken();
  rotated.previous_token_expires_at = Stored(now + grace);
  const std::string token_sha256 = Sha256(rotated.token);
  absl::Status status = InTransaction(TransactionKind::kWrite, [&](SqliteConnection& c) {
    absl::StatusOr<Agent> found = Existing(LookupAgent(c, agent_id), "agent", agent_id);
    if (!found.ok()) return found.status();
    rotated.agent = *std::move(found);
    if (rotated.agent.status == AgentStatus::kRevoked) {
      return absl::FailedPreconditionError(
          absl::StrCat("agent ", agent_id, " is revoked: its token cannot be rotated"));
    }
    rotated.agent.token_prefix = TokenDisplayPrefix(rotated.token);
    rotated.agent.updated_at = now;
    ScopedStatement update = c.Use(StatementId::kRotateToken);
    update.BindText(1, agent_id);
    if (grace > absl::ZeroDuration()) {
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
  const absl::Time now = Stored(options_.clock());
  Permission row;
  row.id = permission.id.empty() ? NewId(kPermissionIdPrefix) : permission.id;
  row.agent_id = permission.agent_id;
  row.resource = permission.resource;
  row.actions = permission.actions;
  row.effect = permission.effect;
  row.constraints_json = permission.constraints_json;
  row.created_at = now;
  if (absl::Status s = CheckPermissionFields(row); !s.ok()) return s;
  absl::StatusOr<std::string> constraints = CanonicalConstraintsJson(row.constraints_json);
  if (!constraints.ok()) return constraints.status();
  row.constraints_json = *std::move(constraints);
  absl::Status status = InTransaction(TransactionKind::kWrite, [&](SqliteConnection& c) {
    absl::StatusOr<Agent> agent = Existing(LookupAgent(c, row.agent_id), "agent", row.agent_id);
    if (!agent.ok()) return agent.status();
    if (agent->status == AgentStatus::kRevoked) {
      return absl::FailedPreconditionError(
          absl::StrCat("agent ", row.agent_id, " is revoked: it cannot be granted anything"));
    }
    if (absl::Status s = CheckUnused(Found(LookupPermission(c, row.id)), "permission", row.id);
        !s.ok()) {
      return s;
    }
    InsertPermission(c, row);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return row;
}

absl::Status SqliteStore::RevokePermission(absl::string_view permission_id) {
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
  const absl::Time now = Stored(options_.clock());
  Delegation row;
  row.id = delegation.id.empty() ? NewId(kDelegationIdPrefix) : delegation.id;
  row.from_agent_id = delegation.from_agent_id;
  row.to_agent_id = delegation.to_agent_id;
  row.permissions = delegation.permissions;
  row.max_depth = delegation.max_depth;
  row.status = DelegationStatus::kActive;
  row.expires_at = Stored(delegation.expires_at);
  row.created_at = now;
  if (absl::Status s = CheckDelegationFields(row); !s.ok()) return s;
  if (absl::Status s = CheckFuture("expires_at", row.expires_at, now); !s.ok()) return s;
  if (absl::Status s = CanonicalizeLent(row.permissions); !s.ok()) return s;
  absl::StatusOr<std::string> lent_json = EncodeLentPermissions(row.permissions);
  if (!lent_json.ok()) return lent_json.status();
  NewDelegation checked = delegation;
  checked.permissions = row.permissions;
  absl::Status status = InTransaction(TransactionKind::kWrite, [&](SqliteConnection& c) {
    absl::StatusOr<Agent> from =
        Existing(LookupAgent(c, row.from_agent_id), "agent", row.from_agent_id);
    if (!from.ok()) return from.status();
    absl::StatusOr<Agent> to = Existing(LookupAgent(c, row.to_agent_id), "agent", row.to_agent_id);
    if (!to.ok()) return to.status();
    if (from->status != AgentStatus::kActive || from->expires_at <= now) {
      return absl::FailedPreconditionError(absl::StrCat(
          "delegator ", from->id, " is ",
          from->status != AgentStatus::kActive ? AgentStatusName(from->status) : "expired",
          ": it cannot lend anything"));
    }
    if (to->status == AgentStatus::kRevoked) {
      return absl::FailedPreconditionError(
          absl::StrCat("delegate ", to->id, " is revoked: it cannot be lent anything"));
    }
    if (absl::Status s = CheckUnused(Found(LookupDelegation(c, row.id)), "delegation", row.id);
        !s.ok()) {
      return s;
    }
    ConnectionGraph graph(c, now);
    if (absl::Status s = CheckNewDelegation(checked, graph); !s.ok()) return s;
    InsertDelegation(c, row, *lent_json);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return row;
}

absl::Status SqliteStore::RevokeDelegation(absl::string_view delegation_id) {
  return InTransaction(TransactionKind::kWrite, [&](SqliteConnection& c) {
    absl::StatusOr<Delegation> found =
        Existing(LookupDelegation(c, delegation_id), "delegation", delegation_id);
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
  absl::StatusOr<int> page_size = PageSize(page);
  if (!page_size.ok()) return page_size.status();
  if (status.has_value()) {
    if (absl::Status s = CheckEnum(*status, ApprovalStatusName, ParseApprovalStatus); !s.ok()) {
      return s;
    }
  }
  int64_t after_created = std::numeric_limits<int64_t>::min();
  std::string after_id;
  if (!page.page_token.empty()) {
    std::pair<std::string, std::string> parts = absl::StrSplit(page.page_token, '/');
    if (!absl::SimpleAtoi(parts.first, &after_created) || parts.second.empty()) {
      return BadPageToken();
    }
    after_id = parts.second;
  }
  const absl::Time now = options_.clock();
  ApprovalPage result;
  absl::Status outcome = InTransaction(TransactionKind::kRead, [&](SqliteConnection& c) {
    ScopedStatement list = c.Use(StatementId::kListApprovals);
    list.BindInt64(1, after_created);
    if (status.has_value()) {
      list.BindText(2, ApprovalStatusName(*status));
    } else {
      list.BindNull(2);
    }
    list.BindInt64(3, *page_size + 1);  // one more tells whether another page follows
    list.BindText(4, after_id);
    list.BindTime(9, now);
    absl::StatusOr<std::vector<ApprovalRequest>> approvals =
        ReadAllRows<ApprovalRequest>(list, ReadApprovalRow);
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
  const absl::Time now = options_.clock();
  ApprovalRequest approval;
  absl::Status status = InTransaction(TransactionKind::kRead, [&](SqliteConnection& c) {
    absl::StatusOr<ApprovalRequest> found =
        Existing(LookupApproval(c, approval_id, now), "approval", approval_id);
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
  if (absl::Status s = CheckDisplayText("approver", approver); !s.ok()) return s;
  now = Stored(now);
  ApprovalRequest approval;
  bool expired = false;
  absl::Status status = InTransaction(TransactionKind::kWrite, [&](SqliteConnection& c) {
    absl::StatusOr<ApprovalRequest> found =
        Existing(LookupApproval(c, approval_id, now), "approval", approval_id);
    if (!found.ok()) return found.status();
    approval = *std::move(found);
    auto set_status = [&](ApprovalStatus new_status) {
      ScopedStatement update = c.Use(StatementId::kSetApprovalStatus);
      update.BindText(1, approval_id);
      update.BindText(2, ApprovalStatusName(new_status));
      update.BindTime(3, now);
      update.Execute();
      approval.status = new_status;
    };
    if (approval.status == ApprovalStatus::kExpired) {
      // Committed although the vote is refused: the request is expired for everyone.
      set_status(ApprovalStatus::kExpired);
      expired = true;
      return absl::OkStatus();
    }
    if (approval.status != ApprovalStatus::kPending) {
      return absl::FailedPreconditionError(absl::StrCat("approval ", approval_id, " is ",
                                                        ApprovalStatusName(approval.status),
                                                        ": voting is closed"));
    }
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
      set_status(ApprovalStatus::kDenied);
    } else if (++approval.approvals >= approval.quorum) {
      set_status(ApprovalStatus::kApproved);
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  if (expired) {
    return absl::FailedPreconditionError(
        absl::StrCat("approval ", approval_id, " expired at ",
                     absl::FormatTime(absl::RFC3339_full, approval.expires_at, absl::UTCTimeZone()),
                     ": voting is closed"));
  }
  return approval;
}

absl::StatusOr<PolicyContents> SqliteStore::ExportPolicy() {
  PolicyContents policy;
  absl::Status status = InTransaction(TransactionKind::kRead, [&](SqliteConnection& c) {
    {
      ScopedStatement agents = c.Use(StatementId::kExportAgents);
      while (agents.Step()) {
        absl::StatusOr<Agent> agent = ReadAgentRow(agents);
        if (!agent.ok()) return agent.status();
        policy.agents.push_back(StoredAgent{*std::move(agent), agents.Text(9)});
      }
    }
    ScopedStatement permissions = c.Use(StatementId::kExportPermissions);
    absl::StatusOr<std::vector<Permission>> permission_rows =
        ReadAllRows<Permission>(permissions, ReadPermissionRow);
    if (!permission_rows.ok()) return permission_rows.status();
    policy.permissions = *std::move(permission_rows);
    ScopedStatement delegations = c.Use(StatementId::kExportDelegations);
    absl::StatusOr<std::vector<Delegation>> delegation_rows =
        ReadAllRows<Delegation>(delegations, ReadDelegationRow);
    if (!delegation_rows.ok()) return delegation_rows.status();
    policy.delegations = *std::move(delegation_rows);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return policy;
}

absl::Status SqliteStore::ImportPolicy(const PolicyContents& policy) {
  const absl::Time now = Stored(options_.clock());
  // Validate everything before touching the file: an import is all or nothing.
  absl::flat_hash_set<std::string> agent_ids;
  absl::flat_hash_set<std::string> token_hashes;
  std::vector<std::string> token_hash_of(policy.agents.size());
  for (size_t i = 0; i < policy.agents.size(); ++i) {
    const StoredAgent& stored = policy.agents[i];
    const std::string where = absl::StrCat("agents[", i, "]");
    if (absl::Status s = CheckAgentFields(stored.agent); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ".", s.message()));
    }
    if (!agent_ids.insert(stored.agent.id).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ".id: ", stored.agent.id, " appears twice"));
    }
    if (stored.token_sha256.empty()) {
      token_hash_of[i] = RandomBytes(kTokenHashBytes);  // no token yet: nothing can match it
    } else if (stored.token_sha256.size() != kTokenHashBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ".token_sha256: must be ", kTokenHashBytes, " bytes"));
    } else {
      token_hash_of[i] = stored.token_sha256;
    }
    if (!token_hashes.insert(token_hash_of[i]).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": has the same token as an earlier agent"));
    }
  }
  absl::flat_hash_set<std::string> permission_ids;
  std::vector<Permission> permissions = policy.permissions;
  for (size_t i = 0; i < permissions.size(); ++i) {
    Permission& permission = permissions[i];
    const std::string where = absl::StrCat("permissions[", i, "]");
    if (absl::Status s = CheckPermissionFields(permission); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ".", s.message()));
    }
    if (!permission_ids.insert(permission.id).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ".id: ", permission.id, " appears twice"));
    }
    if (!agent_ids.contains(permission.agent_id)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ".agent_id: no agent ", permission.agent_id, " in the policy"));
    }
    absl::StatusOr<std::string> constraints = CanonicalConstraintsJson(permission.constraints_json);
    if (!constraints.ok()) return constraints.status();
    permission.constraints_json = *std::move(constraints);
    permission.created_at = now;
  }
  absl::flat_hash_set<std::string> delegation_ids;
  std::vector<Delegation> delegations = policy.delegations;
  std::vector<std::string> lent_json_of(delegations.size());
  for (size_t i = 0; i < delegations.size(); ++i) {
    Delegation& delegation = delegations[i];
    const std::string where = absl::StrCat("delegations[", i, "]");
    if (absl::Status s = CheckDelegationFields(delegation); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ".", s.message()));
    }
    if (!delegation_ids.insert(delegation.id).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ".id: ", delegation.id, " appears twice"));
    }
    for (const std::string* agent_id : {&delegation.from_agent_id, &delegation.to_agent_id}) {
      if (!agent_ids.contains(*agent_id)) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": no agent ", *agent_id, " in the policy"));
      }
    }
    if (absl::Status s = CanonicalizeLent(delegation.permissions); !s.ok()) return s;
    absl::StatusOr<std::string> lent_json = EncodeLentPermissions(delegation.permissions);
    if (!lent_json.ok()) return lent_json.status();
    lent_json_of[i] = *std::move(lent_json);
    delegation.created_at = now;
  }

  return InTransaction(TransactionKind::kWrite, [&](SqliteConnection& c) {
    absl::StatusOr<bool> empty = PolicyIsEmpty(c);
    if (!empty.ok()) return empty.status();
    if (!*empty) {
      return absl::FailedPreconditionError(
          "the store already holds a policy: import only into an empty store");
    }
    for (size_t i = 0; i < policy.agents.size(); ++i) {
      Agent agent = policy.agents[i].agent;
      agent.expires_at = Stored(agent.expires_at);
      agent.created_at = now;
      agent.updated_at = now;
      InsertAgent(c, agent, token_hash_of[i]);
    }
    for (const Permission& permission : permissions) InsertPermission(c, permission);
    for (size_t i = 0; i < delegations.size(); ++i) {
      InsertDelegation(c, delegations[i], lent_json_of[i]);
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
