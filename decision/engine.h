// The decision engine (design section 2): pure, deterministic, no I/O of its own.
//
// It takes a request, one consistent PolicyView and the time, and returns a decision with its
// reason, the matched grant and the delegation path, plus the side effects the decision needs
// (a rate slot to spend, an approval to open or use). It never writes: decision/authorizer.h
// applies side effects for Authorize and drops them for Simulate.
//
//   absl::StatusOr<Decision> d = Decide(request, view, absl::Now(), /*trace=*/nullptr);
//   if (!d.ok()) ...  // the view failed: the caller denies (fail closed)
#ifndef VERDICT_DECISION_ENGINE_H_
#define VERDICT_DECISION_ENGINE_H_

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "decision/policy_view.h"
#include "decision/trace.h"
#include "decision/types.h"

namespace verdict {

// The longest delegation path the engine follows, whatever the links' max_depth say.
inline constexpr int kMaxDelegationDepth = 8;

// `request` must already have passed ValidateRequest (decision/request_validation.h).
// A failed lookup is returned as its status; a decision is never made on partial data.
// When `trace` is non-null, every stage and grant tried is appended to it.
absl::StatusOr<Decision> Decide(const Request& request, PolicyView& view, absl::Time now,
                                Trace* trace);

}  // namespace verdict

#endif  // VERDICT_DECISION_ENGINE_H_
