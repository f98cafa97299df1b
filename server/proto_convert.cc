#include "server/proto_convert.h"

#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "decision/constraints.h"
#include "decision/engine.h"
#include "decision/request_validation.h"
#include "decision/resource_match.h"
#include "server/agent_text_proto.h"

namespace verdict {
namespace {

// The range google.protobuf.Timestamp allows: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
constexpr int64_t kMinTimestampSeconds = -62135596800;
constexpr int64_t kMaxTimestampSeconds = 253402300799;
constexpr int32_t kNanosPerSecond = 1000000000;

// Puts the field's path in front of a nested error, so the caller learns where it is.
absl::Status InvalidField(absl::string_view field, const absl::Status& cause) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", cause.message()));
}

absl::Status CheckListSize(absl::string_view field, int size) {
  if (size > static_cast<int>(kMaxWhatIfEntries)) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": at most ", kMaxWhatIfEntries, " entries (got ", size, ")"));
  }
  return absl::OkStatus();
}

// --- Wire to engine --------------------------------------------------------------------------

// An unset subject message reads as one with neither kind set.
absl::StatusOr<Subject> SubjectFromProto(const v1::Subject& proto) {
  Subject subject;
  switch (proto.kind_case()) {
    case v1::Subject::kAgentId:
      subject.agent_id = proto.agent_id();
      return subject;
    case v1::Subject::kToken:
      subject.token = proto.token();
      return subject;
    case v1::Subject::KIND_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError("subject: required (an agent_id or a token)");
}

void ContextInto(const v1::RequestContext& context, Request* request) {
  request->client_ip = context.client_ip();
  request->arguments_json = context.arguments_json();
  request->request_id = context.request_id();
  request->subject.dpop =
      DpopEvidence{context.dpop_proof(), context.http_method(), context.http_uri()};
}

// The parts of a PermissionSpec that a permission and a lent permission share.
absl::Status CheckGrantSpec(absl::string_view field, const v1::PermissionSpec& spec) {
  if (absl::Status status = ValidateResourcePattern(spec.resource()); !status.ok()) {
    return InvalidField(absl::StrCat(field, ".resource"), status);
  }
  if (spec.actions().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(field, ".actions: at least one is required"));
  }
  for (int i = 0; i < spec.actions_size(); ++i) {
    if (absl::Status status = ValidateActionName(spec.actions(i)); !status.ok()) {
      return InvalidField(absl::StrCat(field, ".actions[", i, "]"), status);
    }
  }
  if (!spec.constraints_json().empty()) {
    if (absl::StatusOr<Constraints> parsed = ParseConstraints(spec.constraints_json());
        !parsed.ok()) {
      return InvalidField(absl::StrCat(field, ".constraints_json"), parsed.status());
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Permission> PermissionFromSpec(absl::string_view field,
                                              const v1::PermissionSpec& spec) {
  if (absl::Status status = CheckGrantSpec(field, spec); !status.ok()) return status;
  absl::StatusOr<Effect> effect = EffectFromProto(spec.effect());
  if (!effect.ok()) return InvalidField(absl::StrCat(field, ".effect"), effect.status());
  Permission permission;
  permission.resource = spec.resource();
  permission.actions.assign(spec.actions().begin(), spec.actions().end());
  permission.effect = *effect;
  permission.constraints_json = spec.constraints_json();
  return permission;
}

absl::StatusOr<LentPermission> LentPermissionFromSpec(absl::string_view field,
                                                      const v1::PermissionSpec& spec) {
  if (absl::Status status = CheckGrantSpec(field, spec); !status.ok()) return status;
  // A delegation lends rights; there is no lending a deny. Unset means the allow it lends.
  if (spec.effect() != v1::EFFECT_UNSPECIFIED) {
    absl::StatusOr<Effect> effect = EffectFromProto(spec.effect());
    if (!effect.ok()) return InvalidField(absl::StrCat(field, ".effect"), effect.status());
    if (*effect != Effect::kAllow) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".effect: a delegation lends allow permissions only"));
    }
  }
  LentPermission lent;
  lent.resource = spec.resource();
  lent.actions.assign(spec.actions().begin(), spec.actions().end());
  lent.constraints_json = spec.constraints_json();
  return lent;
}

