// Writes the decision log off the decision path: Authorize hands each decision to a bounded
// queue and returns; one writer thread drains the queue in batches, one transaction per batch
// (group commit), redacting secrets on the way.
//
// Memory is bounded by row and byte limits: a decision that finds the queue full is dropped and
// counted, never waited for. A batch the database refuses is counted as failed and reported on
// stderr. Shutdown (and the destructor) writes everything already queued before returning.
//
// The writer's rows form one run (store/decision_log_row.h): a start marker written first, each
// decision numbered in the order it was made (a dropped or failed one spends its number, so the
// chain check shows it as a gap), and a stop marker on Shutdown. A run that ends without one
// (the process was killed) shows as a gap from its last written decision on.
//
// Durability: kAsync (the default) answers without waiting, so a crash loses what is queued;
// kSync makes each decision wait until the batch holding its row is committed (or refused), and
// says which: a decision whose row is not committed (refused, dropped, or after Shutdown) gets an
// error, and must not be answered. A batch wakes its waiters once, together.
//
//   DecisionLogWriter writer(std::make_unique<DecisionLog>(db_path), [] { return absl::Now(); });
//   Authorizer authorizer(store, clock, &writer);
//   ...
//   writer.Shutdown();
//   DecisionLogCounters c = writer.counters();  // written, dropped, failed
#ifndef VERDICT_STORE_DECISION_LOG_WRITER_H_
#define VERDICT_STORE_DECISION_LOG_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "decision/authorizer.h"
#include "decision/types.h"
#include "store/decision_log_row.h"
#include "store/decision_log_store.h"

namespace verdict {

enum class DecisionLogDurability { kAsync, kSync };

// "async" or "sync", as --decision_log_durability spells them.
absl::string_view DecisionLogDurabilityName(DecisionLogDurability durability);

struct DecisionLogWriterOptions {
  DecisionLogDurability durability = DecisionLogDurability::kAsync;
  // The queue holds at most this many decisions and about this many bytes of them.
  size_t max_queued_rows = 10000;
  size_t max_queued_bytes = 32 << 20;
  // Rows per transaction, at most.
  size_t max_batch_rows = 1000;
  // A batch the database refuses is tried this many times (once while shutting down), retry_delay
  // apart, before its rows are counted failed: a lock held past the busy timeout then
  // costs a delay, not rows; a broken database costs neither a busy loop nor a flood of errors.
  int max_batch_attempts = 5;
  absl::Duration retry_delay = absl::Seconds(1);
};

struct DecisionLogCounters {
  uint64_t written = 0;
  uint64_t dropped = 0;  // refused: the queue was full, or the writer had shut down
  uint64_t failed = 0;   // in a batch the database refused max_batch_attempts times
};

// Where a decision sits in the decision log: its run and its number there (0: not numbered,
// the writer had shut down).
struct DecisionLogPosition {
  std::string run_id;
  int64_t run_seq = 0;
  // kSync: OK once the row is committed, else UNAVAILABLE saying why it is not (the database
  // refused its batch, the queue was full, the writer had shut down). kAsync: always OK (the
  // row is written later, or counted dropped or failed).
  absl::Status kept;
};

class DecisionLogWriter : public DecisionObserver {
 public:
  // Starts the writer thread and queues the run's start marker.
  DecisionLogWriter(std::unique_ptr<DecisionLogStore> log, Clock clock,
                    DecisionLogWriterOptions options = {});
  // Shuts down (see Shutdown).
  ~DecisionLogWriter() override;

  DecisionLogWriter(const DecisionLogWriter&) = delete;
  DecisionLogWriter& operator=(const DecisionLogWriter&) = delete;

  // Numbers the decision and queues it, or counts it dropped; with kAsync never waits for I/O
  // and returns OK, with kSync returns once its row is committed (OK) or not (UNAVAILABLE: the
  // decision must not be answered).
  absl::Status OnDecision(const Request& request, const Decision& decision,
                          absl::Duration latency) override;
  // OnDecision, saying where the decision sits (for another log that names the same number).
  DecisionLogPosition Record(const Request& request, const Decision& decision,
                             absl::Duration latency);

  // Returns once every decision queued before the call is written or counted failed.
  void Flush();

  // Stops taking decisions, writes what is queued and the run's stop marker, and stops the
  // writer thread. Idempotent.
  void Shutdown();

  DecisionLogCounters counters() const;
  const std::string& run_id() const { return run_id_; }

 private:
  enum class Kind { kDecision, kStart, kStop };
  // What a kSync decision waits for: its batch's outcome.
  struct SyncWait {
    bool finished = false;
    absl::Status status;
  };
  struct Pending {
    Kind kind;
    int64_t run_seq;
    Request request;
    Decision decision;
    absl::Duration latency;
    absl::Time decided_at;
    size_t bytes;
    SyncWait* wait = nullptr;  // kSync's waiter, which outlives the Pending
  };

  DecisionLogRow RowFor(const Pending& pending) const;
  void WriteUntilShutdown();
  // Returns once the batch holding `wait`'s decision is written or counted failed.
  void AwaitFinished(SyncWait& wait);
  // Waits retry_delay, or less once Shutdown begins.
  void PauseUnlessStopping();
  bool Stopping() const;
  bool HasWorkOrStopping() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::unique_ptr<DecisionLogStore> log_;
  const Clock clock_;
  const DecisionLogWriterOptions options_;
  const std::string run_id_;
  RunOrigin origin_;

  mutable absl::Mutex mu_;
  std::deque<Pending> queue_ ABSL_GUARDED_BY(mu_);
  size_t queued_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // Decisions ever queued, and those since written or failed: Flush waits for them to meet.
  uint64_t enqueued_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t finished_ ABSL_GUARDED_BY(mu_) = 0;
  DecisionLogCounters counters_ ABSL_GUARDED_BY(mu_);
  // The last number given to a decision of this run.
  int64_t decided_ ABSL_GUARDED_BY(mu_) = 0;

  // Guards kSync's waits (SyncWait). Its own lock, so queueing never evaluates waiters; the
  // writer signals once per batch.
  absl::Mutex finished_mu_;
  absl::CondVar finished_cv_;

  std::thread writer_;
};

}  // namespace verdict

#endif  // VERDICT_STORE_DECISION_LOG_WRITER_H_
