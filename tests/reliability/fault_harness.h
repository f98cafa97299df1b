// Faults while serving (issue 5.3): a real verdictd on the demo policy, a fault put under it
// while it serves, and the checks every fault must pass:
//   - within a few seconds every decision call (Authorize, BatchAuthorize, Simulate,
//     ValidateToken) answers UNAVAILABLE, never a decision, and health says NOT_SERVING;
//   - the process stays up;
//   - once the fault is removed, the same call is allowed again and health says SERVING.
//
//   absl::StatusOr<ServedDemoPolicy> served = ServedDemoPolicy::Start(db_path);
//   ExpectFailsClosedAndRecovers(*served, [&] { /* inject */ }, [&] { /* remove */ });
#ifndef VERDICT_TESTS_RELIABILITY_FAULT_HARNESS_H_
#define VERDICT_TESTS_RELIABILITY_FAULT_HARNESS_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "tests/verdictd_process.h"

namespace verdict {

struct ServedDemoPolicy {
  // verdictd on `db_path`, seeded with deploy/demo-policy.json, plus `extra_flags`.
  static absl::StatusOr<ServedDemoPolicy> Start(const std::string& db_path,
                                                std::vector<std::string> extra_flags = {});

  std::string db_path;
  std::unique_ptr<VerdictdProcess> server;
  std::shared_ptr<grpc::Channel> channel;
};

// The first half, for a fault that lasts until verdictd restarts: allowed before, then
// UNAVAILABLE everywhere, NOT_SERVING, still running.
void ExpectFailsClosed(ServedDemoPolicy& served, absl::FunctionRef<void()> inject);

// The whole scenario, with gtest expectations; `inject` and `remove` put the fault in place and
// take it away.
void ExpectFailsClosedAndRecovers(ServedDemoPolicy& served, absl::FunctionRef<void()> inject,
                                  absl::FunctionRef<void()> remove);

}  // namespace verdict

#endif  // VERDICT_TESTS_RELIABILITY_FAULT_HARNESS_H_
