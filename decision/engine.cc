#include "decision/engine.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "decision/chain.h"
#include "decision/chain_check.h"
#include "decision/decision_messages.h"
#include "decision/decision_trace.h"
#include "decision/delegation_walker.h"
#include "decision/grants.h"
#include "decision/resource_match.h"

namespace verdict {
namespace {

using engine_internal::Chain;
using engine_internal::ChainChecker;
using engine_internal::ChainElement;
using engine_internal::ChainFailure;
using engine_internal::ChainOf;
using engine_internal::ChainOutcome;
using engine_internal::CutCycles;
using engine_internal::DelegationWalker;
using engine_internal::HopsFromTop;
using engine_internal::kNoChain;
using engine_internal::kPasses;
using engine_internal::Lookups;
using engine_internal::OverBudget;
using engine_internal::PathOf;
using engine_internal::TakenLink;
using engine_internal::WalkState;

class Decider {
 public:
  friend class engine_internal::DelegationWalker<Decider>;

  // Decides into `decision`, which the caller keeps: the decision is made where it is returned.
  // With `resolved` (may be null), the subject is that resolution, not looked up again.
  Decider(const Request& request, PolicyView& view, absl::Time now, Trace* trace,
          AccessTokenAuthenticator* access_tokens, DecisionBudget& budget, Decision& decision,
          const SubjectResolution* resolved = nullptr)
      : request_(request),
        view_(view),
        lookups_(view, now, budget),
        budget_(budget),
        checker_(request, view, now, budget),
        now_(now),
        trace_(trace),
        access_tokens_(access_tokens),
        resolved_(resolved),
        decision_(decision) {
    // A trace lists every permission tried; without one, those that cannot match are skipped.
    if (trace_ == nullptr) lookups_.OnlyFor(request_.action, request_.resource);
  }

  // A failed lookup is returned as its status, and the decision is then to be dropped. A
  // decision over budget is refused with EVALUATION_LIMIT; one whose caller gave up, CANCELLED.
  absl::Status Run() {
    absl::Status status = Decide();
    if (!budget_.exhausted() && !budget_.stopped()) return status;
    if (budget_.stopped()) {
      return absl::CancelledError("the caller gave up (cancelled, or past its deadline)");
    }
    // Whatever was found before the budget ran out, the answer is a refusal.
    Decision refused;
    refused.request_id = request_.request_id;
    refused.agent_id = std::move(decision_.agent_id);
    refused.reason = ReasonCode::kEvaluationLimit;
    refused.message = EvaluationLimitMessage(budget_);
    decision_ = std::move(refused);
    AddStage("budget", false, decision_.message);
    return absl::OkStatus();
  }

 private:
  struct Failed {
    ChainFailure failure;
    Grant origin;
    std::vector<DelegationHop> path;
  };

  // The best chain above a state, for this call: how far it got, and how to rebuild it.
  struct BestChain {
    int stage = kNoChain;
    const Permission* origin = nullptr;  // the state's agent's own permission, or
    const Delegation* link = nullptr;    // a permission lent into it, followed by the best
    size_t lent_index = 0;               // chain above `next`
    WalkState next;
  };

  absl::Status Decide() {
    decision_.request_id = request_.request_id;
    if (!budget_.Spend()) return OverBudget();
    if (resolved_ != nullptr) {
      decision_.agent_id = std::string(resolved_->agent_id);
      return DecideAs(*resolved_);
    }
    absl::StatusOr<SubjectResolution> subject =
        ResolveSubject(request_.subject, view_, now_, access_tokens_);
    if (!subject.ok()) return subject.status();
    decision_.agent_id = std::string(subject->agent_id);
    return DecideAs(*subject);
  }

