// Who may make which admin call (design section 9): admin principals hold roles, and each
// AdminService call names the roles that may make it. Pure: the service reads the principal
// fresh from the store on every call and asks these rules.
//
//   admin     everything, including managing principals
//   operator  agents, permissions, delegations, signing keys, token revocation, policy import,
//             and every read
//   issuer    create agents and rotate the tokens of those it created, read an agent, grant
//             permissions only within the resource patterns configured for it
//   approver  list approvals and vote on them
//   auditor   read only: lists, decision log query and verify, policy export, the admin audit
//
//   absl::Status allowed = CheckMayCall("CreateAgent", principal);  // PERMISSION_DENIED: why
#ifndef VERDICT_DECISION_ADMIN_ROLES_H_
#define VERDICT_DECISION_ADMIN_ROLES_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace verdict {

enum class AdminRole : uint8_t { kAdmin, kOperator, kIssuer, kApprover, kAuditor };

// "admin", "operator", "issuer", "approver", "auditor".
absl::string_view AdminRoleName(AdminRole role);

// A set of roles.
class AdminRoleSet {
 public:
  constexpr AdminRoleSet() = default;
  constexpr AdminRoleSet(std::initializer_list<AdminRole> roles) {
    for (AdminRole role : roles) bits_ |= Bit(role);
  }

  bool Has(AdminRole role) const { return (bits_ & Bit(role)) != 0; }
  bool Intersects(AdminRoleSet other) const { return (bits_ & other.bits_) != 0; }
  bool empty() const { return bits_ == 0; }
  void Add(AdminRole role) { bits_ |= Bit(role); }
  void Remove(AdminRole role) { bits_ &= ~Bit(role); }
  friend bool operator==(AdminRoleSet a, AdminRoleSet b) { return a.bits_ == b.bits_; }
  friend bool operator!=(AdminRoleSet a, AdminRoleSet b) { return a.bits_ != b.bits_; }

  // The role names in the order of AdminRole ("admin" first).
  std::vector<std::string> Names() const;
  // Names() joined by commas ("operator,approver"), "" for none: the stored form.
  std::string Joined() const;

 private:
  static constexpr uint8_t Bit(AdminRole role) { return uint8_t{1} << static_cast<int>(role); }
  uint8_t bits_ = 0;
};

// The roles named; INVALID_ARGUMENT naming an unknown role. Names may repeat.
absl::StatusOr<AdminRoleSet> ParseAdminRoles(absl::Span<const std::string> names);
// The stored form (AdminRoleSet::Joined) read back; INVALID_ARGUMENT for an unknown role.
absl::StatusOr<AdminRoleSet> ParseJoinedAdminRoles(absl::string_view joined);

// An admin principal as the rules read it.
struct AdminPrincipal {
  std::string name;
  AdminRoleSet roles;
  // Resource patterns an issuer may grant within (decision/resource_match.h's patterns).
  std::vector<std::string> grant_patterns;
  bool enabled = true;
};

// Who may make a call.
struct AdminCallAccess {
  AdminRoleSet roles;          // admin always among them
  bool any_principal = false;  // any authenticated principal, whatever its roles (for itself)
};

// The access of the AdminService call named `call` ("CreateAgent", the request message's name
// without its "Request" suffix). A call this table does not know needs admin.
AdminCallAccess AccessOfCall(absl::string_view call);

// OK when `principal` may make `call`; PERMISSION_DENIED naming the roles the call needs, or
// saying the principal is disabled.
absl::Status CheckMayCall(absl::string_view call, const AdminPrincipal& principal);

// OK when `principal` may grant a permission on `resource`: an admin or operator anything, an
// issuer only a resource its grant patterns cover (decision/admin/delegation_rules.h's
// ResourcePatternCovers). PERMISSION_DENIED naming its patterns otherwise.
absl::Status CheckGrantWithinPatterns(const AdminPrincipal& principal, absl::string_view resource);

// OK when `principal` may rotate the token of the agent `agent_id`, created by the principal
// `created_by` ("" for an agent created before creators were recorded, or by an import): an
// admin or operator any agent's, an issuer only those of the agents it created.
// PERMISSION_DENIED saying so otherwise.
absl::Status CheckMayRotateToken(const AdminPrincipal& principal, absl::string_view agent_id,
                                 absl::string_view created_by);

// Names a principal may have: 1..64 bytes of [A-Za-z0-9._@-], INVALID_ARGUMENT otherwise. The
// name travels in gRPC metadata and in metrics-free logs, so it holds nothing else.
absl::Status ValidatePrincipalName(absl::string_view name);

// Grant patterns are valid resource patterns, at most kMaxGrantPatterns of them.
inline constexpr int kMaxGrantPatterns = 64;
absl::Status ValidateGrantPatterns(absl::Span<const std::string> patterns);

// A change of a principal (`before` to `after`) keeps at least one enabled admin:
// FAILED_PRECONDITION when `before` is an enabled admin, `after` is not, and `enabled_admins`
// (counted before the change) is 1.
absl::Status CheckKeepsAnAdmin(const AdminPrincipal& before, const AdminPrincipal& after,
                               int enabled_admins);

// A vote counts its principal: the request's `named_approver`, when set, must be `principal`
// (INVALID_ARGUMENT otherwise). With `separation` on, a principal may not approve a request made
// by an agent whose owner is that principal (FAILED_PRECONDITION); a deny only ever stops a call,
// so it is never held back.
absl::Status CheckVoter(absl::string_view principal, absl::string_view named_approver, bool approve,
                        bool separation, absl::string_view agent_owner);

}  // namespace verdict

#endif  // VERDICT_DECISION_ADMIN_ROLES_H_
