#include "server/availability_monitor.h"

#include <optional>
#include <utility>

namespace verdict {

AvailabilityMonitor::AvailabilityMonitor(Check check, OnChange on_change, absl::Duration interval)
    : check_(std::move(check)),
      on_change_(std::move(on_change)),
      interval_(interval),
      thread_([this] { Run(); }) {}

AvailabilityMonitor::~AvailabilityMonitor() {
  stop_.Notify();
  thread_.join();
}

void AvailabilityMonitor::Run() {
  std::optional<bool> was_available;
  do {
    const absl::Status status = check_();
    if (was_available != status.ok()) {
      was_available = status.ok();
      on_change_(status);
    }
  } while (!stop_.WaitForNotificationWithTimeout(interval_));
}

}  // namespace verdict
