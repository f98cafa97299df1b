#include "decision/authorizer.h"

#include <algorithm>
#include <memory>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "crypto/token.h"
#include "decision/constraints.h"
#include "decision/new_grant_rules.h"
#include "decision/request_validation.h"
#include "decision/resource_match.h"
#include "decision/what_if_view.h"

namespace verdict {
namespace {

// Cuts a listing of effective permissions at kMaxListedPermissions; true when it was longer.
bool CutToListedLength(std::vector<EffectivePermission>& permissions) {
  if (permissions.size() <= kMaxListedPermissions) return false;
  permissions.resize(kMaxListedPermissions);
  return true;
}

absl::Status InField(absl::string_view field, const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(field, ": ", status.message()));
}

// What a grant given in a what-if must look like: what the admin plane would accept in a new
// grant.
absl::Status ValidateWhatIfGrant(absl::string_view field, absl::string_view resource,
                                 const std::vector<std::string>& actions, Effect effect,
                                 absl::string_view constraints_json) {
  absl::Status status =
      InField(absl::StrCat(field, ".resource"), ValidateResourcePattern(resource));
  if (!status.ok()) return status;
  if (actions.empty()) return absl::InvalidArgumentError(absl::StrCat(field, ".actions: empty"));
  for (size_t i = 0; i < actions.size(); ++i) {
    status = InField(absl::StrCat(field, ".actions[", i, "]"), ValidateActionName(actions[i]));
    if (!status.ok()) return status;
  }
  status =
      InField(absl::StrCat(field, ".constraints"), ParseConstraints(constraints_json).status());
  if (!status.ok()) return status;
  return InField(field, CheckNewGrantReadsAsWritten(resource, effect, constraints_json));
}

absl::Status CheckCap(absl::string_view field, size_t count, size_t cap) {
  if (count <= cap) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": at most ", cap, " in one Simulate (got ", count, ")"));
}

absl::Status ValidateWhatIf(const WhatIf& what_if) {
  size_t lent = 0;
  for (const Delegation& delegation : what_if.extra_delegations) {
    lent += delegation.permissions.size();
  }
  for (const auto& [field, count, cap] :
       {std::tuple<absl::string_view, size_t, size_t>{
            "what_if.extra_permissions", what_if.extra_permissions.size(), kMaxWhatIfPermissions},
        {"what_if.extra_delegations", what_if.extra_delegations.size(), kMaxWhatIfDelegations},
        {"what_if.extra_delegations[*].permissions", lent, kMaxWhatIfLentPermissions},
        {"what_if.removed_delegation_ids", what_if.removed_delegation_ids.size(),
         kMaxWhatIfRemovedDelegations}}) {
    if (absl::Status status = CheckCap(field, count, cap); !status.ok()) return status;
  }
  if (what_if.client_ip) {
    absl::Status status = InField("what_if.client_ip", ParseIpAddress(*what_if.client_ip).status());
    if (!status.ok()) return status;
  }
  for (size_t i = 0; i < what_if.extra_permissions.size(); ++i) {
    const Permission& permission = what_if.extra_permissions[i];
    absl::Status status =
        ValidateWhatIfGrant(absl::StrCat("what_if.extra_permissions[", i, "]"), permission.resource,
                            permission.actions, permission.effect, permission.constraints_json);
    if (!status.ok()) return status;
  }
  for (size_t i = 0; i < what_if.extra_delegations.size(); ++i) {
    const Delegation& delegation = what_if.extra_delegations[i];
    const std::string field = absl::StrCat("what_if.extra_delegations[", i, "]");
    for (const auto& [name, id] : {std::pair<absl::string_view, absl::string_view>(
                                       "from_agent_id", delegation.from_agent_id),
                                   {"to_agent_id", delegation.to_agent_id}}) {
      absl::Status status = ValidateAgentId(absl::StrCat(field, ".", name), id);
      if (!status.ok()) return status;
    }
    for (size_t j = 0; j < delegation.permissions.size(); ++j) {
      const LentPermission& lent = delegation.permissions[j];
      absl::Status status =
          ValidateWhatIfGrant(absl::StrCat(field, ".permissions[", j, "]"), lent.resource,
                              lent.actions, Effect::kAllow, lent.constraints_json);
      if (!status.ok()) return status;
    }
  }
  return absl::OkStatus();
}

