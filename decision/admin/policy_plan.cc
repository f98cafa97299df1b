#include "decision/admin/policy_plan.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "crypto/sha256.h"
#include "decision/admin/change_rules.h"
#include "decision/type_names.h"

namespace verdict {
namespace {

std::string TimeText(absl::Time time) {
  if (time == absl::InfiniteFuture()) return "never";
  return absl::FormatTime("%4Y-%m-%d%ET%H:%M:%E*SZ", time, absl::UTCTimeZone());
}

std::string ActionsText(const std::vector<std::string>& actions) {
  return absl::StrCat("[", absl::StrJoin(actions, ", "), "]");
}

std::string ConstraintsText(const std::string& constraints_json) {
  return constraints_json.empty() ? "{}" : constraints_json;
}

std::string TokenText(const std::string& sha256) {
  return sha256.empty() ? "none" : absl::StrCat("sha256:", HexEncode(sha256).substr(0, 12), "...");
}

std::string LentText(const std::vector<LentPermission>& lent) {
  std::vector<std::string> items;
  for (const LentPermission& p : lent) {
    std::string item = absl::StrCat(p.resource, " ", ActionsText(p.actions));
    if (ConstraintsText(p.constraints_json) != "{}")
      absl::StrAppend(&item, " ", p.constraints_json);
    items.push_back(std::move(item));
  }
  return absl::StrCat("[", absl::StrJoin(items, "; "), "]");
}

// An empty value shows as "" so that the line still reads.
void Compare(std::vector<FieldChange>& changes, absl::string_view field, std::string before,
             std::string after) {
  if (before == after) return;
  if (before.empty()) before = "\"\"";
  if (after.empty()) after = "\"\"";
  changes.push_back({std::string(field), std::move(before), std::move(after)});
}

absl::StatusOr<std::vector<FieldChange>> AgentChanges(const StoredAgent& current,
                                                      const StoredAgent& declared) {
  const Agent& was = current.agent;
  const Agent& wanted = declared.agent;
  std::vector<FieldChange> changes;
  Compare(changes, "owner", was.owner, wanted.owner);
  Compare(changes, "name", was.name, wanted.name);
  Compare(changes, "kind", std::string(AgentKindName(was.kind)),
          std::string(AgentKindName(wanted.kind)));
  absl::StatusOr<bool> status_changes = StatusChangeNeeded(was, wanted.status);
  if (!status_changes.ok()) return status_changes.status();
  Compare(changes, "status", std::string(AgentStatusName(was.status)),
          std::string(AgentStatusName(wanted.status)));
  Compare(changes, "expires_at", TimeText(was.expires_at), TimeText(wanted.expires_at));
  for (const AgentTextColumn<Agent>& column : kAgentTextColumns<Agent>) {
    Compare(changes, column.name, was.*column.member, wanted.*column.member);
  }
  // No token_sha256 in the file: the token is the store's business (RotateToken).
  if (!declared.token_sha256.empty()) {
    Compare(changes, "token_sha256", TokenText(current.token_sha256),
            TokenText(declared.token_sha256));
    if (current.token_sha256 != declared.token_sha256 || was.token_prefix != wanted.token_prefix) {
      Compare(changes, "token_prefix", was.token_prefix, wanted.token_prefix);
    }
  }
  return changes;
}

std::vector<FieldChange> PermissionChanges(const Permission& was, const Permission& wanted) {
  std::vector<FieldChange> changes;
  Compare(changes, "agent_id", was.agent_id, wanted.agent_id);
  Compare(changes, "resource", was.resource, wanted.resource);
  Compare(changes, "actions", ActionsText(was.actions), ActionsText(wanted.actions));
  Compare(changes, "effect", std::string(EffectName(was.effect)),
          std::string(EffectName(wanted.effect)));
  Compare(changes, "constraints", ConstraintsText(was.constraints_json),
          ConstraintsText(wanted.constraints_json));
  return changes;
}

std::vector<FieldChange> DelegationChanges(const Delegation& was, const Delegation& wanted) {
  std::vector<FieldChange> changes;
  Compare(changes, "from_agent_id", was.from_agent_id, wanted.from_agent_id);
  Compare(changes, "to_agent_id", was.to_agent_id, wanted.to_agent_id);
  Compare(changes, "permissions", LentText(was.permissions), LentText(wanted.permissions));
  Compare(changes, "max_depth", absl::StrCat(was.max_depth), absl::StrCat(wanted.max_depth));
  Compare(changes, "status", std::string(DelegationStatusName(was.status)),
          std::string(DelegationStatusName(wanted.status)));
  Compare(changes, "expires_at", TimeText(was.expires_at), TimeText(wanted.expires_at));
  return changes;
}

template <typename Row, typename IdOf>
absl::flat_hash_map<std::string, const Row*> ById(const std::vector<Row>& rows, IdOf id_of) {
  absl::flat_hash_map<std::string, const Row*> by_id;
  for (const Row& row : rows) by_id.emplace(id_of(row), &row);
  return by_id;
}

// Deletions of `managed` rows the file no longer declares, in the store's order.
template <typename Row, typename IdOf>
void AddDeletions(std::vector<PlanStep>& steps, PlanObject object, const std::vector<Row>& managed,
                  const std::vector<Row>& declared, IdOf id_of) {
  absl::flat_hash_set<std::string> kept;
  for (const Row& row : declared) kept.insert(id_of(row));
  for (const Row& row : managed) {
    if (!kept.contains(id_of(row))) {
      steps.push_back({PlanAction::kDelete, object, id_of(row), {}});
    }
  }
}

}  // namespace

absl::StatusOr<std::vector<PlanStep>> PlanPolicy(const PolicyContents& declared,
                                                 const PolicyContents& managed) {
  auto agent_id = [](const StoredAgent& a) { return a.agent.id; };
  auto permission_id = [](const Permission& p) { return p.id; };
  auto delegation_id = [](const Delegation& d) { return d.id; };
  std::vector<PlanStep> steps;
  AddDeletions(steps, PlanObject::kDelegation, managed.delegations, declared.delegations,
               delegation_id);
  AddDeletions(steps, PlanObject::kPermission, managed.permissions, declared.permissions,
               permission_id);

  const auto agents = ById(managed.agents, agent_id);
  for (const StoredAgent& wanted : declared.agents) {
    auto found = agents.find(wanted.agent.id);
    if (found == agents.end()) {
      steps.push_back({PlanAction::kCreate, PlanObject::kAgent, wanted.agent.id, {}});
      continue;
    }
    absl::StatusOr<std::vector<FieldChange>> changes = AgentChanges(*found->second, wanted);
    if (!changes.ok()) return changes.status();
    if (!changes->empty()) {
      steps.push_back(
          {PlanAction::kChange, PlanObject::kAgent, wanted.agent.id, *std::move(changes)});
    }
  }

  const auto permissions = ById(managed.permissions, permission_id);
  for (const Permission& wanted : declared.permissions) {
    auto found = permissions.find(wanted.id);
    if (found == permissions.end()) {
      steps.push_back({PlanAction::kCreate, PlanObject::kPermission, wanted.id, {}});
      continue;
    }
    std::vector<FieldChange> changes = PermissionChanges(*found->second, wanted);
    if (!changes.empty()) {
      steps.push_back(
          {PlanAction::kChange, PlanObject::kPermission, wanted.id, std::move(changes)});
    }
  }

  const auto delegations = ById(managed.delegations, delegation_id);
  for (const Delegation& wanted : declared.delegations) {
    auto found = delegations.find(wanted.id);
    if (found == delegations.end()) {
      steps.push_back({PlanAction::kCreate, PlanObject::kDelegation, wanted.id, {}});
      continue;
    }
    std::vector<FieldChange> changes = DelegationChanges(*found->second, wanted);
    if (!changes.empty()) {
      steps.push_back(
          {PlanAction::kReplace, PlanObject::kDelegation, wanted.id, std::move(changes)});
    }
  }

  AddDeletions(steps, PlanObject::kAgent, managed.agents, declared.agents, agent_id);
  return steps;
}

absl::string_view PlanActionName(PlanAction action) {
  switch (action) {
    case PlanAction::kCreate:
      return "create";
    case PlanAction::kChange:
      return "change";
    case PlanAction::kReplace:
      return "replace";
    case PlanAction::kDelete:
      return "delete";
  }
  return "?";
}

absl::string_view PlanObjectName(PlanObject object) {
  switch (object) {
    case PlanObject::kAgent:
      return "agent";
    case PlanObject::kPermission:
      return "permission";
    case PlanObject::kDelegation:
      return "delegation";
  }
  return "?";
}

std::string PlanText(const std::vector<PlanStep>& steps) {
  if (steps.empty()) return "no changes\n";
  std::string text;
  for (const PlanStep& step : steps) {
    absl::string_view sign = "+";
    if (step.action == PlanAction::kChange) sign = "~";
    if (step.action == PlanAction::kReplace) sign = "-/+";
    if (step.action == PlanAction::kDelete) sign = "-";
    absl::StrAppend(&text, sign, " ", PlanActionName(step.action), " ", PlanObjectName(step.object),
                    " ", step.id);
    std::vector<std::string> changes;
    for (const FieldChange& change : step.changes) {
      changes.push_back(absl::StrCat(change.field, " ", change.before, " -> ", change.after));
    }
    if (!changes.empty()) absl::StrAppend(&text, ": ", absl::StrJoin(changes, ", "));
    text += "\n";
  }
  return text;
}

}  // namespace verdict
