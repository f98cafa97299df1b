#include "store/admin_audit_row.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "common/json.h"
#include "store/hash_chain.h"

namespace verdict {

std::string ChainHash(const AdminAuditRow& row) {
  JsonValue::Object fields;
  fields.emplace("seq", ChainInteger(row.seq));
  fields.emplace("recorded_at_us", ChainInteger(row.recorded_at_us));
  fields.emplace("principal", JsonValue::String(row.principal));
  fields.emplace("auth_method", JsonValue::String(row.auth_method));
  fields.emplace("peer", JsonValue::String(row.peer));
  fields.emplace("call", JsonValue::String(row.call));
  fields.emplace("objects", JsonValue::String(AdminAuditObjectsToJson(row.objects)));
  fields.emplace("arguments_json", JsonValue::String(row.arguments_json));
  fields.emplace("result_code", JsonValue::String(row.result_code));
  fields.emplace("result_message", JsonValue::String(row.result_message));
  fields.emplace("prev_hash", JsonValue::String(row.prev_hash));
  return ChainHashOfFields(std::move(fields));
}

std::string AdminAuditObjectsToJson(const std::vector<std::string>& objects) {
  JsonValue::Array array;
  array.reserve(objects.size());
  for (const std::string& object : objects) array.push_back(JsonValue::String(object));
  return CanonicalJson(JsonValue::MakeArray(std::move(array)));
}

absl::StatusOr<std::vector<std::string>> AdminAuditObjectsFromJson(absl::string_view json) {
  absl::StatusOr<JsonValue> parsed = ParseJson(json);
  if (!parsed.ok()) return parsed.status();
  if (!parsed->is_array()) return absl::InvalidArgumentError("audit objects: not a JSON array");
  std::vector<std::string> objects;
  for (const JsonValue& item : parsed->as_array()) {
    if (!item.is_string()) return absl::InvalidArgumentError("audit objects: not a string");
    objects.push_back(item.as_string());
  }
  return objects;
}

}  // namespace verdict
