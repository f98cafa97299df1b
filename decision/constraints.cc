#include "decision/constraints.h"

#include <climits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "decision/constraint_schema.h"

namespace verdict {
namespace {

using constraint_schema::Invalid;
using constraint_schema::kMaxExactInteger;
using constraint_schema::ParseInteger;
using constraint_schema::RequireKnownKeys;
using constraint_schema::RequireType;

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

int64_t RateWindowStart(const RateLimit& limit, absl::Time now) {
  const int64_t seconds = absl::ToUnixSeconds(now);
  // A hand-built RateLimit may skip ParseConstraints' check; never divide by zero.
  if (limit.window_seconds <= 0) return seconds;
  int64_t windows = seconds / limit.window_seconds;
  if (seconds % limit.window_seconds != 0 && seconds < 0) --windows;  // floor, not truncation
  return windows * limit.window_seconds;
}

}  // namespace verdict
