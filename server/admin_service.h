// verdict.v1.AdminService (proto/verdict/v1/admin.proto): checks the admin credential, then
// translates each call to the store's admin plane (store/policy_admin.h) or decision log
// (store/decision_log_store.h) and back. No policy logic lives here.
//
// It runs on gRPC's synchronous API, on a listener of its own: a credential check holds a
// thread for an Argon2id verification, which must not stall the decision path's threads.
//
//   AdminAuthenticator auth(credentials, clock);
//   GrpcAdminService service(*store, decision_log, auth, clock);
//   GrpcServer::Start(admin_listen, {{v1::AdminService::service_full_name(), &service}});
#ifndef VERDICT_SERVER_ADMIN_SERVICE_H_
#define VERDICT_SERVER_ADMIN_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"
#include "decision/authorizer.h"
#include "server/admin_auth.h"
#include "store/decision_log_store.h"
#include "store/policy_admin.h"
#include "verdict/v1/admin.grpc.pb.h"

namespace verdict {

// An absl::Status as the gRPC status of the same code and message (both use the canonical
// codes), so NOT_FOUND, ALREADY_EXISTS and FAILED_PRECONDITION reach the operator as such.
grpc::Status AdminGrpcStatus(const absl::Status& status);

class GrpcAdminService final : public v1::AdminService::Service {
 public:
  // Everything must outlive the service; it is called on several threads at once.
  GrpcAdminService(PolicyAdmin& admin, DecisionLogStore& decision_log, AdminAuthenticator& auth,
                   Clock clock);

  grpc::Status CreateAgent(grpc::ServerContext* context, const v1::CreateAgentRequest* request,
                           v1::CreateAgentResponse* response) override;
  grpc::Status GetAgent(grpc::ServerContext* context, const v1::GetAgentRequest* request,
                        v1::Agent* response) override;
  grpc::Status ListAgents(grpc::ServerContext* context, const v1::ListAgentsRequest* request,
                          v1::ListAgentsResponse* response) override;
  grpc::Status SuspendAgent(grpc::ServerContext* context, const v1::AgentStatusRequest* request,
                            v1::Agent* response) override;
  grpc::Status ReactivateAgent(grpc::ServerContext* context, const v1::AgentStatusRequest* request,
                               v1::Agent* response) override;
  grpc::Status RevokeAgent(grpc::ServerContext* context, const v1::AgentStatusRequest* request,
                           v1::Agent* response) override;
  grpc::Status RotateToken(grpc::ServerContext* context, const v1::RotateTokenRequest* request,
                           v1::RotateTokenResponse* response) override;
  grpc::Status GrantPermission(grpc::ServerContext* context,
                               const v1::GrantPermissionRequest* request,
                               v1::Permission* response) override;
  grpc::Status RevokePermission(grpc::ServerContext* context,
                                const v1::RevokePermissionRequest* request,
                                v1::RevokePermissionResponse* response) override;
  grpc::Status CreateDelegation(grpc::ServerContext* context,
                                const v1::CreateDelegationRequest* request,
                                v1::Delegation* response) override;
  grpc::Status RevokeDelegation(grpc::ServerContext* context,
                                const v1::RevokeDelegationRequest* request,
                                v1::RevokeDelegationResponse* response) override;
  grpc::Status ListApprovals(grpc::ServerContext* context, const v1::ListApprovalsRequest* request,
                             v1::ListApprovalsResponse* response) override;
  grpc::Status ApproveRequest(grpc::ServerContext* context, const v1::VoteRequest* request,
                              v1::ApprovalRequest* response) override;
  grpc::Status DenyRequest(grpc::ServerContext* context, const v1::VoteRequest* request,
                           v1::ApprovalRequest* response) override;
  grpc::Status QueryDecisionLog(grpc::ServerContext* context,
                                const v1::QueryDecisionLogRequest* request,
                                v1::QueryDecisionLogResponse* response) override;
  grpc::Status VerifyDecisionLog(grpc::ServerContext* context,
                                 const v1::VerifyDecisionLogRequest* request,
                                 v1::VerifyDecisionLogResponse* response) override;
  grpc::Status ExportPolicy(grpc::ServerContext* context, const v1::ExportPolicyRequest* request,
                            v1::ExportPolicyResponse* response) override;
  grpc::Status ImportPolicy(grpc::ServerContext* context, const v1::ImportPolicyRequest* request,
                            v1::ImportPolicyResponse* response) override;
  grpc::Status RevokeTokenId(grpc::ServerContext* context, const v1::RevokeTokenIdRequest* request,
                             v1::RevokeTokenIdResponse* response) override;
  grpc::Status AddSigningKey(grpc::ServerContext* context, const v1::AddSigningKeyRequest* request,
                             v1::SigningKey* response) override;
  grpc::Status RotateSigningKey(grpc::ServerContext* context,
                                const v1::RotateSigningKeyRequest* request,
                                v1::SigningKey* response) override;
  grpc::Status RetireSigningKey(grpc::ServerContext* context,
                                const v1::RetireSigningKeyRequest* request,
                                v1::SigningKey* response) override;
  grpc::Status ListSigningKeys(grpc::ServerContext* context,
                               const v1::ListSigningKeysRequest* request,
                               v1::ListSigningKeysResponse* response) override;

 private:
  // Checks the caller's credential, then runs `body`; the gRPC status of the first failure.
  template <typename Body>
  grpc::Status Serve(grpc::ServerContext* context, Body body);

  grpc::Status SetStatus(grpc::ServerContext* context, const v1::AgentStatusRequest& request,
                         AgentStatus status, v1::Agent* response);
  grpc::Status Vote(grpc::ServerContext* context, const v1::VoteRequest& request, bool approve,
                    v1::ApprovalRequest* response);
  // Runs `change` (an add, rotation or retirement) and answers the key as it now is.
  template <typename Change>
  grpc::Status ChangeSigningKey(grpc::ServerContext* context, Change change,
                                v1::SigningKey* response);

  PolicyAdmin& admin_;
  DecisionLogStore& decision_log_;
  AdminAuthenticator& auth_;
  const Clock clock_;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_ADMIN_SERVICE_H_
