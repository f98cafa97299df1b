// Where verdictd's decisions run: on the gRPC thread that received the call when the decision
// only reads, on a WorkerPool thread when it must write.
//
// Why not always one or the other: handing every call to a worker and back costs two context
// switches per call, about a quarter of the server's CPU per call on 2 cores (bench/PERFORMANCE.md,
// "End to end"). But a decision that writes (a rate-limit slot, an approval) takes SQLite's write
// lock and may wait out busy_timeout (seconds) behind another process, and gRPC runs its
// callbacks on a few threads (two on a 2-core machine) that health probes, new calls and shutdown
// need too. Reads never wait on a writer (WAL), so each call is first planned inline, in one read
// snapshot (decision/authorizer.h); the plan says whether the call is answered or what is left
// for a worker: a commit (the decision writes), or the whole decision (a subject carrying a DPoP
// proof, which may be spent only once, by the attempt that stands; or a decision past the inline
// budget, kInlineDecisionSteps: one that may be expensive runs on a worker, with the full budget,
// design section 8). Simulate always runs on a worker (RunOnWorker).
// At most `inline_slots` plans run inline at once, each of them holding one store connection at
// most: give the store `workers + inline_slots` connections, and an inline plan never waits for a
// connection a blocked writer holds.
//
//   WorkerPool workers(4);
//   DecisionRunner runner(store, clock, observer, access_tokens, workers, /*inline_slots=*/2);
//   auto request = std::make_shared<const Request>(...);
//   runner.Run<Decision>(
//       {[request](Authorizer& a, Venue venue) { return a.PlanAuthorize(*request, venue); },
//        [request](Authorizer& a, Planned<Decision> plan) {
//          return a.FinishAuthorize(*request, std::move(plan));
//        }},
//       [reactor](absl::StatusOr<Decision> decision) { ... answer the call ... },
//       [context] { return context->IsCancelled(); });
#ifndef VERDICT_SERVER_DECISION_RUNNER_H_
#define VERDICT_SERVER_DECISION_RUNNER_H_

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <utility>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "decision/access_token_authenticator.h"
#include "decision/authorizer.h"
#include "decision/budget.h"
#include "decision/policy_store.h"
#include "server/worker_pool.h"

namespace verdict {

// A gRPC call's "should stop" for the engine: true once `context` (a grpc::ServerContextBase) is
// cancelled or past its deadline.
template <typename Context>
DecisionBudget::ShouldStop StopWhenCallEnds(Context* context) {
  return [context] {
    return context->IsCancelled() || context->deadline() <= std::chrono::system_clock::now();
  };
}

// The store lookups and delegation steps an inline plan may take: far more than a decision of a
// normal policy needs (a three-hop chain takes about 15), far less than --max_decision_steps.
inline constexpr int64_t kInlineDecisionSteps = 1'000;

// One call, in the two halves the Authorizer offers (decision/authorizer.h).
template <typename T>
struct DecisionCall {
  // Plans the call at the venue it is handed.
  absl::AnyInvocable<absl::StatusOr<Planned<T>>(Authorizer&, Venue)> plan;
  // Does, on a worker, what a plan that is not done left.
  absl::AnyInvocable<absl::StatusOr<T>(Authorizer&, Planned<T>)> finish;
};

class DecisionRunner {
 public:
  // Decides with the Authorizer it is handed, on a worker (RunOnWorker).
  template <typename T>
  using Decide = absl::AnyInvocable<absl::StatusOr<T>(Authorizer&)>;
  // Answers the call with what the decision returned; called exactly once.
  template <typename T>
  using Answer = absl::AnyInvocable<void(absl::StatusOr<T>) &&>;

  // `store`, `observer`, `access_tokens` (both may be null) and `workers` must outlive the
  // runner. Decisions are told to `observer` once, whichever thread made them.
  // `limits` bound every decision (the inline plans more tightly, see above).
  DecisionRunner(PolicyStore& store, Clock clock, DecisionObserver* observer,
                 AccessTokenAuthenticator* access_tokens, WorkerPool& workers, int inline_slots,
                 DecisionLimits limits = {});
  ~DecisionRunner();

