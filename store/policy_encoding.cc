#include "store/policy_encoding.h"

#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

namespace verdict {
namespace {

absl::StatusOr<JsonValue> ParseConstraintsObject(absl::string_view constraints_json) {
  if (constraints_json.empty()) return JsonValue::MakeObject();
  absl::StatusOr<JsonValue> parsed = ParseJson(constraints_json);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("constraints: not valid JSON: ", parsed.status().message()));
  }
  if (!parsed->is_object()) {
    return absl::InvalidArgumentError("constraints: must be a JSON object");
  }
  return parsed;
}

absl::StatusOr<std::vector<std::string>> StringList(const JsonValue& value,
                                                    absl::string_view what) {
  if (!value.is_array()) return absl::InvalidArgumentError(absl::StrCat(what, ": not an array"));
  std::vector<std::string> strings;
  strings.reserve(value.as_array().size());
  for (const JsonValue& item : value.as_array()) {
    if (!item.is_string()) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": holds a non-string"));
    }
    strings.push_back(item.as_string());
  }
  return strings;
}

// Takes the quoted string at the front of `text` when it needs no decoding: printable ASCII
// without escapes, which reads as itself.
bool ConsumePlainString(absl::string_view& text, std::string& out) {
  if (!absl::ConsumePrefix(&text, "\"")) return false;
  size_t end = 0;
  while (end < text.size() && text[end] != '"') {
    const unsigned char c = static_cast<unsigned char>(text[end]);
    if (c == '\\' || c < 0x20 || c >= 0x7f) return false;
    ++end;
  }
  if (end == text.size()) return false;
  out.assign(text.data(), end);
  text.remove_prefix(end + 1);
  return true;
}

// Lent permissions exactly as EncodeLentPermissions spells those without constraints, the usual
// case: [{"actions":["read"],"constraints":{},"resource":"docs:*"},...]. Read into `lent` without
// building a JSON tree, since every delegation a decision follows is decoded again; false for any
// other spelling (spacing, key order, escapes, other bytes, constraints), which the general parser
// then reads, so both give one answer for every text.
bool DecodePlainLentPermissions(absl::string_view text, std::vector<LentPermission>& lent) {
  if (text.size() > JsonLimits().max_bytes) return false;
  size_t count = 0;
  if (!absl::ConsumePrefix(&text, "[")) return false;
  if (!absl::ConsumePrefix(&text, "]")) {
    do {
      if (count == lent.size()) lent.emplace_back();
      LentPermission& permission = lent[count++];
      if (!absl::ConsumePrefix(&text, "{\"actions\":[")) return false;
      size_t actions = 0;
      if (!absl::ConsumePrefix(&text, "]")) {
        do {
          if (actions == permission.actions.size()) permission.actions.emplace_back();
          if (!ConsumePlainString(text, permission.actions[actions++])) return false;
        } while (absl::ConsumePrefix(&text, ","));
        if (!absl::ConsumePrefix(&text, "]")) return false;
      }
      permission.actions.resize(actions);
      if (!absl::ConsumePrefix(&text, ",\"constraints\":{},\"resource\":")) return false;
      if (!ConsumePlainString(text, permission.resource)) return false;
      if (!absl::ConsumePrefix(&text, "}")) return false;
      permission.constraints_json.assign("{}");
    } while (absl::ConsumePrefix(&text, ","));
    if (!absl::ConsumePrefix(&text, "]")) return false;
  }
  lent.resize(count);
  return text.empty();
}

}  // namespace

std::string JoinActions(const std::vector<std::string>& actions) {
  return absl::StrJoin(actions, ",");
}

std::vector<std::string> SplitActions(absl::string_view joined) {
  std::vector<std::string> actions;
  SplitActionsInto(joined, actions);
  return actions;
}

// The strings already there reused: every decision splits the action list of each permission it
// reads. memchr and clear + append rather than string_view::find and assign, which this abseil
// calls out of line and through the general replace.
void SplitActionsInto(absl::string_view joined, std::vector<std::string>& actions) {
  size_t count = 0;
  if (!joined.empty()) {
    const char* start = joined.data();
    const char* const end = start + joined.size();
    while (true) {
      const char* comma = static_cast<const char*>(std::memchr(start, ',', end - start));
      if (count == actions.size()) actions.emplace_back();
      std::string& action = actions[count++];
      action.clear();
      action.append(start, (comma != nullptr ? comma : end) - start);
      if (comma == nullptr) break;
      start = comma + 1;
    }
  }
  actions.resize(count);
}

