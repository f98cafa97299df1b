#include "server/decision_runner.h"

#include <algorithm>
#include <utility>

namespace verdict {
namespace {

// Inline plans take the smaller budget; past it, the call is left for a worker.
DecisionLimits WithInlineBudget(DecisionLimits limits) {
  limits.max_inline_steps = std::min(limits.max_decision_steps, kInlineDecisionSteps);
  return limits;
}

}  // namespace

DecisionRunner::DecisionRunner(PolicyStore& store, Clock clock, DecisionObserver* observer,
                               AccessTokenAuthenticator* access_tokens, WorkerPool& workers,
                               int inline_slots, DecisionLimits limits)
    : workers_(workers),
      inline_slots_(inline_slots),
      authorizer_(store, std::move(clock), observer, access_tokens,
                  WithInlineBudget(std::move(limits))) {}

DecisionRunner::~DecisionRunner() = default;

bool DecisionRunner::AcquireInlineSlot() {
  if (!inline_allowed_.load(std::memory_order_relaxed)) return false;
  if (inline_in_use_.fetch_add(1, std::memory_order_acquire) < inline_slots_) return true;
  ReleaseInlineSlot();
  return false;
}

void DecisionRunner::ReleaseInlineSlot() { inline_in_use_.fetch_sub(1, std::memory_order_release); }

}  // namespace verdict
