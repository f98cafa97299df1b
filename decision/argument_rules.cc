#include "decision/argument_rules.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "decision/constraint_redaction.h"
#include "decision/constraint_schema.h"
#include "decision/glob.h"
#include "decision/text_checks.h"

namespace verdict {
namespace {

using constraint_schema::Invalid;
using constraint_schema::Quoted;
using constraint_schema::RequireKnownKeys;
using constraint_schema::RequireType;

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

const JsonValue* FindByPath(const JsonValue& arguments, absl::string_view path) {
  const JsonValue* current = &arguments;
  for (absl::string_view component : absl::StrSplit(path, '.')) {
    current = current->Find(component);
    if (current == nullptr) return nullptr;
  }
  return current;
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

}  // namespace verdict
