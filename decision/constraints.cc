#include "decision/constraints.h"

#include <arpa/inet.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/redaction.h"
#include "decision/text_checks.h"
#include "decision/wildcard.h"

namespace verdict {
namespace {

// Integers up to 2^53 are exact in a JSON number (a double).
constexpr int64_t kMaxExactInteger = int64_t{1} << 53;
// The longest IPv6 text form ("ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255").
constexpr size_t kMaxIpAddressText = 45;
constexpr absl::string_view kDayNames[] = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"};

absl::Status Invalid(absl::string_view key, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(key, ": ", what));
}

// Error messages quote what was written, escaped so that no control byte reaches a log.
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

// Unknown keys are refused so that a misspelt constraint is an error, not a silently open grant.
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

// "HH:MM", 00:00 to 23:59, exactly five characters.
absl::StatusOr<int> ParseTimeOfDay(const JsonValue& value, absl::string_view key) {
  if (absl::Status status = RequireType(value, JsonValue::Type::kString, key); !status.ok()) {
    return status;
  }
  const std::string& text = value.as_string();
  const auto digit = [&](size_t i) { return text[i] - '0'; };
  const auto is_digit = [&](size_t i) { return text[i] >= '0' && text[i] <= '9'; };
  if (text.size() == 5 && is_digit(0) && is_digit(1) && text[2] == ':' && is_digit(3) &&
      is_digit(4)) {
    const int hour = digit(0) * 10 + digit(1);
    const int minute = digit(3) * 10 + digit(4);
    if (hour < 24 && minute < 60) return hour * 60 + minute;
  }
  return Invalid(key, absl::StrCat(Quoted(text), " is not a time of day (HH:MM, 00:00 to 23:59)"));
}

// IANA names only: a leading '/' or a ".." would make the zone loader read an arbitrary file,
// and "localtime" would depend on the machine.
bool LooksLikeIanaName(absl::string_view name) {
  if (name.empty() || name.front() == '/' || absl::StrContains(name, "..") || name == "localtime") {
    return false;
  }
  for (char c : name) {
    const bool allowed = IsAsciiAlphanumeric(c) || c == '/' || c == '_' || c == '-' || c == '+';
    if (!allowed) return false;
  }
  return true;
}

absl::StatusOr<TimeWindow> ParseTimeWindow(const JsonValue& value) {
  constexpr absl::string_view kKey = "time_window";
  if (absl::Status status = RequireType(value, JsonValue::Type::kObject, kKey); !status.ok()) {
    return status;
  }
  if (absl::Status status =
          RequireKnownKeys(value.as_object(), kKey, {"start", "end", "time_zone", "days"});
      !status.ok()) {
    return status;
  }
  TimeWindow window;
  for (const auto& [name, minute] :
       {std::make_pair("start", &window.start_minute), std::make_pair("end", &window.end_minute)}) {
    const std::string key = absl::StrCat(kKey, ".", name);
    const JsonValue* time = value.Find(name);
    if (time == nullptr) return Invalid(key, "is required");
    absl::StatusOr<int> parsed = ParseTimeOfDay(*time, key);
    if (!parsed.ok()) return parsed.status();
    *minute = *parsed;
  }
  if (const JsonValue* zone = value.Find("time_zone")) {
    constexpr absl::string_view kZoneKey = "time_window.time_zone";
    if (absl::Status status = RequireType(*zone, JsonValue::Type::kString, kZoneKey);
        !status.ok()) {
      return status;
    }
    window.time_zone_name = zone->as_string();
  }
  if (!LooksLikeIanaName(window.time_zone_name) ||
      !absl::LoadTimeZone(window.time_zone_name, &window.time_zone)) {
    return Invalid("time_window.time_zone",
                   absl::StrCat("unknown time zone ", Quoted(window.time_zone_name)));
  }
  if (const JsonValue* days = value.Find("days")) {
    constexpr absl::string_view kDaysKey = "time_window.days";
    if (absl::Status status = RequireType(*days, JsonValue::Type::kArray, kDaysKey); !status.ok()) {
      return status;
    }
    if (days->as_array().empty()) {
      return Invalid(kDaysKey, "must name at least one day (an empty list would never open)");
    }
    window.days_mask = 0;
    for (size_t i = 0; i < days->as_array().size(); ++i) {
      const JsonValue& day = days->as_array()[i];
      const std::string key = absl::StrCat(kDaysKey, "[", i, "]");
      if (absl::Status status = RequireType(day, JsonValue::Type::kString, key); !status.ok()) {
        return status;
      }
      int index = 0;
      while (index < 7 && kDayNames[index] != day.as_string()) ++index;
      if (index == 7) {
        return Invalid(key, absl::StrCat(Quoted(day.as_string()), " is not a day (",
                                         absl::StrJoin(kDayNames, ", "), ")"));
      }
      window.days_mask |= static_cast<uint8_t>(1 << index);
    }
  }
  return window;
}

absl::StatusOr<std::vector<IpNetwork>> ParseIpAllowlist(const JsonValue& value) {
  constexpr absl::string_view kKey = "ip_allowlist";
  if (absl::Status status = RequireType(value, JsonValue::Type::kArray, kKey); !status.ok()) {
    return status;
  }
  if (value.as_array().empty()) {
    return Invalid(kKey, "must list at least one network (an empty list would allow no address)");
  }
  std::vector<IpNetwork> networks;
  for (size_t i = 0; i < value.as_array().size(); ++i) {
    const JsonValue& entry = value.as_array()[i];
    const std::string key = absl::StrCat(kKey, "[", i, "]");
    if (absl::Status status = RequireType(entry, JsonValue::Type::kString, key); !status.ok()) {
      return status;
    }
    absl::StatusOr<IpNetwork> network = ParseIpNetwork(entry.as_string());
    if (!network.ok()) return Invalid(key, network.status().message());
    networks.push_back(*network);
  }
  return networks;
}

// A DNS name as mail uses it: labels of 1 to 63 of A-Z a-z 0-9 -, not starting or ending with
// '-', joined by single dots, 253 bytes at most.
bool IsDomainName(absl::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  for (absl::string_view label : absl::StrSplit(name, '.')) {
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') {
      return false;
    }
    for (char c : label) {
      if (!IsAsciiAlphanumeric(c) && c != '-') return false;
    }
  }
  return true;
}

