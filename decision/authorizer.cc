#include "decision/authorizer.h"

#include <algorithm>
#include <memory>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "decision/constraints.h"
#include "decision/new_grant_rules.h"
#include "decision/request_validation.h"
#include "decision/resource_match.h"
#include "decision/what_if_view.h"

namespace verdict {
namespace {

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
// opened, or used, goes into the decision (and so into the decision log: an ALLOW names the
// approval its approvers gave).
absl::Status ApplySideEffects(WriteTransaction& transaction, Decision& decision, absl::Time now) {
  const SideEffects& effects = decision.side_effects;
  for (const RateSpend& spend : effects.rate_spends) {
    absl::Status spent = transaction.SpendRate(spend);
    if (!spent.ok()) return spent;
  }
  if (effects.approval_to_use) {
    absl::Status used = transaction.UseApproval(*effects.approval_to_use, now);
    if (!used.ok()) return used;
    decision.approval_request_id = *effects.approval_to_use;
  }
  if (effects.approval_to_open) {
    absl::StatusOr<std::string> opened = transaction.OpenApproval(*effects.approval_to_open, now);
    if (!opened.ok()) return opened.status();
    decision.approval_request_id = *std::move(opened);
  }
  return absl::OkStatus();
}

// Decides every request in one snapshot, into decisions[i] (as many as requests), each with a
// budget of its own. When any decision needs writes, all of them are decided again inside one
// write transaction, each after the writes of those before it, so two calls racing for the last
// rate slot or the same approval can never both win. A decision that would open an approval
// request past the agent's cap opens none (decision/pending_approvals.h): in the snapshot
// already, so that a caller kept at the cap costs no write transaction, and again in the write
// transaction, which counts the requests of every racing call.
absl::Status DecideAndApply(PolicyStore& store, const Clock& clock,
                            AccessTokenAuthenticator* access_tokens, const DecisionLimits& limits,
                            int64_t max_pending_approvals,
                            const DecisionBudget::ShouldStop& should_stop,
                            absl::Span<const Request> requests, absl::Span<Decision> decisions) {
  OncePerCall authenticator(access_tokens, clock);
  DecisionBudget budget(limits.max_decision_steps, should_stop);
  // A decision over budget is EVALUATION_LIMIT, or the attempt gives way (limits.over_budget).
  auto decide = [&](const Request& request, PolicyView& view,
                    absl::Time now) -> absl::StatusOr<Decision> {
    budget.Reset();
    absl::StatusOr<Decision> decision =
        Decide(request, view, now, nullptr, authenticator.get(), &budget);
    if (decision.ok() && decision->reason == ReasonCode::kEvaluationLimit && limits.over_budget) {
      return limits.over_budget();
    }
    return decision;
  };
  bool needs_writes = false;
  {
    absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store.BeginRead();
    if (!snapshot.ok()) return snapshot.status();
    const absl::Time now = clock();
    for (size_t i = 0; i < requests.size(); ++i) {
      absl::StatusOr<Decision> decision = decide(requests[i], **snapshot, now);
      if (!decision.ok()) return decision.status();
      absl::Status capped = CapPendingApprovals(**snapshot, max_pending_approvals, now, *decision);
      if (!capped.ok()) return capped;
      needs_writes = needs_writes || !decision->side_effects.empty();
      decisions[i] = *std::move(decision);
    }
  }  // The snapshot ends before the write begins: one connection never holds both.
  if (!needs_writes) return absl::OkStatus();

  absl::StatusOr<std::unique_ptr<WriteTransaction>> transaction = store.BeginWrite();
  if (!transaction.ok()) return transaction.status();
  const absl::Time now = clock();
  for (size_t i = 0; i < requests.size(); ++i) {
    absl::StatusOr<Decision> decision = decide(requests[i], **transaction, now);
    if (!decision.ok()) return decision.status();
    absl::Status capped = CapPendingApprovals(**transaction, max_pending_approvals, now, *decision);
    if (!capped.ok()) return capped;
    absl::Status applied = ApplySideEffects(**transaction, *decision, now);
    if (!applied.ok()) return applied;
    decisions[i] = *std::move(decision);
  }
  return (*transaction)->Commit();
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

Authorizer::Authorizer(PolicyStore& store, Clock clock, DecisionObserver* observer,
                       AccessTokenAuthenticator* access_tokens, DecisionLimits limits)
    : store_(store),
      clock_(std::move(clock)),
      observer_(observer),
      access_tokens_(access_tokens),
      limits_(std::move(limits)) {}

absl::Status Authorizer::OverBudget(absl::string_view call) {
  if (limits_.over_budget) return limits_.over_budget();
  if (observer_) observer_->OnEvaluationLimit(call);
  return absl::OkStatus();
}

absl::StatusOr<Decision> Authorizer::Authorize(const Request& request,
                                               const DecisionBudget::ShouldStop& should_stop) {
  const absl::Time start = clock_();
  absl::Status valid = ValidateRequest(request);
  if (!valid.ok()) return valid;
  Decision decision;
  absl::Status decided =
      DecideAndApply(store_, clock_, access_tokens_, limits_, max_pending_approvals_, should_stop,
                     absl::MakeConstSpan(&request, 1), absl::MakeSpan(&decision, 1));
  if (!decided.ok()) return decided;
  TellEvaluationLimits(observer_, "Authorize", absl::MakeConstSpan(&decision, 1));
  if (observer_) observer_->OnDecision(request, decision, ElapsedSince(clock_, start));
  return decision;
}

absl::StatusOr<std::vector<Decision>> Authorizer::BatchAuthorize(
    const std::vector<Request>& requests, const DecisionBudget::ShouldStop& should_stop) {
  const absl::Time start = clock_();
  // Named as BatchAuthorizeRequest names them: one subject and context, `checks`. A batch of
  // none is refused: it would answer without reading its subject at all.
  if (requests.empty() || requests.size() > kMaxBatchSize) {
    return absl::InvalidArgumentError(absl::StrCat("checks: a batch holds 1 to ", kMaxBatchSize,
                                                   " checks, not ", requests.size()));
  }
  // The subject and context once, by their own names; then each check's own fields. Request ids
  // may differ (each check's decision is logged under its own).
  if (absl::Status valid = ValidateSharedFields(requests[0]); !valid.ok()) return valid;
  const Request& first = requests[0];
  for (size_t i = 0; i < requests.size(); ++i) {
    const std::string field = absl::StrCat("checks[", i, "]");
    absl::Status valid = InField(field, ValidateCheckFields(requests[i]));
    // A check's subject and client_ip must equal checks[0]'s (below), which are valid: only a
    // request id of its own needs checking again.
    if (valid.ok() && i > 0 && requests[i].request_id != first.request_id) {
      valid = InField(field, ValidateSharedFields(requests[i]));
    }
    if (!valid.ok()) return valid;
    const Request& check = requests[i];
    const Subject& subject = check.subject;
    if (subject.agent_id != first.subject.agent_id || subject.token != first.subject.token ||
        subject.dpop.proof != first.subject.dpop.proof ||
        subject.dpop.http_method != first.subject.dpop.http_method ||
        subject.dpop.http_uri != first.subject.dpop.http_uri ||
        check.client_ip != first.client_ip) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ": its subject or client_ip differs from checks[0]'s; a batch has one of each"));
    }
  }
  std::vector<Decision> decisions(requests.size());
  absl::Status decided =
      DecideAndApply(store_, clock_, access_tokens_, limits_, max_pending_approvals_, should_stop,
                     requests, absl::MakeSpan(decisions));
  if (!decided.ok()) return decided;
  TellEvaluationLimits(observer_, "BatchAuthorize", decisions);
  if (observer_) {
    // Each decision of the batch waited as long as the whole batch: that is its latency.
    const absl::Duration latency = ElapsedSince(clock_, start);
    for (size_t i = 0; i < requests.size(); ++i) {
      observer_->OnDecision(requests[i], decisions[i], latency);
    }
  }
  return decisions;
}

