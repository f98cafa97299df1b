#include "common/json.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace verdict {
namespace {

// The significant digits of a well-formed JSON number: its mantissa's digits less the leading
// zeros (of "0.000123" as of "007") and the trailing zeros of its fraction.
size_t SignificantDigits(absl::string_view number) {
  size_t count = 0;
  size_t zeros_since_last = 0;  // zeros after the last non-zero digit, counted once one follows
  bool started = false;
  bool in_fraction = false;
  for (char c : number) {
    if (c == 'e' || c == 'E') break;
    if (c == '.') {
      in_fraction = true;
      continue;
    }
    if (c < '0' || c > '9') continue;  // the sign
    if (c == '0') {
      if (started) ++zeros_since_last;
      continue;
    }
    count += zeros_since_last + 1;
    zeros_since_last = 0;
    started = true;
  }
  // An integer's trailing zeros are digits of its value; a fraction's are not.
  return in_fraction ? count : count + zeros_since_last;
}

// The smallest positive normal double: below it a double holds fewer than 15 significant digits.
constexpr double kSmallestNormal = 2.2250738585072014e-308;

// Integers below this magnitude are exact in a double and print without exponent or fraction.
constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53

// Length of the well-formed UTF-8 sequence starting at s[pos], or 0 when it is ill-formed
// (Unicode table 3-7: no overlongs, no surrogates, nothing above U+10FFFF).
size_t Utf8SequenceLength(absl::string_view s, size_t pos) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char lead = byte(pos);
  if (lead < 0x80) return 1;
  size_t length;
  unsigned char second_min = 0x80, second_max = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) second_min = 0xA0;  // overlong below U+0800
    if (lead == 0xED) second_max = 0x9F;  // U+D800..U+DFFF are surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) second_min = 0x90;  // overlong below U+10000
    if (lead == 0xF4) second_max = 0x8F;  // above U+10FFFF
  } else {
    return 0;  // a continuation byte, an overlong lead (C0, C1) or F5..FF
  }
  if (s.size() - pos < length) return 0;
  if (byte(pos + 1) < second_min || byte(pos + 1) > second_max) return 0;
  for (size_t i = 2; i < length; ++i) {
    if (byte(pos + i) < 0x80 || byte(pos + i) > 0xBF) return 0;
  }
  return length;
}

void AppendUtf8(uint32_t code_point, std::string* out) {
  if (code_point < 0x80) {
    out->push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (code_point >> 6)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else if (code_point < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (code_point >> 12)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (code_point >> 18)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  }
}

bool IsJsonWhitespace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The bytes a string can hold as they are: anything but the quote, the backslash, control
// characters and the start of a multi-byte UTF-8 sequence (checked on its own).
constexpr std::array<bool, 256> MakePlainStringBytes() {
  std::array<bool, 256> plain{};
  for (int c = 0x20; c < 0x80; ++c) plain[c] = c != '"' && c != '\\';
  return plain;
}
constexpr std::array<bool, 256> kPlainStringBytes = MakePlainStringBytes();

}  // namespace

class JsonParser {
 public:
  JsonParser(absl::string_view text, const JsonLimits& limits) : text_(text), limits_(limits) {}