// Authenticates a call's access token once, however many times the call decides (each check of a
// batch, a decision made again inside a write transaction, Simulate's subject lookup): the DPoP
// proof is spent once and the whole call sees one answer. Store keys are read in the first
// snapshot; the token id's revocation and the agent are read again in every snapshot.
//
// The token is authenticated at the real time, even when Simulate decides at a what-if time: a
// credential is presented now, and a what-if time must never move the DPoP replay cache, which
// would forget proofs that can still be replayed.
class OncePerCall final : public AccessTokenAuthenticator {
 public:
  OncePerCall(AccessTokenAuthenticator* authenticator, const Clock& clock)
      : authenticator_(authenticator), clock_(clock) {}

  // Null when there is no authenticator, so that the engine refuses access tokens.
  AccessTokenAuthenticator* get() { return authenticator_ == nullptr ? nullptr : this; }

  absl::StatusOr<AccessTokenClaims> Authenticate(const Subject& subject, PolicyView& view,
                                                 absl::Time /*decision_time*/) override {
    if (!answer_ || token_ != subject.token || proof_ != subject.dpop.proof) {
      token_ = subject.token;
      proof_ = subject.dpop.proof;
      answer_ = authenticator_->Authenticate(subject, view, clock_());
    }
    return *answer_;
  }

 private:
  AccessTokenAuthenticator* const authenticator_;
  const Clock& clock_;
  std::string token_;
  std::string proof_;
  std::optional<absl::StatusOr<AccessTokenClaims>> answer_;
};

// Makes the writes a decision needs inside `transaction`; the id of the approval request it
// opened, or used, goes into the decision, and for a used one the principals who approved it
// (and so into the decision log: an ALLOW names the approval and who gave it).
absl::Status ApplySideEffects(WriteTransaction& transaction, Decision& decision, absl::Time now) {
  const SideEffects& effects = decision.side_effects;
  for (const RateSpend& spend : effects.rate_spends) {
    absl::Status spent = transaction.SpendRate(spend);
    if (!spent.ok()) return spent;
  }
  if (effects.approval_to_use) {
    absl::Status used = transaction.UseApproval(*effects.approval_to_use, now);
    if (!used.ok()) return used;
    absl::StatusOr<std::vector<std::string>> approvers =
        transaction.ApproversOf(*effects.approval_to_use);
    if (!approvers.ok()) return approvers.status();
    decision.approval_request_id = *effects.approval_to_use;
    decision.approved_by = *std::move(approvers);
  }
  if (effects.approval_to_open) {
    absl::StatusOr<std::string> opened = transaction.OpenApproval(*effects.approval_to_open, now);
    if (!opened.ok()) return opened.status();
    decision.approval_request_id = *std::move(opened);
  }
  return absl::OkStatus();
}

// Tells `observer` of each decision of `call` refused for its budget.
void TellEvaluationLimits(DecisionObserver* observer, absl::string_view call,
                          absl::Span<const Decision> decisions) {
  if (observer == nullptr) return;
  for (const Decision& decision : decisions) {
    if (decision.reason == ReasonCode::kEvaluationLimit) observer->OnEvaluationLimit(call);
  }
}

// The time since `start` on the decision clock, which is the wall clock in verdictd: stepped
// back meanwhile, it would give a negative latency, and a latency sum that goes backwards.
absl::Duration ElapsedSince(const Clock& clock, absl::Time start) {
  return std::max(absl::ZeroDuration(), clock() - start);
}

}  // namespace

