#include "decision/admin/new_rows.h"

#include <iterator>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "crypto/jwt.h"
#include "crypto/sha256.h"
#include "crypto/token.h"
#include "decision/admin/input_rules.h"
#include "decision/admin/row_ids.h"
#include "decision/new_grant_rules.h"
#include "decision/type_names.h"

namespace verdict {
namespace {

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

// The agent's token's first characters, or "" while it has no token anyone knows.
absl::Status CheckTokenPrefix(absl::string_view prefix) {
  if (prefix.empty()) return absl::OkStatus();
  absl::Status shaped = CheckTokenDisplayPrefix(prefix);
  if (shaped.ok()) return shaped;
  return absl::InvalidArgumentError(absl::StrCat("token_prefix: ", shaped.message()));
}

absl::Status CheckAgentFields(const Agent& agent) {
  if (absl::Status s = CheckId("id", agent.id, kAgentIdPrefix); !s.ok()) return s;
  if (absl::Status s = CheckDisplayText("owner", agent.owner); !s.ok()) return s;
  if (absl::Status s = CheckDisplayText("name", agent.name); !s.ok()) return s;
  for (const AgentTextColumn<Agent>& column : kAgentTextColumns<Agent>) {
    const std::string& text = agent.*column.member;
    if (text.empty()) continue;
    if (absl::Status s = CheckDisplayText(column.name, text); !s.ok()) return s;
  }
  if (absl::Status s = CheckEnum(agent.kind, AgentKindName, ParseAgentKind); !s.ok()) return s;
  if (absl::Status s = CheckTokenPrefix(agent.token_prefix); !s.ok()) return s;
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

// The requested id, or a random one when the caller chose none.
std::string IdOf(const std::string& requested, absl::string_view prefix,
                 RowRandomness& randomness) {
  return requested.empty() ? randomness.NewId(prefix) : requested;
}

absl::Status CheckPolicyAgents(std::vector<StoredAgent>& agents, absl::Time now,
                               RowRandomness& randomness,
                               absl::flat_hash_set<std::string>& agent_ids) {
  absl::flat_hash_set<std::string> token_hashes;
  for (size_t i = 0; i < agents.size(); ++i) {
    StoredAgent& stored = agents[i];
    const std::string where = absl::StrCat("agents[", i, "]");
    if (absl::Status s = CheckAgentFields(stored.agent); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ".", s.message()));
    }
    if (!agent_ids.insert(stored.agent.id).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ".id: ", stored.agent.id, " appears twice"));
    }
    if (stored.token_sha256.empty()) {
      // No token yet: nothing can match it.
      stored.token_sha256 = randomness.RandomBytes(kTokenHashBytes);
    } else if (stored.token_sha256.size() != kTokenHashBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ".token_sha256: must be ", kTokenHashBytes, " bytes"));
    }
    if (!token_hashes.insert(stored.token_sha256).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": has the same token as an earlier agent"));
    }
    if (!stored.previous_token_sha256.empty()) {
      if (stored.previous_token_sha256.size() != kTokenHashBytes) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ".previous_token_sha256: must be ", kTokenHashBytes, " bytes"));
      }
      if (!token_hashes.insert(stored.previous_token_sha256).second) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": its previous token is a token of this or an earlier agent"));
      }
      if (stored.previous_token_expires_at == absl::InfiniteFuture()) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ".previous_token_expires_at: a previous token needs an expiry"));
      }
    }
    stored.agent.created_at = now;
    stored.agent.updated_at = now;
  }
  return absl::OkStatus();
}

absl::Status CheckPolicyPermissions(std::vector<Permission>& permissions, absl::Time now,
                                    const absl::flat_hash_set<std::string>& agent_ids) {
  absl::flat_hash_set<std::string> permission_ids;
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
    permission.created_at = now;
  }
  return absl::OkStatus();
}

absl::Status CheckPolicyDelegations(std::vector<Delegation>& delegations, absl::Time now,
                                    const absl::flat_hash_set<std::string>& agent_ids) {
  absl::flat_hash_set<std::string> delegation_ids;
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
    delegation.created_at = now;
  }
  return absl::OkStatus();
}