  DecisionRunner(const DecisionRunner&) = delete;
  DecisionRunner& operator=(const DecisionRunner&) = delete;

  // Plans `call` inline when an inline slot is free and answers it there when the plan is done;
  // otherwise the call is planned, or finished, on a worker. `answer` runs where the call ends.
  // `gave_up()` (a `bool() const` callable: the call was cancelled or ran out of time) is asked
  // before the call is planned and before a worker takes it up: a caller that gave up, typically
  // while its call waited for a worker, gets nothing decided for it, so no rate-limit slot or
  // approval is spent for a caller that is gone, and `answer` gets CANCELLED.
  template <typename T, typename GaveUp>
  void Run(DecisionCall<T> call, Answer<T> answer, GaveUp gave_up) {
    std::optional<Planned<T>> left;  // the plan made inline, when it left work for a worker
    if (AcquireInlineSlot()) {
      absl::StatusOr<Planned<T>> plan = gave_up() ? absl::StatusOr<Planned<T>>(GaveUpStatus())
                                                  : call.plan(authorizer_, Venue::kInline);
      ReleaseInlineSlot();
      if (!plan.ok()) {
        std::move(answer)(plan.status());
        return;
      }
      if (plan->done()) {
        std::move(answer)(std::move(plan->answer));
        return;
      }
      left = *std::move(plan);
    }
    workers_.Schedule([this, call = std::move(call), left = std::move(left),
                       answer = std::move(answer), gave_up = std::move(gave_up)]() mutable {
      if (gave_up()) {
        std::move(answer)(GaveUpStatus());
        return;
      }
      if (!left.has_value()) {
        absl::StatusOr<Planned<T>> plan = call.plan(authorizer_, Venue::kWorker);
        if (!plan.ok() || plan->done()) {
          std::move(answer)(plan.ok() ? absl::StatusOr<T>(std::move(plan->answer))
                                      : absl::StatusOr<T>(plan.status()));
          return;
        }
        left = *std::move(plan);
      }
      std::move(answer)(call.finish(authorizer_, *std::move(left)));
    });
  }

  // While false, no decision runs on the calling (gRPC) thread: every one goes to a worker.
  // verdictd turns it off while health says the store is not available (a database frozen
  // mid-call would otherwise hold gRPC's few threads, which health checks need, for as long as
  // the store waits for an answer). On at first.
  void SetInlineAllowed(bool allowed) { inline_allowed_.store(allowed, std::memory_order_relaxed); }
  // The cap on each agent's pending approval requests (decision/pending_approvals.h), for every
  // decision this runner makes; call before the first Run.
  void set_max_pending_approvals(int64_t max_pending) {
    authorizer_.set_max_pending_approvals(max_pending);
  }

  // Always on a worker: for calls that may be expensive whatever their store holds (Simulate's
  // what-if inputs). `gave_up` as for Run.
  template <typename T, typename GaveUp>
  void RunOnWorker(Decide<T> decide, Answer<T> answer, GaveUp gave_up) {
    workers_.Schedule([this, decide = std::move(decide), answer = std::move(answer),
                       gave_up = std::move(gave_up)]() mutable {
      std::move(answer)(gave_up() ? absl::StatusOr<T>(GaveUpStatus()) : decide(authorizer_));
    });
  }

 private:
  static absl::Status GaveUpStatus() {
    return absl::CancelledError("the caller gave up before its decision was made");
  }

  bool AcquireInlineSlot();
  void ReleaseInlineSlot();

  WorkerPool& workers_;
  const int inline_slots_;
  std::atomic<int> inline_in_use_{0};
  std::atomic<bool> inline_allowed_{true};
  Authorizer authorizer_;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_DECISION_RUNNER_H_
