#include "decision/decision_messages.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"

namespace verdict {

std::string EvaluationLimitMessage(const DecisionBudget& budget) {
  return absl::StrCat("evaluation stopped after ", budget.spent() - 1,
                      " steps: the decision exceeds the limit of ", budget.max_steps(),
                      " store lookups and delegation steps (--max_decision_steps)");
}

std::string ActionsText(const std::vector<std::string>& actions) {
  return absl::StrCat("[", absl::StrJoin(actions, ","), "]");
}

// "allowed by perm_1", then " through d1 > d2 > d3" for a delegation path. Every allowed call
// builds it, so it is sized once and appended to: one allocation, where the system abseil's
// StrCat and StrAppend zero-fill a resized string before they copy, and grow it per hop.
std::string AllowedMessage(const Permission& origin, const std::vector<DelegationHop>& path) {
  constexpr absl::string_view kAllowedBy = "allowed by ";
  constexpr absl::string_view kThrough = " through ";
  constexpr absl::string_view kNext = " > ";
  size_t size = kAllowedBy.size() + origin.id.size();
  for (const DelegationHop& hop : path) size += kThrough.size() + hop.delegation_id.size();
  std::string message;
  message.reserve(size);
  message.append(kAllowedBy.data(), kAllowedBy.size()).append(origin.id);
  for (size_t i = 0; i < path.size(); ++i) {
    const absl::string_view separator = i == 0 ? kThrough : kNext;
    message.append(separator.data(), separator.size()).append(path[i].delegation_id);
  }
  return message;
}

std::string TimeWindowText(const TimeWindow& window) {
  return absl::StrFormat("%02d:%02d-%02d:%02d %s", window.start_minute / 60,
                         window.start_minute % 60, window.end_minute / 60, window.end_minute % 60,
                         window.time_zone_name);
}

}  // namespace verdict