// One e-mail address at exactly `domain`: a plain local part (1 to 64 of A-Z a-z 0-9 . _ + -,
// no leading, trailing or doubled '.'), one '@', the domain in any case. Anything a mail system
// reads as more or other than one such address (a list, a quoted or routed local part, a
// display name, a subdomain) fails.
bool IsAddressAtDomain(absl::string_view value, absl::string_view domain) {
  const size_t at = value.find('@');
  if (at == absl::string_view::npos) return false;
  const absl::string_view local = value.substr(0, at);
  if (local.empty() || local.size() > 64 || local.front() == '.' || local.back() == '.' ||
      absl::StrContains(local, "..")) {
    return false;
  }
  for (char c : local) {
    if (!IsAsciiAlphanumeric(c) && c != '.' && c != '_' && c != '+' && c != '-') return false;
  }
  return absl::EqualsIgnoreCase(value.substr(at + 1), domain);
}

absl::Status ParseArgumentRule(const JsonValue& value, const std::string& key,
                               std::vector<ArgumentRule>* rules) {
  static constexpr std::pair<absl::string_view, ArgumentRule::Kind> kOperators[] = {
      {"equals", ArgumentRule::Kind::kEquals}, {"one_of", ArgumentRule::Kind::kOneOf},
      {"glob", ArgumentRule::Kind::kGlob},     {"min", ArgumentRule::Kind::kMin},
      {"max", ArgumentRule::Kind::kMax},       {"email_domain", ArgumentRule::Kind::kEmailDomain},
  };
  if (absl::Status status = RequireType(value, JsonValue::Type::kObject, key); !status.ok()) {
    return status;
  }
  if (absl::Status status =
          RequireKnownKeys(value.as_object(), key,
                           {"path", "equals", "one_of", "glob", "min", "max", "email_domain"});
      !status.ok()) {
    return status;
  }
  const std::string path_key = absl::StrCat(key, ".path");
  const JsonValue* path = value.Find("path");
  if (path == nullptr) return Invalid(path_key, "is required");
  if (absl::Status status = RequireType(*path, JsonValue::Type::kString, path_key); !status.ok()) {
    return status;
  }
  for (absl::string_view component : absl::StrSplit(path->as_string(), '.')) {
    if (component.empty()) {
      return Invalid(path_key, absl::StrCat(Quoted(path->as_string()),
                                            " is not a dotted path (an empty component)"));
    }
  }
  // One rule object may carry several operators ({"min": 1, "max": 10}); each becomes a rule.
  const size_t first_rule = rules->size();
  for (const auto& [name, kind] : kOperators) {
    const JsonValue* operand = value.Find(name);
    if (operand == nullptr) continue;
    const std::string operand_key = absl::StrCat(key, ".", name);
    absl::Status status;
    switch (kind) {
      case ArgumentRule::Kind::kEquals:
        break;
      case ArgumentRule::Kind::kOneOf:
        status = RequireType(*operand, JsonValue::Type::kArray, operand_key);
        if (status.ok() && operand->as_array().empty()) {
          status = Invalid(operand_key, "must list at least one value");
        }
        break;
      case ArgumentRule::Kind::kGlob:
        status = RequireType(*operand, JsonValue::Type::kString, operand_key);
        break;
      case ArgumentRule::Kind::kMin:
      case ArgumentRule::Kind::kMax:
        status = RequireType(*operand, JsonValue::Type::kNumber, operand_key);
        break;
      case ArgumentRule::Kind::kEmailDomain:
        status = RequireType(*operand, JsonValue::Type::kString, operand_key);
        if (status.ok() && !IsDomainName(operand->as_string())) {
          status = Invalid(operand_key, absl::StrCat(Quoted(operand->as_string()),
                                                     " is not a domain name (example.com)"));
        }
        break;
    }
    if (!status.ok()) return status;
    rules->push_back(ArgumentRule{path->as_string(), kind, *operand});
  }
  if (rules->size() == first_rule) {
    return Invalid(key, "needs one of equals, one_of, glob, min, max, email_domain");
  }
  const JsonValue* min = value.Find("min");
  const JsonValue* max = value.Find("max");
  if (min != nullptr && max != nullptr && min->as_number() > max->as_number()) {
    return Invalid(key, absl::StrCat("min ", CanonicalJson(*min), " is above max ",
                                     CanonicalJson(*max), " (no value could pass)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<ArgumentRule>> ParseArgumentRules(const JsonValue& value) {
  constexpr absl::string_view kKey = "arguments";
  if (absl::Status status = RequireType(value, JsonValue::Type::kArray, kKey); !status.ok()) {
    return status;
  }
  std::vector<ArgumentRule> rules;
  for (size_t i = 0; i < value.as_array().size(); ++i) {
    if (absl::Status status =
            ParseArgumentRule(value.as_array()[i], absl::StrCat(kKey, "[", i, "]"), &rules);
        !status.ok()) {
      return status;
    }
  }
  return rules;
}

absl::StatusOr<ApprovalRule> ParseApproval(const JsonValue& value) {
  constexpr absl::string_view kKey = "approval";
  if (absl::Status status = RequireType(value, JsonValue::Type::kObject, kKey); !status.ok()) {
    return status;
  }
  if (absl::Status status = RequireKnownKeys(value.as_object(), kKey, {"quorum", "ttl_seconds"});
      !status.ok()) {
    return status;
  }
  ApprovalRule rule;
  if (const JsonValue* quorum = value.Find("quorum")) {
    absl::StatusOr<int64_t> parsed = ParseInteger(*quorum, "approval.quorum", 1, INT_MAX);
    if (!parsed.ok()) return parsed.status();
    rule.quorum = static_cast<int>(*parsed);
  }
  if (const JsonValue* ttl = value.Find("ttl_seconds")) {
    absl::StatusOr<int64_t> parsed =
        ParseInteger(*ttl, "approval.ttl_seconds", 1, kMaxExactInteger);
    if (!parsed.ok()) return parsed.status();
    rule.ttl = absl::Seconds(*parsed);
  }
  return rule;
}

absl::StatusOr<RateLimit> ParseRateLimit(const JsonValue& value) {
  constexpr absl::string_view kKey = "rate_limit";
  if (absl::Status status = RequireType(value, JsonValue::Type::kObject, kKey); !status.ok()) {
    return status;
  }
  if (absl::Status status =
          RequireKnownKeys(value.as_object(), kKey, {"max_calls", "window_seconds"});
      !status.ok()) {
    return status;
  }
  RateLimit limit;
  for (const auto& [name, field] : {std::make_pair("max_calls", &limit.max_calls),
                                    std::make_pair("window_seconds", &limit.window_seconds)}) {
    const std::string key = absl::StrCat(kKey, ".", name);
    const JsonValue* member = value.Find(name);
    if (member == nullptr) return Invalid(key, "is required");
    absl::StatusOr<int64_t> parsed = ParseInteger(*member, key, 1, kMaxExactInteger);
    if (!parsed.ok()) return parsed.status();
    *field = *parsed;
  }
  return limit;
}

absl::Status NotAnAddress(absl::string_view text) {
  return absl::InvalidArgumentError(absl::StrCat(Quoted(text), " is not an IPv4 or IPv6 address"));
}

struct ParsedAddress {
  std::array<uint8_t, 16> bytes{};
  bool written_as_ipv4 = false;
};

// inet_pton is strict where it matters: four decimal octets for IPv4 (no leading zeros, no
// octal, no short forms) and RFC 4291 text for IPv6, including '::' and a trailing dotted quad.
absl::StatusOr<ParsedAddress> ParseAddress(absl::string_view text) {
  if (text.empty()) return absl::InvalidArgumentError("is empty, not an IP address");
  if (text.size() > kMaxIpAddressText) {
    return absl::InvalidArgumentError(
        absl::StrCat("is ", text.size(), " bytes, too long for an IP address"));
  }
  // inet_pton reads up to the first NUL; one inside the text would hide what follows it.
  if (text.find('\0') != absl::string_view::npos) {
    return NotAnAddress(text);
  }
  const std::string terminated(text);
  ParsedAddress parsed;
  uint8_t ipv4[4];
  if (inet_pton(AF_INET, terminated.c_str(), ipv4) == 1) {
    parsed.bytes[10] = 0xff;
    parsed.bytes[11] = 0xff;
    std::copy(ipv4, ipv4 + 4, parsed.bytes.begin() + 12);
    parsed.written_as_ipv4 = true;
    return parsed;
  }
  if (inet_pton(AF_INET6, terminated.c_str(), parsed.bytes.data()) == 1) return parsed;
  return NotAnAddress(text);
}

bool InNetwork(const IpNetwork& network, const std::array<uint8_t, 16>& address) {
  const int whole_bytes = network.prefix_length / 8;
  for (int i = 0; i < whole_bytes; ++i) {
    if (network.address[i] != address[i]) return false;
  }
  const int remaining_bits = network.prefix_length % 8;
  if (remaining_bits == 0) return true;
  const uint8_t mask = static_cast<uint8_t>(0xff << (8 - remaining_bits));
  return (network.address[whole_bytes] & mask) == (address[whole_bytes] & mask);
}

// Splits a string into its UTF-8 code points (the input is valid UTF-8: it came from JSON).
std::vector<absl::string_view> CodePoints(absl::string_view s) {
  std::vector<absl::string_view> code_points;
  size_t start = 0;
  for (size_t i = 1; i <= s.size(); ++i) {
    if (i == s.size() || (static_cast<unsigned char>(s[i]) & 0xc0) != 0x80) {
      code_points.push_back(s.substr(start, i - start));
      start = i;
    }
  }
  return code_points;
}

// '*' matches any run of characters, '?' exactly one character (a code point, not a byte).
bool GlobMatches(absl::string_view pattern, absl::string_view subject) {
  const std::vector<absl::string_view> pattern_chars = CodePoints(pattern);
  const std::vector<absl::string_view> subject_chars = CodePoints(subject);
  return MatchWithStars(
      pattern_chars.size(), subject_chars.size(), [&](size_t p) { return pattern_chars[p] == "*"; },
      [&](size_t p, size_t s) {
        return pattern_chars[p] == "?" || pattern_chars[p] == subject_chars[s];
      });
}

const JsonValue* FindByPath(const JsonValue& arguments, absl::string_view path) {
  const JsonValue* current = &arguments;
  for (absl::string_view component : absl::StrSplit(path, '.')) {
    current = current->Find(component);
    if (current == nullptr) return nullptr;
  }
  return current;
}

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

// A rule whose argument's name marks a secret, or whose operand holds a credential ("dsn" must
// equal "postgres://app:pw@db/x"): its operand is never shown to a caller (h41, h42).
bool RuleGuardsASecret(absl::string_view path, const JsonValue& operand) {
  return IsSecretKey(path) || HoldsACredential(operand);
}

// Says why `value` fails `rule`, or returns "" when it passes. The messages name the argument
// and the rule, never the argument's value, which may be a secret; nor the rule's operand when
// the argument's name marks a secret (common/redaction.h): "api_key must equal ..." would tell
// the caller the key (review h41).
std::string RuleFailure(const ArgumentRule& rule, const JsonValue* value) {
  const std::string name = absl::StrCat("argument ", Quoted(rule.path));
  if (value == nullptr) return absl::StrCat(name, " is missing");
  const bool secret = RuleGuardsASecret(rule.path, rule.operand);
  const auto operand = [&] {  // only for a failure
    return secret ? std::string("a value not shown (it guards a secret)")
                  : CanonicalJson(rule.operand);
  };
  switch (rule.kind) {
    case ArgumentRule::Kind::kEquals:
      if (*value == rule.operand) return "";
      return absl::StrCat(name, " must equal ", operand());
    case ArgumentRule::Kind::kOneOf:
      for (const JsonValue& allowed : rule.operand.as_array()) {
        if (*value == allowed) return "";
      }
      return absl::StrCat(name, " must be one of ", operand());
    case ArgumentRule::Kind::kGlob:
      if (!value->is_string()) return absl::StrCat(name, " must be a string matching ", operand());
      if (GlobMatches(rule.operand.as_string(), value->as_string())) return "";
      return absl::StrCat(name, " does not match ", operand());
    case ArgumentRule::Kind::kEmailDomain:
      if (value->is_string() && IsAddressAtDomain(value->as_string(), rule.operand.as_string())) {
        return "";
      }
      return absl::StrCat(name, " must be one e-mail address at ", operand());
    case ArgumentRule::Kind::kMin:
      if (!value->is_number()) return absl::StrCat(name, " must be a number");
      if (value->as_number() >= rule.operand.as_number()) return "";
      return absl::StrCat(name, " must be at least ", operand());
    case ArgumentRule::Kind::kMax:
      if (!value->is_number()) return absl::StrCat(name, " must be a number");
      if (value->as_number() <= rule.operand.as_number()) return "";
      return absl::StrCat(name, " must be at most ", operand());
  }
  return absl::StrCat(name, " has a rule of an unknown kind");
}

}  // namespace

absl::StatusOr<Constraints> ParseConstraints(absl::string_view json) {
  Constraints constraints;
  if (json.empty()) return constraints;
  absl::StatusOr<JsonValue> parsed = ParseJson(json);
  if (!parsed.ok()) return Invalid("constraints", parsed.status().message());
  if (absl::Status status = RequireType(*parsed, JsonValue::Type::kObject, "constraints");
      !status.ok()) {
    return status;
  }
  if (absl::Status status =
          RequireKnownKeys(parsed->as_object(), "constraints",
                           {"time_window", "ip_allowlist", "arguments", "approval", "rate_limit"});
      !status.ok()) {
    return status;
  }
  if (const JsonValue* value = parsed->Find("time_window")) {
    absl::StatusOr<TimeWindow> window = ParseTimeWindow(*value);
    if (!window.ok()) return window.status();
    constraints.time_window = *std::move(window);
  }
  if (const JsonValue* value = parsed->Find("ip_allowlist")) {
    absl::StatusOr<std::vector<IpNetwork>> networks = ParseIpAllowlist(*value);
    if (!networks.ok()) return networks.status();
    constraints.ip_allowlist = *std::move(networks);
  }
  if (const JsonValue* value = parsed->Find("arguments")) {
    absl::StatusOr<std::vector<ArgumentRule>> rules = ParseArgumentRules(*value);
    if (!rules.ok()) return rules.status();
    constraints.arguments = *std::move(rules);
  }
  if (const JsonValue* value = parsed->Find("approval")) {
    absl::StatusOr<ApprovalRule> approval = ParseApproval(*value);
    if (!approval.ok()) return approval.status();
    constraints.approval = *approval;
  }
  if (const JsonValue* value = parsed->Find("rate_limit")) {
    absl::StatusOr<RateLimit> limit = ParseRateLimit(*value);
    if (!limit.ok()) return limit.status();
    constraints.rate_limit = *limit;
  }
  return constraints;
}

bool WithinTimeWindow(const TimeWindow& window, absl::Time now) {
  // Local civil time, so a window follows the zone's clock across DST changes.
  const absl::CivilMinute local = absl::ToCivilMinute(now, window.time_zone);
  const int minute_of_day = local.hour() * 60 + local.minute();
  const auto opens_on = [&](absl::CivilDay day) {
    return (window.days_mask >> static_cast<int>(absl::GetWeekday(day)) & 1) != 0;
  };
  const absl::CivilDay today(local);
  if (window.start_minute == window.end_minute) return opens_on(today);
  if (window.start_minute < window.end_minute) {
    return minute_of_day >= window.start_minute && minute_of_day < window.end_minute &&
           opens_on(today);
  }
  // A window that wraps midnight: after the start it opened today; before the end, yesterday.
  if (minute_of_day >= window.start_minute) return opens_on(today);
  if (minute_of_day < window.end_minute) return opens_on(today - 1);
  return false;
}

absl::StatusOr<std::array<uint8_t, 16>> ParseIpAddress(absl::string_view text) {
  absl::StatusOr<ParsedAddress> parsed = ParseAddress(text);
  if (!parsed.ok()) return parsed.status();
  return parsed->bytes;
}

absl::StatusOr<IpNetwork> ParseIpNetwork(absl::string_view text) {
  const size_t slash = text.find('/');
  absl::StatusOr<ParsedAddress> parsed = ParseAddress(text.substr(0, slash));
  if (!parsed.ok()) return parsed.status();
  IpNetwork network;
  network.address = parsed->bytes;
  const int family_bits = parsed->written_as_ipv4 ? 32 : 128;
  if (slash == absl::string_view::npos) {
    network.prefix_length = 128;
    return network;
  }
  const absl::string_view prefix = text.substr(slash + 1);
  int prefix_length = 0;
  const bool well_formed =
      !prefix.empty() && prefix.size() <= 3 && (prefix.size() == 1 || prefix.front() != '0') &&
      std::all_of(prefix.begin(), prefix.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (well_formed) {
    for (char c : prefix) prefix_length = prefix_length * 10 + (c - '0');
  }
  if (!well_formed || prefix_length > family_bits) {
    return absl::InvalidArgumentError(
        absl::StrCat(Quoted(text), " has a bad prefix length (0 to ", family_bits, ")"));
  }
  // An IPv4 prefix counts from the start of the mapped form's last four bytes.
  network.prefix_length = prefix_length + (128 - family_bits);
  IpNetwork masked = network;
  for (int bit = network.prefix_length; bit < 128; ++bit) {
    masked.address[bit / 8] &= static_cast<uint8_t>(~(0x80 >> (bit % 8)));
  }
  if (masked.address != network.address) {
    return absl::InvalidArgumentError(
        absl::StrCat(Quoted(text), " has address bits set after the /", prefix_length, " prefix"));
  }
  return network;
}

bool IpAllowed(const std::vector<IpNetwork>& allowlist, absl::string_view client_ip) {
  absl::StatusOr<ParsedAddress> address = ParseAddress(client_ip);
  if (!address.ok()) return false;
  return std::any_of(allowlist.begin(), allowlist.end(),
                     [&](const IpNetwork& network) { return InNetwork(network, address->bytes); });
}

bool ArgumentsPass(const std::vector<ArgumentRule>& rules, const JsonValue& arguments,
                   std::string* why) {
  for (const ArgumentRule& rule : rules) {
    std::string failure = RuleFailure(rule, FindByPath(arguments, rule.path));
    if (!failure.empty()) {
      if (why != nullptr) *why = std::move(failure);
      return false;
    }
  }
  return true;
}

int64_t RateWindowStart(const RateLimit& limit, absl::Time now) {
  const int64_t seconds = absl::ToUnixSeconds(now);
  // A hand-built RateLimit may skip ParseConstraints' check; never divide by zero.
  if (limit.window_seconds <= 0) return seconds;
  int64_t windows = seconds / limit.window_seconds;
  if (seconds % limit.window_seconds != 0 && seconds < 0) --windows;  // floor, not truncation
  return windows * limit.window_seconds;
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
