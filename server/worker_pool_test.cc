#include "server/worker_pool.h"

#include <atomic>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

TEST(WorkerPoolTest, RunsEveryScheduledWork) {
  std::atomic<int> done{0};
  {
    WorkerPool workers(3);
    for (int i = 0; i < 1000; ++i) workers.Schedule([&done] { ++done; });
  }  // The destructor drains the queue.
  EXPECT_EQ(done.load(), 1000);
}

TEST(WorkerPoolTest, ABlockedWorkDoesNotHoldTheOthers) {
  WorkerPool workers(2);
  absl::Notification release;
  absl::Notification other_done;
  workers.Schedule([&release] { release.WaitForNotification(); });
  workers.Schedule([&other_done] { other_done.Notify(); });
  EXPECT_TRUE(other_done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  release.Notify();
}

TEST(WorkerPoolTest, RunsOnAsManyThreadsAsAsked) {
  constexpr int kThreads = 4;
  WorkerPool workers(kThreads);
  // Each work waits until all of them run at once: possible only on kThreads threads.
  absl::Mutex mutex;
  int running = 0;
  std::set<std::thread::id> thread_ids;
  absl::BlockingCounter finished(kThreads);
  for (int i = 0; i < kThreads; ++i) {
    workers.Schedule([&] {
      absl::MutexLock lock(&mutex);
      ++running;
      thread_ids.insert(std::this_thread::get_id());
      auto all_running = [&] { return running == kThreads; };
      EXPECT_TRUE(mutex.AwaitWithTimeout(absl::Condition(&all_running), absl::Seconds(10)));
      finished.DecrementCount();
    });
  }
  finished.Wait();
  absl::MutexLock lock(&mutex);
  EXPECT_EQ(thread_ids.size(), static_cast<size_t>(kThreads));
}

TEST(WorkerPoolTest, MoveOnlyWorkIsAccepted) {
  std::atomic<int> value{0};
  {
    WorkerPool workers(1);
    auto payload = std::make_unique<int>(42);
    workers.Schedule([&value, payload = std::move(payload)] { value = *payload; });
  }
  EXPECT_EQ(value.load(), 42);
}

}  // namespace
}  // namespace verdict