  // Decides for the subject `subject` resolved to, which outlives the call (decision_.agent_id
  // is already set).
  absl::Status DecideAs(const SubjectResolution& subject) {
    if (trace_) {
      AddStage(
          "subject", subject.agent != nullptr,
          subject.agent ? absl::StrCat("agent ", subject.agent->id, " is live") : subject.message);
    }
    if (!subject.agent) {
      decision_.reason = subject.reason;
      decision_.message = subject.message;
      return absl::OkStatus();
    }
    subject_id_ = subject.agent->id;
    checker_.set_subject(subject_id_);

    absl::StatusOr<absl::Span<const Permission>> own = lookups_.PermissionsOf(subject_id_);
    if (!own.ok()) return own.status();
    own_count_ = own->size();
    if (const Permission* deny = MatchingDeny(*own, {})) {
      decision_.reason = ReasonCode::kDeniedByPolicy;
      decision_.message = absl::StrCat("denied by ", deny->id);
      decision_.matched_grant = GrantOf(*deny);
      AddCandidateStages(deny);
      return absl::OkStatus();
    }

    absl::StatusOr<bool> allowed = TryOwnAllows(*own);
    if (allowed.ok() && !*allowed) {
      delegations_consulted_ = true;
      allowed = TryLentChains();
    }
    if (!allowed.ok()) return allowed.status();
    AddCandidateStages(nullptr);
    if (!*allowed) Refuse();
    return absl::OkStatus();
  }

  bool ActionAndResourceMatch(const std::string& resource,
                              const std::vector<std::string>& actions) const {
    return ActionMatches(actions, request_.action) && ResourceMatches(resource, request_.resource);
  }

  // The first of `permissions` (the subject's, or those of the delegator that `taken` leads up
  // to) that denies the request, or nullptr.
  const Permission* MatchingDeny(absl::Span<const Permission> permissions,
                                 absl::Span<const TakenLink> taken) {
    const bool subjects_own = taken.empty();
    for (const Permission& permission : permissions) {
      if (permission.effect != Effect::kDeny) continue;
      if (!ActionAndResourceMatch(permission.resource, permission.actions)) {
        if (trace_ && subjects_own) AddUnmatchedTrial(GrantOf(permission), {});
        continue;
      }
      if (trace_) {
        AddTrial(GrantOf(permission), HopsFromTop(taken), ReasonCode::kDeniedByPolicy,
                 subjects_own ? absl::StrCat("denies ", request_.action, " on ", request_.resource)
                              : absl::StrCat(permission.agent_id, " is denied ", request_.action,
                                             " on ", request_.resource, ", so cannot lend it"));
      }
      return &permission;
    }
    return nullptr;
  }

  // Tries each of the subject's own allow permissions that matches. True once one allows.
  absl::StatusOr<bool> TryOwnAllows(absl::Span<const Permission> permissions) {
    for (const Permission& permission : permissions) {
      if (permission.effect != Effect::kAllow) continue;
      if (!ActionAndResourceMatch(permission.resource, permission.actions)) {
        if (trace_) AddUnmatchedTrial(GrantOf(permission), {});
        continue;
      }
      ++matching_chains_;
      absl::StatusOr<bool> allowed = TryChain(ChainOf(permission, {}));
      if (!allowed.ok() || *allowed) return allowed;
    }
    return false;
  }

  // The chains through the live links into the subject: the search finds the one that gets
  // furthest (the first that passes, or the first of those that failed latest), which is then
  // checked as a whole, as the subject's own permissions are.
  absl::StatusOr<bool> TryLentChains() {
    DelegationWalker<Decider> walker(*this, lookups_);
    walker_ = &walker;
    absl::StatusOr<const BestChain*> best = walker.Held({subject_id_, 0, kMaxDelegationDepth});
    walker_ = nullptr;
    if (!best.ok()) return best.status();
    if ((*best)->stage == kNoChain) return false;
    if (furthest_ && (*best)->stage <= static_cast<int>(furthest_->failure.stage)) return false;
    Chain chain;  // rebuilt from the subject up, then turned origin first
    for (const BestChain* at = *best;;) {
      if (at->origin != nullptr) {
        chain.push_back(ChainElement::Own(*at->origin));
        break;
      }
      chain.push_back(ChainElement::Lent(*at->link, at->lent_index));
      absl::StatusOr<const BestChain*> above = walker.Held(at->next);  // known: no lookup
      if (!above.ok()) return above.status();
      at = *above;
    }
    std::reverse(chain.begin(), chain.end());
    CutCycles(chain);
    return TryChain(chain, /*add_trial=*/false);
  }

