// A grant as decisions, traces and effective permissions name it: an agent's own permission, or
// a permission lent down a delegation, which has no id of its own and is named
// "<delegation id>#<index in the delegation's permissions>".
//
//   Grant lent = GrantOf(delegation, 0);  // lent.permission_id == "d1#0"
#ifndef VERDICT_DECISION_GRANTS_H_
#define VERDICT_DECISION_GRANTS_H_

#include <cstddef>
#include <string>

#include "absl/strings/str_cat.h"
#include "decision/types.h"

namespace verdict {

inline std::string LentPermissionId(const Delegation& link, size_t index) {
  return absl::StrCat(link.id, "#", index);
}

// Each field is copy-constructed in place: cheaper than assigning into empty strings.
inline Grant GrantOf(const Permission& permission) {
  return Grant{permission.id,      permission.agent_id, permission.resource,
               permission.actions, permission.effect,   permission.constraints_json};
}

inline Grant GrantOf(const Delegation& link, size_t index) {
  const LentPermission& lent = link.permissions[index];
  return Grant{LentPermissionId(link, index),
               link.from_agent_id,
               lent.resource,
               lent.actions,
               Effect::kAllow,
               lent.constraints_json};
}

}  // namespace verdict

#endif  // VERDICT_DECISION_GRANTS_H_
