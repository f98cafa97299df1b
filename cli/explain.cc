#include "cli/explain.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proto/enum_names.h"

namespace verdict {
namespace cli {

std::string GrantText(const v1::Grant& grant) {
  std::string text = absl::StrCat(grant.effect() == v1::EFFECT_DENY ? "deny " : "allow ",
                                  absl::StrJoin(grant.actions(), ","), " on ", grant.resource());
  if (!grant.constraints_json().empty() && grant.constraints_json() != "{}") {
    absl::StrAppend(&text, " with ", grant.constraints_json());
  }
  return text;
}

std::string DelegationPathText(const google::protobuf::RepeatedPtrField<v1::DelegationHop>& path) {
  if (path.empty()) return "own";
  std::vector<std::string> agents = {path[0].from_agent_id()};
  std::vector<std::string> links;
  for (const v1::DelegationHop& hop : path) {
    agents.push_back(hop.to_agent_id());
    links.push_back(hop.delegation_id());
  }
  return absl::StrCat(absl::StrJoin(agents, " -> "), " via ", absl::StrJoin(links, ", "));
}

std::string DecisionLine(const v1::AuthorizeResponse& decision) {
  std::string line = absl::StrCat(ShortEnumName(decision.verdict()), " ",
                                  ShortEnumName(decision.reason()), ": ", decision.message());
  if (!decision.approval_request_id().empty()) {
    absl::StrAppend(&line, " (approval request ", decision.approval_request_id(), ")");
  }
  return line;
}

std::string ExplainDecision(const v1::SimulateResponse& simulation) {
  std::string text = absl::StrCat(DecisionLine(simulation.decision()), "\n");
  const v1::AuthorizeResponse& decision = simulation.decision();
  if (decision.has_matched_grant()) {
    absl::StrAppend(&text, "  matched: ", decision.matched_grant().permission_id(), " (",
                    DelegationPathText(decision.delegation_path()), ")\n");
  }
  const v1::Trace& trace = simulation.trace();
  if (!trace.stages().empty()) {
    size_t width = 0;
    for (const v1::TraceStage& stage : trace.stages()) {
      width = std::max(width, stage.name().size());
    }
    absl::StrAppend(&text, "  stages:\n");
    for (const v1::TraceStage& stage : trace.stages()) {
      absl::StrAppend(&text, "    ", stage.passed() ? "pass  " : "FAIL  ", stage.name(),
                      std::string(width - stage.name().size() + 2, ' '), stage.detail(), "\n");
    }
  }
  if (!trace.grants().empty()) {
    absl::StrAppend(&text, "  grants tried:\n");
    for (const v1::GrantTrial& trial : trace.grants()) {
      absl::StrAppend(&text, "    ", ShortEnumName(trial.outcome()), "  ",
                      trial.grant().permission_id(), " (", DelegationPathText(trial.path()), ")  ",
                      GrantText(trial.grant()));
      if (!trial.detail().empty()) absl::StrAppend(&text, ": ", trial.detail());
      absl::StrAppend(&text, "\n");
    }
  }
  return text;
}

}  // namespace cli
}  // namespace verdict
