// Constraints on an allow grant (design section 2.5), parsed from a permission's JSON:
//
//   {
//     "time_window": {"start": "09:00", "end": "17:00", "time_zone": "Europe/Paris",
//                     "days": ["mon", "tue", "wed", "thu", "fri"]},
//     "ip_allowlist": ["10.0.0.0/8", "2001:db8::/32", "192.0.2.7"],
//     "arguments": [{"path": "amount", "max": 100},
//                   {"path": "to", "email_domain": "example.com"},
//                   {"path": "file", "glob": "reports/*.pdf"},
//                   {"path": "env", "one_of": ["dev", "staging"]},
//                   {"path": "options.mode", "equals": "dry-run"}],
//     "approval": {"quorum": 2, "ttl_seconds": 3600},
//     "rate_limit": {"max_calls": 100, "window_seconds": 60}
//   }
//
// Every key is optional; "" and "{}" mean no constraint. Unknown keys and ill-typed values
// are INVALID_ARGUMENT (a typo must not silently drop a constraint).
// A time window with start > end wraps midnight ("22:00" to "06:00"); start == end is the
// whole day. "days" names the days on which the window opens (a wrapped window opened on
// Monday 22:00 still holds at Tuesday 01:00); no "days" means every day. Times are local to
// time_zone (an IANA name; default "UTC").
// Argument rules address the call's arguments object by a dotted path; a missing argument
// fails its rule. "equals" and "one_of" compare whole JSON values exactly. "glob" matches a
// string as a whole: '*' matches any run of characters (zero or more, and every character:
// ',', '@', ':', '/', spaces), '?' exactly one character, anything else itself. So a glob cannot
// pin an address to a domain: "*@example.com" matches "evil@evil.net,bob@example.com".
// "email_domain" can: the value must be one e-mail address, a local part of 1 to 64 of
// A-Z a-z 0-9 . _ + - (no leading, trailing or doubled '.'), one '@', and exactly that domain
// (compared case-insensitively; a subdomain is another domain). The request's arguments hold no
// control character (decision/request_validation.h). "min"/"max" are inclusive bounds on
// numbers. Every rule must pass.
#ifndef VERDICT_DECISION_CONSTRAINTS_H_
#define VERDICT_DECISION_CONSTRAINTS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/json.h"

namespace verdict {

struct TimeWindow {
  int start_minute = 0;  // minutes after local midnight, 0..1439
  int end_minute = 0;
  std::string time_zone_name = "UTC";
  absl::TimeZone time_zone;
  // Bit d set: the window opens on that weekday (0 = Monday ... 6 = Sunday).
  uint8_t days_mask = 0x7f;
};

// An IPv4 or IPv6 network. IPv4 is held as an IPv4-mapped IPv6 address (::ffff:a.b.c.d), so
// one comparison serves both families.
struct IpNetwork {
  std::array<uint8_t, 16> address{};
  int prefix_length = 128;
};

struct ArgumentRule {
  enum class Kind { kEquals, kOneOf, kGlob, kMin, kMax, kEmailDomain };
  std::string path;  // dotted: "options.mode"
  Kind kind = Kind::kEquals;
  JsonValue operand;  // the value, the list, the glob string, the bound, or the domain
};

struct ApprovalRule {
  int quorum = 1;
  absl::Duration ttl = absl::Hours(1);
};

struct RateLimit {
  int64_t max_calls = 0;
  int64_t window_seconds = 0;
};

struct Constraints {
  std::optional<TimeWindow> time_window;
  std::optional<std::vector<IpNetwork>> ip_allowlist;
  std::vector<ArgumentRule> arguments;
  std::optional<ApprovalRule> approval;
  std::optional<RateLimit> rate_limit;

  bool empty() const {
    return !time_window && !ip_allowlist && arguments.empty() && !approval && !rate_limit;
  }
};

absl::StatusOr<Constraints> ParseConstraints(absl::string_view json);

// The constraints as a caller may see them in a decision (a matched grant, a trace, effective
// permissions): the operand of an argument rule that guards a secret (its argument's name marks
// one, or the operand holds a credential) replaced by "[REDACTED]". The rule's path and kind stay.
std::string ConstraintsForCaller(absl::string_view constraints_json);

// True when `now` falls inside the window.
bool WithinTimeWindow(const TimeWindow& window, absl::Time now);

// Parses "192.0.2.7" or "2001:db8::1" (no zone ids, no brackets) into the mapped form.
absl::StatusOr<std::array<uint8_t, 16>> ParseIpAddress(absl::string_view text);
// Parses "10.0.0.0/8", "2001:db8::/32" or a bare address (a /32 or /128 network).
absl::StatusOr<IpNetwork> ParseIpNetwork(absl::string_view text);
// True when client_ip parses and falls in one of the networks; an empty or unparsable
// client_ip is never allowed.
bool IpAllowed(const std::vector<IpNetwork>& allowlist, absl::string_view client_ip);

// True when every rule passes on `arguments` (a JSON object). On failure, *why names the rule.
bool ArgumentsPass(const std::vector<ArgumentRule>& rules, const JsonValue& arguments,
                   std::string* why);

// The start (unix seconds) of the fixed window that holds `now`.
int64_t RateWindowStart(const RateLimit& limit, absl::Time now);

}  // namespace verdict

#endif  // VERDICT_DECISION_CONSTRAINTS_H_
