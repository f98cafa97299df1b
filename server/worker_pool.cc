#include "server/worker_pool.h"

#include <algorithm>
#include <utility>

namespace verdict {

WorkerPool::WorkerPool(int threads) {
  const int count = std::max(threads, 1);
  threads_.reserve(count);
  for (int i = 0; i < count; ++i) threads_.emplace_back([this] { Work(); });
}

WorkerPool::~WorkerPool() {
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
  }
  for (std::thread& thread : threads_) thread.join();
}

void WorkerPool::Schedule(absl::AnyInvocable<void() &&> work) {
  absl::MutexLock lock(&mutex_);
  queue_.push_back(std::move(work));
}

void WorkerPool::Work() {
  while (true) {
    absl::AnyInvocable<void() &&> work;
    {
      absl::MutexLock lock(&mutex_);
      auto has_work_or_stops = [this] {
        mutex_.AssertHeld();
        return !queue_.empty() || stopping_;
      };
      mutex_.Await(absl::Condition(&has_work_or_stops));
      // Stopping still drains the queue: every scheduled call gets its answer.
      if (queue_.empty()) return;
      work = std::move(queue_.front());
      queue_.pop_front();
    }
    std::move(work)();
  }
}

}  // namespace verdict
