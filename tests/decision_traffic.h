// Decision calls for the freshness tests: one read of "docs:report:7" for an agent, and the same
// call made over and over on a thread of its own while a revocation is committed elsewhere,
// counting what a revocation must never produce.
//
//   DecisionTraffic traffic(*stub, "agt_reader");
//   traffic.AwaitCalls(20);  // traffic flows before the revoke
//   ... revoke ...
//   traffic.Stop();
//   EXPECT_EQ(traffic.allows_after_deny(), 0);
#ifndef VERDICT_TESTS_DECISION_TRAFFIC_H_
#define VERDICT_TESTS_DECISION_TRAFFIC_H_

#include <atomic>
#include <string>
#include <thread>

#include "absl/time/time.h"
#include "verdict/v1/decision.grpc.pb.h"

namespace verdict {

// One Authorize call of `agent_id` reading docs:report:7, with a 20 s deadline. A failed call
// is a test failure (EXPECT), sets *failed when given, and comes back as an unspecified verdict.
v1::AuthorizeResponse DecideReadDocs(v1::DecisionService::Stub& stub, const std::string& agent_id,
                                     bool* failed = nullptr);

// Calls DecideReadDocs for `agent_id` one call after another, `pause` apart, until Stop().
class DecisionTraffic {
 public:
  DecisionTraffic(v1::DecisionService::Stub& stub, std::string agent_id,
                  absl::Duration pause = absl::ZeroDuration());
  DecisionTraffic(const DecisionTraffic&) = delete;
  DecisionTraffic& operator=(const DecisionTraffic&) = delete;
  ~DecisionTraffic();

  // Waits until `count` calls have been answered.
  void AwaitCalls(int count) const;
  // Ends the traffic; the counts below are final once it returns.
  void Stop();

  int errors() const { return errors_; }
  // Calls are sequential: once one has seen the revocation, every later one must.
  int allows_after_deny() const { return allows_after_deny_; }

 private:
  void Run(v1::DecisionService::Stub& stub, const std::string& agent_id, absl::Duration pause);

  std::atomic<bool> stop_{false};
  std::atomic<int> calls_{0};
  // Written by the traffic's thread only, read after Stop() joined it.
  int errors_ = 0;
  bool seen_deny_ = false;
  int allows_after_deny_ = 0;
  std::thread thread_;  // last: starts once the counters exist
};

}  // namespace verdict

#endif  // VERDICT_TESTS_DECISION_TRAFFIC_H_