absl::StatusOr<Delegation> DelegationFromSpec(absl::string_view field,
                                              const v1::DelegationSpec& spec) {
  if (spec.from_agent_id().empty() || spec.to_agent_id().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": from_agent_id and to_agent_id are required"));
  }
  if (spec.permissions().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".permissions: at least one is required"));
  }
  if (absl::Status status =
          CheckListSize(absl::StrCat(field, ".permissions"), spec.permissions_size());
      !status.ok()) {
    return status;
  }
  if (spec.max_depth() > static_cast<uint32_t>(kMaxDelegationDepth)) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ".max_depth: at most ", kMaxDelegationDepth, " (got ", spec.max_depth(), ")"));
  }
  Delegation delegation;
  delegation.from_agent_id = spec.from_agent_id();
  delegation.to_agent_id = spec.to_agent_id();
  // proto3 cannot tell 0 from unset; a link usable on no path at all would be pointless.
  delegation.max_depth = spec.max_depth() == 0 ? 1 : static_cast<int>(spec.max_depth());
  if (spec.has_expires_at()) {
    absl::StatusOr<absl::Time> expires_at = TimeFromProto(spec.expires_at());
    if (!expires_at.ok()) {
      return InvalidField(absl::StrCat(field, ".expires_at"), expires_at.status());
    }
    delegation.expires_at = *expires_at;
  }
  for (int i = 0; i < spec.permissions_size(); ++i) {
    absl::StatusOr<LentPermission> lent =
        LentPermissionFromSpec(absl::StrCat(field, ".permissions[", i, "]"), spec.permissions(i));
    if (!lent.ok()) return lent.status();
    delegation.permissions.push_back(*std::move(lent));
  }
  return delegation;
}

// --- Engine to wire --------------------------------------------------------------------------

v1::Verdict VerdictToProto(Verdict verdict) {
  switch (verdict) {
    case Verdict::kAllow:
      return v1::VERDICT_ALLOW;
    case Verdict::kDeny:
      return v1::VERDICT_DENY;
    case Verdict::kNeedsApproval:
      return v1::VERDICT_NEEDS_APPROVAL;
  }
  return v1::VERDICT_UNSPECIFIED;
}

}  // namespace

v1::ReasonCode ReasonToProto(ReasonCode reason) {
  switch (reason) {
    case ReasonCode::kAllowed:
      return v1::REASON_CODE_ALLOWED;
    case ReasonCode::kAgentNotFound:
      return v1::REASON_CODE_AGENT_NOT_FOUND;
    case ReasonCode::kAgentSuspended:
      return v1::REASON_CODE_AGENT_SUSPENDED;
    case ReasonCode::kAgentRevoked:
      return v1::REASON_CODE_AGENT_REVOKED;
    case ReasonCode::kAgentExpired:
      return v1::REASON_CODE_AGENT_EXPIRED;
    case ReasonCode::kTokenInvalid:
      return v1::REASON_CODE_TOKEN_INVALID;
    case ReasonCode::kDeniedByPolicy:
      return v1::REASON_CODE_DENIED_BY_POLICY;
    case ReasonCode::kNoMatchingPermission:
      return v1::REASON_CODE_NO_MATCHING_PERMISSION;
    case ReasonCode::kOutsideTimeWindow:
      return v1::REASON_CODE_OUTSIDE_TIME_WINDOW;
    case ReasonCode::kIpNotAllowed:
      return v1::REASON_CODE_IP_NOT_ALLOWED;
    case ReasonCode::kArgumentsRejected:
      return v1::REASON_CODE_ARGUMENTS_REJECTED;
    case ReasonCode::kApprovalRequired:
      return v1::REASON_CODE_APPROVAL_REQUIRED;
    case ReasonCode::kApprovalDenied:
      return v1::REASON_CODE_APPROVAL_DENIED;
    case ReasonCode::kRateLimited:
      return v1::REASON_CODE_RATE_LIMITED;
    case ReasonCode::kEvaluationLimit:
      return v1::REASON_CODE_EVALUATION_LIMIT;
    case ReasonCode::kTooManyPendingApprovals:
      return v1::REASON_CODE_TOO_MANY_PENDING_APPROVALS;
  }
  return v1::REASON_CODE_UNSPECIFIED;
}

