#include "server/admin_convert.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "proto/enum_names.h"
#include "server/agent_text_proto.h"
#include "server/proto_convert.h"

namespace verdict {
namespace {

// google.protobuf.Duration's range: about 10,000 years either way.
constexpr int64_t kMaxDurationSeconds = 315576000000;
constexpr int32_t kNanosPerSecond = 1000000000;

absl::Status InvalidField(absl::string_view field, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", why));
}

// An unset timestamp means "never" (absl::InfiniteFuture()).
absl::StatusOr<absl::Time> ExpiryFromProto(absl::string_view field, bool has_value,
                                           const google::protobuf::Timestamp& proto) {
  if (!has_value) return absl::InfiniteFuture();
  absl::StatusOr<absl::Time> time = TimeFromProto(proto);
  if (!time.ok()) return InvalidField(field, time.status().message());
  return *time;
}

v1::ApprovalStatus ApprovalStatusToProto(ApprovalStatus status) {
  switch (status) {
    case ApprovalStatus::kPending:
      return v1::APPROVAL_STATUS_PENDING;
    case ApprovalStatus::kApproved:
      return v1::APPROVAL_STATUS_APPROVED;
    case ApprovalStatus::kDenied:
      return v1::APPROVAL_STATUS_DENIED;
    case ApprovalStatus::kExpired:
      return v1::APPROVAL_STATUS_EXPIRED;
    case ApprovalStatus::kUsed:
      return v1::APPROVAL_STATUS_USED;
  }
  return v1::APPROVAL_STATUS_UNSPECIFIED;
}

}  // namespace

absl::StatusOr<NewAgent> NewAgentFromProto(const v1::CreateAgentRequest& proto) {
  NewAgent agent;
  agent.owner = proto.owner();
  agent.name = proto.name();
  AgentTextsFromProto(proto, agent);
  agent.id = proto.id();
  switch (proto.kind()) {
    case v1::AGENT_KIND_UNSPECIFIED:
    case v1::AGENT_KIND_AUTONOMOUS:
      agent.kind = AgentKind::kAutonomous;
      break;
    case v1::AGENT_KIND_DELEGATED:
      agent.kind = AgentKind::kDelegated;
      break;
    case v1::AGENT_KIND_SERVICE:
      agent.kind = AgentKind::kService;
      break;
    default:
      return InvalidField("kind", absl::StrCat("unknown agent kind ", proto.kind()));
  }
  absl::StatusOr<absl::Time> expires_at =
      ExpiryFromProto("expires_at", proto.has_expires_at(), proto.expires_at());
  if (!expires_at.ok()) return expires_at.status();
  agent.expires_at = *expires_at;
  return agent;
}

absl::StatusOr<NewPermission> NewPermissionFromProto(const v1::GrantPermissionRequest& proto) {
  const v1::PermissionSpec& spec = proto.permission();
  absl::StatusOr<Effect> effect = EffectFromProto(spec.effect());
  if (!effect.ok()) return InvalidField("permission.effect", effect.status().message());
  NewPermission permission;
  permission.agent_id = proto.agent_id();
  permission.resource = spec.resource();
  permission.actions.assign(spec.actions().begin(), spec.actions().end());
  permission.effect = *effect;
  permission.constraints_json = spec.constraints_json();
  return permission;
}

absl::StatusOr<NewDelegation> NewDelegationFromProto(const v1::CreateDelegationRequest& proto) {
  const v1::DelegationSpec& spec = proto.delegation();
  NewDelegation delegation;
  delegation.from_agent_id = spec.from_agent_id();
  delegation.to_agent_id = spec.to_agent_id();
  // proto3 cannot tell 0 from unset; a link usable on no path at all would be pointless.
  delegation.max_depth =
      static_cast<int>(std::clamp<uint32_t>(spec.max_depth(), 1, std::numeric_limits<int>::max()));
  absl::StatusOr<absl::Time> expires_at =
      ExpiryFromProto("delegation.expires_at", spec.has_expires_at(), spec.expires_at());
  if (!expires_at.ok()) return expires_at.status();
  delegation.expires_at = *expires_at;
  for (int i = 0; i < spec.permissions_size(); ++i) {
    const v1::PermissionSpec& lent = spec.permissions(i);
    // A delegation lends rights; there is no lending a deny. Unset means the allow it lends.
    if (lent.effect() != v1::EFFECT_UNSPECIFIED && lent.effect() != v1::EFFECT_ALLOW) {
      return InvalidField(absl::StrCat("delegation.permissions[", i, "].effect"),
                          "a delegation lends allow permissions only");
    }
    delegation.permissions.push_back(
        {lent.resource(), {lent.actions().begin(), lent.actions().end()}, lent.constraints_json()});
  }
  return delegation;
}

namespace {

absl::StatusOr<absl::Duration> NonNegativeDurationFromProto(
    absl::string_view field, const google::protobuf::Duration& duration) {
  if (duration.seconds() < 0 || duration.nanos() < 0 || duration.nanos() >= kNanosPerSecond ||
      duration.seconds() > kMaxDurationSeconds) {
    return InvalidField(field, "must be a duration of zero or more");
  }
  return absl::Seconds(duration.seconds()) + absl::Nanoseconds(duration.nanos());
}

}  // namespace

absl::StatusOr<absl::Duration> GraceFromProto(const v1::RotateTokenRequest& proto) {
  return NonNegativeDurationFromProto("grace", proto.grace());
}

absl::StatusOr<absl::Duration> SessionTtlFromProto(const v1::CreateSessionRequest& proto) {
  return NonNegativeDurationFromProto("ttl", proto.ttl());
}

absl::StatusOr<ApprovalStatus> ApprovalStatusFromProto(v1::ApprovalStatus proto) {
  switch (proto) {
    case v1::APPROVAL_STATUS_UNSPECIFIED:
    case v1::APPROVAL_STATUS_PENDING:
      return ApprovalStatus::kPending;
    case v1::APPROVAL_STATUS_APPROVED:
      return ApprovalStatus::kApproved;
    case v1::APPROVAL_STATUS_DENIED:
      return ApprovalStatus::kDenied;
    case v1::APPROVAL_STATUS_EXPIRED:
      return ApprovalStatus::kExpired;
    case v1::APPROVAL_STATUS_USED:
      return ApprovalStatus::kUsed;
    default:
      return InvalidField("status", absl::StrCat("unknown approval status ", proto));
  }
}

absl::StatusOr<DecisionLogFilter> DecisionLogFilterFromProto(
    const v1::QueryDecisionLogRequest& proto) {
  DecisionLogFilter filter;
  filter.agent_id = proto.agent_id();
  if (proto.has_since()) {
    absl::StatusOr<absl::Time> since = TimeFromProto(proto.since());
    if (!since.ok()) return InvalidField("since", since.status().message());
    filter.since = *since;
  }
  if (proto.has_until()) {
    absl::StatusOr<absl::Time> until = TimeFromProto(proto.until());
    if (!until.ok()) return InvalidField("until", until.status().message());
    filter.until = *until;
  }
  if (proto.verdict() != v1::VERDICT_UNSPECIFIED) {
    if (!v1::Verdict_IsValid(proto.verdict())) {
      return InvalidField("verdict", absl::StrCat("unknown verdict ", proto.verdict()));
    }
    // The log stores the short names ("ALLOW"), as decision/types.h spells them.
    filter.verdict = ShortEnumName(proto.verdict());
  }
  return filter;
}

PageRequest PageFromProto(uint32_t page_size, const std::string& page_token) {
  PageRequest page;
  page.page_size = static_cast<int>(std::min<uint32_t>(page_size, kMaxPageSize));
  page.page_token = page_token;
  return page;
}

void PermissionToProto(const Permission& permission, v1::Permission* proto) {
  proto->set_id(permission.id);
  proto->set_agent_id(permission.agent_id);
  proto->set_resource(permission.resource);
  proto->mutable_actions()->Assign(permission.actions.begin(), permission.actions.end());
  proto->set_effect(EffectToProto(permission.effect));
  proto->set_constraints_json(permission.constraints_json);
  SetTimeIfRepresentable(permission.created_at, [proto] { return proto->mutable_created_at(); });
}

void DelegationToProto(const Delegation& delegation, v1::Delegation* proto) {
  proto->set_id(delegation.id);
  proto->set_from_agent_id(delegation.from_agent_id);
  proto->set_to_agent_id(delegation.to_agent_id);
  for (const LentPermission& lent : delegation.permissions) {
    v1::PermissionSpec* spec = proto->add_permissions();
    spec->set_resource(lent.resource);
    spec->mutable_actions()->Assign(lent.actions.begin(), lent.actions.end());
    spec->set_effect(v1::EFFECT_ALLOW);
    spec->set_constraints_json(lent.constraints_json);
  }
  proto->set_max_depth(static_cast<uint32_t>(delegation.max_depth));
  proto->set_status(delegation.status == DelegationStatus::kActive ? v1::DELEGATION_STATUS_ACTIVE
                                                                   : v1::DELEGATION_STATUS_REVOKED);
  SetTimeIfRepresentable(delegation.expires_at, [proto] { return proto->mutable_expires_at(); });
  SetTimeIfRepresentable(delegation.created_at, [proto] { return proto->mutable_created_at(); });
}

void ApprovalToProto(const ApprovalRequest& approval, v1::ApprovalRequest* proto) {
  proto->set_id(approval.id);
  proto->set_agent_id(approval.agent_id);
  proto->set_action(approval.action);
  proto->set_resource(approval.resource);
  proto->set_arguments_hash(approval.arguments_hash);
  proto->set_quorum(static_cast<uint32_t>(approval.quorum));
  proto->set_approvals(static_cast<uint32_t>(approval.approvals));
  proto->set_status(ApprovalStatusToProto(approval.status));
  SetTimeIfRepresentable(approval.expires_at, [proto] { return proto->mutable_expires_at(); });
  SetTimeIfRepresentable(approval.created_at, [proto] { return proto->mutable_created_at(); });
}

absl::Status DecisionLogRowToProto(const DecisionLogRow& row, v1::DecisionLogEntry* proto) {
  v1::Verdict verdict;
  v1::ReasonCode reason;
  if (!ParseShortEnumName(row.verdict, &verdict) || !ParseShortEnumName(row.reason, &reason)) {
    return absl::InternalError(absl::StrCat("decision log row ", row.seq,
                                            ": unknown verdict or reason \"", row.verdict, "\", \"",
                                            row.reason, "\""));
  }
  absl::StatusOr<std::vector<DelegationHop>> path =
      DelegationPathFromJson(row.delegation_path_json);
  if (!path.ok()) {
    return absl::InternalError(
        absl::StrCat("decision log row ", row.seq, ": ", path.status().message()));
  }
  absl::StatusOr<std::vector<std::string>> approved_by = ApprovedByFromJson(row.approved_by_json);
  if (!approved_by.ok()) {
    return absl::InternalError(
        absl::StrCat("decision log row ", row.seq, ": ", approved_by.status().message()));
  }
  proto->set_seq(static_cast<uint64_t>(row.seq));
  SetTimeIfRepresentable(absl::FromUnixMicros(row.decided_at_us),
                         [proto] { return proto->mutable_decided_at(); });
  proto->set_request_id(row.request_id);
  proto->set_agent_id(row.agent_id);
  proto->set_action(row.action);
  proto->set_resource(row.resource);
  proto->set_client_ip(row.client_ip);
  proto->set_arguments_json(row.arguments_json);
  proto->set_verdict(verdict);
  proto->set_reason(reason);
  proto->set_message(row.message);
  proto->set_matched_permission_id(row.matched_permission_id);
  HopsToProto(*path, proto->mutable_delegation_path());
  proto->set_approval_request_id(row.approval_request_id);
  *proto->mutable_latency() = DurationToProto(absl::Microseconds(row.latency_us));
  proto->set_prev_hash(row.prev_hash);
  proto->set_hash(row.hash);
  for (std::string& name : *approved_by) proto->add_approved_by(std::move(name));
  return absl::OkStatus();
}

void ChainVerificationToProto(const ChainVerification& verification,
                              v1::VerifyDecisionLogResponse* proto) {
  proto->set_intact(verification.intact);
  proto->set_rows_checked(static_cast<uint64_t>(verification.rows_checked));
  proto->set_first_bad_seq(static_cast<uint64_t>(verification.first_bad_seq));
  proto->set_problem(verification.problem);
  proto->set_runs(static_cast<uint64_t>(verification.runs));
  proto->set_open_runs(static_cast<uint64_t>(verification.open_runs));
  for (const DecisionLogGap& gap : verification.gaps) {
    v1::DecisionLogGap* out = proto->add_gaps();
    out->set_run_id(gap.run_id);
    out->set_origin(gap.origin);
    out->set_first_missing(static_cast<uint64_t>(gap.first_missing));
    out->set_last_missing(static_cast<uint64_t>(gap.last_missing));
    out->set_problem(gap.problem);
  }
  proto->set_gap_count(static_cast<uint64_t>(verification.gap_count));
}

google::protobuf::Duration DurationToProto(absl::Duration duration) {
  google::protobuf::Duration proto;
  const int64_t seconds = absl::IDivDuration(duration, absl::Seconds(1), &duration);
  proto.set_seconds(seconds);
  proto.set_nanos(static_cast<int32_t>(absl::ToInt64Nanoseconds(duration)));
  return proto;
}

absl::StatusOr<absl::Time> RevokedTokenExpiryFromProto(const v1::RevokeTokenIdRequest& proto) {
  if (!proto.has_expires_at()) return InvalidField("expires_at", "required (the token's exp)");
  return ExpiryFromProto("expires_at", true, proto.expires_at());
}

NewSigningKey NewSigningKeyFromProto(const std::string& jwk_json,
                                     const google::protobuf::RepeatedPtrField<std::string>& algs) {
  return NewSigningKey{jwk_json, std::vector<std::string>(algs.begin(), algs.end())};
}

void SigningKeyToProto(const SigningKey& key, v1::SigningKey* proto) {
  proto->set_kid(key.kid);
  const bool secret = std::find(key.allowed_algorithms.begin(), key.allowed_algorithms.end(),
                                "HS256") != key.allowed_algorithms.end();
  if (!secret) proto->set_public_jwk_json(key.jwk_json);
  for (const std::string& algorithm : key.allowed_algorithms) {
    proto->add_allowed_algorithms(algorithm);
  }
  proto->set_status(key.status == SigningKeyStatus::kActive ? v1::SIGNING_KEY_STATUS_ACTIVE
                                                            : v1::SIGNING_KEY_STATUS_RETIRED);
  SetTimeIfRepresentable(key.created_at, [proto] { return proto->mutable_created_at(); });
  SetTimeIfRepresentable(key.updated_at, [proto] { return proto->mutable_updated_at(); });
  SetTimeIfRepresentable(key.retired_at, [proto] { return proto->mutable_retired_at(); });
}

}  // namespace verdict
