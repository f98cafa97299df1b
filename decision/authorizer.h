// The four decision calls over a PolicyStore: what the gRPC services call.
//
// Each call reads inside one snapshot. Authorize decides in a read snapshot; only when the
// decision needs a write (a rate slot, an approval) does it decide again inside one write
// transaction and apply the writes there, so a slot is never spent twice and a quorum is never
// overrun. Any store or internal error is returned as a status: the server turns it into
// UNAVAILABLE or INTERNAL, never into an ALLOW.
//
//   Authorizer authorizer(store, [] { return absl::Now(); });
//   absl::StatusOr<Decision> d = authorizer.Authorize(request);
#ifndef VERDICT_DECISION_AUTHORIZER_H_
#define VERDICT_DECISION_AUTHORIZER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "decision/access_token_authenticator.h"
#include "decision/budget.h"
#include "decision/engine.h"  // EffectivePermission
#include "decision/pending_approvals.h"
#include "decision/policy_store.h"
#include "decision/trace.h"
#include "decision/types.h"
#include "decision/what_if.h"

namespace verdict {

using Clock = std::function<absl::Time()>;

// Told of every Authorize and BatchAuthorize decision (the decision log, metrics).
class DecisionObserver {
 public:
  virtual ~DecisionObserver() = default;
  virtual void OnDecision(const Request& request, const Decision& decision,
                          absl::Duration latency) = 0;
  // A decision of `call` ("Authorize", "BatchAuthorize", "ValidateToken", "Simulate") ran out of
  // budget and was refused with EVALUATION_LIMIT.
  virtual void OnEvaluationLimit(absl::string_view call) { (void)call; }
};

// The most effective permissions a ValidateToken answer lists; past it the list is cut and
// `permissions_truncated` set. An agent's own permissions come first.
inline constexpr size_t kMaxListedPermissions = 1000;

// What bounds each decision (design section 8).
struct DecisionLimits {
  // Store lookups and delegation steps one decision (each check of a batch, a ValidateToken's
  // listing, a Simulate) may take; past it the answer is EVALUATION_LIMIT.
  int64_t max_decision_steps = kDefaultMaxDecisionSteps;
  // When set, a decision over budget returns this status instead of EVALUATION_LIMIT: an
  // attempt with a small budget (server/decision_runner.h) is then made again with the full one.
  std::function<absl::Status()> over_budget;
};

struct TokenValidation {
  bool valid = false;
  ReasonCode reason = ReasonCode::kTokenInvalid;
  std::string message;
  std::optional<Agent> agent;
  std::vector<EffectivePermission> permissions;
  // The list stops at kMaxListedPermissions (or was left out on request).
  bool permissions_truncated = false;
};

struct Simulation {
  Decision decision;
  Trace trace;
};

class Authorizer {
 public:
  // `store`, `observer` and `access_tokens` must outlive the Authorizer. Without an observer no
  // one is told of decisions; without `access_tokens` a subject that is a JWT access token is
  // refused (TOKEN_INVALID). Each call authenticates its access token once, however many
  // decisions it makes, so a DPoP proof is spent once per call.
  Authorizer(PolicyStore& store, Clock clock, DecisionObserver* observer = nullptr,
             AccessTokenAuthenticator* access_tokens = nullptr, DecisionLimits limits = {});

  // Each call takes `should_stop` (may be empty): true once the caller has given up (the call is
  // cancelled or past its deadline). The search then stops and the call returns CANCELLED, with
  // nothing decided or written.

  // INVALID_ARGUMENT for a malformed request (decision/request_validation.h).
  absl::StatusOr<Decision> Authorize(const Request& request,
                                     const DecisionBudget::ShouldStop& should_stop = nullptr);

  // All requests share requests[0]'s subject; decided in one snapshot, results in order. Each
  // check has a budget of its own.
  absl::StatusOr<std::vector<Decision>> BatchAuthorize(
      const std::vector<Request>& requests,
      const DecisionBudget::ShouldStop& should_stop = nullptr);

  // An opaque agent token or a JWT access token; `dpop` is the proof a token bound to a key needs.
  // The effective permissions are listed unless `list_permissions` is false, at most
  // kMaxListedPermissions of them. A listing over budget makes the answer invalid, with
  // EVALUATION_LIMIT.
  absl::StatusOr<TokenValidation> ValidateToken(
      absl::string_view token, const DpopEvidence& dpop = {},
      const DecisionBudget::ShouldStop& should_stop = nullptr, bool list_permissions = true);

  // No side effects. Without what-if inputs, the decision equals Authorize's on the same data.
  // What-if inputs are capped (decision/what_if.h): more is INVALID_ARGUMENT naming the cap.
  absl::StatusOr<Simulation> Simulate(const Request& request, const WhatIf& what_if,
                                      const DecisionBudget::ShouldStop& should_stop = nullptr);

  // The most approval requests one agent may have pending (decision/pending_approvals.h);
  // kDefaultMaxPendingApprovals unless set, which must happen before the first call. At least 1.
  void set_max_pending_approvals(int64_t max_pending) { max_pending_approvals_ = max_pending; }

 private:
  // The decision as it stands, or the limits' over_budget status for one over budget.
  absl::Status OverBudget(absl::string_view call);

  PolicyStore& store_;
  Clock clock_;
  DecisionObserver* observer_;
  AccessTokenAuthenticator* access_tokens_;
  int64_t max_pending_approvals_ = kDefaultMaxPendingApprovals;
  DecisionLimits limits_;
};

}  // namespace verdict

#endif  // VERDICT_DECISION_AUTHORIZER_H_
