// One DecisionObserver that tells several: the Authorizer takes a single observer, verdictd has
// several (metrics, the decision log, JSON logs). Add an observer that may refuse a decision
// (a synchronous decision log) before those that count what is answered (metrics).
//
//   FanOutObserver observers;
//   observers.Add(&metrics);
//   observers.Add(&decision_log);
//   Authorizer authorizer(store, clock, observers.empty() ? nullptr : &observers);
#ifndef VERDICT_SERVER_FAN_OUT_OBSERVER_H_
#define VERDICT_SERVER_FAN_OUT_OBSERVER_H_

#include <cstddef>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "decision/authorizer.h"
#include "decision/types.h"

namespace verdict {

class FanOutObserver final : public DecisionObserver {
 public:
  // `observer` must outlive this one. Add every observer before the first decision: the list is
  // read without a lock.
  void Add(DecisionObserver* observer) { observers_.push_back(observer); }
  bool empty() const { return observers_.empty(); }

  // Tells every observer, in the order they were added, until one refuses the decision (it will
  // not be answered): the ones after it are not told of it, and the refusal is returned.
  absl::Status OnDecision(const Request& request, const Decision& decision,
                          absl::Duration latency) override {
    for (DecisionObserver* observer : observers_) {
      absl::Status recorded = observer->OnDecision(request, decision, latency);
      if (!recorded.ok()) return recorded;
    }
    return absl::OkStatus();
  }

  void OnWithheld(absl::string_view call, size_t decisions) override {
    for (DecisionObserver* observer : observers_) observer->OnWithheld(call, decisions);
  }

  void OnEvaluationLimit(absl::string_view call) override {
    for (DecisionObserver* observer : observers_) observer->OnEvaluationLimit(call);
  }

 private:
  std::vector<DecisionObserver*> observers_;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_FAN_OUT_OBSERVER_H_
