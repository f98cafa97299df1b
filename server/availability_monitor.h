// Watches whether something can serve (for verdictd: whether the policy store can be used) and
// reports each change, so the health service says NOT_SERVING while the database cannot be
// opened and SERVING again as soon as it can, without any call having to come first.
//
// A check that does not answer within its limit (a database frozen mid-call, whose connections
// stay open) counts as unavailable from that moment: health turns NOT_SERVING without waiting
// for the check to give up.
//
//   AvailabilityMonitor monitor([&] { return store.CheckAvailable(); },
//                               [&](const absl::Status& s) { server.SetServing(s.ok()); },
//                               absl::Seconds(1), /*answer_limit=*/absl::Seconds(1));
#ifndef VERDICT_SERVER_AVAILABILITY_MONITOR_H_
#define VERDICT_SERVER_AVAILABILITY_MONITOR_H_

#include <functional>
#include <optional>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace verdict {

class AvailabilityMonitor {
 public:
  using Check = std::function<absl::Status()>;
  using OnChange = std::function<void(const absl::Status&)>;

  // Runs `check` at once and then every `interval` after the last one returned, on a thread of
  // its own; calls `on_change` with the first outcome and with every outcome whose ok-ness
  // differs from the last one. A check still running `answer_limit` after it began is an
  // outcome too (DEADLINE_EXCEEDED), reported then; what it returns later is the next outcome.
  AvailabilityMonitor(Check check, OnChange on_change, absl::Duration interval,
                      absl::Duration answer_limit = absl::InfiniteDuration());
  // Stops checking; no callback runs after it returns. Waits for a check in progress to return.
  ~AvailabilityMonitor();

  AvailabilityMonitor(const AvailabilityMonitor&) = delete;
  AvailabilityMonitor& operator=(const AvailabilityMonitor&) = delete;

 private:
  void Run();
  // Reports a check that overruns answer_limit_.
  void WatchForLateAnswers();
  void ReportLocked(const absl::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Check check_;
  const OnChange on_change_;
  const absl::Duration interval_;
  const absl::Duration answer_limit_;
  absl::Notification stop_;
  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<bool> was_available_ ABSL_GUARDED_BY(mu_);
  // When the check in progress began; InfiniteFuture between checks.
  absl::Time check_started_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  bool reported_late_ ABSL_GUARDED_BY(mu_) = false;  // the check in progress was reported late
  // Last: they start once everything they use is initialised.
  std::thread thread_;
  std::thread watchdog_;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_AVAILABILITY_MONITOR_H_
