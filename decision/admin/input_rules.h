// Input checks shared by every admin write and by ImportPolicy, so a row that could not be
// created one way cannot be imported the other. Each failure is INVALID_ARGUMENT and its
// message names the field ("permissions[1]: action: ...").
//
//   absl::Status ok = CheckPermissionSpec("", "docs:*", {"read"}, R"({"rate_limit": ...})");
#ifndef VERDICT_DECISION_ADMIN_INPUT_RULES_H_
#define VERDICT_DECISION_ADMIN_INPUT_RULES_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "decision/types.h"

namespace verdict {

// Owner, name, approver: 1 to 256 bytes of valid UTF-8 without control characters.
absl::Status CheckDisplayText(absl::string_view field, absl::string_view text);

// A permission's resource pattern, actions (at least one; each a valid name) and constraints
// (a JSON object that decision/constraints.h accepts). `where` prefixes the messages.
absl::Status CheckPermissionSpec(absl::string_view where, absl::string_view resource,
                                 const std::vector<std::string>& actions,
                                 absl::string_view constraints_json);

// At least one lent permission, each a valid permission spec.
absl::Status CheckLentPermissions(const std::vector<LentPermission>& lent);

// 1 to the engine's kMaxDelegationDepth: a longer path is never followed.
absl::Status CheckMaxDepth(int max_depth);

// A policy file's name, which the store records as the manager of the file's objects: 1 to 64
// of [A-Za-z0-9_.-].
absl::Status CheckPolicyName(absl::string_view name);

}  // namespace verdict

#endif  // VERDICT_DECISION_ADMIN_INPUT_RULES_H_
