#include "decision/admin/roles.h"

#include <initializer_list>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "decision/admin/delegation_rules.h"
#include "decision/resource_match.h"

namespace verdict {
namespace {

constexpr AdminRole kEveryRole[] = {AdminRole::kAdmin, AdminRole::kOperator, AdminRole::kIssuer,
                                    AdminRole::kApprover, AdminRole::kAuditor};

using R = AdminRole;

// Every AdminService call and who may make it. Admin is added to each. A call missing here
// needs admin: a new call is closed until someone decides who may make it.
const absl::flat_hash_map<std::string, AdminCallAccess>& CallTable() {
  static const auto* const table = new absl::flat_hash_map<std::string, AdminCallAccess>{
      // Agents.
      {"CreateAgent", {{R::kOperator, R::kIssuer}}},
      {"GetAgent", {{R::kOperator, R::kIssuer, R::kAuditor}}},
      {"ListAgents", {{R::kOperator, R::kAuditor}}},
      {"SuspendAgent", {{R::kOperator}}},
      {"ReactivateAgent", {{R::kOperator}}},
      {"RevokeAgent", {{R::kOperator}}},
      // An issuer's only for the agents it created: CheckMayRotateToken.
      {"RotateToken", {{R::kOperator, R::kIssuer}}},
      // Permissions (an issuer's only within its patterns: CheckGrantWithinPatterns).
      {"GrantPermission", {{R::kOperator, R::kIssuer}}},
      {"RevokePermission", {{R::kOperator}}},
      // Delegations.
      {"CreateDelegation", {{R::kOperator}}},
      {"RevokeDelegation", {{R::kOperator}}},
      // Approvals: an operator reads them, only an approver votes.
      {"ListApprovals", {{R::kOperator, R::kApprover, R::kAuditor}}},
      {"ApproveRequest", {{R::kApprover}}},
      {"DenyRequest", {{R::kApprover}}},
      // The decision log and the whole policy.
      {"QueryDecisionLog", {{R::kOperator, R::kAuditor}}},
      {"VerifyDecisionLog", {{R::kOperator, R::kAuditor}}},
      {"ExportPolicy", {{R::kOperator, R::kAuditor}}},
      {"ImportPolicy", {{R::kOperator}}},
      // JWT access tokens and signing keys.
      {"RevokeTokenId", {{R::kOperator}}},
      {"AddSigningKey", {{R::kOperator}}},
      {"RotateSigningKey", {{R::kOperator}}},
      {"RetireSigningKey", {{R::kOperator}}},
      {"ListSigningKeys", {{R::kOperator, R::kAuditor}}},
      // Policy as code and what an agent may do (issue 19).
      {"ApplyPolicy", {{R::kOperator}}},
      {"ListAgentPermissions", {{R::kOperator, R::kIssuer, R::kAuditor}}},
      {"ListAgentDelegations", {{R::kOperator, R::kIssuer, R::kAuditor}}},
      {"ListEffectivePermissions", {{R::kOperator, R::kIssuer, R::kAuditor}}},
      // Principals: admin manages them; an auditor may list them (no secret is listed).
      {"CreatePrincipal", {{}}},
      {"ListPrincipals", {{R::kAuditor}}},
      {"SetPrincipalEnabled", {{}}},
      {"SetPrincipalRoles", {{}}},
      {"SetPrincipalSecret", {{}}},
      // Sessions: any principal, for itself.
      {"CreateSession", {{}, /*any_principal=*/true}},
      {"RevokeSession", {{}, /*any_principal=*/true}},
      // The admin audit log.
      {"QueryAdminAudit", {{R::kAuditor}}},
      {"VerifyAdminAudit", {{R::kAuditor}}},
  };
  return *table;
}

// "operator, issuer or admin".
std::string RolesInWords(AdminRoleSet roles) {
  std::vector<std::string> names;
  for (AdminRole role : kEveryRole) {
    if (role != AdminRole::kAdmin && roles.Has(role)) names.emplace_back(AdminRoleName(role));
  }
  names.emplace_back(AdminRoleName(AdminRole::kAdmin));
  if (names.size() == 1) return names[0];
  const std::string last = names.back();
  names.pop_back();
  return absl::StrCat(absl::StrJoin(names, ", "), " or ", last);
}

}  // namespace

absl::string_view AdminRoleName(AdminRole role) {
  switch (role) {
    case AdminRole::kAdmin:
      return "admin";
    case AdminRole::kOperator:
      return "operator";
    case AdminRole::kIssuer:
      return "issuer";
    case AdminRole::kApprover:
      return "approver";
    case AdminRole::kAuditor:
      return "auditor";
  }
  return "unknown";
}

std::vector<std::string> AdminRoleSet::Names() const {
  std::vector<std::string> names;
  for (AdminRole role : kEveryRole) {
    if (Has(role)) names.emplace_back(AdminRoleName(role));
  }
  return names;
}

std::string AdminRoleSet::Joined() const { return absl::StrJoin(Names(), ","); }

absl::StatusOr<AdminRoleSet> ParseAdminRoles(absl::Span<const std::string> names) {
  AdminRoleSet roles;
  for (const std::string& name : names) {
    bool known = false;
    for (AdminRole role : kEveryRole) {
      if (name == AdminRoleName(role)) {
        roles.Add(role);
        known = true;
      }
    }
    if (!known) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown role \"", absl::CHexEscape(name.substr(0, 64)),
                       "\": roles are admin, operator, issuer, approver and auditor"));
    }
  }
  return roles;
}

