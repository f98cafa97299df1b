// How the policy model is spelled in storage and in the policy JSON: enum names
// (decision/type_names.h), action lists, lent permissions and times. One spelling per concept,
// shared by the SQLite store, a future PostgreSQL store and app/policy_json.h.
//
//   std::string text = JoinActions({"read", "write"});   // "read,write"
//   absl::StatusOr<AgentStatus> s = ParseAgentStatus("suspended");
#ifndef VERDICT_STORE_POLICY_ENCODING_H_
#define VERDICT_STORE_POLICY_ENCODING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/json.h"
#include "decision/type_names.h"
#include "decision/types.h"

namespace verdict {

// Actions are stored comma-joined; an action name cannot hold a comma (ValidateActionName).
std::string JoinActions(const std::vector<std::string>& actions);
std::vector<std::string> SplitActions(absl::string_view joined);
// The same into `actions`, overwriting the strings it holds instead of allocating new ones.
void SplitActionsInto(absl::string_view joined, std::vector<std::string>& actions);

// Constraints as stored: the canonical JSON of an object, "{}" for none ("" is read as none).
// INVALID_ARGUMENT when the text is not a JSON object.
absl::StatusOr<std::string> CanonicalConstraintsJson(absl::string_view constraints_json);

// Lent permissions as stored: a JSON array of {"resource", "actions": [...], "constraints": {}}.
absl::StatusOr<std::string> EncodeLentPermissions(const std::vector<LentPermission>& lent);
absl::StatusOr<std::vector<LentPermission>> DecodeLentPermissions(absl::string_view json);
// The same into `lent`, overwriting what it holds (unspecified after an error).
absl::Status DecodeLentPermissionsInto(absl::string_view json, std::vector<LentPermission>& lent);
// The same, from and to parsed JSON (app/policy_json.h embeds them in a document).
absl::StatusOr<JsonValue> LentPermissionsToJson(const std::vector<LentPermission>& lent);
absl::StatusOr<std::vector<LentPermission>> LentPermissionsFromJson(const JsonValue& array);

// Times are unix microseconds; absl::InfiniteFuture() ("never") is stored as NULL.
std::optional<int64_t> TimeToMicros(absl::Time time);
absl::Time TimeFromMicros(std::optional<int64_t> micros);

}  // namespace verdict

#endif  // VERDICT_STORE_POLICY_ENCODING_H_