// The Requests one call decides, in order: one request, or a batch's checks. A batch's subject
// and context are copied once into one Request, which each check completes in turn; the
// reference operator[] returns holds until the next call.
class Authorizer::Checks {
 public:
  explicit Checks(const Request& request) : single_(&request) {}
  explicit Checks(const BatchRequest& batch) : batch_(&batch) {
    current_.subject = batch.subject;
    current_.client_ip = batch.client_ip;
    current_.request_id = batch.request_id;
  }

  size_t size() const { return single_ != nullptr ? 1 : batch_->checks.size(); }
  const Subject& subject() const {
    return single_ != nullptr ? single_->subject : current_.subject;
  }

  const Request& operator[](size_t i) {
    if (single_ != nullptr) return *single_;
    const BatchCheck& check = batch_->checks[i];
    current_.action = check.action;
    current_.resource = check.resource;
    current_.arguments_json =
        check.arguments_json.empty() ? batch_->arguments_json : check.arguments_json;
    return current_;
  }

  // INVALID_ARGUMENT naming the field as the wire names it: for a batch the subject and context
  // once ("subject: ...", "context: arguments_json: ..."), then each check ("checks[1]: ...").
  absl::Status Validate() {
    if (single_ != nullptr) return ValidateRequest(*single_);
    const std::vector<BatchCheck>& checks = batch_->checks;
    // A batch of none is refused: it would answer without reading its subject at all.
    if (checks.empty() || checks.size() > kMaxBatchSize) {
      return absl::InvalidArgumentError(absl::StrCat("checks: a batch holds 1 to ", kMaxBatchSize,
                                                     " checks, not ", checks.size()));
    }
    if (absl::Status valid = ValidateSharedFields(current_); !valid.ok()) return valid;
    if (absl::Status valid = InField("context", ValidateArguments(batch_->arguments_json));
        !valid.ok()) {
      return valid;
    }
    for (size_t i = 0; i < checks.size(); ++i) {
      // The check's own arguments only: the context's were checked above.
      current_.action = checks[i].action;
      current_.resource = checks[i].resource;
      current_.arguments_json = checks[i].arguments_json;
      absl::Status valid = InField(absl::StrCat("checks[", i, "]"), ValidateCheckFields(current_));
      if (!valid.ok()) return valid;
    }
    return absl::OkStatus();
  }

 private:
  const Request* const single_ = nullptr;
  const BatchRequest* const batch_ = nullptr;
  Request current_;
};

Authorizer::Authorizer(PolicyStore& store, Clock clock, DecisionObserver* observer,
                       AccessTokenAuthenticator* access_tokens, DecisionLimits limits)
    : store_(store),
      clock_(std::move(clock)),
      observer_(observer),
      access_tokens_(access_tokens),
      limits_(std::move(limits)) {}

int64_t Authorizer::StepsAt(Venue venue) const {
  return venue == Venue::kInline ? std::min(limits_.max_inline_steps, limits_.max_decision_steps)
                                 : limits_.max_decision_steps;
}

// A JWT access token's DPoP proof is spent when it is checked (the replay cache), so it is checked
// only where the call will be finished.
bool Authorizer::SpendsAProof(const Subject& subject) const {
  return subject.agent_id.empty() && SpendsAProof(subject.token, subject.dpop);
}

bool Authorizer::SpendsAProof(absl::string_view token, const DpopEvidence& dpop) const {
  return access_tokens_ != nullptr && !dpop.proof.empty() && LooksLikeCompactJws(token);
}

// A batch's one subject, looked up (and authenticated) once in `view` for all of its checks;
// nothing for a single request, which Decide resolves itself.
absl::StatusOr<std::optional<SubjectResolution>> Authorizer::ResolveABatchsSubject(
    const Checks& checks, PolicyView& view, absl::Time now,
    AccessTokenAuthenticator* access_tokens) {
  std::optional<SubjectResolution> none;
  if (checks.size() < 2) return none;
  absl::StatusOr<SubjectResolution> subject =
      ResolveSubject(checks.subject(), view, now, access_tokens);
  if (!subject.ok()) return subject.status();
  return std::optional<SubjectResolution>(*std::move(subject));
}