  absl::StatusOr<JsonValue> ParseDocument() {
    if (text_.size() > limits_.max_bytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "JSON input is ", text_.size(), " bytes, above the limit of ", limits_.max_bytes));
    }
    SkipWhitespace();
    JsonValue value;
    if (absl::Status status = ParseValue(/*depth=*/0, &value); !status.ok()) return status;
    SkipWhitespace();
    if (pos_ != text_.size()) return Error("unexpected content after the JSON value");
    return value;
  }

 private:
  absl::Status Error(absl::string_view what) const { return ErrorAt(pos_, what); }
  absl::Status ErrorAt(size_t offset, absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat("invalid JSON at byte ", offset, ": ", what));
  }

  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return text_[pos_]; }

  void SkipWhitespace() {
    while (!AtEnd() && IsJsonWhitespace(Peek())) ++pos_;
  }

  // Values are parsed into their final place (an array slot, an object member), never moved
  // through return values: a decision parses JSON on its hot path.
  absl::Status ParseValue(int depth, JsonValue* out) {
    if (AtEnd()) return Error("unexpected end of input, expected a value");
    switch (Peek()) {
      case '{':
        return ParseObject(depth + 1, out);
      case '[':
        return ParseArray(depth + 1, out);
      case '"':
        return ParseString(&out->value_.emplace<std::string>());
      case 't':
        return ParseLiteral("true", JsonValue::Bool(true), out);
      case 'f':
        return ParseLiteral("false", JsonValue::Bool(false), out);
      case 'n':
        return ParseLiteral("null", JsonValue(), out);
      default:
        if (Peek() == '-' || IsDigit(Peek())) return ParseNumber(out);
        return Error("unexpected character, expected a value");
    }
  }

  absl::Status ParseLiteral(absl::string_view literal, JsonValue value, JsonValue* out) {
    if (text_.substr(pos_, literal.size()) != literal) {
      return Error(absl::StrCat("invalid literal, expected '", literal, "'"));
    }
    pos_ += literal.size();
    *out = std::move(value);
    return absl::OkStatus();
  }

  absl::Status CheckDepth(int depth) const {
    if (depth > limits_.max_depth) {
      return Error(absl::StrCat("nesting deeper than the limit of ", limits_.max_depth));
    }
    return absl::OkStatus();
  }

  absl::Status ParseArray(int depth, JsonValue* out) {
    if (absl::Status status = CheckDepth(depth); !status.ok()) return status;
    ++pos_;  // '['
    JsonValue::Array& items = out->value_.emplace<JsonValue::Array>();
    SkipWhitespace();
    if (!AtEnd() && Peek() == ']') {
      ++pos_;
      return absl::OkStatus();
    }
    while (true) {
      SkipWhitespace();
      if (absl::Status status = ParseValue(depth, &items.emplace_back()); !status.ok()) {
        return status;
      }
      SkipWhitespace();
      if (AtEnd()) return Error("unexpected end of input in an array");
      if (Peek() == ']') {
        ++pos_;
        return absl::OkStatus();
      }
      if (Peek() != ',') return Error("expected ',' or ']' in an array");
      ++pos_;
    }
  }

  absl::Status ParseObject(int depth, JsonValue* out) {
    if (absl::Status status = CheckDepth(depth); !status.ok()) return status;
    ++pos_;  // '{'
    JsonValue::Object& members = out->value_.emplace<JsonValue::Object>();
    SkipWhitespace();
    if (!AtEnd() && Peek() == '}') {
      ++pos_;
      return absl::OkStatus();
    }
    std::string key;
    while (true) {
      SkipWhitespace();
      if (AtEnd() || Peek() != '"') return Error("expected a string as object key");
      const size_t key_offset = pos_;
      key.clear();
      if (absl::Status status = ParseString(&key); !status.ok()) return status;
      // Compared after unescaping: "a" and "\u0061" are the same key.
      const auto next = members.lower_bound(key);
      if (next != members.end() && next->first == key) {
        return ErrorAt(key_offset, absl::StrCat("duplicate object key ", JsonQuote(key)));
      }
      SkipWhitespace();
      if (AtEnd() || Peek() != ':') return Error("expected ':' after an object key");
      ++pos_;
      SkipWhitespace();
      JsonValue& value = members.emplace_hint(next, std::move(key), JsonValue())->second;
      if (absl::Status status = ParseValue(depth, &value); !status.ok()) return status;
      SkipWhitespace();
      if (AtEnd()) return Error("unexpected end of input in an object");
      if (Peek() == '}') {
        ++pos_;
        return absl::OkStatus();
      }
      if (Peek() != ',') return Error("expected ',' or '}' in an object");
      ++pos_;
    }
  }

  // Reads the four hex digits of a \u escape at pos_.
  absl::StatusOr<uint32_t> ParseHex4() {
    uint32_t value = 0;
    for (size_t i = 0; i < 4; ++i) {
      if (pos_ + i >= text_.size()) return ErrorAt(pos_ + i, "unterminated \\u escape");
      const char c = text_[pos_ + i];
      uint32_t digit;
      if (IsDigit(c)) {
        digit = c - '0';
      } else if (c >= 'a' && c <= 'f') {
        digit = c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        digit = c - 'A' + 10;
      } else {
        return ErrorAt(pos_ + i, "invalid hex digit in a \\u escape");
      }
      value = value * 16 + digit;
    }
    pos_ += 4;
    return value;
  }

  // pos_ is just past "\u". Joins a surrogate pair into one code point.
  absl::Status ParseUnicodeEscape(std::string* out) {
    const size_t escape_offset = pos_ - 2;
    absl::StatusOr<uint32_t> unit = ParseHex4();
    if (!unit.ok()) return unit.status();
    if (*unit >= 0xDC00 && *unit <= 0xDFFF) {
      return ErrorAt(escape_offset, "lone low surrogate in a \\u escape");
    }
    if (*unit < 0xD800 || *unit > 0xDBFF) {
      AppendUtf8(*unit, out);
      return absl::OkStatus();
    }
    if (text_.substr(pos_, 2) != "\\u") {
      return ErrorAt(escape_offset, "high surrogate not followed by a low surrogate");
    }
    pos_ += 2;
    absl::StatusOr<uint32_t> low = ParseHex4();
    if (!low.ok()) return low.status();
    if (*low < 0xDC00 || *low > 0xDFFF) {
      return ErrorAt(escape_offset, "high surrogate not followed by a low surrogate");
    }
    AppendUtf8(0x10000 + ((*unit - 0xD800) << 10) + (*low - 0xDC00), out);
    return absl::OkStatus();
  }

  // pos_ is at the opening quote.
  absl::Status ParseString(std::string* out) {
    ++pos_;
    while (true) {
      // Copy the run of characters that need no decoding in one go.
      const size_t run_start = pos_;
      while (!AtEnd() && kPlainStringBytes[static_cast<unsigned char>(Peek())]) ++pos_;
      out->append(text_.data() + run_start, pos_ - run_start);
      if (AtEnd()) return Error("unterminated string");
      const unsigned char c = static_cast<unsigned char>(Peek());
      if (c == '"') {
        ++pos_;
        return absl::OkStatus();
      }
      if (c < 0x20) return Error("unescaped control character in a string");
      if (c >= 0x80) {
        const size_t length = Utf8SequenceLength(text_, pos_);
        if (length == 0) return Error("invalid UTF-8 in a string");
        out->append(text_.data() + pos_, length);
        pos_ += length;
        continue;
      }
      // A backslash.
      if (text_.size() - pos_ < 2) return Error("unterminated escape");
      const char escaped = text_[pos_ + 1];
      pos_ += 2;
      switch (escaped) {
        case '"':
        case '\\':
        case '/':
          out->push_back(escaped);
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u':
          if (absl::Status status = ParseUnicodeEscape(out); !status.ok()) return status;
          break;
        default:
          return ErrorAt(pos_ - 2, "invalid escape in a string");
      }
    }
  }

  // RFC 8259 grammar: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
  absl::Status ParseNumber(JsonValue* out) {
    const size_t start = pos_;
    const auto skip_digits = [&] {
      const size_t first = pos_;
      while (!AtEnd() && IsDigit(Peek())) ++pos_;
      return pos_ - first;
    };
    if (Peek() == '-') ++pos_;
    if (AtEnd() || !IsDigit(Peek())) return Error("expected a digit in a number");
    if (Peek() == '0') {
      ++pos_;
      if (!AtEnd() && IsDigit(Peek())) return Error("leading zero in a number");
    } else {
      skip_digits();
    }
    if (!AtEnd() && Peek() == '.') {
      ++pos_;
      if (skip_digits() == 0) return Error("expected a digit after the decimal point");
    }
    if (!AtEnd() && (Peek() == 'e' || Peek() == 'E')) {
      ++pos_;
      if (!AtEnd() && (Peek() == '+' || Peek() == '-')) ++pos_;
      if (skip_digits() == 0) return Error("expected a digit in the exponent");
    }
    if (limits_.exact_numbers && SignificantDigits(text_.substr(start, pos_ - start)) > 15) {
      return ErrorAt(start,
                     "number of more than 15 significant digits, more than a double tells apart: "
                     "send it as a string");
    }
    double value = 0;
    const char* first = text_.data() + start;
    const char* last = text_.data() + pos_;
    const std::from_chars_result result = std::from_chars(first, last, value);
    // Overflow would need infinity and underflow would silently lose the value: both refused.
    if (result.ec != std::errc() || result.ptr != last) {
      return ErrorAt(start, "number out of the range of a double");
    }
    // Below the normal range a double holds fewer than 15 digits: 1.00000000000001e-315 and
    // 1.00000000000002e-315 read as one (h40).
    if (limits_.exact_numbers && value != 0 && std::fabs(value) < kSmallestNormal) {
      return ErrorAt(start,
                     "number too close to zero for a double to tell it apart: send it as a "
                     "string");
    }
    *out = JsonValue::Number(value);
    return absl::OkStatus();
  }

  absl::string_view text_;
  const JsonLimits& limits_;
  size_t pos_ = 0;
};

