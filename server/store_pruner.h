// The pruning job (design section 8): deletes, on a thread of its own, the rows no decision
// reads again (store/pruning.h), one bounded batch at a time, so the database stays as large as
// the policy and its live state whatever the traffic. A batch that came back full is followed by
// another after a short pause; otherwise the job sleeps for its interval. A failed run (the
// database unavailable, busy) is counted and tried again at the next interval. What has ended is
// decided by the database's clock (Store::PruneDeadRowsByDatabaseClock), never by this process's
// alone: verdictd nodes sharing one PostgreSQL database may disagree about the time. Admin
// sessions past their expiry go too (store/admin_session_store.h), by this process's clock: the
// clock that ended them (server/admin_sessions.h).
//
// It also keeps the admin audit log (store/admin_audit_log.h) within its retention, by this
// host's clock: its bound is counted in days, far beyond the clocks' disagreement.
//
//   StorePruner pruner(*store, PruneLimits{}, absl::Seconds(10),
//                      {.log = &admin_audit, .retention = AdminAuditRetention{}});
//   metrics.AddExternalCounter("verdict_pruned_approvals_total", "...",
//                              [&pruner] { return pruner.counters().approvals; });
//   // Stops, waiting for the batch in progress, when destroyed.
#ifndef VERDICT_SERVER_STORE_PRUNER_H_
#define VERDICT_SERVER_STORE_PRUNER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "store/admin_audit_log.h"
#include "store/admin_session_store.h"
#include "store/pruning.h"
#include "store/store.h"

namespace verdict {

// The admin audit log to prune (none when null), how long its rows are kept and how many, and
// the time its retention counts from.
struct AdminAuditPruning {
  AdminAuditLog* log = nullptr;
  AdminAuditRetention retention;
  std::function<absl::Time()> clock = [] { return absl::Now(); };
};

class StorePruner {
 public:
  struct Counters {
    uint64_t runs = 0;  // batches tried
    uint64_t failed = 0;
    uint64_t approvals = 0;  // rows deleted since start
    uint64_t rate_counters = 0;
    uint64_t admin_audit_rows = 0;
    uint64_t admin_sessions = 0;
  };

  // Starts the thread; `store` (and `sessions`, when given) must outlive the pruner. `limits`
  // must pass CheckPruneLimits and `interval` be positive (server/storage_bounds.h checks both).
  // `admin_audit.retention` must pass CheckAdminAuditRetention when there is a log.
  StorePruner(Store& store, PruneLimits limits, absl::Duration interval,
              AdminAuditPruning admin_audit = {}, AdminSessionStore* sessions = nullptr);
  ~StorePruner();

  StorePruner(const StorePruner&) = delete;
  StorePruner& operator=(const StorePruner&) = delete;

  Counters counters() const;
  // Blocks until at least `runs` batches have been tried (tests synchronise on it).
  void AwaitRuns(uint64_t runs) const;

 private:
  void Loop();
  // One batch; true when a kind came back full.
  bool RunOnce();

  Store& store_;
  AdminSessionStore* const sessions_;
  const PruneLimits limits_;
  const absl::Duration interval_;
  const AdminAuditPruning admin_audit_;

  mutable absl::Mutex mutex_;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  Counters counters_ ABSL_GUARDED_BY(mutex_);
  std::thread thread_;  // last: starts once everything above exists
};

}  // namespace verdict

#endif  // VERDICT_SERVER_STORE_PRUNER_H_
