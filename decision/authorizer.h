// The four decision calls over a PolicyStore: what the gRPC services call.
//
// Each call reads inside one snapshot. A call is planned in one read snapshot: its decisions,
// their side effects, and whether it must write (a rate slot, an approval). Only a call that must
// write then commits, in one write transaction, deciding there once more (the write must see the
// committed state), so a slot is never spent twice and a quorum is never overrun. Any store or
// internal error is returned as a status: the server turns it into UNAVAILABLE or INTERNAL,
// never into an ALLOW.
//
// A call whose decisions the observer refuses to record (decision log rows a synchronous log could
// not keep) fails too, with the observer's status: no decision goes out unrecorded.
//
//   Authorizer authorizer(store, [] { return absl::Now(); });
//   absl::StatusOr<Decision> d = authorizer.Authorize(request);  // plans, and commits if it must
//
// A caller that moves calls between threads (server/decision_runner.h) plans and finishes apart:
//   absl::StatusOr<Planned<Decision>> plan = authorizer.PlanAuthorize(request, Venue::kInline);
//   if (plan.ok() && !plan->done()) ... on a worker: authorizer.FinishAuthorize(request, *plan);
#ifndef VERDICT_DECISION_AUTHORIZER_H_
#define VERDICT_DECISION_AUTHORIZER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
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

// Told of every Authorize and BatchAuthorize decision (the decision log, metrics) before it is
// answered.
class DecisionObserver {
 public:
  virtual ~DecisionObserver() = default;
  // OK, or why the decision must not be answered: an observer that must keep a durable record
  // of every decision answered (the decision log with --decision_log_durability=sync) could not
  // keep this one. The call then fails with that status (UNAVAILABLE) and answers nothing.
  virtual absl::Status OnDecision(const Request& request, const Decision& decision,
                                  absl::Duration latency) = 0;
  // `decisions` decisions of `call` ("Authorize", "BatchAuthorize") were made but not answered:
  // OnDecision refused one of them.
  virtual void OnWithheld(absl::string_view call, size_t decisions) {
    (void)call;
    (void)decisions;
  }
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
  // What a plan made at Venue::kInline may take (at most max_decision_steps): a call that needs
  // more is not refused there but left for a worker, which has the whole budget.
  int64_t max_inline_steps = kDefaultMaxDecisionSteps;
};

// Where a call is planned.
enum class Venue {
  // The thread that received the call (gRPC's), which must stay free: the plan takes at most
  // DecisionLimits::max_inline_steps, checks no DPoP proof (checking one spends it) and never
  // writes. What needs more is left for a worker (LeftToDo).
  kInline,
  // A worker: the whole budget; the plan may be finished (committed) right there.
  kWorker,
};

// What a planned call leaves for a worker.
enum class LeftToDo {
  kNothing,  // the answer is final (and the observer was told of it)
  kCommit,   // its decisions write: Finish commits them in one write transaction
  kDecide,   // not decided inline (past the inline budget, or a DPoP proof to spend): Finish
             // decides it, with the whole budget, and commits it if it must
};

// A call planned in one read snapshot: its answer, or what is left for a worker to do.
template <typename T>
struct Planned {
  LeftToDo left = LeftToDo::kNothing;
  T answer{};          // set when nothing is left
  absl::Time started;  // when the call began: its decisions' latency counts from here
  bool done() const { return left == LeftToDo::kNothing; }
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

// What an agent holds now, listed for operators (AdminService's ListEffectivePermissions).
struct HeldPermissions {
  Agent agent;
  // kAllowed when the agent is live; else why it holds nothing now (AGENT_SUSPENDED,
  // AGENT_REVOKED, AGENT_EXPIRED), and `permissions` is empty.
  ReasonCode liveness = ReasonCode::kAllowed;
  std::vector<EffectivePermission> permissions;  // at most kMaxListedPermissions
  bool permissions_truncated = false;
};

struct Simulation {
  Decision decision;
  Trace trace;
};

class Authorizer {
 public:
  using ShouldStop = DecisionBudget::ShouldStop;

  // `store`, `observer` and `access_tokens` must outlive the Authorizer. Without an observer no
  // one is told of decisions; without `access_tokens` a subject that is a JWT access token is
  // refused (TOKEN_INVALID). Each call authenticates its access token once, however many
  // decisions it makes, so a DPoP proof is spent once per call.
  Authorizer(PolicyStore& store, Clock clock, DecisionObserver* observer = nullptr,
             AccessTokenAuthenticator* access_tokens = nullptr, DecisionLimits limits = {});

  // Each call takes `should_stop` (may be empty): true once the caller has given up (the call is
  // cancelled or past its deadline). The search then stops and the call returns CANCELLED, with
  // nothing decided or written.
  //
  // Authorize, BatchAuthorize and ValidateToken plan and finish on the calling thread. Their
  // Plan* halves plan at `venue` and tell the observer of a plan that is done; their Finish*
  // halves do, on a worker, what a plan of the same call left (nothing when it is done).

  // INVALID_ARGUMENT for a malformed request (decision/request_validation.h).
  absl::StatusOr<Decision> Authorize(const Request& request,
                                     const ShouldStop& should_stop = nullptr);
  absl::StatusOr<Planned<Decision>> PlanAuthorize(const Request& request, Venue venue,
                                                  const ShouldStop& should_stop = nullptr);
  absl::StatusOr<Decision> FinishAuthorize(const Request& request, Planned<Decision> plan,
                                           const ShouldStop& should_stop = nullptr);