absl::Status CheckRevokedTokenIds(const std::vector<RevokedTokenId>& revoked_token_ids) {
  absl::flat_hash_set<std::string> jtis;
  for (size_t i = 0; i < revoked_token_ids.size(); ++i) {
    const RevokedTokenId& revoked = revoked_token_ids[i];
    const std::string where = absl::StrCat("revoked_token_ids[", i, "]");
    if (absl::Status s = CheckTokenId(revoked.jti); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ".jti: ", s.message()));
    }
    if (!jtis.insert(revoked.jti).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ".jti: ", revoked.jti, " appears twice"));
    }
    if (revoked.expires_at == absl::InfiniteFuture()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ".expires_at: the token's \"exp\" is required"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckApprovalStatus(ApprovalStatus status) {
  return CheckEnum(status, ApprovalStatusName, ParseApprovalStatus);
}

absl::Status CheckAgentStatus(AgentStatus status) {
  return CheckEnum(status, AgentStatusName, ParseAgentStatus);
}

absl::StatusOr<AgentToCreate> NewAgentRow(const NewAgent& request, absl::Time now,
                                          RowRandomness& randomness) {
  AgentToCreate created;
  created.token = randomness.NewAgentToken();
  Agent& row = created.agent;
  row.id = IdOf(request.id, kAgentIdPrefix, randomness);
  row.owner = request.owner;
  row.name = request.name;
  for (size_t i = 0; i < std::size(kAgentTextColumns<Agent>); ++i) {
    row.*kAgentTextColumns<Agent>[i].member = request.*kAgentTextColumns<NewAgent>[i].member;
  }
  row.kind = request.kind;
  row.status = AgentStatus::kActive;
  row.expires_at = request.expires_at;
  row.token_prefix = TokenDisplayPrefix(created.token);
  row.created_at = now;
  row.updated_at = now;
  if (absl::Status s = CheckAgentFields(row); !s.ok()) return s;
  if (absl::Status s = CheckFuture("expires_at", row.expires_at, now); !s.ok()) return s;
  created.token_sha256 = Sha256(created.token);
  return created;
}

absl::StatusOr<Permission> NewPermissionRow(const NewPermission& request, absl::Time now,
                                            RowRandomness& randomness) {
  Permission row;
  row.id = IdOf(request.id, kPermissionIdPrefix, randomness);
  row.agent_id = request.agent_id;
  row.resource = request.resource;
  row.actions = request.actions;
  row.effect = request.effect;
  row.constraints_json = request.constraints_json;
  row.created_at = now;
  if (absl::Status s = CheckPermissionFields(row); !s.ok()) return s;
  if (absl::Status s = CheckNewGrantReadsAsWritten(row.resource, row.effect, row.constraints_json);
      !s.ok()) {
    return s;
  }
  return row;
}

absl::StatusOr<Delegation> NewDelegationRow(const NewDelegation& request, absl::Time now,
                                            RowRandomness& randomness) {
  Delegation row;
  row.id = IdOf(request.id, kDelegationIdPrefix, randomness);
  row.from_agent_id = request.from_agent_id;
  row.to_agent_id = request.to_agent_id;
  row.permissions = request.permissions;
  row.max_depth = request.max_depth;
  row.status = DelegationStatus::kActive;
  row.expires_at = request.expires_at;
  row.created_at = now;
  if (absl::Status s = CheckDelegationFields(row); !s.ok()) return s;
  for (size_t i = 0; i < row.permissions.size(); ++i) {
    const LentPermission& lent = row.permissions[i];
    if (absl::Status s =
            CheckNewGrantReadsAsWritten(lent.resource, Effect::kAllow, lent.constraints_json);
        !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("permissions[", i, "].", s.message()));
    }
  }
  if (absl::Status s = CheckFuture("expires_at", row.expires_at, now); !s.ok()) return s;
  return row;
}

absl::StatusOr<PolicyRows> NewPolicyRows(const PolicyContents& policy, absl::Time now,
                                         RowRandomness& randomness) {
  PolicyRows rows{policy.agents, policy.permissions, policy.delegations};
  absl::flat_hash_set<std::string> agent_ids;
  if (absl::Status s = CheckPolicyAgents(rows.agents, now, randomness, agent_ids); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckPolicyPermissions(rows.permissions, now, agent_ids); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckPolicyDelegations(rows.delegations, now, agent_ids); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckRevokedTokenIds(policy.revoked_token_ids); !s.ok()) return s;
  return rows;
}

}  // namespace verdict
