#include "server/decision_runner.h"

#include <algorithm>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/string_view.h"

namespace verdict {
namespace {

// Marks the refusals of an inline attempt, so that no store or engine error is mistaken for one.
constexpr absl::string_view kDeferredToWorker = "type.verdict.dev/server.DeferredToWorker";

absl::Status DeferredToWorker(absl::string_view why) {
  absl::Status status = absl::AbortedError(why);
  status.SetPayload(kDeferredToWorker, absl::Cord());
  return status;
}

// Reads like `store`; refuses to begin a write, which would take SQLite's write lock.
class ReadOnlyStore final : public PolicyStore {
 public:
  explicit ReadOnlyStore(PolicyStore& store) : store_(store) {}
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> BeginRead() override { return store_.BeginRead(); }
  absl::StatusOr<std::unique_ptr<WriteTransaction>> BeginWrite() override {
    return DeferredToWorker("the decision writes: decided on a worker");
  }

 private:
  PolicyStore& store_;
};

// Authenticates like `access_tokens`, except that a subject with a DPoP proof is refused before
// the proof is looked at: checking it spends it (the replay cache), and a refused attempt's
// proof could not be presented again by the attempt that stands.
class ProoflessAccessTokens final : public AccessTokenAuthenticator {
 public:
  explicit ProoflessAccessTokens(AccessTokenAuthenticator& access_tokens)
      : access_tokens_(access_tokens) {}
  absl::StatusOr<AccessTokenClaims> Authenticate(const Subject& subject, PolicyView& view,
                                                 absl::Time now) override {
    if (!subject.dpop.proof.empty()) {
      return DeferredToWorker("a DPoP proof is spent once: decided on a worker");
    }
    return access_tokens_.Authenticate(subject, view, now);
  }

 private:
  AccessTokenAuthenticator& access_tokens_;
};

// An inline attempt's limits: a small budget, past which the decision goes to a worker.
DecisionLimits InlineLimits(const DecisionLimits& limits) {
  DecisionLimits inline_limits = limits;
  inline_limits.max_decision_steps = std::min(limits.max_decision_steps, kInlineDecisionSteps);
  // With the whole budget inline, a decision over it is EVALUATION_LIMIT wherever it runs.
  if (inline_limits.max_decision_steps < limits.max_decision_steps) {
    inline_limits.over_budget = [] {
      return DeferredToWorker("the decision may be expensive: decided on a worker");
    };
  }
  return inline_limits;
}

std::unique_ptr<AccessTokenAuthenticator> ProoflessOrNull(AccessTokenAuthenticator* access_tokens) {
  if (access_tokens == nullptr) return nullptr;
  return std::make_unique<ProoflessAccessTokens>(*access_tokens);
}

}  // namespace

DecisionRunner::DecisionRunner(PolicyStore& store, Clock clock, DecisionObserver* observer,
                               AccessTokenAuthenticator* access_tokens, WorkerPool& workers,
                               int inline_slots, DecisionLimits limits)
    : workers_(workers),
      inline_slots_(inline_slots),
      read_only_store_(std::make_unique<ReadOnlyStore>(store)),
      proofless_access_tokens_(ProoflessOrNull(access_tokens)),
      inline_authorizer_(*read_only_store_, clock, observer, proofless_access_tokens_.get(),
                         InlineLimits(limits)),
      writing_authorizer_(store, std::move(clock), observer, access_tokens, std::move(limits)) {}

DecisionRunner::~DecisionRunner() = default;

bool DecisionRunner::IsDeferredToWorker(const absl::Status& status) {
  return status.code() == absl::StatusCode::kAborted &&
         status.GetPayload(kDeferredToWorker).has_value();
}

bool DecisionRunner::AcquireInlineSlot() {
  if (!inline_allowed_.load(std::memory_order_relaxed)) return false;
  if (inline_in_use_.fetch_add(1, std::memory_order_acquire) < inline_slots_) return true;
  ReleaseInlineSlot();
  return false;
}

void DecisionRunner::ReleaseInlineSlot() { inline_in_use_.fetch_sub(1, std::memory_order_release); }

}  // namespace verdict
