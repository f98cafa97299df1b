#include "decision/decision_trace.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "decision/decision_messages.h"
#include "decision/resource_match.h"

namespace verdict {
namespace engine_internal {

void AddStage(Trace& trace, const char* name, bool passed, std::string detail) {
  trace.stages.push_back({name, passed, std::move(detail)});
}

void AddTrial(Trace& trace, Grant grant, std::vector<DelegationHop> path, ReasonCode outcome,
              std::string detail) {
  trace.grants.push_back(
      {std::move(grant), std::move(path), true, true, outcome, std::move(detail)});
}

void AddUnmatchedTrial(Trace& trace, const Request& request, Grant grant,
                       std::vector<DelegationHop> path) {
  GrantTrial trial;
  trial.action_matched = ActionMatches(grant.actions, request.action);
  trial.resource_matched = ResourceMatches(grant.resource, request.resource);
  trial.outcome = ReasonCode::kNoMatchingPermission;
  trial.detail =
      !trial.action_matched
          ? absl::StrCat("action ", request.action, " is not in ", ActionsText(grant.actions))
          : absl::StrCat("resource ", request.resource, " does not match ", grant.resource);
  trial.grant = std::move(grant);
  trial.path = std::move(path);
  trace.grants.push_back(std::move(trial));
}

void AddCandidateStages(Trace& trace, const Request& request, absl::string_view subject_id,
                        const CandidateCounts& counts, const Permission* deny,
                        const Decision& decision, const std::string* furthest_failure) {
  AddStage(trace, "candidates", counts.own + counts.lent > 0,
           counts.delegations_consulted
               ? absl::StrCat(counts.own, " own permissions, ", counts.lent,
                              " lent through delegations into ", subject_id)
               : absl::StrCat(counts.own, " own permissions (delegations not consulted)"));
  const bool matched = deny != nullptr || counts.matching_chains > 0;
  AddStage(trace, "match", matched,
           deny ? absl::StrCat(deny->id, " matches ", request.action, " on ", request.resource)
                : absl::StrCat(counts.matching_chains, " grant chains match ", request.action,
                               " on ", request.resource));
  if (deny) {
    AddStage(trace, "effects", false, absl::StrCat("deny ", deny->id, " overrides any allow"));
    return;
  }
  AddStage(trace, "effects", matched,
           matched ? absl::StrCat("no deny; ", counts.matching_chains, " matching allow chains")
                   : "no matching allow");
  if (!matched) return;
  const bool allowed = decision.verdict == Verdict::kAllow;
  AddStage(trace, "constraints", allowed,
           allowed ? absl::StrCat(decision.matched_grant->permission_id, " passed every constraint")
                   : *furthest_failure);
}

}  // namespace engine_internal
}  // namespace verdict
