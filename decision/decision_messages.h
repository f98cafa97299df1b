// The texts of a decision that every call may build: an ALLOW's "allowed by perm_1 through d1 >
// d2", a spent budget's EVALUATION_LIMIT message, and the short forms messages and traces quote.
//
//   AllowedMessage(origin, path)  // "allowed by perm_1 through d1 > d2"
#ifndef VERDICT_DECISION_DECISION_MESSAGES_H_
#define VERDICT_DECISION_DECISION_MESSAGES_H_

#include <string>
#include <vector>

#include "decision/budget.h"
#include "decision/time_window.h"
#include "decision/types.h"

namespace verdict {

// "evaluation stopped after N steps: the decision exceeds the limit of M ..." for a spent budget.
std::string EvaluationLimitMessage(const DecisionBudget& budget);

// "allowed by perm_1", then " through d1 > d2 > d3" for a delegation path (origin first).
std::string AllowedMessage(const Permission& origin, const std::vector<DelegationHop>& path);

// "[read,write]".
std::string ActionsText(const std::vector<std::string>& actions);

// "09:00-17:00 Europe/Paris".
std::string TimeWindowText(const TimeWindow& window);

}  // namespace verdict

#endif  // VERDICT_DECISION_DECISION_MESSAGES_H_
