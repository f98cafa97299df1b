// A small, strict JSON reader and writer: RFC 8259 input with explicit limits, and canonical
// output (RFC 8785 style: object keys sorted by UTF-16 code units, no insignificant white
// space, shortest round-trip numbers) so equal arguments hash equally.
//
//   absl::StatusOr<JsonValue> v = ParseJson(R"({"b":1,"a":[true,null]})");
//   std::string canonical = CanonicalJson(*v);  // {"a":[true,null],"b":1}
//
// Invalid UTF-8, lone surrogates, duplicate keys, nesting beyond the limit and input beyond the
// size limit are INVALID_ARGUMENT with a message that says where.
#ifndef VERDICT_COMMON_JSON_H_
#define VERDICT_COMMON_JSON_H_

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace verdict {

// Orders object keys by their bytes, as std::less<> does, but compares inline: an object's keys
// are short, and a library call per comparison was most of a member lookup's cost.
struct JsonKeyLess {
  using is_transparent = void;
  bool operator()(absl::string_view a, absl::string_view b) const {
    const size_t common = a.size() < b.size() ? a.size() : b.size();
    for (size_t i = 0; i < common; ++i) {
      if (a[i] != b[i]) {
        return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
      }
    }
    return a.size() < b.size();
  }
};

class JsonValue {
 public:
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  using Array = std::vector<JsonValue>;
  // Sorted by key (byte order of the UTF-8, which equals code point order).
  using Object = std::map<std::string, JsonValue, JsonKeyLess>;

  JsonValue() = default;  // null
  static JsonValue Bool(bool b);
  static JsonValue Number(double d);
  static JsonValue String(std::string s);
  static JsonValue MakeArray(Array items = {});
  static JsonValue MakeObject(Object members = {});

  Type type() const { return static_cast<Type>(value_.index()); }
  bool is_null() const { return type() == Type::kNull; }
  bool is_bool() const { return type() == Type::kBool; }
  bool is_number() const { return type() == Type::kNumber; }
  bool is_string() const { return type() == Type::kString; }
  bool is_array() const { return type() == Type::kArray; }
  bool is_object() const { return type() == Type::kObject; }

  // Accessors; calling one for another type is a programming error (checked in debug).
  bool as_bool() const;
  double as_number() const;
  const std::string& as_string() const;
  const Array& as_array() const;
  Array& as_array();
  const Object& as_object() const;
  Object& as_object();

  // For objects: the member, or nullptr when absent (or when this is not an object).
  const JsonValue* Find(absl::string_view key) const;

  bool operator==(const JsonValue& other) const;
  bool operator!=(const JsonValue& other) const { return !(*this == other); }

 private:
  // The parser builds values in place rather than through the factories above.
  friend class JsonParser;

  // One alternative per Type, in the enum's order, so that the index is the type.
  std::variant<std::monostate, bool, double, std::string, Array, Object> value_;
};

struct JsonLimits {
  size_t max_bytes = 1 << 20;
  int max_depth = 32;
  // Refuse a number of more than 15 significant digits, or a non-zero one below the normal range
  // (about 2.2e-308): two such numbers may read as one double (1234567890123456789 and
  // 1234567890123456800 do), so equality, comparisons and the canonical form could not tell
  // them apart. Other numbers of 15 digits or fewer always read as distinct doubles.
  bool exact_numbers = false;
};

absl::StatusOr<JsonValue> ParseJson(absl::string_view text, const JsonLimits& limits = {});

// Canonical form: sorted keys, no white space, integers without exponent or fraction when
// exactly representable (|x| < 2^53), other numbers in shortest round-trip form. A NaN or
// infinity (only constructible through JsonValue::Number) is written as null.
std::string CanonicalJson(const JsonValue& value);

// Escapes and quotes a string as a JSON string literal ("a\"b"). Bytes that are not valid
// UTF-8 become U+FFFD, so the result is always valid JSON.
std::string JsonQuote(absl::string_view s);

// True when s is valid UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
bool IsValidUtf8(absl::string_view s);

}  // namespace verdict

#endif  // VERDICT_COMMON_JSON_H_
