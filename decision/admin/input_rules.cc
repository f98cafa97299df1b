#include "decision/admin/input_rules.h"

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "decision/budget.h"
#include "decision/constraints.h"
#include "decision/resource_match.h"

namespace verdict {
namespace {

constexpr size_t kMaxDisplayTextBytes = 256;

absl::Status Located(absl::string_view where, const absl::Status& status) {
  if (status.ok() || where.empty()) return status;
  return absl::Status(status.code(), absl::StrCat(where, ": ", status.message()));
}

}  // namespace

absl::Status CheckDisplayText(absl::string_view field, absl::string_view text) {
  if (text.empty() || text.size() > kMaxDisplayTextBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": must be 1 to ", kMaxDisplayTextBytes, " bytes"));
  }
  if (!IsValidUtf8(text)) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": is not valid UTF-8"));
  }
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": contains a control character at byte ", i));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckPermissionSpec(absl::string_view where, absl::string_view resource,
                                 const std::vector<std::string>& actions,
                                 absl::string_view constraints_json) {
  if (absl::Status status = ValidateResourcePattern(resource); !status.ok()) {
    return Located(where, status);
  }
  if (actions.empty()) {
    return Located(where, absl::InvalidArgumentError("actions: at least one is required"));
  }
  for (const std::string& action : actions) {
    if (absl::Status status = ValidateActionName(action); !status.ok()) {
      return Located(where, status);
    }
  }
  absl::StatusOr<Constraints> constraints = ParseConstraints(constraints_json);
  if (!constraints.ok()) {
    return Located(where, absl::InvalidArgumentError(
                              absl::StrCat("constraints: ", constraints.status().message())));
  }
  return absl::OkStatus();
}

absl::Status CheckLentPermissions(const std::vector<LentPermission>& lent) {
  if (lent.empty()) {
    return absl::InvalidArgumentError("permissions: a delegation lends at least one permission");
  }
  for (size_t i = 0; i < lent.size(); ++i) {
    absl::Status status =
        CheckPermissionSpec(absl::StrCat("permissions[", i, "]"), lent[i].resource, lent[i].actions,
                            lent[i].constraints_json);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status CheckMaxDepth(int max_depth) {
  if (max_depth < 1 || max_depth > kMaxDelegationDepth) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_depth: must be 1 to ", kMaxDelegationDepth, ", not ", max_depth));
  }
  return absl::OkStatus();
}

absl::Status CheckPolicyName(absl::string_view name) {
  constexpr size_t kMaxPolicyNameBytes = 64;
  if (name.empty() || name.size() > kMaxPolicyNameBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("must be 1 to ", kMaxPolicyNameBytes, " characters"));
  }
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') {
      return absl::InvalidArgumentError("may hold only letters, digits, '-', '_' and '.'");
    }
  }
  return absl::OkStatus();
}

}  // namespace verdict