absl::StatusOr<AdminRoleSet> ParseJoinedAdminRoles(absl::string_view joined) {
  std::vector<std::string> names = absl::StrSplit(joined, ',', absl::SkipEmpty());
  return ParseAdminRoles(names);
}

AdminCallAccess AccessOfCall(absl::string_view call) {
  AdminCallAccess access;
  const auto& table = CallTable();
  if (auto it = table.find(call); it != table.end()) access = it->second;
  access.roles.Add(AdminRole::kAdmin);
  return access;
}

absl::Status CheckMayCall(absl::string_view call, const AdminPrincipal& principal) {
  if (!principal.enabled) {
    return absl::PermissionDeniedError(
        absl::StrCat("admin principal \"", principal.name, "\" is disabled"));
  }
  const AdminCallAccess access = AccessOfCall(call);
  if (access.any_principal || principal.roles.Intersects(access.roles)) return absl::OkStatus();
  const std::string held = principal.roles.empty() ? "no role" : principal.roles.Joined();
  return absl::PermissionDeniedError(absl::StrCat(call, " needs the role ",
                                                  RolesInWords(access.roles), "; principal \"",
                                                  principal.name, "\" has ", held));
}

absl::Status CheckGrantWithinPatterns(const AdminPrincipal& principal, absl::string_view resource) {
  if (principal.roles.Has(AdminRole::kAdmin) || principal.roles.Has(AdminRole::kOperator)) {
    return absl::OkStatus();
  }
  for (const std::string& pattern : principal.grant_patterns) {
    if (ResourcePatternCovers(pattern, resource)) return absl::OkStatus();
  }
  if (principal.grant_patterns.empty()) {
    return absl::PermissionDeniedError(
        absl::StrCat("issuer \"", principal.name,
                     "\" has no grant patterns: it may grant nothing until an admin sets some"));
  }
  return absl::PermissionDeniedError(absl::StrCat(
      "issuer \"", principal.name, "\" may grant only within ",
      absl::StrJoin(principal.grant_patterns, ", "), "; \"", resource, "\" is outside them"));
}

absl::Status CheckMayRotateToken(const AdminPrincipal& principal, absl::string_view agent_id,
                                 absl::string_view created_by) {
  if (principal.roles.Has(AdminRole::kAdmin) || principal.roles.Has(AdminRole::kOperator)) {
    return absl::OkStatus();
  }
  if (principal.roles.Has(AdminRole::kIssuer) && !created_by.empty() &&
      created_by == principal.name) {
    return absl::OkStatus();
  }
  return absl::PermissionDeniedError(absl::StrCat(
      "issuer \"", principal.name, "\" rotates only the tokens of agents it created; ", agent_id,
      created_by.empty() ? " was created before agents recorded their creator" : " was not",
      ": an operator or admin may rotate its token"));
}

absl::Status ValidatePrincipalName(absl::string_view name) {
  if (name.empty() || name.size() > 64) {
    return absl::InvalidArgumentError("a principal's name has 1 to 64 characters");
  }
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '@' &&
        c != '-') {
      return absl::InvalidArgumentError(
          "a principal's name holds only letters, digits and . _ @ -");
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateGrantPatterns(absl::Span<const std::string> patterns) {
  if (patterns.size() > static_cast<size_t>(kMaxGrantPatterns)) {
    return absl::InvalidArgumentError(
        absl::StrCat("at most ", kMaxGrantPatterns, " grant patterns per principal"));
  }
  for (const std::string& pattern : patterns) {
    if (absl::Status valid = ValidateResourcePattern(pattern); !valid.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("grant pattern: ", valid.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckKeepsAnAdmin(const AdminPrincipal& before, const AdminPrincipal& after,
                               int enabled_admins) {
  const bool was_admin = before.enabled && before.roles.Has(AdminRole::kAdmin);
  const bool is_admin = after.enabled && after.roles.Has(AdminRole::kAdmin);
  if (!was_admin || is_admin || enabled_admins > 1) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "\"", before.name,
      "\" is the last enabled admin: ", after.enabled ? "taking its role admin" : "disabling it",
      " would leave nobody to manage principals; make another principal admin first"));
}

absl::Status CheckVoter(absl::string_view principal, absl::string_view named_approver, bool approve,
                        bool separation, absl::string_view agent_owner) {
  if (!named_approver.empty() && named_approver != principal) {
    return absl::InvalidArgumentError(
        absl::StrCat("approver \"", absl::CHexEscape(named_approver.substr(0, 64)),
                     "\" is not the caller: a vote counts the authenticated principal \"",
                     principal, "\" (leave approver empty)"));
  }
  if (approve && separation && agent_owner == principal) {
    return absl::FailedPreconditionError(absl::StrCat(
        "principal \"", principal,
        "\" owns the agent that asks for this approval, and --approval_separation forbids "
        "approving one's own agent's request"));
  }
  return absl::OkStatus();
}

}  // namespace verdict
