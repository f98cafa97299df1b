#include "app/admin_calls.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "app/admin_input.h"
#include "crypto/jwt.h"
#include "crypto/sha256.h"
#include "crypto/token.h"
#include "decision/admin/delegation_rules.h"
#include "decision/admin/input_rules.h"
#include "decision/admin/policy_plan.h"
#include "decision/admin/roles.h"
#include "decision/admin/signing_key_rules.h"
#include "decision/admin/voting.h"
#include "store/ids.h"
#include "store/signing_keys.h"

namespace verdict {
namespace {

// The delegation rules' view of the store (decision/admin/delegation_rules.h), inside the
// caller's write transaction.
class TransactionGraph final : public DelegationGraph {
 public:
  explicit TransactionGraph(AdminTransaction& rows) : rows_(rows) {}

  absl::StatusOr<std::optional<Agent>> FindAgent(absl::string_view agent_id) override {
    return rows_.FindAgent(agent_id);
  }
  absl::StatusOr<std::vector<Permission>> PermissionsOf(absl::string_view agent_id) override {
    return rows_.PermissionsOf(agent_id);
  }
  absl::StatusOr<std::vector<Delegation>> ActiveDelegationsInto(absl::string_view agent_id,
                                                                absl::Time now) override {
    return rows_.ActiveDelegationsInto(agent_id, now);
  }
  absl::StatusOr<std::vector<Delegation>> ActiveDelegationsFrom(absl::string_view agent_id,
                                                                absl::Time now) override {
    return rows_.ActiveDelegationsFrom(agent_id, now);
  }