absl::StatusOr<std::string> CanonicalConstraintsJson(absl::string_view constraints_json) {
  absl::StatusOr<JsonValue> object = ParseConstraintsObject(constraints_json);
  if (!object.ok()) return object.status();
  return CanonicalJson(*object);
}

absl::StatusOr<JsonValue> LentPermissionsToJson(const std::vector<LentPermission>& lent) {
  JsonValue::Array items;
  items.reserve(lent.size());
  for (const LentPermission& permission : lent) {
    JsonValue::Array actions;
    for (const std::string& action : permission.actions)
      actions.push_back(JsonValue::String(action));
    JsonValue::Object item;
    item.emplace("resource", JsonValue::String(permission.resource));
    item.emplace("actions", JsonValue::MakeArray(std::move(actions)));
    absl::StatusOr<JsonValue> constraints = ParseConstraintsObject(permission.constraints_json);
    if (!constraints.ok()) return constraints.status();
    item.emplace("constraints", *std::move(constraints));
    items.push_back(JsonValue::MakeObject(std::move(item)));
  }
  return JsonValue::MakeArray(std::move(items));
}

absl::StatusOr<std::vector<LentPermission>> LentPermissionsFromJson(const JsonValue& array) {
  if (!array.is_array()) {
    return absl::InvalidArgumentError("lent permissions: not a JSON array");
  }
  std::vector<LentPermission> lent;
  lent.reserve(array.as_array().size());
  for (const JsonValue& item : array.as_array()) {
    const std::string where = absl::StrCat("lent permissions[", lent.size(), "]");
    if (!item.is_object())
      return absl::InvalidArgumentError(absl::StrCat(where, ": not an object"));
    for (const auto& [key, value] : item.as_object()) {
      if (key != "resource" && key != "actions" && key != "constraints") {
        return absl::InvalidArgumentError(absl::StrCat(where, ": unknown key \"", key, "\""));
      }
    }
    LentPermission permission;
    const JsonValue* resource = item.Find("resource");
    if (resource == nullptr || !resource->is_string()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ".resource: a string is required"));
    }
    permission.resource = resource->as_string();
    const JsonValue* actions = item.Find("actions");
    if (actions == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(where, ".actions: required"));
    }
    absl::StatusOr<std::vector<std::string>> action_list =
        StringList(*actions, absl::StrCat(where, ".actions"));
    if (!action_list.ok()) return action_list.status();
    permission.actions = *std::move(action_list);
    const JsonValue* constraints = item.Find("constraints");
    if (constraints == nullptr) {
      permission.constraints_json = "{}";
    } else if (constraints->is_object()) {
      permission.constraints_json = CanonicalJson(*constraints);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(where, ".constraints: must be a JSON object"));
    }
    lent.push_back(std::move(permission));
  }
  return lent;
}

absl::StatusOr<std::string> EncodeLentPermissions(const std::vector<LentPermission>& lent) {
  absl::StatusOr<JsonValue> json = LentPermissionsToJson(lent);
  if (!json.ok()) return json.status();
  return CanonicalJson(*json);
}

absl::StatusOr<std::vector<LentPermission>> DecodeLentPermissions(absl::string_view json) {
  std::vector<LentPermission> lent;
  absl::Status decoded = DecodeLentPermissionsInto(json, lent);
  if (!decoded.ok()) return decoded;
  return lent;
}

absl::Status DecodeLentPermissionsInto(absl::string_view json, std::vector<LentPermission>& lent) {
  if (DecodePlainLentPermissions(json, lent)) return absl::OkStatus();
  absl::StatusOr<JsonValue> parsed = ParseJson(json);
  if (!parsed.ok()) return parsed.status();
  absl::StatusOr<std::vector<LentPermission>> general = LentPermissionsFromJson(*parsed);
  if (!general.ok()) return general.status();
  lent = *std::move(general);
  return absl::OkStatus();
}

std::optional<int64_t> TimeToMicros(absl::Time time) {
  if (time == absl::InfiniteFuture()) return std::nullopt;
  return absl::ToUnixMicros(time);
}

absl::Time TimeFromMicros(std::optional<int64_t> micros) {
  return micros.has_value() ? absl::FromUnixMicros(*micros) : absl::InfiniteFuture();
}

}  // namespace verdict