  // DelegationWalker's Holdings: what a delegator holds of this call is the best chain it can
  // start or continue.
  using Value = BestChain;

  absl::Status Own(const WalkState& state, absl::Span<const Permission> permissions,
                   BestChain& best, bool& done) {
    // A delegator denied the call cannot lend it: no chain runs through it.
    if (MatchingDeny(permissions, walker_->stack())) {
      done = true;
      return absl::OkStatus();
    }
    for (const Permission& permission : permissions) {
      if (permission.effect != Effect::kAllow) continue;
      if (!ActionAndResourceMatch(permission.resource, permission.actions)) continue;
      ++matching_chains_;
      absl::StatusOr<int> stage = checker_.StageOf(ChainElement::Own(permission));
      if (!stage.ok()) return stage.status();
      if (trace_) {
        const Chain chain = ChainOf(permission, walker_->stack());
        absl::StatusOr<ChainOutcome> outcome = checker_.Check(chain);
        if (!outcome.ok()) return outcome.status();
        if (outcome->failure) {
          AddTrial(GrantOf(permission), PathOf(chain), outcome->failure->reason,
                   outcome->failure->message);
        } else {
          AddTrial(GrantOf(permission), PathOf(chain), ReasonCode::kAllowed, "passed");
        }
      }
      if (*stage > best.stage) best = BestChain{*stage, &permission, nullptr, 0, {}};
      if (*stage == kPasses) {
        done = true;
        break;
      }
    }
    (void)state;
    return absl::OkStatus();
  }

  bool Wants(const Delegation& link, size_t lent_index) {
    const LentPermission& lent = link.permissions[lent_index];
    if (walker_->stack().size() == 1) ++lent_count_;
    if (ActionAndResourceMatch(lent.resource, lent.actions)) return true;
    if (trace_) AddUnmatchedTrial(GrantOf(link, lent_index), HopsFromTop(walker_->stack()));
    return false;
  }

  void Unusable(const Delegation& link, size_t lent_index, absl::string_view why) {
    if (trace_) {
      AddTrial(GrantOf(link, lent_index), HopsFromTop(walker_->stack()),
               ReasonCode::kNoMatchingPermission, std::string(why));
    }
  }

  absl::Status Extend(const WalkState&, const Delegation& link, size_t lent_index,
                      const WalkState& next, const BestChain& upper, BestChain& best, bool& done) {
    if (upper.stage == kNoChain) return absl::OkStatus();
    absl::StatusOr<int> stage = checker_.StageOf(ChainElement::Lent(link, lent_index));
    if (!stage.ok()) return stage.status();
    const int chain_stage = std::min(*stage, upper.stage);
    if (chain_stage > best.stage) best = BestChain{chain_stage, nullptr, &link, lent_index, next};
    done = chain_stage == kPasses;
    return absl::OkStatus();
  }

  // Checks one matching chain (origin first); true when it allows, and then the decision is
  // made.
  absl::StatusOr<bool> TryChain(const Chain& chain, bool add_trial = true) {
    absl::StatusOr<ChainOutcome> outcome = checker_.Check(chain);
    if (!outcome.ok()) return outcome.status();
    const Permission& origin = *chain.front().origin;
    if (!outcome->failure) {
      std::vector<DelegationHop> path = PathOf(chain);
      decision_.verdict = Verdict::kAllow;
      decision_.reason = ReasonCode::kAllowed;
      decision_.message = AllowedMessage(origin, path);
      decision_.matched_grant = GrantOf(origin);
      decision_.side_effects = std::move(outcome->side_effects);
      if (trace_ && add_trial) AddTrial(GrantOf(origin), path, ReasonCode::kAllowed, "passed");
      decision_.delegation_path = std::move(path);
      return true;
    }
    if (trace_ && add_trial) {
      AddTrial(GrantOf(origin), PathOf(chain), outcome->failure->reason, outcome->failure->message);
    }
    // The failure that got furthest is reported; on a tie, the first.
    if (!furthest_ || outcome->failure->stage > furthest_->failure.stage) {
      furthest_ = Failed{*std::move(outcome->failure), GrantOf(origin), PathOf(chain)};
    }
    return false;
  }

