// The shape checks every constraint parser shares (decision/constraints.h): a member of the
// right JSON type, no unknown key, an integer in range. Each failure is INVALID_ARGUMENT and its
// message starts with the key, so a caller can tell which member to fix:
//
//   RequireType(value, JsonValue::Type::kObject, "approval")
//     // INVALID_ARGUMENT "approval: must be an object, got a string"
#ifndef VERDICT_DECISION_CONSTRAINT_SCHEMA_H_
#define VERDICT_DECISION_CONSTRAINT_SCHEMA_H_

#include <cstdint>
#include <initializer_list>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json.h"

namespace verdict {
namespace constraint_schema {

// Integers up to 2^53 are exact in a JSON number (a double).
inline constexpr int64_t kMaxExactInteger = int64_t{1} << 53;

// INVALID_ARGUMENT "<key>: <what>".
absl::Status Invalid(absl::string_view key, absl::string_view what);

// Error messages quote what was written, escaped so that no control byte reaches a log.
std::string Quoted(absl::string_view text);

// "a string", "an object", ... for messages.
const char* TypeName(JsonValue::Type type);

absl::Status RequireType(const JsonValue& value, JsonValue::Type type, absl::string_view key);

// Unknown keys are refused so that a misspelt constraint is an error, not a silently open grant.
absl::Status RequireKnownKeys(const JsonValue::Object& object, absl::string_view key,
                              std::initializer_list<absl::string_view> known);

// A JSON number that is a whole number from min to max.
absl::StatusOr<int64_t> ParseInteger(const JsonValue& value, absl::string_view key, int64_t min,
                                     int64_t max);

}  // namespace constraint_schema
}  // namespace verdict

#endif  // VERDICT_DECISION_CONSTRAINT_SCHEMA_H_
