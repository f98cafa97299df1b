// The chain check (design section 2.5): a chain's constraints, cheapest first (time window, IP
// allowlist, arguments, one approval for the whole chain, the rate limit last so a call refused
// for another reason never spends quota), and the side effects passing needs. Internal to the
// engine; one ChainChecker serves one call, and every lookup it makes is made once and spends a
// step of the call's budget.
//
//   ChainChecker checker(request, view, now, budget);
//   checker.set_subject(subject_id);
//   absl::StatusOr<ChainOutcome> outcome = checker.Check(chain);
#ifndef VERDICT_DECISION_CHAIN_CHECK_H_
#define VERDICT_DECISION_CHAIN_CHECK_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/json.h"
#include "decision/budget.h"
#include "decision/chain.h"
#include "decision/constraints.h"
#include "decision/policy_view.h"
#include "decision/types.h"

namespace verdict {
namespace engine_internal {

class ChainChecker {
 public:
  // `request`, `view` and `budget` outlive the checker.
  ChainChecker(const Request& request, PolicyView& view, absl::Time now, DecisionBudget& budget)
      : request_(request), view_(view), now_(now), budget_(budget) {}

  // The live subject whose chains are checked (its rate counts and approvals are looked up), set
  // before the first check; `subject_id` outlives the checker.
  void set_subject(absl::string_view subject_id) { subject_id_ = subject_id; }

  // How far one element gets on its own. A chain gets as far as its weakest element: each
  // check is the element's own (an approval: the call's one request against the element's
  // quorum), so this is exact, and it is what lets the walker work each state out once.
  absl::StatusOr<int> StageOf(const ChainElement& element) {
    const std::string& json = element.constraints_json();
    if (json.empty() || json == "{}") return kPasses;
    return StageOfConstrained(element);
  }

  // Checks one chain (origin first): how it failed, or what passing needs written.
  absl::StatusOr<ChainOutcome> Check(const Chain& chain);

 private:
  absl::StatusOr<int> StageOfConstrained(const ChainElement& element);

  // Nullopt, with the approved request to use in side_effects; or why the chain waits: the
  // request is pending or denied, or there is none yet (then one is to be opened).
  absl::StatusOr<std::optional<ChainFailure>> CheckApproval(const ApprovalRule& rule,
                                                            SideEffects* side_effects);
  // Stored constraints that do not parse fail the decision (closed), never skip a check.
  absl::StatusOr<const Constraints*> ConstraintsOf(const ChainElement& element);
  absl::StatusOr<const JsonValue*> Arguments();
  absl::StatusOr<std::string> ArgumentsHash();
  // The subject's count of a grant's window, looked up once per call.
  absl::StatusOr<int64_t> RateCountOf(const std::string& grant_id, int64_t window_start);
  // The open approval request for this exact call, looked up once.
  absl::StatusOr<const std::optional<ApprovalRequest>*> OpenApproval();

  const Request& request_;
  PolicyView& view_;
  const absl::Time now_;
  DecisionBudget& budget_;
  absl::string_view subject_id_;
  // How far each element with constraints gets on its own, worked out once per call.
  absl::InlinedVector<std::pair<ChainElement, int>, 4> element_stages_;
  // The constraints this call has used, by their JSON text (held by the view's rows), each
  // held until the call ends whatever the thread's cache drops meanwhile.
  absl::InlinedVector<std::pair<absl::string_view, std::shared_ptr<const Constraints>>, 2>
      constraints_;
  struct RateCountRead {
    std::string grant_id;
    int64_t window_start;
    int64_t count;
  };
  std::vector<RateCountRead> rate_counts_;
  std::optional<JsonValue> arguments_;
  std::optional<std::optional<ApprovalRequest>> open_approval_;
};

}  // namespace engine_internal
}  // namespace verdict

#endif  // VERDICT_DECISION_CHAIN_CHECK_H_
