// The load generator's workload: which calls to make, in what proportions, and what verdict
// must answer to each, as verdict.v1 messages.
//
//   absl::StatusOr<Mix> mix = ParseMix("direct:50,delegated:25,denied:25");
//   PlannedCall call;
//   PlanCall(*mix, /*agents=*/50000, rng(), &call);
//   ... send call.authorize ...
//   std::string wrong = CheckAuthorize(call.expected, response);  // "" when right
#ifndef VERDICT_BENCH_WORKLOAD_H_
#define VERDICT_BENCH_WORKLOAD_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "bench/dataset.h"
#include "verdict/v1/decision.pb.h"

namespace verdict::bench {

enum class CallKind {
  kDirect,     // Authorize on the agent's own permissions (colon or path pattern)
  kDelegated,  // Authorize through a whole three-link chain
  kDenied,     // Authorize that must deny: deny policy, broken chain, or no permission at all
  kToken,      // ValidateToken of an agent's token
};

struct Mix {
  std::vector<std::pair<CallKind, int>> weights;  // positive weights only
  int total = 0;
};

// "direct:50,delegated:25,denied:25" (kinds direct, delegated, denied, token; weights are
// non-negative integers, at least one positive). INVALID_ARGUMENT naming the bad entry.
absl::StatusOr<Mix> ParseMix(absl::string_view text);

struct PlannedCall {
  CallKind kind = CallKind::kDirect;
  v1::AuthorizeRequest authorize;  // for every kind but kToken
  Outcome expected;
  v1::ValidateTokenRequest validate;              // for kToken
  std::string expected_agent_id;                  // for kToken
  std::vector<std::string> expected_permissions;  // for kToken: EffectivePermissionLines
};

// Fills `call` (reusing its buffers) with the call that `random` picks under `mix`.
void PlanCall(const Mix& mix, int64_t agents, uint64_t random, PlannedCall* call);

// "" when the answer is the one the data implies; otherwise what differs.
std::string CheckAuthorize(const Outcome& expected, const v1::AuthorizeResponse& answer);
std::string CheckValidateToken(absl::string_view expected_agent_id,
                               const std::vector<std::string>& expected_permissions,
                               const v1::ValidateTokenResponse& answer);

}  // namespace verdict::bench

#endif  // VERDICT_BENCH_WORKLOAD_H_