namespace {

// RFC 8785 orders keys by their UTF-16 code units. That equals UTF-8 byte order except that
// U+E000..U+FFFF (lead bytes EE, EF) sort after the supplementary planes (lead bytes F0..F4),
// whose UTF-16 surrogates are D800..DFFF. At the first differing byte both strings are at the
// same position within a character, so only that byte needs a look.
bool Utf16CodeUnitLess(absl::string_view a, absl::string_view b) {
  const auto [in_a, in_b] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  if (in_b == b.end()) return false;
  if (in_a == a.end()) return true;
  const unsigned char x = static_cast<unsigned char>(*in_a);
  const unsigned char y = static_cast<unsigned char>(*in_b);
  const auto is_high_bmp_lead = [](unsigned char c) { return c == 0xEE || c == 0xEF; };
  if (is_high_bmp_lead(x) && y >= 0xF0) return false;
  if (x >= 0xF0 && is_high_bmp_lead(y)) return true;
  return x < y;
}

void AppendQuoted(absl::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t pos = 0;
  while (pos < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[pos]);
    if (c >= 0x80) {
      const size_t length = Utf8SequenceLength(s, pos);
      if (length == 0) {
        // The output must stay valid JSON whatever the input: U+FFFD stands for the bad byte.
        out->append("\xEF\xBF\xBD");
        ++pos;
      } else {
        out->append(s.data() + pos, length);
        pos += length;
      }
      continue;
    }
    ++pos;
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (c < 0x20) {
          out->append("\\u00");
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 0xF]);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
  out->push_back('"');
}