  // One subject and context, 1 to kMaxBatchSize checks; decided in one snapshot, results in the
  // checks' order. The subject is looked up (and authenticated) once for all the checks. Each
  // check has a budget of its own.
  absl::StatusOr<std::vector<Decision>> BatchAuthorize(const BatchRequest& batch,
                                                       const ShouldStop& should_stop = nullptr);
  absl::StatusOr<Planned<std::vector<Decision>>> PlanBatchAuthorize(
      const BatchRequest& batch, Venue venue, const ShouldStop& should_stop = nullptr);
  absl::StatusOr<std::vector<Decision>> FinishBatchAuthorize(
      const BatchRequest& batch, Planned<std::vector<Decision>> plan,
      const ShouldStop& should_stop = nullptr);

  // An opaque agent token or a JWT access token; `dpop` is the proof a token bound to a key needs.
  // The effective permissions are listed unless `list_permissions` is false, at most
  // kMaxListedPermissions of them. A listing over budget makes the answer invalid, with
  // EVALUATION_LIMIT. It never writes: its plan is done, or left to decide on a worker.
  absl::StatusOr<TokenValidation> ValidateToken(absl::string_view token,
                                                const DpopEvidence& dpop = {},
                                                const ShouldStop& should_stop = nullptr,
                                                bool list_permissions = true);
  absl::StatusOr<Planned<TokenValidation>> PlanValidateToken(
      absl::string_view token, const DpopEvidence& dpop, bool list_permissions, Venue venue,
      const ShouldStop& should_stop = nullptr);
  absl::StatusOr<TokenValidation> FinishValidateToken(absl::string_view token,
                                                      const DpopEvidence& dpop,
                                                      bool list_permissions,
                                                      Planned<TokenValidation> plan,
                                                      const ShouldStop& should_stop = nullptr);

  // What the agent with this id holds now: the same list, cut at the same length, as a
  // ValidateToken answer for its token lists, from one snapshot. NOT_FOUND when there is no such
  // agent; RESOURCE_EXHAUSTED naming the limit when the listing is over budget. No side effects.
  absl::StatusOr<HeldPermissions> EffectivePermissionsOf(absl::string_view agent_id,
                                                         const ShouldStop& should_stop = nullptr);

  // No side effects. Without what-if inputs, the decision equals Authorize's on the same data.
  // What-if inputs are capped (decision/what_if.h): more is INVALID_ARGUMENT naming the cap.
  absl::StatusOr<Simulation> Simulate(const Request& request, const WhatIf& what_if,
                                      const ShouldStop& should_stop = nullptr);

  // The most approval requests one agent may have pending (decision/pending_approvals.h);
  // kDefaultMaxPendingApprovals unless set, which must happen before the first call. At least 1.
  void set_max_pending_approvals(int64_t max_pending) { max_pending_approvals_ = max_pending; }

 private:
  class Checks;  // the Requests one call decides: one, or a batch's checks over its subject

  // A batch's subject, resolved once for its checks; none for a single request.
  static absl::StatusOr<std::optional<SubjectResolution>> ResolveABatchsSubject(
      const Checks& checks, PolicyView& view, absl::Time now,
      AccessTokenAuthenticator* access_tokens);
  // Decides one check, for `subject` when the call resolved it.
  static absl::StatusOr<Decision> DecideCheck(const std::optional<SubjectResolution>& subject,
                                              const Request& request, PolicyView& view,
                                              absl::Time now,
                                              AccessTokenAuthenticator* access_tokens,
                                              DecisionBudget& budget);
  // Decides every check in one read snapshot, into decisions[i]; what is left to do.
  absl::StatusOr<LeftToDo> Plan(Checks& checks, Venue venue,
                                AccessTokenAuthenticator* access_tokens,
                                const ShouldStop& should_stop, absl::Span<Decision> decisions);
  // Decides every check again in one write transaction, each after the writes of those before
  // it, writes what each needs and commits.
  absl::Status Commit(Checks& checks, AccessTokenAuthenticator* access_tokens,
                      const ShouldStop& should_stop, absl::Span<Decision> decisions);
  // Plans valid `checks` at `venue` and tells the observer, as `call`, when the plan is done.
  absl::StatusOr<LeftToDo> PlanAndTell(absl::string_view call, Checks& checks, Venue venue,
                                       absl::Time started, const ShouldStop& should_stop,
                                       absl::Span<Decision> decisions);
  // Does on this thread what a plan left, and tells the observer of the decisions.
  absl::Status FinishAndTell(absl::string_view call, Checks& checks, LeftToDo left,
                             absl::Time started, const ShouldStop& should_stop,
                             absl::Span<Decision> decisions);
  // Tells the observer of the decisions; an error when it refused one (nothing may be answered).
  absl::Status Tell(absl::string_view call, Checks& checks, absl::Span<const Decision> decisions,
                    absl::Time started);
  // The budget of a plan at `venue`, and whether a plan over it is left for a worker.
  int64_t StepsAt(Venue venue) const;
  bool SpendsAProof(const Subject& subject) const;
  bool SpendsAProof(absl::string_view token, const DpopEvidence& dpop) const;

  PolicyStore& store_;
  Clock clock_;
  DecisionObserver* observer_;
  AccessTokenAuthenticator* access_tokens_;
  int64_t max_pending_approvals_ = kDefaultMaxPendingApprovals;
  DecisionLimits limits_;
};

}  // namespace verdict

#endif  // VERDICT_DECISION_AUTHORIZER_H_
