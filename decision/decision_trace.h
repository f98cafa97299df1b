// How Decide (decision/engine.h) writes Simulate's trace (decision/trace.h): the stages it went
// through and every grant it tried, with why each matched or not. Internal to the engine; an
// untraced decision calls none of these, so it builds nothing.
//
//   AddUnmatchedTrial(*trace, request, GrantOf(permission), {});
//     // detail: "action write is not in [read]"
#ifndef VERDICT_DECISION_DECISION_TRACE_H_
#define VERDICT_DECISION_DECISION_TRACE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "decision/trace.h"
#include "decision/types.h"

namespace verdict {
namespace engine_internal {

void AddStage(Trace& trace, const char* name, bool passed, std::string detail);

// A grant whose action and resource match the request, with how its check ended.
void AddTrial(Trace& trace, Grant grant, std::vector<DelegationHop> path, ReasonCode outcome,
              std::string detail);

// A grant whose action or resource does not match the request, saying which.
void AddUnmatchedTrial(Trace& trace, const Request& request, Grant grant,
                       std::vector<DelegationHop> path);

// What the decision considered, for the stages after "subject".
struct CandidateCounts {
  size_t own = 0;   // the subject's own permissions
  size_t lent = 0;  // permissions lent through links into the subject
  int matching_chains = 0;
  bool delegations_consulted = false;
};

// The stages after "subject", once `decision` is made: `deny` is the subject's own permission
// that denied, if one did; `furthest_failure` the message of the chain that got furthest, read
// only when some chain matched and none allowed.
void AddCandidateStages(Trace& trace, const Request& request, absl::string_view subject_id,
                        const CandidateCounts& counts, const Permission* deny,
                        const Decision& decision, const std::string* furthest_failure);

}  // namespace engine_internal
}  // namespace verdict

#endif  // VERDICT_DECISION_DECISION_TRACE_H_
