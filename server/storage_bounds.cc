#include "server/storage_bounds.h"

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"

ABSL_FLAG(int64_t, max_pending_approvals, verdict::kDefaultMaxPendingApprovals,
          "The most approval requests one agent may have pending at once (1 to 1000000). A call "
          "that would open another is denied with TOO_MANY_PENDING_APPROVALS, and nothing is "
          "stored.");
ABSL_FLAG(absl::Duration, prune_interval, absl::Seconds(10),
          "How often the pruning job deletes approval requests expired or used longer ago than "
          "--approval_retention and rate counts no decision reads again (more than 0, at most "
          "24h, with its unit: 10s). A batch that comes back full is followed by another at "
          "once.");
ABSL_FLAG(int64_t, prune_batch, 1000,
          "The most rows of each kind the pruning job deletes in one transaction (1 to 100000).");
ABSL_FLAG(absl::Duration, approval_retention, absl::Hours(1),
          "How long an expired or used approval request stays listed before it is pruned (0 or "
          "more, with its unit: 1h).");

ABSL_FLAG(absl::Duration, admin_audit_retention, verdict::AdminAuditRetention().max_age,
          "How long the admin audit log keeps who changed what before the pruning job deletes it, "
          "oldest first (more than 0, with its unit: 9600h, 400 days). The rest of its hash chain "
          "still verifies.");
ABSL_FLAG(int64_t, admin_audit_max_rows, verdict::AdminAuditRetention().max_rows,
          "The most rows the admin audit log keeps; the oldest beyond it are pruned (1 or more).");

namespace verdict {

absl::StatusOr<StorageBounds> StorageBoundsFromFlags() {
  StorageBounds bounds;
  bounds.max_pending_approvals = absl::GetFlag(FLAGS_max_pending_approvals);
  bounds.prune_interval = absl::GetFlag(FLAGS_prune_interval);
  bounds.prune_limits.max_rows = absl::GetFlag(FLAGS_prune_batch);
  bounds.prune_limits.approval_retention = absl::GetFlag(FLAGS_approval_retention);
  bounds.admin_audit_retention.max_age = absl::GetFlag(FLAGS_admin_audit_retention);
  bounds.admin_audit_retention.max_rows = absl::GetFlag(FLAGS_admin_audit_max_rows);
  bounds.admin_audit_retention.batch = bounds.prune_limits.max_rows;
  if (absl::Status valid = ValidateStorageBounds(bounds); !valid.ok()) return valid;
  return bounds;
}

absl::Status ValidateStorageBounds(const StorageBounds& bounds) {
  if (bounds.max_pending_approvals < 1 ||
      bounds.max_pending_approvals > kMaxPendingApprovalsLimit) {
    return absl::InvalidArgumentError(absl::StrCat("--max_pending_approvals: must be 1 to ",
                                                   kMaxPendingApprovalsLimit, ", got ",
                                                   bounds.max_pending_approvals));
  }
  if (bounds.prune_interval <= absl::ZeroDuration() || bounds.prune_interval > kMaxPruneInterval) {
    return absl::InvalidArgumentError(
        absl::StrCat("--prune_interval: must be more than 0 and at most 24h, got ",
                     absl::FormatDuration(bounds.prune_interval)));
  }
  if (bounds.prune_limits.max_rows < 1 || bounds.prune_limits.max_rows > kMaxPruneBatch) {
    return absl::InvalidArgumentError(absl::StrCat("--prune_batch: must be 1 to ", kMaxPruneBatch,
                                                   ", got ", bounds.prune_limits.max_rows));
  }
  if (bounds.prune_limits.approval_retention < absl::ZeroDuration() ||
      bounds.prune_limits.approval_retention == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--approval_retention: must be a finite duration, 0 or more, got ",
                     absl::FormatDuration(bounds.prune_limits.approval_retention)));
  }
  const AdminAuditRetention& audit = bounds.admin_audit_retention;
  if (audit.max_age <= absl::ZeroDuration() || audit.max_age == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--admin_audit_retention: must be a finite duration more than 0, got ",
                     absl::FormatDuration(audit.max_age)));
  }
  if (audit.max_rows < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--admin_audit_max_rows: must be 1 or more, got ", audit.max_rows));
  }
  return CheckAdminAuditRetention(audit);
}

}  // namespace verdict
