#include "server/availability_monitor.h"

#include <atomic>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::ElementsAre;

// Answers the scripted outcomes in order, then the last one forever.
class ScriptedCheck {
 public:
  explicit ScriptedCheck(std::vector<bool> outcomes) : outcomes_(std::move(outcomes)) {}
  absl::Status operator()() {
    const size_t call = calls_.fetch_add(1);
    const bool available = outcomes_[call < outcomes_.size() ? call : outcomes_.size() - 1];
    return available ? absl::OkStatus() : absl::UnavailableError("database file missing");
  }
  size_t calls() const { return calls_.load(); }

 private:
  const std::vector<bool> outcomes_;
  std::atomic<size_t> calls_{0};
};

class RecordedChanges {
 public:
  void Add(const absl::Status& status) {
    absl::MutexLock lock(&mutex_);
    changes_.push_back(status.ok());
  }
  // Waits (up to 10 s) until `count` changes were seen; returns them.
  std::vector<bool> AwaitAtLeast(size_t count) {
    absl::MutexLock lock(&mutex_);
    auto enough = [this, count] {
      mutex_.AssertHeld();
      return changes_.size() >= count;
    };
    mutex_.AwaitWithTimeout(absl::Condition(&enough), absl::Seconds(10));
    return changes_;
  }

 private:
  absl::Mutex mutex_;
  std::vector<bool> changes_ ABSL_GUARDED_BY(mutex_);
};

TEST(AvailabilityMonitorTest, ReportsTheFirstOutcomeAndEveryChangeOnly) {
  ScriptedCheck check({false, false, true, true, true, false, true});
  RecordedChanges changes;
  {
    AvailabilityMonitor monitor([&] { return check(); },
                                [&](const absl::Status& s) { changes.Add(s); },
                                absl::Milliseconds(1));
    EXPECT_THAT(changes.AwaitAtLeast(4), ElementsAre(false, true, false, true));
    // The last outcome holds from here on: no further change is reported.
    const size_t calls = check.calls();
    while (check.calls() < calls + 20) absl::SleepFor(absl::Milliseconds(1));
  }
  EXPECT_THAT(changes.AwaitAtLeast(4), ElementsAre(false, true, false, true));
}

// Issue 16.3: a database frozen mid-call (PostgreSQL stopped, its connections open) holds the
// check for as long as the store waits for an answer; health must not say SERVING meanwhile.
TEST(AvailabilityMonitorTest, ACheckThatDoesNotAnswerWithinItsLimitIsReportedUnavailable) {
  absl::Notification frozen;
  absl::Notification thawed;
  std::atomic<int> calls{0};
  RecordedChanges changes;
  const absl::Time start = absl::Now();
  absl::Time reported_late;
  {
    AvailabilityMonitor monitor(
        [&]() -> absl::Status {
          if (calls.fetch_add(1) == 1) {  // the second check meets the frozen store
            frozen.Notify();
            thawed.WaitForNotification();
          }
          return absl::OkStatus();
        },
        [&](const absl::Status& s) {
          if (!s.ok()) {
            EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded);
            reported_late = absl::Now();
          }
          changes.Add(s);
        },
        absl::Milliseconds(1), /*answer_limit=*/absl::Milliseconds(200));
    frozen.WaitForNotification();
    EXPECT_THAT(changes.AwaitAtLeast(2), ElementsAre(true, false));
    thawed.Notify();
    EXPECT_THAT(changes.AwaitAtLeast(3), ElementsAre(true, false, true));
  }
  EXPECT_GE(reported_late - start, absl::Milliseconds(200));
}

TEST(AvailabilityMonitorTest, ChecksAtOnceWithoutWaitingAnInterval) {
  ScriptedCheck check({true});
  RecordedChanges changes;
  AvailabilityMonitor monitor([&] { return check(); },
                              [&](const absl::Status& s) { changes.Add(s); }, absl::Hours(1));
  EXPECT_THAT(changes.AwaitAtLeast(1), ElementsAre(true));
}

TEST(AvailabilityMonitorTest, StopsCheckingWhenDestroyed) {
  ScriptedCheck check({true});
  {
    AvailabilityMonitor monitor([&] { return check(); }, [](const absl::Status&) {},
                                absl::Milliseconds(1));
    while (check.calls() < 3) absl::SleepFor(absl::Milliseconds(1));
  }
  const size_t calls = check.calls();
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_EQ(check.calls(), calls);
}

}  // namespace
}  // namespace verdict
