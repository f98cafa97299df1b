#include "server/store_pruner.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace verdict {
namespace {

// Between two batches of one run: the writers' lock is free meanwhile.
constexpr absl::Duration kPauseAfterFullBatch = absl::Milliseconds(50);

}  // namespace

StorePruner::StorePruner(Store& store, PruneLimits limits, absl::Duration interval,
                         AdminAuditPruning admin_audit, AdminSessionStore* sessions)
    : store_(store),
      sessions_(sessions),
      limits_(limits),
      interval_(interval),
      admin_audit_(std::move(admin_audit)),
      thread_([this] { Loop(); }) {}

StorePruner::~StorePruner() {
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
  }
  thread_.join();
}

StorePruner::Counters StorePruner::counters() const {
  absl::MutexLock lock(&mutex_);
  return counters_;
}

void StorePruner::AwaitRuns(uint64_t runs) const {
  absl::MutexLock lock(&mutex_);
  auto done = [this, runs]() ABSL_SHARED_LOCKS_REQUIRED(mutex_) { return counters_.runs >= runs; };
  mutex_.Await(absl::Condition(&done));
}

bool StorePruner::RunOnce() {
  absl::StatusOr<PrunedRows> pruned = store_.PruneDeadRowsByDatabaseClock(limits_);
  absl::StatusOr<int64_t> audit_rows = int64_t{0};
  if (admin_audit_.log != nullptr) {
    audit_rows = admin_audit_.log->Prune(admin_audit_.retention, admin_audit_.clock());
  }
  absl::StatusOr<int64_t> sessions = int64_t{0};
  if (sessions_ != nullptr) sessions = sessions_->PruneExpired(absl::Now(), limits_.max_rows);
  absl::MutexLock lock(&mutex_);
  ++counters_.runs;
  if (!pruned.ok() || !audit_rows.ok() || !sessions.ok()) ++counters_.failed;
  bool full = false;
  if (pruned.ok()) {
    counters_.approvals += pruned->approvals;
    counters_.rate_counters += pruned->rate_counters;
    full = std::max(pruned->approvals, pruned->rate_counters) >= limits_.max_rows;
  }
  if (audit_rows.ok()) {
    counters_.admin_audit_rows += *audit_rows;
    full |= *audit_rows >= admin_audit_.retention.batch;
  }
  if (sessions.ok()) {
    counters_.admin_sessions += *sessions;
    full |= *sessions >= limits_.max_rows;
  }
  return full;
}

void StorePruner::Loop() {
  while (true) {
    const bool full = RunOnce();
    absl::MutexLock lock(&mutex_);
    mutex_.AwaitWithTimeout(absl::Condition(&stopping_),
                            full ? std::min(kPauseAfterFullBatch, interval_) : interval_);
    if (stopping_) return;
  }
}

}  // namespace verdict