void AppendNumber(double d, std::string* out) {
  if (!std::isfinite(d)) {
    // Only reachable through JsonValue::Number: JSON has no spelling for it (JSON.stringify
    // writes null too).
    out->append("null");
  } else if (d == 0) {
    out->push_back('0');  // also for -0
  } else if (std::fabs(d) < kMaxExactInteger && d == std::trunc(d)) {
    absl::StrAppend(out, static_cast<int64_t>(d));
  } else {
    char buffer[32];  // the shortest round-trip form of a double is at most 24 characters
    const std::to_chars_result result = std::to_chars(buffer, buffer + sizeof(buffer), d);
    out->append(buffer, result.ptr);
  }
}

void AppendCanonical(const JsonValue& value, std::string* out) {
  switch (value.type()) {
    case JsonValue::Type::kNull:
      out->append("null");
      return;
    case JsonValue::Type::kBool:
      out->append(value.as_bool() ? "true" : "false");
      return;
    case JsonValue::Type::kNumber:
      AppendNumber(value.as_number(), out);
      return;
    case JsonValue::Type::kString:
      AppendQuoted(value.as_string(), out);
      return;
    case JsonValue::Type::kArray: {
      out->push_back('[');
      bool first = true;
      for (const JsonValue& item : value.as_array()) {
        if (!first) out->push_back(',');
        first = false;
        AppendCanonical(item, out);
      }
      out->push_back(']');
      return;
    }
    case JsonValue::Type::kObject: {
      std::vector<const JsonValue::Object::value_type*> members;
      members.reserve(value.as_object().size());
      for (const auto& member : value.as_object()) members.push_back(&member);
      std::sort(members.begin(), members.end(),
                [](const auto* a, const auto* b) { return Utf16CodeUnitLess(a->first, b->first); });
      out->push_back('{');
      bool first = true;
      for (const auto* member : members) {
        if (!first) out->push_back(',');
        first = false;
        AppendQuoted(member->first, out);
        out->push_back(':');
        AppendCanonical(member->second, out);
      }
      out->push_back('}');
      return;
    }
  }
}

}  // namespace

