// Where verdictd's decisions run: on the gRPC thread that received the call when the decision
// only reads, on a WorkerPool thread when it must write.
//
// Why not always one or the other: handing every call to a worker and back costs two context
// switches per call, about a quarter of the server's CPU per call on 2 cores (bench/PERFORMANCE.md,
// "End to end"). But a decision that writes (a rate-limit slot, an approval) takes SQLite's write
// lock and may wait out busy_timeout (seconds) behind another process, and gRPC runs its
// callbacks on a few threads (two on a 2-core machine) that health probes, new calls and shutdown
// need too. Reads never wait on a writer (WAL), so each decision is first tried inline against a
// store that refuses to begin a write; one that turns out to need a write is decided again, from
// the start, on a worker, where it writes. A subject carrying a DPoP proof also goes to a worker
// before the proof is checked: a proof may be spent only once, by the attempt that stands.
// At most `inline_slots` decisions run inline at once, each of them holding one store
// connection at most: give the store `workers + inline_slots` connections, and an inline decision
// never waits for a connection a blocked writer holds.
// A decision that may be expensive runs on a worker too: an inline attempt has a small budget
// (kInlineDecisionSteps) and one that needs more is decided again on a worker, with the full
// budget (design section 8); Simulate always runs on a worker (RunOnWorker).
//
//   WorkerPool workers(4);
//   DecisionRunner runner(store, clock, observer, access_tokens, workers, /*inline_slots=*/2);
//   runner.Run<Decision>(
//       [request](Authorizer& authorizer) { return authorizer.Authorize(request); },
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

// The store lookups and delegation steps an inline attempt may take: far more than a decision of
// a normal policy needs (a three-hop chain takes about 15), far less than --max_decision_steps.
inline constexpr int64_t kInlineDecisionSteps = 1'000;

class DecisionRunner {
 public:
  // Decides with the Authorizer it is handed. Called at most twice: inline first, and again on a
  // worker when the inline attempt was refused (IsDeferredToWorker).
  template <typename T>
  using Decide = absl::AnyInvocable<absl::StatusOr<T>(Authorizer&)>;
  // Answers the call with what the decision that stands returned; called exactly once.
  template <typename T>
  using Answer = absl::AnyInvocable<void(absl::StatusOr<T>) &&>;

  // `store`, `observer`, `access_tokens` (both may be null) and `workers` must outlive the
  // runner. Decisions are told to `observer` once, whichever thread made them.
  // `limits` bound every decision (the inline attempts more tightly, see above).
  DecisionRunner(PolicyStore& store, Clock clock, DecisionObserver* observer,
                 AccessTokenAuthenticator* access_tokens, WorkerPool& workers, int inline_slots,
                 DecisionLimits limits = {});
  ~DecisionRunner();

  DecisionRunner(const DecisionRunner&) = delete;
  DecisionRunner& operator=(const DecisionRunner&) = delete;

  // Runs `decide` and then `answer`, either both before Run returns or both on a worker.
  // `gave_up()` (a `bool() const` callable: the call was cancelled or ran out of time) is asked
  // before each attempt: a caller that gave up, typically while its call waited for a worker,
  // gets nothing decided for it, so no rate-limit slot or approval is spent for a caller that is
  // gone, and `answer` gets CANCELLED.
  template <typename T, typename GaveUp>
  void Run(Decide<T> decide, Answer<T> answer, GaveUp gave_up) {
    if (std::optional<absl::StatusOr<T>> outcome = TryInline(decide, gave_up)) {
      std::move(answer)(*std::move(outcome));
      return;
    }
    workers_.Schedule([this, decide = std::move(decide), answer = std::move(answer),
                       gave_up = std::move(gave_up)]() mutable {
      std::move(answer)(DecideUnlessGaveUp(decide, gave_up, writing_authorizer_));
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
    inline_authorizer_.set_max_pending_approvals(max_pending);
    writing_authorizer_.set_max_pending_approvals(max_pending);
  }

  // As Run, but always on a worker: for calls that may be expensive whatever their store holds
  // (Simulate's what-if inputs).
  template <typename T, typename GaveUp>
  void RunOnWorker(Decide<T> decide, Answer<T> answer, GaveUp gave_up) {
    workers_.Schedule([this, decide = std::move(decide), answer = std::move(answer),
                       gave_up = std::move(gave_up)]() mutable {
      std::move(answer)(DecideUnlessGaveUp(decide, gave_up, writing_authorizer_));
    });
  }

  // True for the status of an inline attempt that must be decided again on a worker. Only a
  // `decide` that turns statuses into answers itself (ext_authz) needs to look.
  static bool IsDeferredToWorker(const absl::Status& status);

 private:
  template <typename T, typename GaveUp>
  static absl::StatusOr<T> DecideUnlessGaveUp(Decide<T>& decide, const GaveUp& gave_up,
                                              Authorizer& authorizer) {
    if (gave_up()) return absl::CancelledError("the caller gave up before its decision was made");
    return decide(authorizer);
  }

  template <typename T, typename GaveUp>
  std::optional<absl::StatusOr<T>> TryInline(Decide<T>& decide, const GaveUp& gave_up) {
    if (!AcquireInlineSlot()) return std::nullopt;
    absl::StatusOr<T> outcome = DecideUnlessGaveUp(decide, gave_up, inline_authorizer_);
    ReleaseInlineSlot();
    if (!outcome.ok() && IsDeferredToWorker(outcome.status())) return std::nullopt;
    return outcome;
  }

  bool AcquireInlineSlot();
  void ReleaseInlineSlot();

  WorkerPool& workers_;
  const int inline_slots_;
  std::atomic<int> inline_in_use_{0};
  std::atomic<bool> inline_allowed_{true};
  // What the inline attempts see: the store and the access tokens, minus writes and proofs.
  const std::unique_ptr<PolicyStore> read_only_store_;
  const std::unique_ptr<AccessTokenAuthenticator> proofless_access_tokens_;
  Authorizer inline_authorizer_;
  Authorizer writing_authorizer_;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_DECISION_RUNNER_H_
