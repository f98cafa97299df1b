// Translation between verdict.v1 protobuf messages and the engine's own types: protobuf stops
// here. Requests coming in are checked for what the wire allows but the engine cannot take
// (a missing subject, an enum value outside the proto's list, a timestamp out of range, what-if
// policy that could never be stored); the request's own fields are checked by
// decision/request_validation.h inside the Authorizer.
//
//   absl::StatusOr<Request> request = RequestFromProto(wire_request);
//   if (!request.ok()) return request.status();  // INVALID_ARGUMENT
//   DecisionToProto(*authorizer.Authorize(*request), &wire_response);
#ifndef VERDICT_SERVER_PROTO_CONVERT_H_
#define VERDICT_SERVER_PROTO_CONVERT_H_

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "decision/authorizer.h"
#include "decision/trace.h"
#include "decision/types.h"
#include "decision/what_if.h"
#include "google/protobuf/timestamp.pb.h"
#include "verdict/v1/decision.pb.h"

namespace verdict {

// The most entries of each list a what-if may carry: Simulate explains one call, it does not
// load a policy.
inline constexpr size_t kMaxWhatIfEntries = 256;

// Requests, wire to engine. Every error is INVALID_ARGUMENT naming the field.
absl::StatusOr<Request> RequestFromProto(const v1::AuthorizeRequest& proto);
// The batch's one subject and context, and its checks; a check's non-empty arguments_json
// replaces the context's (decision/types.h).
absl::StatusOr<BatchRequest> BatchRequestFromProto(const v1::BatchAuthorizeRequest& proto);
// The DPoP proof and HTTP request a ValidateToken call carries (empty when none).
DpopEvidence DpopEvidenceFromProto(const v1::ValidateTokenRequest& proto);
// Extra permissions and lent permissions must be storable (resource pattern, action names,
// constraints); a what-if delegation lends allow permissions only.
absl::StatusOr<WhatIf> WhatIfFromProto(const v1::WhatIf& proto);

// Answers, engine to wire. The decision's side effects stay inside the server.
void DecisionToProto(const Decision& decision, v1::AuthorizeResponse* proto);
void TokenValidationToProto(const TokenValidation& validation, v1::ValidateTokenResponse* proto);
v1::ReasonCode ReasonToProto(ReasonCode reason);
// One permission of ValidateToken's list (and of AdminService's ListEffectivePermissions).
void EffectivePermissionToProto(const EffectivePermission& permission,
                                v1::EffectivePermission* proto);
void SimulationToProto(const Simulation& simulation, v1::SimulateResponse* proto);

// Shared with the admin API (server/admin_convert.h), whose messages carry the same types.
// An unset or unknown effect is INVALID_ARGUMENT without a field name: the caller prefixes it.
absl::StatusOr<Effect> EffectFromProto(v1::Effect proto);
v1::Effect EffectToProto(Effect effect);
void AgentToProto(const Agent& agent, v1::Agent* proto);
void HopsToProto(const std::vector<DelegationHop>& hops,
                 google::protobuf::RepeatedPtrField<v1::DelegationHop>* proto);

// Timestamps: seconds in [0001-01-01, 9999-12-31] UTC, nanos in [0, 1e9).
absl::StatusOr<absl::Time> TimeFromProto(const google::protobuf::Timestamp& proto);
// `time` must lie in that range (the wire has no infinity: leave the field unset instead).
google::protobuf::Timestamp TimeToProto(absl::Time time);
bool IsRepresentable(absl::Time time);

// Writes `time` into the Timestamp `mutable_field()` returns, or leaves the field unset when the
// wire cannot carry the time (never expires):
//   SetTimeIfRepresentable(agent.expires_at, [proto] { return proto->mutable_expires_at(); });
template <typename MutableField>
void SetTimeIfRepresentable(absl::Time time, MutableField mutable_field) {
  if (IsRepresentable(time)) *mutable_field() = TimeToProto(time);
}

}  // namespace verdict

#endif  // VERDICT_SERVER_PROTO_CONVERT_H_
