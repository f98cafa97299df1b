// What the pruning job deletes (design section 8): rows no decision reads again, which would
// otherwise grow the database without end. Approval requests that expired, or were used, longer
// ago than a retention (their votes go with them), and rate counts whose window and the next
// have both ended (decision/types.h, RateCountKeptUntil). Each run deletes at most `max_rows` of
// each kind in one short write transaction on a connection of its own, so decisions never wait
// behind a long one; server/store_pruner.h runs it on an interval.
//
//   absl::StatusOr<PrunedRows> pruned = store.PruneDeadRowsByDatabaseClock(PruneLimits{});
#ifndef VERDICT_STORE_PRUNING_H_
#define VERDICT_STORE_PRUNING_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace verdict {

struct PruneLimits {
  // Of each kind, per run: 1 to kMaxPruneBatch.
  int64_t max_rows = 1000;
  // How long an expired or used approval request stays for operators to look at; not negative.
  absl::Duration approval_retention = absl::Hours(1);
};

inline constexpr int64_t kMaxPruneBatch = 100'000;

struct PrunedRows {
  int64_t approvals = 0;
  int64_t rate_counters = 0;
};

// INVALID_ARGUMENT naming the limit that is out of range.
absl::Status CheckPruneLimits(const PruneLimits& limits);

}  // namespace verdict

#endif  // VERDICT_STORE_PRUNING_H_
