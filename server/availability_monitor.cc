#include "server/availability_monitor.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace verdict {

AvailabilityMonitor::AvailabilityMonitor(Check check, OnChange on_change, absl::Duration interval,
                                         absl::Duration answer_limit)
    : check_(std::move(check)),
      on_change_(std::move(on_change)),
      interval_(interval),
      answer_limit_(answer_limit),
      thread_([this] { Run(); }),
      watchdog_([this] { WatchForLateAnswers(); }) {}

AvailabilityMonitor::~AvailabilityMonitor() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  stop_.Notify();
  watchdog_.join();
  thread_.join();
}

void AvailabilityMonitor::ReportLocked(const absl::Status& status) {
  if (stopping_ || was_available_ == status.ok()) return;
  was_available_ = status.ok();
  on_change_(status);
}

void AvailabilityMonitor::Run() {
  do {
    {
      absl::MutexLock lock(&mu_);
      check_started_ = absl::Now();
      reported_late_ = false;
    }
    const absl::Status status = check_();
    absl::MutexLock lock(&mu_);
    check_started_ = absl::InfiniteFuture();
    ReportLocked(status);
  } while (!stop_.WaitForNotificationWithTimeout(interval_));
}

void AvailabilityMonitor::WatchForLateAnswers() {
  absl::MutexLock lock(&mu_);
  while (!stopping_) {
    const absl::Time started = check_started_;
    const bool due = started != absl::InfiniteFuture() && !reported_late_;
    auto changed = [this, started]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return stopping_ || check_started_ != started;
    };
    if (mu_.AwaitWithDeadline(absl::Condition(&changed),
                              due ? started + answer_limit_ : absl::InfiniteFuture())) {
      continue;
    }
    reported_late_ = true;
    ReportLocked(absl::DeadlineExceededError(
        absl::StrCat("no answer within ", absl::FormatDuration(answer_limit_))));
  }
}

}  // namespace verdict
