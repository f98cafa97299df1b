#include "decision/constraint_redaction.h"

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "common/redaction.h"

namespace verdict {
namespace {

// Whether any string in `value` looks like a credential (common/redaction.h).
bool HoldsACredential(const JsonValue& value) {
  if (value.is_string()) return LooksLikeACredential(value.as_string());
  if (value.is_array()) {
    for (const JsonValue& item : value.as_array()) {
      if (HoldsACredential(item)) return true;
    }
  }
  return false;
}

}  // namespace

bool RuleGuardsASecret(absl::string_view path, const JsonValue& operand) {
  return IsSecretKey(path) || HoldsACredential(operand);
}

std::string ConstraintsForCaller(absl::string_view constraints_json) {
  // Every answer with a matched grant passes here: only constraints that may hold argument rules
  // are parsed (the key spelled out, or spelled with an escape).
  if (!absl::StrContains(constraints_json, "arguments") &&
      !absl::StrContains(constraints_json, '\\')) {
    return std::string(constraints_json);
  }
  absl::StatusOr<JsonValue> constraints = ParseJson(constraints_json);
  if (!constraints.ok() || !constraints->is_object()) return std::string(constraints_json);
  auto arguments = constraints->as_object().find("arguments");
  if (arguments == constraints->as_object().end() || !arguments->second.is_array()) {
    return std::string(constraints_json);
  }
  for (JsonValue& rule : arguments->second.as_array()) {
    if (!rule.is_object()) continue;
    const JsonValue* path = rule.Find("path");
    const std::string path_text = path != nullptr && path->is_string() ? path->as_string() : "";
    for (auto& [key, operand] : rule.as_object()) {
      if (key != "path" && RuleGuardsASecret(path_text, operand)) {
        operand = JsonValue::String(std::string(kRedactedValue));
      }
    }
  }
  return CanonicalJson(*constraints);
}

}  // namespace verdict