absl::StatusOr<Decision> Authorizer::DecideCheck(const std::optional<SubjectResolution>& subject,
                                                 const Request& request, PolicyView& view,
                                                 absl::Time now,
                                                 AccessTokenAuthenticator* access_tokens,
                                                 DecisionBudget& budget) {
  if (subject) return DecideFor(*subject, request, view, now, nullptr, &budget);
  return Decide(request, view, now, nullptr, access_tokens, &budget);
}

// A decision that would open an approval request past the agent's cap opens none
// (decision/pending_approvals.h): in the snapshot already, so that a caller kept at the cap costs
// no write transaction, and again in the write transaction, which counts the requests of every
// racing call.
absl::StatusOr<LeftToDo> Authorizer::Plan(Checks& checks, Venue venue,
                                          AccessTokenAuthenticator* access_tokens,
                                          const ShouldStop& should_stop,
                                          absl::Span<Decision> decisions) {
  if (venue == Venue::kInline && SpendsAProof(checks.subject())) return LeftToDo::kDecide;
  const int64_t steps = StepsAt(venue);
  // Over a budget smaller than the whole, the call is not refused but left for a worker.
  const bool over_budget_is_left = steps < limits_.max_decision_steps;
  DecisionBudget budget(steps, should_stop);
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store_.BeginRead();
  if (!snapshot.ok()) return snapshot.status();
  const absl::Time now = clock_();
  absl::StatusOr<std::optional<SubjectResolution>> subject =
      ResolveABatchsSubject(checks, **snapshot, now, access_tokens);
  if (!subject.ok()) return subject.status();
  for (size_t i = 0; i < checks.size(); ++i) {
    budget.Reset();
    absl::StatusOr<Decision> decision =
        DecideCheck(*subject, checks[i], **snapshot, now, access_tokens, budget);
    if (!decision.ok()) return decision.status();
    if (budget.exhausted() && over_budget_is_left) return LeftToDo::kDecide;
    absl::Status capped = CapPendingApprovals(**snapshot, max_pending_approvals_, now, *decision);
    if (!capped.ok()) return capped;
    // The commit decides every check again, with the whole budget: no need to read on.
    if (!decision->side_effects.empty()) return LeftToDo::kCommit;
    decisions[i] = *std::move(decision);
  }
  return LeftToDo::kNothing;
}  // The snapshot ends before a write begins: one connection never holds both.

absl::Status Authorizer::Commit(Checks& checks, AccessTokenAuthenticator* access_tokens,
                                const ShouldStop& should_stop, absl::Span<Decision> decisions) {
  DecisionBudget budget(limits_.max_decision_steps, should_stop);
  absl::StatusOr<std::unique_ptr<WriteTransaction>> transaction = store_.BeginWrite();
  if (!transaction.ok()) return transaction.status();
  const absl::Time now = clock_();
  // Once in the transaction too: the checks' writes never change who the subject is.
  absl::StatusOr<std::optional<SubjectResolution>> subject =
      ResolveABatchsSubject(checks, **transaction, now, access_tokens);
  if (!subject.ok()) return subject.status();
  for (size_t i = 0; i < checks.size(); ++i) {
    budget.Reset();
    absl::StatusOr<Decision> decision =
        DecideCheck(*subject, checks[i], **transaction, now, access_tokens, budget);
    if (!decision.ok()) return decision.status();
    absl::Status capped =
        CapPendingApprovals(**transaction, max_pending_approvals_, now, *decision);
    if (!capped.ok()) return capped;
    absl::Status applied = ApplySideEffects(**transaction, *decision, now);
    if (!applied.ok()) return applied;
    decisions[i] = *std::move(decision);
  }
  return (*transaction)->Commit();
}