 private:
  AdminTransaction& rows_;
};

}  // namespace

AdminCalls::AdminCalls(AdminTransactionRunner& runner, std::function<absl::Time()> clock,
                       CancelToken cancel, AdminWriteRecorder* recorder,
                       std::shared_ptr<const AdminPrincipal> actor)
    : runner_(runner),
      clock_(std::move(clock)),
      cancel_(std::move(cancel)),
      recorder_(recorder),
      actor_(std::move(actor)) {}

std::unique_ptr<PolicyAdmin> AdminCalls::WithCancel(CancelToken cancel) {
  return std::make_unique<AdminCalls>(runner_, clock_,
                                      CancelToken([outer = cancel_, inner = std::move(cancel)] {
                                        if (absl::Status wanted = inner.Check(); !wanted.ok())
                                          return wanted;
                                        return outer.Check();
                                      }),
                                      recorder_, actor_);
}

std::unique_ptr<PolicyAdmin> AdminCalls::WithRecorder(AdminWriteRecorder& recorder) {
  return std::make_unique<AdminCalls>(runner_, clock_, cancel_, &recorder, actor_);
}

std::unique_ptr<PolicyAdmin> AdminCalls::ActingFor(const AdminPrincipal& principal) {
  return std::make_unique<AdminCalls>(runner_, clock_, cancel_, recorder_,
                                      std::make_shared<const AdminPrincipal>(principal));
}

absl::Status AdminCalls::RecordCreator(AdminTransaction& t, absl::string_view agent_id) {
  if (actor_ == nullptr) return absl::OkStatus();
  return t.SetAgentCreator(agent_id, actor_->name);
}

absl::Status AdminCalls::Transact(TransactionKind kind,
                                  absl::FunctionRef<absl::Status(AdminTransaction&)> body) {
  if (kind == TransactionKind::kWrite) return RecordedWrite({}, nullptr, body);
  return runner_.RunAdminTransaction(kind, body);
}

absl::Status AdminCalls::RecordedWrite(const std::vector<std::string>& created_ids,
                                       const absl::Status* answer,
                                       absl::FunctionRef<absl::Status(AdminTransaction&)> body) {
  absl::Status status =
      runner_.RunAdminTransaction(TransactionKind::kWrite, [&](AdminTransaction& t) {
        absl::Status done = body(t);
        if (done.ok()) done = cancel_.Check();
        // Last, so the record says what commits: a write and its author commit together.
        if (done.ok() && recorder_ != nullptr) {
          done = recorder_->RecordWrite(t, answer != nullptr ? *answer : absl::OkStatus(),
                                        created_ids);
        }
        return done;
      });
  if (status.ok() && recorder_ != nullptr) recorder_->Committed();
  return status;
}

absl::StatusOr<CreatedAgent> AdminCalls::CreateAgent(const NewAgent& agent) {
  absl::StatusOr<AgentToCreate> row = PrepareNewAgent(agent, StoredTime(AdminClock()));
  if (!row.ok()) return row.status();
  absl::Status status = RecordedWrite({row->agent.id}, nullptr, [&](AdminTransaction& t) {
    const std::string& id = row->agent.id;
    if (absl::Status s = CheckUnused(Found(t.FindAgent(id)), "agent", id); !s.ok()) return s;
    if (absl::Status s = t.InsertAgent(row->agent, row->token_sha256); !s.ok()) return s;
    return RecordCreator(t, id);
  });
  if (!status.ok()) return status;
  return CreatedAgent{std::move(row->agent), std::move(row->token)};
}

absl::StatusOr<Agent> AdminCalls::GetAgent(absl::string_view agent_id) {
  if (absl::Status s = CheckId("agent_id", agent_id, kAgentIdPrefix); !s.ok()) return s;
  Agent agent;
  absl::Status status = Transact(TransactionKind::kRead, [&](AdminTransaction& t) {
    absl::StatusOr<Agent> found = ExistingRow(t.FindAgent(agent_id), "agent", agent_id);
    if (!found.ok()) return found.status();
    agent = *std::move(found);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return agent;
}

absl::StatusOr<AgentGrants> AdminCalls::GetAgentGrants(absl::string_view agent_id) {
  if (absl::Status s = CheckId("agent_id", agent_id, kAgentIdPrefix); !s.ok()) return s;
  AgentGrants grants;
  const absl::Time now = AdminClock();
  absl::Status status = Transact(TransactionKind::kRead, [&](AdminTransaction& t) {
    absl::StatusOr<Agent> found = ExistingRow(t.FindAgent(agent_id), "agent", agent_id);
    if (!found.ok()) return found.status();
    grants.agent = *std::move(found);
    absl::StatusOr<std::vector<Permission>> permissions = t.PermissionsOf(agent_id);
    if (!permissions.ok()) return permissions.status();
    grants.permissions = *std::move(permissions);
    absl::StatusOr<std::vector<Delegation>> into = t.ActiveDelegationsInto(agent_id, now);
    if (!into.ok()) return into.status();
    grants.delegations_in = *std::move(into);
    absl::StatusOr<std::vector<Delegation>> from = t.ActiveDelegationsFrom(agent_id, now);
    if (!from.ok()) return from.status();
    grants.delegations_out = *std::move(from);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return grants;
}

absl::StatusOr<AgentPage> AdminCalls::ListAgents(const PageRequest& page) {
  absl::StatusOr<int> page_size = PageSizeOf(page);
  if (!page_size.ok()) return page_size.status();
  // A page token is the last agent id of the page before.
  if (!page.page_token.empty()) {
    if (absl::Status s = CheckId("page_token", page.page_token, kAgentIdPrefix); !s.ok()) return s;
  }
  AgentPage result;
  absl::Status status = Transact(TransactionKind::kRead, [&](AdminTransaction& t) {
    // Ids sort after "", so the first page starts at the empty token; one row more than the
    // page tells whether another page follows.
    absl::StatusOr<std::vector<Agent>> agents = t.ListAgents(page.page_token, *page_size + 1);
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

absl::StatusOr<Agent> AdminCalls::SetAgentStatus(absl::string_view agent_id, AgentStatus status) {
  if (absl::Status s = CheckId("agent_id", agent_id, kAgentIdPrefix); !s.ok()) return s;
  if (absl::Status s = CheckAgentStatus(status); !s.ok()) return s;
  const absl::Time now = StoredTime(AdminClock());
  Agent agent;
  absl::Status result = Transact(TransactionKind::kWrite, [&](AdminTransaction& t) {
    absl::StatusOr<Agent> found = ExistingRow(t.FindAgent(agent_id), "agent", agent_id);
    if (!found.ok()) return found.status();
    agent = *std::move(found);
    absl::StatusOr<bool> change = StatusChangeNeeded(agent, status);
    if (!change.ok() || !*change) return change.status();
    if (absl::Status s = t.SetAgentStatus(agent_id, status, now); !s.ok()) return s;
    // Revocation is final: no decision counts against the agent's rate limits again.
    if (status == AgentStatus::kRevoked) {
      if (absl::Status s = t.DeleteRateCountersOfAgent(agent_id); !s.ok()) return s;
    }
    agent.status = status;
    agent.updated_at = now;
    return absl::OkStatus();
  });
  if (!result.ok()) return result;
  return agent;
}

absl::StatusOr<RotatedToken> AdminCalls::RotateToken(absl::string_view agent_id,
                                                     absl::Duration grace) {
  if (absl::Status s = CheckId("agent_id", agent_id, kAgentIdPrefix); !s.ok()) return s;
  const absl::Time now = StoredTime(AdminClock());
  absl::StatusOr<std::optional<absl::Time>> previous_until = PreviousTokenValidUntil(grace, now);
  if (!previous_until.ok()) return previous_until.status();
  if (previous_until->has_value()) *previous_until = StoredTime(**previous_until);
  RotatedToken rotated;
  rotated.token = NewAgentToken();
  rotated.previous_token_expires_at = previous_until->value_or(now);
  const std::string token_sha256 = Sha256(rotated.token);
  absl::Status status = Transact(TransactionKind::kWrite, [&](AdminTransaction& t) {
    absl::StatusOr<Agent> found = ExistingRow(t.FindAgent(agent_id), "agent", agent_id);
    if (!found.ok()) return found.status();
    rotated.agent = *std::move(found);
    if (actor_ != nullptr) {
      absl::StatusOr<std::string> creator = t.AgentCreator(agent_id);
      if (!creator.ok()) return creator.status();
      if (absl::Status s = CheckMayRotateToken(*actor_, agent_id, *creator); !s.ok()) return s;
    }
    if (absl::Status s = CheckTokenRotatable(rotated.agent); !s.ok()) return s;
    rotated.agent.token_prefix = TokenDisplayPrefix(rotated.token);
    rotated.agent.updated_at = now;
    return t.ReplaceToken(agent_id, *previous_until, token_sha256, rotated.agent.token_prefix, now);
  });
  if (!status.ok()) return status;
  return rotated;
}

absl::StatusOr<Permission> AdminCalls::GrantPermission(const NewPermission& permission) {
  absl::StatusOr<Permission> row = PrepareNewPermission(permission, StoredTime(AdminClock()));
  if (!row.ok()) return row.status();
  absl::Status status = RecordedWrite({row->id}, nullptr, [&](AdminTransaction& t) {
    absl::StatusOr<Agent> agent = ExistingRow(t.FindAgent(row->agent_id), "agent", row->agent_id);
    if (!agent.ok()) return agent.status();
    if (absl::Status s = CheckGrantable(*agent); !s.ok()) return s;
    if (absl::Status s = CheckUnused(Found(t.FindPermission(row->id)), "permission", row->id);
        !s.ok()) {
      return s;
    }
    return t.InsertPermission(*row);
  });
  if (!status.ok()) return status;
  return row;
}

absl::Status AdminCalls::RevokePermission(absl::string_view permission_id) {
  if (absl::Status s = CheckId("permission_id", permission_id, kPermissionIdPrefix); !s.ok()) {
    return s;
  }
  return Transact(TransactionKind::kWrite, [&](AdminTransaction& t) {
    absl::StatusOr<bool> deleted = t.DeletePermission(permission_id);
    if (!deleted.ok()) return deleted.status();
    if (!*deleted) {
      return absl::NotFoundError(absl::StrCat("permission ", permission_id, " does not exist"));
    }
    return t.DeleteRateCountersOfPermission(permission_id);
  });
}

absl::StatusOr<Delegation> AdminCalls::CreateDelegation(const NewDelegation& delegation) {
  const absl::Time now = StoredTime(AdminClock());
  absl::StatusOr<DelegationToCreate> prepared = PrepareNewDelegation(delegation, now);
  if (!prepared.ok()) return prepared.status();
  const Delegation& row = prepared->delegation;
  absl::Status status = RecordedWrite({row.id}, nullptr, [&](AdminTransaction& t) {
    absl::StatusOr<Agent> from =
        ExistingRow(t.FindAgent(row.from_agent_id), "agent", row.from_agent_id);
    if (!from.ok()) return from.status();
    absl::StatusOr<Agent> to = ExistingRow(t.FindAgent(row.to_agent_id), "agent", row.to_agent_id);
    if (!to.ok()) return to.status();
    if (absl::Status s = CheckDelegationParties(*from, *to, now); !s.ok()) return s;
    if (absl::Status s = CheckUnused(Found(t.FindDelegation(row.id)), "delegation", row.id);
        !s.ok()) {
      return s;
    }
    TransactionGraph graph(t);
    if (absl::Status s = CheckNewDelegation(prepared->checked, graph, now); !s.ok()) return s;
    return t.InsertDelegation(row, prepared->lent_json);
  });
  if (!status.ok()) return status;
  return std::move(prepared->delegation);
}

absl::Status AdminCalls::RevokeDelegation(absl::string_view delegation_id) {
  if (absl::Status s = CheckId("delegation_id", delegation_id, kDelegationIdPrefix); !s.ok()) {
    return s;
  }
  return Transact(TransactionKind::kWrite, [&](AdminTransaction& t) {
    absl::StatusOr<Delegation> found =
        ExistingRow(t.FindDelegation(delegation_id), "delegation", delegation_id);
    if (!found.ok()) return found.status();
    if (found->status == DelegationStatus::kRevoked) return absl::OkStatus();
    if (absl::Status s = t.RevokeDelegation(delegation_id); !s.ok()) return s;
    return t.DeleteRateCountersOfDelegation(delegation_id);
  });
}

absl::StatusOr<ApprovalPage> AdminCalls::ListApprovals(std::optional<ApprovalStatus> status,
                                                       const PageRequest& page) {
  absl::StatusOr<int> page_size = PageSizeOf(page);
  if (!page_size.ok()) return page_size.status();
  if (status.has_value()) {
    if (absl::Status s = CheckApprovalStatus(*status); !s.ok()) return s;
  }
  absl::StatusOr<ApprovalPageStart> start = ParseApprovalPageToken(page.page_token);
  if (!start.ok()) return start.status();
  const absl::Time now = AdminClock();
  ApprovalPage result;
  absl::Status outcome = Transact(TransactionKind::kRead, [&](AdminTransaction& t) {
    // One row more than the page tells whether another page follows.
    absl::StatusOr<std::vector<ApprovalRequest>> approvals =
        t.ListApprovals(*start, status, *page_size + 1, now);
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

absl::StatusOr<ApprovalRequest> AdminCalls::GetApproval(absl::string_view approval_id) {
  if (absl::Status s = CheckId("approval_id", approval_id, kApprovalIdPrefix); !s.ok()) return s;
  const absl::Time now = AdminClock();
  ApprovalRequest approval;
  absl::Status status = Transact(TransactionKind::kRead, [&](AdminTransaction& t) {
    absl::StatusOr<ApprovalRequest> found =
        ExistingRow(t.FindApproval(approval_id, now), "approval", approval_id);
    if (!found.ok()) return found.status();
    approval = *std::move(found);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return approval;
}

absl::StatusOr<std::vector<ApprovalVoteCast>> AdminCalls::ApprovalVotes(
    absl::string_view approval_id) {
  if (absl::Status s = CheckId("approval_id", approval_id, kApprovalIdPrefix); !s.ok()) return s;
  const absl::Time now = AdminClock();
  std::vector<ApprovalVoteCast> votes;
  absl::Status status = Transact(TransactionKind::kRead, [&](AdminTransaction& t) -> absl::Status {
    absl::StatusOr<ApprovalRequest> found =
        ExistingRow(t.FindApproval(approval_id, now), "approval", approval_id);
    if (!found.ok()) return found.status();
    absl::StatusOr<std::vector<ApprovalVoteCast>> cast = t.VotesOn(approval_id);
    if (!cast.ok()) return cast.status();
    votes = *std::move(cast);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return votes;
}

absl::StatusOr<ApprovalRequest> AdminCalls::VoteOnApproval(absl::string_view approval_id,
                                                           absl::string_view approver, bool approve,
                                                           absl::Time now) {
  if (absl::Status s = CheckId("approval_id", approval_id, kApprovalIdPrefix); !s.ok()) return s;
  if (absl::Status s = CheckDisplayText("approver", approver); !s.ok()) return s;
  now = StoredTime(now);
  Vote vote;
  absl::Status status = RecordedWrite({}, &vote.answer, [&](AdminTransaction& t) {
    absl::StatusOr<ApprovalRequest> found =
        ExistingRow(t.FindApproval(approval_id, now), "approval", approval_id);
    if (!found.ok()) return found.status();
    absl::StatusOr<bool> voted = t.HasVoted(approval_id, approver);
    if (!voted.ok()) return voted.status();
    absl::StatusOr<Vote> judged = JudgeVote(*found, *voted, approver, approve, now);
    if (!judged.ok()) return judged.status();
    vote = *std::move(judged);
    if (vote.record) {
      if (absl::Status s = t.InsertVote(approval_id, approver, approve, now); !s.ok()) return s;
    }
    // Committed even when the vote is refused: an expired request is expired for everyone.
    if (vote.new_status) return t.SetApprovalStatus(approval_id, *vote.new_status, now);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  if (!vote.answer.ok()) return vote.answer;
  return vote.approval;
}

absl::StatusOr<PolicyContents> AdminCalls::ExportPolicy() {
  PolicyContents policy;
  absl::Status status = Transact(TransactionKind::kRead, [&](AdminTransaction& t) {
    absl::StatusOr<PolicyContents> read = t.ReadPolicy();
    if (!read.ok()) return read.status();
    policy = *std::move(read);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return policy;
}

namespace {

// Each manager names a row of the policy by its kind and id, and is a policy file's name.
absl::Status CheckManagers(const PolicyContents& policy) {
  auto check = [](const std::map<std::string, std::string>& managers, const auto& rows, auto id_of,
                  absl::string_view kind) -> absl::Status {
    absl::flat_hash_set<std::string> ids;
    for (const auto& row : rows) ids.insert(id_of(row));
    for (const auto& [id, manager] : managers) {
      if (!ids.contains(id)) {
        return absl::InvalidArgumentError(
            absl::StrCat(kind, " ", id, ": managed_by names no ", kind, " of the policy"));
      }
      if (absl::Status name = CheckPolicyName(manager); !name.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat(kind, " ", id, ": managed_by: ", name.message()));
      }
    }
    return absl::OkStatus();
  };
  if (absl::Status s = check(
          policy.managed_by.agents, policy.agents, [](const StoredAgent& a) { return a.agent.id; },
          "agent");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = check(
          policy.managed_by.permissions, policy.permissions,
          [](const Permission& p) { return p.id; }, "permission");
      !s.ok()) {
    return s;
  }
  return check(
      policy.managed_by.delegations, policy.delegations, [](const Delegation& d) { return d.id; },
      "delegation");
}

// The agents whose permissions, or delegations into them, `steps` write: those a step's row
// belongs to before (`managed`) and after (`wanted`), and the agents it deletes (whose rows go
// with them, one by one), each once, in the order first met.
std::vector<std::string> AgentsWhoseRowsAreWritten(const std::vector<PlanStep>& steps,
                                                   const PolicyContents& wanted,
                                                   const PolicyContents& managed) {
  absl::flat_hash_map<std::string, std::vector<const std::string*>> owners;  // row id -> agents
  for (const PolicyContents* side : {&managed, &wanted}) {
    for (const Permission& p : side->permissions) owners[p.id].push_back(&p.agent_id);
    for (const Delegation& d : side->delegations) owners[d.id].push_back(&d.to_agent_id);
  }
  std::vector<std::string> agents;
  absl::flat_hash_set<std::string> seen;
  for (const PlanStep& step : steps) {
    if (step.object == PlanObject::kAgent) {
      if (step.action == PlanAction::kDelete && seen.insert(step.id).second) {
        agents.push_back(step.id);
      }
      continue;
    }
    auto found = owners.find(step.id);
    if (found == owners.end()) continue;
    for (const std::string* agent : found->second) {
      if (seen.insert(*agent).second) agents.push_back(*agent);
    }
  }
  return agents;
}

// The manager `managers` records for `id`, or nothing to write.
const std::string* ManagerOf(const std::map<std::string, std::string>& managers,
                             const std::string& id) {
  auto found = managers.find(id);
  return found == managers.end() ? nullptr : &found->second;
}

}  // namespace

absl::Status AdminCalls::ImportPolicy(const PolicyContents& policy) {
  // Everything is validated before the database is touched: an import is all or nothing.
  absl::StatusOr<PolicyToImport> prepared = PreparePolicyImport(policy, StoredTime(AdminClock()));
  if (!prepared.ok()) return prepared.status();
  if (absl::Status managers = CheckManagers(policy); !managers.ok()) return managers;
  return Transact(TransactionKind::kWrite, [&](AdminTransaction& t) {
    absl::StatusOr<bool> empty = t.PolicyIsEmpty();
    if (!empty.ok()) return empty.status();
    if (!*empty) return ImportNeedsEmptyStore();
    auto insert_agents = [&]() -> absl::Status {
      for (const StoredAgent& stored : prepared->agents) {
        if (absl::Status s = t.InsertAgent(stored.agent, stored.token_sha256); !s.ok()) return s;
        // The policy file that manages it (written once the row is in: an update, which on
        // SQLite rebuilds the agent's decision record once more).
        if (const std::string* manager = ManagerOf(policy.managed_by.agents, stored.agent.id)) {
          if (absl::Status s = t.SetAgentManager(stored.agent.id, *manager); !s.ok()) return s;
        }
        if (stored.previous_token_sha256.empty()) continue;
        if (absl::Status s = t.SetPreviousToken(stored.agent.id, stored.previous_token_sha256,
                                                stored.previous_token_expires_at);
            !s.ok()) {
          return s;
        }
      }
      return absl::OkStatus();
    };
    // Where foreign keys can wait for the commit (SQLite), an agent's permissions and the
    // delegations into it go in before the agent: its decision record (store/migrations.cc) is
    // then built once, as the agent goes in, instead of written again for each of its rows,
    // which made an agent of 10,000 permissions take 520 s to import (issue 16).
    absl::StatusOr<bool> agents_last = t.DeferForeignKeyChecks();
    if (!agents_last.ok()) return agents_last.status();
    if (!*agents_last) {
      if (absl::Status s = insert_agents(); !s.ok()) return s;
    }
    for (const Permission& permission : prepared->permissions) {
      if (absl::Status s = t.InsertPermission(permission); !s.ok()) return s;
      if (const std::string* manager = ManagerOf(policy.managed_by.permissions, permission.id)) {
        if (absl::Status s = t.SetPermissionManager(permission.id, *manager); !s.ok()) return s;
      }
    }
    for (size_t i = 0; i < prepared->delegations.size(); ++i) {
      const Delegation& delegation = prepared->delegations[i];
      if (absl::Status s = t.InsertDelegation(delegation, prepared->lent_json[i]); !s.ok()) {
        return s;
      }
      if (const std::string* manager = ManagerOf(policy.managed_by.delegations, delegation.id)) {
        if (absl::Status s = t.SetDelegationManager(delegation.id, *manager); !s.ok()) return s;
      }
    }
    if (*agents_last) {
      if (absl::Status s = insert_agents(); !s.ok()) return s;
    }
    for (const RevokedTokenId& revoked : policy.revoked_token_ids) {
      if (absl::Status s = t.RevokeTokenId(revoked.jti, revoked.expires_at); !s.ok()) return s;
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<bool> AdminCalls::IsEmpty() {
  bool empty = false;
  absl::Status status = Transact(TransactionKind::kRead, [&](AdminTransaction& t) {
    absl::StatusOr<bool> is_empty = t.PolicyIsEmpty();
    if (!is_empty.ok()) return is_empty.status();
    empty = *is_empty;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return empty;
}

absl::Status AdminCalls::RevokeTokenId(absl::string_view jti, absl::Time expires_at) {
  if (absl::Status s = CheckTokenId(jti); !s.ok()) return s;
  const absl::Time now = StoredTime(AdminClock());
  if (absl::Status s = CheckRevokedTokenExpiry(expires_at, now); !s.ok()) return s;
  return Transact(TransactionKind::kWrite, [&](AdminTransaction& t) {
    // Entries long past their token's expiry protect nothing: they go as new ones come.
    if (absl::Status s = t.PruneRevokedTokenIds(now - kRevokedTokenIdRetention); !s.ok()) {
      return s;
    }
    return t.RevokeTokenId(jti, expires_at);
  });
}

absl::StatusOr<SigningKey> AdminCalls::AddSigningKey(const NewSigningKey& key) {
  absl::StatusOr<SigningKey> row = PrepareSigningKey(key, StoredTime(AdminClock()));
  if (!row.ok()) return row.status();
  absl::Status status = Transact(TransactionKind::kWrite, [&](AdminTransaction& t) {
    if (absl::Status s = CheckUnused(Found(t.FindSigningKey(row->kid)), "signing key", row->kid);
        !s.ok()) {
      return s;
    }
    return t.InsertSigningKey(*row);
  });
  if (!status.ok()) return status;
  return row;
}

absl::StatusOr<SigningKey> AdminCalls::RotateSigningKey(const NewSigningKey& key) {
  absl::StatusOr<SigningKey> content = PrepareSigningKey(key, StoredTime(AdminClock()));
  if (!content.ok()) return content.status();
  SigningKey rotated;
  absl::Status status = Transact(TransactionKind::kWrite, [&](AdminTransaction& t) {
    absl::StatusOr<SigningKey> current =
        ExistingRow(t.FindSigningKey(content->kid), "signing key", content->kid);
    if (!current.ok()) return current.status();
    if (absl::Status s = CheckSigningKeyRotatable(*current); !s.ok()) return s;
    if (absl::Status s = t.ReplaceSigningKeyContent(*content); !s.ok()) return s;
    rotated = *std::move(current);
    rotated.jwk_json = content->jwk_json;
    rotated.allowed_algorithms = content->allowed_algorithms;
    rotated.updated_at = content->updated_at;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return rotated;
}

absl::StatusOr<SigningKey> AdminCalls::RetireSigningKey(absl::string_view kid) {
  const absl::Time now = StoredTime(AdminClock());
  SigningKey retired;
  absl::Status status = Transact(TransactionKind::kWrite, [&](AdminTransaction& t) {
    absl::StatusOr<SigningKey> current = ExistingRow(t.FindSigningKey(kid), "signing key", kid);
    if (!current.ok()) return current.status();
    retired = *std::move(current);
    if (retired.status == SigningKeyStatus::kRetired) return absl::OkStatus();
    if (absl::Status s = t.RetireSigningKey(kid, now); !s.ok()) return s;
    retired.status = SigningKeyStatus::kRetired;
    retired.retired_at = now;
    retired.updated_at = now;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return retired;
}

absl::StatusOr<std::vector<SigningKey>> AdminCalls::ListSigningKeys() {
  std::vector<SigningKey> keys;
  absl::Status status = Transact(TransactionKind::kRead, [&](AdminTransaction& t) {
    absl::StatusOr<std::vector<SigningKey>> rows = t.ListSigningKeys();
    if (!rows.ok()) return rows.status();
    keys = *std::move(rows);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return keys;
}

namespace {

// Where each declared object is in its file ("agents[2]"), by id.
absl::flat_hash_map<std::string, std::string> PathsById(const PolicyContents& policy) {
  absl::flat_hash_map<std::string, std::string> paths;
  for (size_t i = 0; i < policy.agents.size(); ++i) {
    paths.emplace(policy.agents[i].agent.id, absl::StrCat("agents[", i, "]"));
  }
  for (size_t i = 0; i < policy.permissions.size(); ++i) {
    paths.emplace(policy.permissions[i].id, absl::StrCat("permissions[", i, "]"));
  }
  for (size_t i = 0; i < policy.delegations.size(); ++i) {
    paths.emplace(policy.delegations[i].id, absl::StrCat("delegations[", i, "]"));
  }
  return paths;
}

// `status` about the object at `path`, with the path in front of its message.
absl::Status About(absl::string_view path, const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(path, ": ", status.message()));
}

// A created object must not be born expired, as its single call refuses.
absl::Status CheckNotExpired(absl::Time expires_at, absl::Time now) {
  if (expires_at != absl::InfiniteFuture() && expires_at <= now) {
    return absl::InvalidArgumentError("expires_at: must be after now");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<AppliedPolicy> AdminCalls::ApplyPolicy(const DeclaredPolicy& declared,
                                                      bool dry_run) {
  auto locate = [&](const absl::Status& status) {
    return declared.locate ? declared.locate(status) : status;
  };
  const absl::Time now = StoredTime(AdminClock());
  // Every object by the rules of its single call and of an import (ids unique, every agent a
  // permission or delegation names declared in the file), in stored form.
  absl::StatusOr<PolicyToImport> rows = PreparePolicyImport(declared.policy, now);
  if (!rows.ok()) return locate(rows.status());
  PolicyContents wanted;
  wanted.agents = rows->agents;
  for (size_t i = 0; i < wanted.agents.size(); ++i) {
    // No hash in the file: the token is left as it is (PreparePolicyImport drew a random one
    // for a new agent, which rows keeps).
    if (declared.policy.agents[i].token_sha256.empty()) wanted.agents[i].token_sha256.clear();
  }
  wanted.permissions = rows->permissions;
  wanted.delegations = rows->delegations;
  const absl::flat_hash_map<std::string, std::string> paths = PathsById(wanted);
  absl::flat_hash_map<std::string, size_t> agent_index, permission_index, delegation_index;
  for (size_t i = 0; i < wanted.agents.size(); ++i) agent_index[wanted.agents[i].agent.id] = i;
  for (size_t i = 0; i < wanted.permissions.size(); ++i) {
    permission_index[wanted.permissions[i].id] = i;
  }
  for (size_t i = 0; i < wanted.delegations.size(); ++i) {
    delegation_index[wanted.delegations[i].id] = i;
  }

  AppliedPolicy result;
  absl::Status status = Transact(
      dry_run ? TransactionKind::kRead : TransactionKind::kWrite,
      [&](AdminTransaction& t) -> absl::Status {
        absl::StatusOr<PolicyContents> managed = t.ReadManaged(declared.manager);
        if (!managed.ok()) return managed.status();
        // An id the file declares but does not manage belongs to a run-time object or to
        // another file: never taken over.
        absl::flat_hash_set<std::string> managed_ids;
        for (const StoredAgent& a : managed->agents) managed_ids.insert(a.agent.id);
        for (const Permission& p : managed->permissions) managed_ids.insert(p.id);
        for (const Delegation& d : managed->delegations) managed_ids.insert(d.id);
        auto check_not_taken = [&](absl::StatusOr<bool> exists, absl::string_view what,
                                   const std::string& id) -> absl::Status {
          if (!exists.ok()) return exists.status();
          if (!*exists || managed_ids.contains(id)) return absl::OkStatus();
          return locate(absl::FailedPreconditionError(absl::StrCat(
              paths.at(id), ".id: ", what, " ", id, " exists and is not managed by policy \"",
              declared.manager, "\" (it was created at run time or by another policy file)")));
        };
        for (const StoredAgent& a : wanted.agents) {
          if (absl::Status s = check_not_taken(Found(t.FindAgent(a.agent.id)), "agent", a.agent.id);
              !s.ok()) {
            return s;
          }
        }
        for (const Permission& p : wanted.permissions) {
          if (absl::Status s = check_not_taken(Found(t.FindPermission(p.id)), "permission", p.id);
              !s.ok()) {
            return s;
          }
        }
        for (const Delegation& d : wanted.delegations) {
          if (absl::Status s = check_not_taken(Found(t.FindDelegation(d.id)), "delegation", d.id);
              !s.ok()) {
            return s;
          }
        }
        absl::StatusOr<std::vector<PlanStep>> plan = PlanPolicy(wanted, *managed);
        if (!plan.ok()) return locate(plan.status());
        result.steps = *std::move(plan);
        if (dry_run || result.steps.empty()) return absl::OkStatus();

        absl::flat_hash_map<std::string, const StoredAgent*> current_agents;
        for (const StoredAgent& a : managed->agents) current_agents[a.agent.id] = &a;
        absl::flat_hash_map<std::string, const Permission*> current_permissions;
        for (const Permission& p : managed->permissions) current_permissions[p.id] = &p;

        auto insert_permission = [&](const Permission& row) -> absl::Status {
          absl::StatusOr<Agent> agent =
              ExistingRow(t.FindAgent(row.agent_id), "agent", row.agent_id);
          if (!agent.ok()) return agent.status();
          if (absl::Status s = CheckGrantable(*agent); !s.ok()) return s;
          if (absl::Status s = t.InsertPermission(row); !s.ok()) return s;
          return t.SetPermissionManager(row.id, declared.manager);
        };
        auto insert_delegation = [&](size_t i) -> absl::Status {
          const Delegation& row = wanted.delegations[i];
          if (row.status == DelegationStatus::kActive) {
            if (absl::Status s = CheckNotExpired(row.expires_at, now); !s.ok()) return s;
            absl::StatusOr<Agent> from =
                ExistingRow(t.FindAgent(row.from_agent_id), "agent", row.from_agent_id);
            if (!from.ok()) return from.status();
            absl::StatusOr<Agent> to =
                ExistingRow(t.FindAgent(row.to_agent_id), "agent", row.to_agent_id);
            if (!to.ok()) return to.status();
            if (absl::Status s = CheckDelegationParties(*from, *to, now); !s.ok()) return s;
            TransactionGraph graph(t);
            const NewDelegation checked{row.from_agent_id, row.to_agent_id, row.permissions,
                                        row.max_depth,     row.expires_at,  row.id};
            if (absl::Status s = CheckNewDelegation(checked, graph, now); !s.ok()) return s;
          }
          if (absl::Status s = t.InsertDelegation(row, rows->lent_json[i]); !s.ok()) return s;
          return t.SetDelegationManager(row.id, declared.manager);
        };

        // Each agent's decision record once, not once per row (SQLite; see
        // SetDecisionRecordsAside): set aside before the rows are written, and again after the
        // agents' own steps, whose triggers rebuild their records; put back before the commit.
        const std::vector<std::string> written_agents =
            AgentsWhoseRowsAreWritten(result.steps, wanted, *managed);
        bool records_aside = false;
        for (const PlanStep& step : result.steps) {
          if (step.object == PlanObject::kAgent && step.action != PlanAction::kDelete) {
            records_aside = false;
          } else if (!records_aside) {
            if (absl::Status s = t.SetDecisionRecordsAside(written_agents); !s.ok()) return s;
            records_aside = true;
          }
          absl::Status done;
          switch (step.object) {
            case PlanObject::kAgent: {
              if (step.action == PlanAction::kDelete) {
                done = t.DeleteRateCountersOfAgent(step.id);
                if (done.ok()) done = t.DeleteAgent(step.id).status();
                break;
              }
              const StoredAgent& row = wanted.agents[agent_index.at(step.id)];
              if (step.action == PlanAction::kCreate) {
                done = CheckNotExpired(row.agent.expires_at, now);
                // An agent without a hash in the file gets one nothing matches (as an import
                // does): RotateToken issues its token.
                const std::string& hash = row.token_sha256.empty()
                                              ? rows->agents[agent_index.at(step.id)].token_sha256
                                              : row.token_sha256;
                if (done.ok()) done = t.InsertAgent(row.agent, hash);
                if (done.ok()) done = t.SetAgentManager(step.id, declared.manager);
                if (done.ok()) done = RecordCreator(t, step.id);
                break;
              }
              const StoredAgent& current = *current_agents.at(step.id);
              Agent changed = row.agent;
              changed.created_at = current.agent.created_at;
              changed.updated_at = now;
              done = t.UpdateAgentFields(changed);
              if (done.ok() && row.agent.status == AgentStatus::kRevoked &&
                  current.agent.status != AgentStatus::kRevoked) {
                done = t.DeleteRateCountersOfAgent(step.id);
              }
              if (done.ok() && !row.token_sha256.empty() &&
                  (row.token_sha256 != current.token_sha256 ||
                   row.agent.token_prefix != current.agent.token_prefix)) {
                done = t.ReplaceToken(step.id, std::nullopt, row.token_sha256,
                                      row.agent.token_prefix, now);
              }
              break;
            }
            case PlanObject::kPermission: {
              if (step.action != PlanAction::kCreate) {
                absl::StatusOr<bool> deleted = t.DeletePermission(step.id);
                done = deleted.status();
                if (done.ok()) done = t.DeleteRateCountersOfPermission(step.id);
                if (!done.ok() || step.action == PlanAction::kDelete) break;
              }
              Permission row = wanted.permissions[permission_index.at(step.id)];
              if (step.action == PlanAction::kChange) {
                row.created_at = current_permissions.at(step.id)->created_at;
              }
              done = insert_permission(row);
              break;
            }
            case PlanObject::kDelegation: {
              if (step.action != PlanAction::kCreate) {
                done = t.DeleteRateCountersOfDelegation(step.id);
                if (done.ok()) done = t.DeleteDelegation(step.id).status();
                if (!done.ok() || step.action == PlanAction::kDelete) break;
              }
              done = insert_delegation(delegation_index.at(step.id));
              break;
            }
          }
          if (!done.ok()) {
            auto path = paths.find(step.id);
            return path == paths.end() ? done : locate(About(path->second, done));
          }
        }
        if (absl::Status s = t.PutDecisionRecordsBack(written_agents); !s.ok()) return s;
        result.applied = true;
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return result;
}

absl::Status AdminCalls::CreatePrincipal(const StoredAdminPrincipal& principal) {
  return Transact(TransactionKind::kWrite,
                  [&](AdminTransaction& t) { return t.CreatePrincipal(principal); });
}

absl::StatusOr<StoredAdminPrincipal> AdminCalls::ChangePrincipal(
    absl::string_view name, const std::function<absl::Status(StoredAdminPrincipal&)>& change) {
  const absl::Time now = StoredTime(AdminClock());
  StoredAdminPrincipal changed;
  absl::Status status = Transact(TransactionKind::kWrite, [&](AdminTransaction& t) {
    absl::StatusOr<StoredAdminPrincipal> written = t.ChangePrincipal(name, change, now);
    if (!written.ok()) return written.status();
    changed = *std::move(written);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return changed;
}

}  // namespace verdict
