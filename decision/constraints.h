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
//   absl::StatusOr<Constraints> constraints = ParseConstraints(permission.constraints_json);
//
// Every key is optional; "" and "{}" mean no constraint. Unknown keys and ill-typed values
// are INVALID_ARGUMENT (a typo must not silently drop a constraint). Each kind has its own
// header, which this one includes: decision/time_window.h, decision/ip_network.h,
// decision/argument_rules.h (with decision/glob.h), and decision/constraint_redaction.h for what
// a caller may see of them.
#ifndef VERDICT_DECISION_CONSTRAINTS_H_
#define VERDICT_DECISION_CONSTRAINTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "decision/argument_rules.h"
#include "decision/constraint_redaction.h"
#include "decision/ip_network.h"
#include "decision/time_window.h"

namespace verdict {

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

// The start (unix seconds) of the fixed window that holds `now`.
int64_t RateWindowStart(const RateLimit& limit, absl::Time now);

}  // namespace verdict

#endif  // VERDICT_DECISION_CONSTRAINTS_H_
