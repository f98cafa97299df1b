#include "decision/constraint_schema.h"

#include <cmath>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace verdict {
namespace constraint_schema {

absl::Status Invalid(absl::string_view key, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(key, ": ", what));
}

std::string Quoted(absl::string_view text) {
  return absl::StrCat("\"", absl::CHexEscape(text), "\"");
}

const char* TypeName(JsonValue::Type type) {
  switch (type) {
    case JsonValue::Type::kNull:
      return "null";
    case JsonValue::Type::kBool:
      return "a boolean";
    case JsonValue::Type::kNumber:
      return "a number";
    case JsonValue::Type::kString:
      return "a string";
    case JsonValue::Type::kArray:
      return "an array";
    case JsonValue::Type::kObject:
      return "an object";
  }
  return "an unknown type";
}

absl::Status RequireType(const JsonValue& value, JsonValue::Type type, absl::string_view key) {
  if (value.type() == type) return absl::OkStatus();
  return Invalid(key, absl::StrCat("must be ", TypeName(type), ", got ", TypeName(value.type())));
}

absl::Status RequireKnownKeys(const JsonValue::Object& object, absl::string_view key,
                              std::initializer_list<absl::string_view> known) {
  for (const auto& [name, value] : object) {
    bool is_known = false;
    for (absl::string_view candidate : known) is_known = is_known || name == candidate;
    if (!is_known) {
      return Invalid(key, absl::StrCat("unknown key ", Quoted(name),
                                       " (known: ", absl::StrJoin(known, ", "), ")"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ParseInteger(const JsonValue& value, absl::string_view key, int64_t min,
                                     int64_t max) {
  if (!value.is_number() || std::trunc(value.as_number()) != value.as_number()) {
    return Invalid(key, absl::StrCat("must be an integer, got ",
                                     value.is_number() ? "a fraction" : TypeName(value.type())));
  }
  const double number = value.as_number();
  if (number < static_cast<double>(min) || number > static_cast<double>(max)) {
    return Invalid(key,
                   absl::StrCat("must be from ", min, " to ", max, ", got ", CanonicalJson(value)));
  }
  return static_cast<int64_t>(number);
}

}  // namespace constraint_schema
}  // namespace verdict
