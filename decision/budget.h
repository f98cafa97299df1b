// A decision's allowance of work (design section 8): the store lookups and delegation steps one
// decision may take, and the caller's "stop now" (a cancelled call, a passed deadline).
//
// The engine spends from it and stops when it is spent or the caller gave up: a decision over
// budget is a DENY with EVALUATION_LIMIT, never an ALLOW. The engine reads no clock for it: the
// caller hands it `should_stop`.
//
//   DecisionBudget budget(kDefaultMaxDecisionSteps, [context] { return context->IsCancelled(); });
//   absl::StatusOr<Decision> d = Decide(request, view, now, nullptr, nullptr, &budget);
#ifndef VERDICT_DECISION_BUDGET_H_
#define VERDICT_DECISION_BUDGET_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>

namespace verdict {

// Far above what any sensible policy needs: a three-hop chain takes about 15 steps, and the
// memoised delegation search costs agents x links x depth, never the number of paths.
inline constexpr int64_t kDefaultMaxDecisionSteps = 20'000;

// The longest delegation path the engine follows, whatever the links' max_depth say.
inline constexpr int kMaxDelegationDepth = 8;

class DecisionBudget {
 public:
  using ShouldStop = std::function<bool()>;

  // `max_steps` at least 1. `should_stop` (may be empty) is asked every few dozen steps.
  explicit DecisionBudget(int64_t max_steps = kDefaultMaxDecisionSteps,
                          ShouldStop should_stop = nullptr)
      : max_steps_(max_steps < 1 ? 1 : max_steps), should_stop_(std::move(should_stop)) {}

  // Counts `steps`; false once the budget is spent or the caller gave up, and from then on.
  bool Spend(int64_t steps = 1) {
    if (over_ || stopped_) return false;
    spent_ += steps;
    if (spent_ > max_steps_) {
      over_ = true;
      return false;
    }
    if (should_stop_ && (spent_ - steps) / kStopCheckEvery != spent_ / kStopCheckEvery &&
        should_stop_()) {
      stopped_ = true;
      return false;
    }
    return true;
  }

  // The steps were all spent (the decision is EVALUATION_LIMIT).
  bool exhausted() const { return over_; }
  // The caller gave up (the call is cancelled or past its deadline).
  bool stopped() const { return stopped_; }
  int64_t spent() const { return spent_; }
  int64_t max_steps() const { return max_steps_; }

  // Starts again with the whole allowance: each check of a batch has its own budget.
  void Reset() {
    spent_ = 0;
    over_ = false;
  }

 private:
  static constexpr int64_t kStopCheckEvery = 64;
  const int64_t max_steps_;
  const ShouldStop should_stop_;
  int64_t spent_ = 0;
  bool over_ = false;
  bool stopped_ = false;
};

}  // namespace verdict

#endif  // VERDICT_DECISION_BUDGET_H_
