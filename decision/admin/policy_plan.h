// What applying a policy file changes (design section 9, issue 19): the objects a file declares
// against those the store holds under the file's name, as ordered steps, like `terraform plan`.
// Pure: both sides are handed in, in stored form (times in whole microseconds, constraints
// canonical).
//
// What "change" means, per kind:
//  - an agent is changed in place: owner, name, kind, status, expires_at, description,
//    contact, and its token's hash when the file gives one (a file without token_sha256 leaves
//    the token alone). A revoked agent stays revoked (FAILED_PRECONDITION otherwise).
//  - a permission is changed in place, keeping its id: agent_id, resource, actions, effect,
//    constraints (its rate counts start again, as the grant is a new one).
//  - a delegation is never changed in place: any difference (from, to, lent permissions,
//    max_depth, status, expires_at) replaces it (deleted, then created again under its id and
//    checked by the delegation rules as a new one).
// Steps run in this order, each group in the file's order (deletions in the store's):
// deleted delegations, deleted permissions, created and changed agents, created and changed
// permissions, created and replaced delegations, deleted agents.
//
//   absl::StatusOr<std::vector<PlanStep>> plan = PlanPolicy(declared, managed);
//   std::cout << PlanText(*plan);  // "+ create agent agt_x\n~ change permission perm_y: ..."
#ifndef VERDICT_DECISION_ADMIN_POLICY_PLAN_H_
#define VERDICT_DECISION_ADMIN_POLICY_PLAN_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "decision/admin/admin_types.h"

namespace verdict {

enum class PlanAction { kCreate, kChange, kReplace, kDelete };
enum class PlanObject { kAgent, kPermission, kDelegation };

struct FieldChange {
  std::string field;
  std::string before;
  std::string after;
};

struct PlanStep {
  PlanAction action = PlanAction::kCreate;
  PlanObject object = PlanObject::kAgent;
  std::string id;
  std::vector<FieldChange> changes;  // kChange and kReplace: what differs
};

// `declared`: the file's objects (an agent's token_sha256 empty when the file gives none);
// `managed`: the store's objects recorded under the file's name. Their revoked_token_ids are
// ignored. FAILED_PRECONDITION when a change is forbidden (a revoked agent made live again).
absl::StatusOr<std::vector<PlanStep>> PlanPolicy(const PolicyContents& declared,
                                                 const PolicyContents& managed);

// One line per step ("+ create agent agt_x", "~ change permission perm_y: actions [read] ->
// [read, write]", "-/+ replace delegation dlg_z: max_depth 1 -> 2", "- delete agent agt_w"),
// or "no changes".
std::string PlanText(const std::vector<PlanStep>& steps);

absl::string_view PlanActionName(PlanAction action);  // "create", "change", "replace", "delete"
absl::string_view PlanObjectName(PlanObject object);  // "agent", "permission", "delegation"

}  // namespace verdict

#endif  // VERDICT_DECISION_ADMIN_POLICY_PLAN_H_
