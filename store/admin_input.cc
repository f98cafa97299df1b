#include "store/admin_input.h"

#include <limits>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "crypto/jwt.h"
#include "crypto/sha256.h"
#include "crypto/token.h"
#include "decision/admin/input_rules.h"
#include "decision/new_grant_rules.h"
#include "store/ids.h"
#include "store/policy_encoding.h"

namespace verdict {
namespace {

constexpr size_t kTokenHashBytes = 32;

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
  if (!agent.description.empty()) {
    if (absl::Status s = CheckDisplayText("description", agent.description); !s.ok()) return s;
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

// Constraints in their stored (canonical) form, so equal constraints read back equal.
absl::Status CanonicalizeLent(std::vector<LentPermission>& lent) {
  for (LentPermission& permission : lent) {
    absl::StatusOr<std::string> canonical = CanonicalConstraintsJson(permission.constraints_json);
    if (!canonical.ok()) return canonical.status();
    permission.constraints_json = *std::move(canonical);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Time StoredTime(absl::Time time) { return TimeFromMicros(TimeToMicros(time)); }

absl::StatusOr<int> PageSizeOf(const PageRequest& page) {
  if (page.page_size == 0) return kDefaultPageSize;
  if (page.page_size < 0 || page.page_size > kMaxPageSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_size: must be 0 (the default) to ", kMaxPageSize));
  }
  return page.page_size;
}

absl::StatusOr<ApprovalPageStart> ParseApprovalPageToken(absl::string_view page_token) {
  ApprovalPageStart start{std::numeric_limits<int64_t>::min(), ""};
  if (page_token.empty()) return start;
  std::pair<std::string, std::string> parts = absl::StrSplit(page_token, '/');
  if (!absl::SimpleAtoi(parts.first, &start.after_created_micros) || parts.second.empty()) {
    return absl::InvalidArgumentError("page_token: not a token from a previous page");
  }
  start.after_id = std::move(parts.second);
  return start;
}

std::string ApprovalPageToken(const ApprovalRequest& last) {
  return absl::StrCat(absl::ToUnixMicros(last.created_at), "/", last.id);
}

absl::Status CheckApprovalStatus(ApprovalStatus status) {
  return CheckEnum(status, ApprovalStatusName, ParseApprovalStatus);
}

absl::Status CheckAgentStatus(AgentStatus status) {
  return CheckEnum(status, AgentStatusName, ParseAgentStatus);
}

absl::StatusOr<AgentToCreate> PrepareNewAgent(const NewAgent& request, absl::Time now) {
  AgentToCreate created;
  created.token = NewAgentToken();
  Agent& row = created.agent;
  row.id = request.id.empty() ? NewId(kAgentIdPrefix) : request.id;
  row.owner = request.owner;
  row.name = request.name;
  row.description = request.description;
  row.kind = request.kind;
  row.status = AgentStatus::kActive;
  row.expires_at = StoredTime(request.expires_at);
  row.token_prefix = TokenDisplayPrefix(created.token);
  row.created_at = now;
  row.updated_at = now;
  if (absl::Status s = CheckAgentFields(row); !s.ok()) return s;
  if (absl::Status s = CheckFuture("expires_at", row.expires_at, now); !s.ok()) return s;
  created.token_sha256 = Sha256(created.token);
  return created;
}

absl::StatusOr<Permission> PrepareNewPermission(const NewPermission& request, absl::Time now) {
  Permission row;
  row.id = request.id.empty() ? NewId(kPermissionIdPrefix) : request.id;
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
  absl::StatusOr<std::string> constraints = CanonicalConstraintsJson(row.constraints_json);
  if (!constraints.ok()) return constraints.status();
  row.constraints_json = *std::move(constraints);
  return row;
}

absl::StatusOr<DelegationToCreate> PrepareNewDelegation(const NewDelegation& request,
                                                        absl::Time now) {
  DelegationToCreate created;
  Delegation& row = created.delegation;
  row.id = request.id.empty() ? NewId(kDelegationIdPrefix) : request.id;
  row.from_agent_id = request.from_agent_id;
  row.to_agent_id = request.to_agent_id;
  row.permissions = request.permissions;
  row.max_depth = request.max_depth;
  row.status = DelegationStatus::kActive;
  row.expires_at = StoredTime(request.expires_at);
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
  if (absl::Status s = CanonicalizeLent(row.permissions); !s.ok()) return s;
  absl::StatusOr<std::string> lent_json = EncodeLentPermissions(row.permissions);
  if (!lent_json.ok()) return lent_json.status();
  created.lent_json = *std::move(lent_json);
  created.checked = request;
  created.checked.permissions = row.permissions;
  return created;
}

absl::StatusOr<PolicyToImport> PreparePolicyImport(const PolicyContents& policy, absl::Time now) {
  PolicyToImport prepared;
  absl::flat_hash_set<std::string> agent_ids;
  absl::flat_hash_set<std::string> token_hashes;
  prepared.agents = policy.agents;
  for (size_t i = 0; i < prepared.agents.size(); ++i) {
    StoredAgent& stored = prepared.agents[i];
    const std::string where = absl::StrCat("agents[", i, "]");
    if (absl::Status s = CheckAgentFields(stored.agent); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ".", s.message()));
    }
    if (!agent_ids.insert(stored.agent.id).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ".id: ", stored.agent.id, " appears twice"));
    }
    if (stored.token_sha256.empty()) {
      stored.token_sha256 = RandomBytes(kTokenHashBytes);  // no token yet: nothing can match it
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
      stored.previous_token_expires_at = StoredTime(stored.previous_token_expires_at);
    }
    stored.agent.expires_at = StoredTime(stored.agent.expires_at);
    stored.agent.created_at = now;
    stored.agent.updated_at = now;
  }
  absl::flat_hash_set<std::string> permission_ids;
  prepared.permissions = policy.permissions;
  for (size_t i = 0; i < prepared.permissions.size(); ++i) {
    Permission& permission = prepared.permissions[i];
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
  prepared.delegations = policy.delegations;
  prepared.lent_json.resize(prepared.delegations.size());
  for (size_t i = 0; i < prepared.delegations.size(); ++i) {
    Delegation& delegation = prepared.delegations[i];
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
    prepared.lent_json[i] = *std::move(lent_json);
    delegation.created_at = now;
  }
  absl::flat_hash_set<std::string> jtis;
  for (size_t i = 0; i < policy.revoked_token_ids.size(); ++i) {
    const RevokedTokenId& revoked = policy.revoked_token_ids[i];
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
  return prepared;
}

absl::Status CheckUnused(absl::StatusOr<bool> in_use, absl::string_view what,
                         absl::string_view id) {
  if (!in_use.ok()) return in_use.status();
  if (*in_use) return absl::AlreadyExistsError(absl::StrCat(what, " ", id, " already exists"));
  return absl::OkStatus();
}

}  // namespace verdict
