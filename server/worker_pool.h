// A fixed set of threads that run queued work in order of arrival.
//
// verdictd runs here the work that may wait on the database (a lock held by another process,
// every store connection busy) rather than on gRPC's callback threads, which must stay free
// meanwhile for health probes, new calls and shutdown: the decisions that write
// (server/decision_runner.h, which decides read-only calls inline) and the admin calls.
//
//   WorkerPool workers(4);
//   workers.Schedule([] { ... });
#ifndef VERDICT_SERVER_WORKER_POOL_H_
#define VERDICT_SERVER_WORKER_POOL_H_

#include <deque>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/any_invocable.h"
#include "absl/synchronization/mutex.h"

namespace verdict {

class WorkerPool {
 public:
  // Starts `threads` (at least 1) threads.
  explicit WorkerPool(int threads);
  // Runs everything already scheduled, then stops the threads.
  ~WorkerPool();

  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void Schedule(absl::AnyInvocable<void() &&> work);

 private:
  void Work();

  absl::Mutex mutex_;
  std::deque<absl::AnyInvocable<void() &&>> queue_ ABSL_GUARDED_BY(mutex_);
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_WORKER_POOL_H_