namespace {

v1::AgentKind KindToProto(AgentKind kind) {
  switch (kind) {
    case AgentKind::kAutonomous:
      return v1::AGENT_KIND_AUTONOMOUS;
    case AgentKind::kDelegated:
      return v1::AGENT_KIND_DELEGATED;
    case AgentKind::kService:
      return v1::AGENT_KIND_SERVICE;
  }
  return v1::AGENT_KIND_UNSPECIFIED;
}

v1::AgentStatus StatusToProto(AgentStatus status) {
  switch (status) {
    case AgentStatus::kActive:
      return v1::AGENT_STATUS_ACTIVE;
    case AgentStatus::kSuspended:
      return v1::AGENT_STATUS_SUSPENDED;
    case AgentStatus::kRevoked:
      return v1::AGENT_STATUS_REVOKED;
  }
  return v1::AGENT_STATUS_UNSPECIFIED;
}

void GrantToProto(const Grant& grant, v1::Grant* proto) {
  proto->set_permission_id(grant.permission_id);
  proto->set_owner_agent_id(grant.owner_agent_id);
  proto->set_resource(grant.resource);
  proto->mutable_actions()->Assign(grant.actions.begin(), grant.actions.end());
  proto->set_effect(EffectToProto(grant.effect));
  // The decision port's callers see the rules, not the secrets a rule compares against.
  proto->set_constraints_json(ConstraintsForCaller(grant.constraints_json));
}

void TraceToProto(const Trace& trace, v1::Trace* proto) {
  for (const TraceStage& stage : trace.stages) {
    v1::TraceStage* wire_stage = proto->add_stages();
    wire_stage->set_name(stage.name);
    wire_stage->set_passed(stage.passed);
    wire_stage->set_detail(stage.detail);
  }
  for (const GrantTrial& trial : trace.grants) {
    v1::GrantTrial* wire_trial = proto->add_grants();
    GrantToProto(trial.grant, wire_trial->mutable_grant());
    HopsToProto(trial.path, wire_trial->mutable_path());
    wire_trial->set_resource_matched(trial.resource_matched);
    wire_trial->set_action_matched(trial.action_matched);
    wire_trial->set_outcome(ReasonToProto(trial.outcome));
    wire_trial->set_detail(trial.detail);
  }
}

}  // namespace

absl::StatusOr<Request> RequestFromProto(const v1::AuthorizeRequest& proto) {
  absl::StatusOr<Subject> subject = SubjectFromProto(proto.subject());
  if (!subject.ok()) return subject.status();
  Request request;
  request.subject = *std::move(subject);
  request.action = proto.action();
  request.resource = proto.resource();
  ContextInto(proto.context(), &request);
  return request;
}

DpopEvidence DpopEvidenceFromProto(const v1::ValidateTokenRequest& proto) {
  return DpopEvidence{proto.dpop_proof(), proto.http_method(), proto.http_uri()};
}

