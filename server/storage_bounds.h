// verdictd's bounds on stored state (design section 8), read from its command line: the cap on
// each agent's pending approval requests (decision/pending_approvals.h) and the pruning job
// (server/store_pruner.h). Kept apart from server/flags.h, which holds the listeners and tokens.
//
//   absl::StatusOr<StorageBounds> bounds = StorageBoundsFromFlags();
#ifndef VERDICT_SERVER_STORAGE_BOUNDS_H_
#define VERDICT_SERVER_STORAGE_BOUNDS_H_

#include <cstdint>

#include "absl/flags/declare.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "decision/pending_approvals.h"
#include "store/admin_audit_log.h"
#include "store/pruning.h"

ABSL_DECLARE_FLAG(int64_t, max_pending_approvals);
ABSL_DECLARE_FLAG(absl::Duration, prune_interval);
ABSL_DECLARE_FLAG(int64_t, prune_batch);
ABSL_DECLARE_FLAG(absl::Duration, approval_retention);
ABSL_DECLARE_FLAG(absl::Duration, admin_audit_retention);
ABSL_DECLARE_FLAG(int64_t, admin_audit_max_rows);

namespace verdict {

inline constexpr int64_t kMaxPendingApprovalsLimit = 1'000'000;
// A day between runs is the longest that still bounds anything in practice.
inline constexpr absl::Duration kMaxPruneInterval = absl::Hours(24);

struct StorageBounds {
  int64_t max_pending_approvals = kDefaultMaxPendingApprovals;
  absl::Duration prune_interval = absl::Seconds(10);
  PruneLimits prune_limits;
  // The admin audit log's bound; its batch is --prune_batch.
  AdminAuditRetention admin_audit_retention;
};

absl::StatusOr<StorageBounds> StorageBoundsFromFlags();

// INVALID_ARGUMENT naming the flag that is out of range.
absl::Status ValidateStorageBounds(const StorageBounds& bounds);

}  // namespace verdict

#endif  // VERDICT_SERVER_STORAGE_BOUNDS_H_
