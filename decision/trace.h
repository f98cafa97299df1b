// What Simulate explains: every stage the engine went through and every grant it tried.
#ifndef VERDICT_DECISION_TRACE_H_
#define VERDICT_DECISION_TRACE_H_

#include <string>
#include <vector>

#include "decision/types.h"

namespace verdict {

struct TraceStage {
  // "subject", "candidates", "match", "effects", "constraints"; "budget" when the decision
  // ran out of steps (EVALUATION_LIMIT).
  std::string name;
  bool passed = false;
  std::string detail;
};

struct GrantTrial {
  Grant grant;
  std::vector<DelegationHop> path;  // empty for the agent's own permission
  bool resource_matched = false;
  bool action_matched = false;
  ReasonCode outcome = ReasonCode::kNoMatchingPermission;  // kAllowed when it passed
  std::string detail;
};

struct Trace {
  std::vector<TraceStage> stages;
  std::vector<GrantTrial> grants;
};

}  // namespace verdict

#endif  // VERDICT_DECISION_TRACE_H_
