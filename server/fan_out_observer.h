// One DecisionObserver that tells several: the Authorizer takes a single observer, verdictd has
// several (metrics, the decision log, JSON logs).
//
//   FanOutObserver observers;
//   observers.Add(&metrics);
//   observers.Add(&decision_log);
//   Authorizer authorizer(store, clock, observers.empty() ? nullptr : &observers);
#ifndef VERDICT_SERVER_FAN_OUT_OBSERVER_H_
#define VERDICT_SERVER_FAN_OUT_OBSERVER_H_

#include <vector>

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

  // Tells every observer, in the order they were added.
  void OnDecision(const Request& request, const Decision& decision,
                  absl::Duration latency) override {
    for (DecisionObserver* observer : observers_) observer->OnDecision(request, decision, latency);
  }

  void OnEvaluationLimit(absl::string_view call) override {
    for (DecisionObserver* observer : observers_) observer->OnEvaluationLimit(call);
  }

 private:
  std::vector<DecisionObserver*> observers_;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_FAN_OUT_OBSERVER_H_