absl::Status Authorizer::Tell(absl::string_view call, Checks& checks,
                              absl::Span<const Decision> decisions, absl::Time started) {
  if (observer_ == nullptr) return absl::OkStatus();
  TellEvaluationLimits(observer_, call, decisions);
  // Each decision of a batch waited as long as the whole batch: that is its latency.
  const absl::Duration latency = ElapsedSince(clock_, started);
  for (size_t i = 0; i < checks.size(); ++i) {
    absl::Status recorded = observer_->OnDecision(checks[i], decisions[i], latency);
    if (!recorded.ok()) {
      // A call is answered whole or not at all: none of its decisions goes out.
      observer_->OnWithheld(call, checks.size());
      return recorded;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<LeftToDo> Authorizer::PlanAndTell(absl::string_view call, Checks& checks,
                                                 Venue venue, absl::Time started,
                                                 const ShouldStop& should_stop,
                                                 absl::Span<Decision> decisions) {
  OncePerCall access_tokens(access_tokens_, clock_);
  absl::StatusOr<LeftToDo> left = Plan(checks, venue, access_tokens.get(), should_stop, decisions);
  if (left.ok() && *left == LeftToDo::kNothing) {
    absl::Status told = Tell(call, checks, decisions, started);
    if (!told.ok()) return told;
  }
  return left;
}

absl::Status Authorizer::FinishAndTell(absl::string_view call, Checks& checks, LeftToDo left,
                                       absl::Time started, const ShouldStop& should_stop,
                                       absl::Span<Decision> decisions) {
  // One authentication for the plan and the commit: a DPoP proof is spent once.
  OncePerCall access_tokens(access_tokens_, clock_);
  if (left == LeftToDo::kDecide) {
    absl::StatusOr<LeftToDo> planned =
        Plan(checks, Venue::kWorker, access_tokens.get(), should_stop, decisions);
    if (!planned.ok()) return planned.status();
    left = *planned;
  }
  if (left == LeftToDo::kCommit) {
    absl::Status committed = Commit(checks, access_tokens.get(), should_stop, decisions);
    if (!committed.ok()) return committed;
  }
  return Tell(call, checks, decisions, started);
}

absl::StatusOr<Decision> Authorizer::Authorize(const Request& request,
                                               const ShouldStop& should_stop) {
  const absl::Time started = clock_();
  Checks checks(request);
  if (absl::Status valid = checks.Validate(); !valid.ok()) return valid;
  Decision decision;
  absl::Status decided = FinishAndTell("Authorize", checks, LeftToDo::kDecide, started, should_stop,
                                       absl::MakeSpan(&decision, 1));
  if (!decided.ok()) return decided;
  return decision;
}

absl::StatusOr<Planned<Decision>> Authorizer::PlanAuthorize(const Request& request, Venue venue,
                                                            const ShouldStop& should_stop) {
  Planned<Decision> plan;
  plan.started = clock_();
  Checks checks(request);
  if (absl::Status valid = checks.Validate(); !valid.ok()) return valid;
  absl::StatusOr<LeftToDo> left = PlanAndTell("Authorize", checks, venue, plan.started, should_stop,
                                              absl::MakeSpan(&plan.answer, 1));
  if (!left.ok()) return left.status();
  plan.left = *left;
  return plan;
}

absl::StatusOr<Decision> Authorizer::FinishAuthorize(const Request& request, Planned<Decision> plan,
                                                     const ShouldStop& should_stop) {
  if (plan.done()) return std::move(plan.answer);
  Checks checks(request);
  absl::Status decided = FinishAndTell("Authorize", checks, plan.left, plan.started, should_stop,
                                       absl::MakeSpan(&plan.answer, 1));
  if (!decided.ok()) return decided;
  return std::move(plan.answer);
}

absl::StatusOr<std::vector<Decision>> Authorizer::BatchAuthorize(const BatchRequest& batch,
                                                                 const ShouldStop& should_stop) {
  const absl::Time started = clock_();
  Checks checks(batch);
  if (absl::Status valid = checks.Validate(); !valid.ok()) return valid;
  std::vector<Decision> decisions(checks.size());
  absl::Status decided = FinishAndTell("BatchAuthorize", checks, LeftToDo::kDecide, started,
                                       should_stop, absl::MakeSpan(decisions));
  if (!decided.ok()) return decided;
  return decisions;
}

absl::StatusOr<Planned<std::vector<Decision>>> Authorizer::PlanBatchAuthorize(
    const BatchRequest& batch, Venue venue, const ShouldStop& should_stop) {
  Planned<std::vector<Decision>> plan;
  plan.started = clock_();
  Checks checks(batch);
  if (absl::Status valid = checks.Validate(); !valid.ok()) return valid;
  plan.answer.resize(checks.size());
  absl::StatusOr<LeftToDo> left = PlanAndTell("BatchAuthorize", checks, venue, plan.started,
                                              should_stop, absl::MakeSpan(plan.answer));
  if (!left.ok()) return left.status();
  plan.left = *left;
  if (!plan.done()) plan.answer.clear();
  return plan;
}

absl::StatusOr<std::vector<Decision>> Authorizer::FinishBatchAuthorize(
    const BatchRequest& batch, Planned<std::vector<Decision>> plan, const ShouldStop& should_stop) {
  if (plan.done()) return std::move(plan.answer);
  Checks checks(batch);
  plan.answer.resize(checks.size());
  absl::Status decided = FinishAndTell("BatchAuthorize", checks, plan.left, plan.started,
                                       should_stop, absl::MakeSpan(plan.answer));
  if (!decided.ok()) return decided;
  return std::move(plan.answer);
}

absl::StatusOr<TokenValidation> Authorizer::ValidateToken(absl::string_view token,
                                                          const DpopEvidence& dpop,
                                                          const ShouldStop& should_stop,
                                                          bool list_permissions) {
  absl::StatusOr<Planned<TokenValidation>> plan =
      PlanValidateToken(token, dpop, list_permissions, Venue::kWorker, should_stop);
  if (!plan.ok()) return plan.status();
  return std::move(plan->answer);  // on a worker, nothing is left
}

absl::StatusOr<TokenValidation> Authorizer::FinishValidateToken(absl::string_view token,
                                                                const DpopEvidence& dpop,
                                                                bool list_permissions,
                                                                Planned<TokenValidation> plan,
                                                                const ShouldStop& should_stop) {
  if (plan.done()) return std::move(plan.answer);
  return ValidateToken(token, dpop, should_stop, list_permissions);
}

absl::StatusOr<Planned<TokenValidation>> Authorizer::PlanValidateToken(
    absl::string_view token, const DpopEvidence& dpop, bool list_permissions, Venue venue,
    const ShouldStop& should_stop) {
  Planned<TokenValidation> plan;
  if (venue == Venue::kInline && SpendsAProof(token, dpop)) {
    plan.left = LeftToDo::kDecide;
    return plan;
  }
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store_.BeginRead();
  if (!snapshot.ok()) return snapshot.status();
  const absl::Time now = clock_();
  absl::StatusOr<SubjectResolution> resolution =
      ResolveToken(token, dpop, **snapshot, now, access_tokens_);
  if (!resolution.ok()) return resolution.status();

  TokenValidation& validation = plan.answer;
  validation.reason = resolution->reason;
  validation.message = resolution->message;
  if (!resolution->agent) return plan;
  if (list_permissions) {
    const int64_t steps = StepsAt(venue);
    DecisionBudget budget(steps, should_stop);
    absl::StatusOr<std::vector<EffectivePermission>> permissions =
        EffectivePermissions(*resolution->agent, **snapshot, now, &budget);
    if (!permissions.ok() && budget.exhausted()) {
      if (steps < limits_.max_decision_steps) {
        plan.left = LeftToDo::kDecide;  // over the inline budget: listed on a worker
        plan.answer = TokenValidation();
        return plan;
      }
      // Fail closed: a token whose rights cannot be told is not vouched for.
      if (observer_) observer_->OnEvaluationLimit("ValidateToken");
      validation.reason = ReasonCode::kEvaluationLimit;
      validation.message = std::string(permissions.status().message());
      return plan;
    }
    if (!permissions.ok()) return permissions.status();
    validation.permissions = *std::move(permissions);
    validation.permissions_truncated = CutToListedLength(validation.permissions);
  }
  validation.valid = true;
  validation.message = absl::StrCat("token of agent ", resolution->agent->id);
  validation.agent = *resolution->agent;  // the view's: copied before the snapshot ends
  return plan;
}

absl::StatusOr<HeldPermissions> Authorizer::EffectivePermissionsOf(absl::string_view agent_id,
                                                                   const ShouldStop& should_stop) {
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store_.BeginRead();
  if (!snapshot.ok()) return snapshot.status();
  const absl::Time now = clock_();
  absl::StatusOr<std::optional<Agent>> agent = (*snapshot)->FindAgent(agent_id);
  if (!agent.ok()) return agent.status();
  if (!agent->has_value()) {
    return absl::NotFoundError(absl::StrCat("agent ", agent_id, " does not exist"));
  }
  HeldPermissions held;
  held.agent = **std::move(agent);
  held.liveness = LivenessOf(held.agent, now);
  if (held.liveness != ReasonCode::kAllowed) return held;
  DecisionBudget budget(limits_.max_decision_steps, should_stop);
  absl::StatusOr<std::vector<EffectivePermission>> permissions =
      EffectivePermissions(held.agent, **snapshot, now, &budget);
  if (!permissions.ok()) {
    if (budget.exhausted() && observer_) observer_->OnEvaluationLimit("EffectivePermissionsOf");
    return permissions.status();
  }
  held.permissions = *std::move(permissions);
  held.permissions_truncated = CutToListedLength(held.permissions);
  return held;
}

absl::StatusOr<Simulation> Authorizer::Simulate(const Request& request, const WhatIf& what_if,
                                                const ShouldStop& should_stop) {
  // The request as sent must be well-formed, whatever the what-if replaces in it.
  absl::Status valid = InField("request", ValidateRequest(request));
  if (valid.ok()) valid = ValidateWhatIf(what_if);
  if (!valid.ok()) return valid;
  Request simulated = request;
  if (what_if.client_ip) simulated.client_ip = *what_if.client_ip;

  absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store_.BeginRead();
  if (!snapshot.ok()) return snapshot.status();
  const absl::Time presented_at = clock_();
  const absl::Time now = what_if.at.value_or(presented_at);
  // The what-if permissions belong to the subject, whom a token names only through the store.
  OncePerCall authenticator(access_tokens_, clock_);
  std::string subject_id = request.subject.agent_id;
  if (subject_id.empty()) {
    absl::StatusOr<SubjectResolution> resolution =
        ResolveSubject(request.subject, **snapshot, presented_at, authenticator.get());
    if (!resolution.ok()) return resolution.status();
    subject_id = std::string(resolution->agent_id);
  }
  WhatIfView view(**snapshot, what_if, subject_id, presented_at);
  Simulation simulation;
  DecisionBudget budget(limits_.max_decision_steps, should_stop);
  absl::StatusOr<Decision> decision =
      Decide(simulated, view, now, &simulation.trace, authenticator.get(), &budget);
  if (!decision.ok()) return decision.status();
  if (decision->reason == ReasonCode::kEvaluationLimit && observer_) {
    observer_->OnEvaluationLimit("Simulate");
  }
  // As Authorize would answer: past the cap, no request would be opened.
  absl::Status capped = CapPendingApprovals(view, max_pending_approvals_, now, *decision);
  if (!capped.ok()) return capped;
  simulation.decision = *std::move(decision);
  simulation.decision.side_effects = SideEffects();
  return simulation;
}

}  // namespace verdict
