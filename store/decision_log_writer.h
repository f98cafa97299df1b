// Writes the decision log off the decision path: Authorize hands each decision to a bounded
// queue and returns; one writer thread drains the queue in batches, one transaction per batch
// (group commit), redacting secrets on the way.
//
// Memory is bounded by row and byte limits: a decision that finds the queue full is dropped and
// counted, never waited for. A batch the database refuses is counted as failed and reported on
// stderr. Shutdown (and the destructor) writes everything already queued before returning.
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
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "decision/authorizer.h"
#include "decision/types.h"
#include "store/decision_log_store.h"

namespace verdict {

struct DecisionLogWriterOptions {
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

class DecisionLogWriter : public DecisionObserver {
 public:
  // Starts the writer thread.
  DecisionLogWriter(std::unique_ptr<DecisionLogStore> log, Clock clock,
                    DecisionLogWriterOptions options = {});
  // Shuts down (see Shutdown).
  ~DecisionLogWriter() override;

  DecisionLogWriter(const DecisionLogWriter&) = delete;
  DecisionLogWriter& operator=(const DecisionLogWriter&) = delete;

  // Queues the decision, or counts it dropped; never waits for I/O.
  void OnDecision(const Request& request, const Decision& decision,
                  absl::Duration latency) override;

  // Returns once every decision queued before the call is written or counted failed.
  void Flush();

  // Stops taking decisions, writes what is queued, and stops the writer thread. Idempotent.
  void Shutdown();

  DecisionLogCounters counters() const;

 private:
  struct Pending {
    Request request;
    Decision decision;
    absl::Duration latency;
    absl::Time decided_at;
    size_t bytes;
  };

  void WriteUntilShutdown();
  // Waits retry_delay, or less once Shutdown begins.
  void PauseUnlessStopping();
  bool Stopping() const;
  bool HasWorkOrStopping() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::unique_ptr<DecisionLogStore> log_;
  const Clock clock_;
  const DecisionLogWriterOptions options_;

  mutable absl::Mutex mu_;
  std::deque<Pending> queue_ ABSL_GUARDED_BY(mu_);
  size_t queued_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // Decisions ever queued, and those since written or failed: Flush waits for them to meet.
  uint64_t enqueued_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t finished_ ABSL_GUARDED_BY(mu_) = 0;
  DecisionLogCounters counters_ ABSL_GUARDED_BY(mu_);

  std::thread writer_;
};

}  // namespace verdict

#endif  // VERDICT_STORE_DECISION_LOG_WRITER_H_