absl::StatusOr<BatchRequest> BatchRequestFromProto(const v1::BatchAuthorizeRequest& proto) {
  absl::StatusOr<Subject> subject = SubjectFromProto(proto.subject());
  if (!subject.ok()) return subject.status();
  Request context;
  ContextInto(proto.context(), &context);
  // A check's own arguments replace the context's before the engine sees them: the context's
  // must be well-formed all the same, and are named as the wire names them.
  if (absl::Status arguments = ValidateArguments(context.arguments_json); !arguments.ok()) {
    return InvalidField("context", arguments);
  }
  BatchRequest batch;
  batch.subject = *std::move(subject);
  batch.subject.dpop = std::move(context.subject.dpop);
  batch.client_ip = std::move(context.client_ip);
  batch.arguments_json = std::move(context.arguments_json);
  batch.request_id = std::move(context.request_id);
  batch.checks.reserve(proto.checks_size());
  for (const v1::BatchCheck& check : proto.checks()) {
    batch.checks.push_back({check.action(), check.resource(), check.arguments_json()});
  }
  return batch;
}

absl::StatusOr<WhatIf> WhatIfFromProto(const v1::WhatIf& proto) {
  WhatIf what_if;
  if (proto.has_at()) {
    absl::StatusOr<absl::Time> at = TimeFromProto(proto.at());
    if (!at.ok()) return InvalidField("what_if.at", at.status());
    what_if.at = *at;
  }
  if (!proto.client_ip().empty()) {
    if (!ParseIpAddress(proto.client_ip()).ok()) {
      return absl::InvalidArgumentError("what_if.client_ip: not an IPv4 or IPv6 address");
    }
    what_if.client_ip = proto.client_ip();
  }
  for (const auto& [field, size] :
       {std::pair<absl::string_view, int>{"what_if.extra_permissions",
                                          proto.extra_permissions_size()},
        {"what_if.extra_delegations", proto.extra_delegations_size()},
        {"what_if.removed_delegation_ids", proto.removed_delegation_ids_size()}}) {
    if (absl::Status status = CheckListSize(field, size); !status.ok()) return status;
  }
  for (int i = 0; i < proto.extra_permissions_size(); ++i) {
    absl::StatusOr<Permission> permission = PermissionFromSpec(
        absl::StrCat("what_if.extra_permissions[", i, "]"), proto.extra_permissions(i));
    if (!permission.ok()) return permission.status();
    what_if.extra_permissions.push_back(*std::move(permission));
  }
  for (int i = 0; i < proto.extra_delegations_size(); ++i) {
    absl::StatusOr<Delegation> delegation = DelegationFromSpec(
        absl::StrCat("what_if.extra_delegations[", i, "]"), proto.extra_delegations(i));
    if (!delegation.ok()) return delegation.status();
    what_if.extra_delegations.push_back(*std::move(delegation));
  }
  what_if.removed_delegation_ids.assign(proto.removed_delegation_ids().begin(),
                                        proto.removed_delegation_ids().end());
  return what_if;
}

void DecisionToProto(const Decision& decision, v1::AuthorizeResponse* proto) {
  proto->set_verdict(VerdictToProto(decision.verdict));
  proto->set_reason(ReasonToProto(decision.reason));
  proto->set_message(decision.message);
  proto->set_agent_id(decision.agent_id);
  if (decision.matched_grant) GrantToProto(*decision.matched_grant, proto->mutable_matched_grant());
  HopsToProto(decision.delegation_path, proto->mutable_delegation_path());
  proto->set_approval_request_id(decision.approval_request_id);
  proto->set_request_id(decision.request_id);
}

void TokenValidationToProto(const TokenValidation& validation, v1::ValidateTokenResponse* proto) {
  proto->set_valid(validation.valid);
  proto->set_reason(ReasonToProto(validation.reason));
  proto->set_message(validation.message);
  if (validation.agent) AgentToProto(*validation.agent, proto->mutable_agent());
  for (const EffectivePermission& permission : validation.permissions) {
    EffectivePermissionToProto(permission, proto->add_permissions());
  }
  proto->set_permissions_truncated(validation.permissions_truncated);
}

