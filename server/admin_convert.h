// Translation between the verdict.v1 admin messages (proto/verdict/v1/admin.proto) and the
// store's admin types (store/admin_types.h, store/decision_log_store.h). Only the wire's own limits
// are checked here (enum values, timestamp and duration ranges); the store validates the rest.
// What the admin messages share with the decision API (agents, effects, delegation paths,
// timestamps) is converted by server/proto_convert.h.
//
//   absl::StatusOr<NewAgent> agent = NewAgentFromProto(request);
//   AgentToProto(created->agent, response.mutable_agent());  // server/proto_convert.h
#ifndef VERDICT_SERVER_ADMIN_CONVERT_H_
#define VERDICT_SERVER_ADMIN_CONVERT_H_

#include <optional>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "decision/types.h"
#include "google/protobuf/duration.pb.h"
#include "store/admin_types.h"
#include "store/decision_log_store.h"
#include "verdict/v1/admin.pb.h"

namespace verdict {

// Wire to store. Errors are INVALID_ARGUMENT naming the field.
absl::StatusOr<NewAgent> NewAgentFromProto(const v1::CreateAgentRequest& proto);
absl::StatusOr<NewPermission> NewPermissionFromProto(const v1::GrantPermissionRequest& proto);
absl::StatusOr<NewDelegation> NewDelegationFromProto(const v1::CreateDelegationRequest& proto);
// Unset or zero is no grace.
absl::StatusOr<absl::Duration> GraceFromProto(const v1::RotateTokenRequest& proto);
// A session's ttl: zero or more (zero when unset: the server's default).
absl::StatusOr<absl::Duration> SessionTtlFromProto(const v1::CreateSessionRequest& proto);
// APPROVAL_STATUS_UNSPECIFIED means pending.
absl::StatusOr<ApprovalStatus> ApprovalStatusFromProto(v1::ApprovalStatus proto);
absl::StatusOr<DecisionLogFilter> DecisionLogFilterFromProto(
    const v1::QueryDecisionLogRequest& proto);
PageRequest PageFromProto(uint32_t page_size, const std::string& page_token);
// The token's expiry is required.
absl::StatusOr<absl::Time> RevokedTokenExpiryFromProto(const v1::RevokeTokenIdRequest& proto);
NewSigningKey NewSigningKeyFromProto(const std::string& jwk_json,
                                     const google::protobuf::RepeatedPtrField<std::string>& algs);

// Store to wire.
void PermissionToProto(const Permission& permission, v1::Permission* proto);
void DelegationToProto(const Delegation& delegation, v1::Delegation* proto);
void ApprovalToProto(const ApprovalRequest& approval, v1::ApprovalRequest* proto);
// INTERNAL when a stored row cannot be read back (a verdict, reason or path it never writes).
absl::Status DecisionLogRowToProto(const DecisionLogRow& row, v1::DecisionLogEntry* proto);
void ChainVerificationToProto(const ChainVerification& verification,
                              v1::VerifyDecisionLogResponse* proto);
google::protobuf::Duration DurationToProto(absl::Duration duration);
// An HS256 key's secret is never written: only public JWKs go back on the wire.
void SigningKeyToProto(const SigningKey& key, v1::SigningKey* proto);

}  // namespace verdict

#endif  // VERDICT_SERVER_ADMIN_CONVERT_H_