JsonValue JsonValue::Bool(bool b) {
  JsonValue v;
  v.value_ = b;
  return v;
}

JsonValue JsonValue::Number(double d) {
  JsonValue v;
  v.value_ = d;
  return v;
}

JsonValue JsonValue::String(std::string s) {
  JsonValue v;
  v.value_ = std::move(s);
  return v;
}

JsonValue JsonValue::MakeArray(Array items) {
  JsonValue v;
  v.value_ = std::move(items);
  return v;
}

JsonValue JsonValue::MakeObject(Object members) {
  JsonValue v;
  v.value_ = std::move(members);
  return v;
}

namespace {

// The alternative `T` of `value`. Asking for another type is a programming error: checked in
// debug builds; release builds answer an empty value (const) or turn `value` into one (mutable)
// rather than read memory that is not there.
template <typename T, typename Variant>
const T& Get(const Variant& value) {
  const T* held = std::get_if<T>(&value);
  assert(held != nullptr);
  if (held != nullptr) return *held;
  static const T* const kEmpty = new T();
  return *kEmpty;
}

template <typename T, typename Variant>
T& GetMutable(Variant& value) {
  T* held = std::get_if<T>(&value);
  assert(held != nullptr);
  if (held != nullptr) return *held;
  return value.template emplace<T>();
}

}  // namespace

bool JsonValue::as_bool() const { return Get<bool>(value_); }

double JsonValue::as_number() const { return Get<double>(value_); }

const std::string& JsonValue::as_string() const { return Get<std::string>(value_); }

const JsonValue::Array& JsonValue::as_array() const { return Get<Array>(value_); }

JsonValue::Array& JsonValue::as_array() { return GetMutable<Array>(value_); }

const JsonValue::Object& JsonValue::as_object() const { return Get<Object>(value_); }

JsonValue::Object& JsonValue::as_object() { return GetMutable<Object>(value_); }

const JsonValue* JsonValue::Find(absl::string_view key) const {
  const Object* object = std::get_if<Object>(&value_);
  if (object == nullptr) return nullptr;
  const auto it = object->find(key);
  return it == object->end() ? nullptr : &it->second;
}

bool JsonValue::operator==(const JsonValue& other) const { return value_ == other.value_; }

absl::StatusOr<JsonValue> ParseJson(absl::string_view text, const JsonLimits& limits) {
  return JsonParser(text, limits).ParseDocument();
}

std::string CanonicalJson(const JsonValue& value) {
  std::string out;
  AppendCanonical(value, &out);
  return out;
}

std::string JsonQuote(absl::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  AppendQuoted(s, &out);
  return out;
}

bool IsValidUtf8(absl::string_view s) {
  size_t pos = 0;
  while (pos < s.size()) {
    const size_t length = Utf8SequenceLength(s, pos);
    if (length == 0) return false;
    pos += length;
  }
  return true;
}

}  // namespace verdict