absl::StatusOr<TokenValidation> Authorizer::ValidateToken(
    absl::string_view token, const DpopEvidence& dpop,
    const DecisionBudget::ShouldStop& should_stop, bool list_permissions) {
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store_.BeginRead();
  if (!snapshot.ok()) return snapshot.status();
  const absl::Time now = clock_();
  Subject subject;
  subject.token = std::string(token);
  subject.dpop = dpop;
  absl::StatusOr<SubjectResolution> resolution =
      ResolveSubject(subject, **snapshot, now, access_tokens_);
  if (!resolution.ok()) return resolution.status();

  TokenValidation validation;
  validation.reason = resolution->reason;
  validation.message = resolution->message;
  if (!resolution->agent) return validation;
  if (list_permissions) {
    DecisionBudget budget(limits_.max_decision_steps, should_stop);
    absl::StatusOr<std::vector<EffectivePermission>> permissions =
        EffectivePermissions(*resolution->agent, **snapshot, now, &budget);
    if (!permissions.ok() && budget.exhausted()) {
      // Fail closed: a token whose rights cannot be told is not vouched for.
      if (absl::Status status = OverBudget("ValidateToken"); !status.ok()) return status;
      validation.reason = ReasonCode::kEvaluationLimit;
      validation.message = std::string(permissions.status().message());
      return validation;
    }
    if (!permissions.ok()) return permissions.status();
    validation.permissions = *std::move(permissions);
    if (validation.permissions.size() > kMaxListedPermissions) {
      validation.permissions.resize(kMaxListedPermissions);
      validation.permissions_truncated = true;
    }
  }
  validation.valid = true;
  validation.message = absl::StrCat("token of agent ", resolution->agent->id);
  validation.agent = *std::move(resolution->agent);
  return validation;
}

absl::StatusOr<Simulation> Authorizer::Simulate(const Request& request, const WhatIf& what_if,
                                                const DecisionBudget::ShouldStop& should_stop) {
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
    subject_id = resolution->agent_id;
  }
  WhatIfView view(**snapshot, what_if, subject_id, presented_at);
  Simulation simulation;
  DecisionBudget budget(limits_.max_decision_steps, should_stop);
  absl::StatusOr<Decision> decision =
      Decide(simulated, view, now, &simulation.trace, authenticator.get(), &budget);
  if (!decision.ok()) return decision.status();
  if (decision->reason == ReasonCode::kEvaluationLimit) {
    if (absl::Status status = OverBudget("Simulate"); !status.ok()) return status;
  }
  // As Authorize would answer: past the cap, no request would be opened.
  absl::Status capped = CapPendingApprovals(view, max_pending_approvals_, now, *decision);
  if (!capped.ok()) return capped;
  simulation.decision = *std::move(decision);
  simulation.decision.side_effects = SideEffects();
  return simulation;
}

}  // namespace verdict