  // No chain allowed: the one that got furthest decides, or there was none.
  void Refuse() {
    if (!furthest_) {
      decision_.reason = ReasonCode::kNoMatchingPermission;
      decision_.message = absl::StrCat("no permission of ", subject_id_, " matches ",
                                       request_.action, " on ", request_.resource);
      return;
    }
    ChainFailure& failure = furthest_->failure;
    decision_.verdict =
        failure.reason == ReasonCode::kApprovalRequired ? Verdict::kNeedsApproval : Verdict::kDeny;
    decision_.reason = failure.reason;
    decision_.message = failure.message;
    decision_.matched_grant = std::move(furthest_->origin);
    decision_.delegation_path = std::move(furthest_->path);
    decision_.approval_request_id = failure.approval_request_id;
    decision_.side_effects.approval_to_open = std::move(failure.approval_to_open);
  }

  void AddStage(const char* name, bool passed, std::string detail) {
    if (trace_) engine_internal::AddStage(*trace_, name, passed, std::move(detail));
  }

  // The trial adders are called only when trace_ is set, so an untraced decision builds nothing.
  void AddTrial(Grant grant, std::vector<DelegationHop> path, ReasonCode outcome,
                std::string detail) {
    engine_internal::AddTrial(*trace_, std::move(grant), std::move(path), outcome,
                              std::move(detail));
  }

  void AddUnmatchedTrial(Grant grant, std::vector<DelegationHop> path) {
    engine_internal::AddUnmatchedTrial(*trace_, request_, std::move(grant), std::move(path));
  }

  // The stages after "subject", once the decision is made: `deny` is the subject's own
  // permission that denied, if one did.
  void AddCandidateStages(const Permission* deny) {
    if (!trace_) return;
    engine_internal::AddCandidateStages(
        *trace_, request_, subject_id_,
        {own_count_, lent_count_, matching_chains_, delegations_consulted_}, deny, decision_,
        furthest_ ? &furthest_->failure.message : nullptr);
  }

  const Request& request_;
  PolicyView& view_;
  Lookups lookups_;
  DecisionBudget& budget_;
  DelegationWalker<Decider>* walker_ = nullptr;  // while the lent chains are searched
  ChainChecker checker_;
  const absl::Time now_;
  Trace* const trace_;
  AccessTokenAuthenticator* const access_tokens_;
  const SubjectResolution* const resolved_;  // the subject resolved by the caller, or null

  Decision& decision_;
  absl::string_view subject_id_;  // the live subject's, held by its resolution
  std::optional<Failed> furthest_;
  // For the trace.
  size_t own_count_ = 0;
  size_t lent_count_ = 0;
  int matching_chains_ = 0;
  bool delegations_consulted_ = false;
};

}  // namespace

absl::StatusOr<Decision> Decide(const Request& request, PolicyView& view, absl::Time now,
                                Trace* trace, AccessTokenAuthenticator* access_tokens,
                                DecisionBudget* budget) {
  DecisionBudget default_budget;
  absl::StatusOr<Decision> decision(absl::in_place);
  absl::Status decided = Decider(request, view, now, trace, access_tokens,
                                 budget ? *budget : default_budget, *decision)
                             .Run();
  if (!decided.ok()) decision = decided;
  return decision;
}

absl::StatusOr<Decision> DecideFor(const SubjectResolution& subject, const Request& request,
                                   PolicyView& view, absl::Time now, Trace* trace,
                                   DecisionBudget* budget) {
  DecisionBudget default_budget;
  absl::StatusOr<Decision> decision(absl::in_place);
  absl::Status decided = Decider(request, view, now, trace, /*access_tokens=*/nullptr,
                                 budget ? *budget : default_budget, *decision, &subject)
                             .Run();
  if (!decided.ok()) decision = decided;
  return decision;
}

}  // namespace verdict