void EffectivePermissionToProto(const EffectivePermission& permission,
                                v1::EffectivePermission* proto) {
  GrantToProto(permission.grant, proto->mutable_grant());
  HopsToProto(permission.via, proto->mutable_via());
  for (const Grant& grant : permission.within) GrantToProto(grant, proto->add_within());
  for (const Grant& grant : permission.excluded_by) GrantToProto(grant, proto->add_excluded_by());
}

void SimulationToProto(const Simulation& simulation, v1::SimulateResponse* proto) {
  DecisionToProto(simulation.decision, proto->mutable_decision());
  TraceToProto(simulation.trace, proto->mutable_trace());
}

absl::StatusOr<Effect> EffectFromProto(v1::Effect proto) {
  switch (proto) {
    case v1::EFFECT_ALLOW:
      return Effect::kAllow;
    case v1::EFFECT_DENY:
      return Effect::kDeny;
    case v1::EFFECT_UNSPECIFIED:
      return absl::InvalidArgumentError("required (EFFECT_ALLOW or EFFECT_DENY)");
    default:
      return absl::InvalidArgumentError(absl::StrCat("unknown effect ", proto));
  }
}

v1::Effect EffectToProto(Effect effect) {
  switch (effect) {
    case Effect::kAllow:
      return v1::EFFECT_ALLOW;
    case Effect::kDeny:
      return v1::EFFECT_DENY;
  }
  return v1::EFFECT_UNSPECIFIED;
}

void HopsToProto(const std::vector<DelegationHop>& hops,
                 google::protobuf::RepeatedPtrField<v1::DelegationHop>* proto) {
  proto->Reserve(static_cast<int>(hops.size()));
  for (const DelegationHop& hop : hops) {
    v1::DelegationHop* wire_hop = proto->Add();
    wire_hop->set_delegation_id(hop.delegation_id);
    wire_hop->set_from_agent_id(hop.from_agent_id);
    wire_hop->set_to_agent_id(hop.to_agent_id);
  }
}

void AgentToProto(const Agent& agent, v1::Agent* proto) {
  proto->set_id(agent.id);
  proto->set_owner(agent.owner);
  proto->set_name(agent.name);
  AgentTextsToProto(agent, *proto);
  proto->set_kind(KindToProto(agent.kind));
  proto->set_status(StatusToProto(agent.status));
  proto->set_token_prefix(agent.token_prefix);
  SetTimeIfRepresentable(agent.expires_at, [proto] { return proto->mutable_expires_at(); });
  SetTimeIfRepresentable(agent.created_at, [proto] { return proto->mutable_created_at(); });
  SetTimeIfRepresentable(agent.updated_at, [proto] { return proto->mutable_updated_at(); });
}

absl::StatusOr<absl::Time> TimeFromProto(const google::protobuf::Timestamp& proto) {
  if (proto.seconds() < kMinTimestampSeconds || proto.seconds() > kMaxTimestampSeconds) {
    return absl::InvalidArgumentError(
        absl::StrCat("seconds ", proto.seconds(), " outside 0001-01-01..9999-12-31"));
  }
  if (proto.nanos() < 0 || proto.nanos() >= kNanosPerSecond) {
    return absl::InvalidArgumentError(
        absl::StrCat("nanos ", proto.nanos(), " outside [0, 999999999]"));
  }
  return absl::FromUnixSeconds(proto.seconds()) + absl::Nanoseconds(proto.nanos());
}

google::protobuf::Timestamp TimeToProto(absl::Time time) {
  // ToUnixSeconds rounds towards the infinite past, so the nanos are never negative.
  const int64_t seconds = absl::ToUnixSeconds(time);
  google::protobuf::Timestamp proto;
  proto.set_seconds(seconds);
  proto.set_nanos(
      static_cast<int32_t>(absl::ToInt64Nanoseconds(time - absl::FromUnixSeconds(seconds))));
  return proto;
}

bool IsRepresentable(absl::Time time) {
  return time >= absl::FromUnixSeconds(kMinTimestampSeconds) &&
         time < absl::FromUnixSeconds(kMaxTimestampSeconds + 1);
}

}  // namespace verdict
