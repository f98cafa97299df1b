// Watches whether something can serve (for verdictd: whether the policy store can be used) and
// reports each change, so the health service says NOT_SERVING while the database cannot be
// opened and SERVING again as soon as it can, without any call having to come first.
//
//   AvailabilityMonitor monitor([&] { return store.CheckAvailable(); },
//                               [&](const absl::Status& s) { server.SetServing(s.ok()); },
//                               absl::Seconds(1));
#ifndef VERDICT_SERVER_AVAILABILITY_MONITOR_H_
#define VERDICT_SERVER_AVAILABILITY_MONITOR_H_

#include <functional>
#include <thread>

#include "absl/status/status.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace verdict {

class AvailabilityMonitor {
 public:
  using Check = std::function<absl::Status()>;
  using OnChange = std::function<void(const absl::Status&)>;

  // Runs `check` at once and then every `interval` on a thread of its own; calls `on_change`
  // with the first outcome and with every outcome whose ok-ness differs from the last one.
  AvailabilityMonitor(Check check, OnChange on_change, absl::Duration interval);
  // Stops checking; no callback runs after it returns.
  ~AvailabilityMonitor();

  AvailabilityMonitor(const AvailabilityMonitor&) = delete;
  AvailabilityMonitor& operator=(const AvailabilityMonitor&) = delete;

 private:
  void Run();

  const Check check_;
  const OnChange on_change_;
  const absl::Duration interval_;
  absl::Notification stop_;
  std::thread thread_;  // last: starts once everything it uses is initialised
};

}  // namespace verdict

#endif  // VERDICT_SERVER_AVAILABILITY_MONITOR_H_
