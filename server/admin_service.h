// verdict.v1.AdminService (proto/verdict/v1/admin.proto): checks the admin credential, then
// translates each call to the store's admin plane (app/policy_admin.h) or decision log
// (store/decision_log_store.h) and back. No policy logic lives here.
//
// It runs on a listener of its own, on gRPC's callback API with each call's work on the
// service's own threads: a credential check holds a thread for an Argon2id verification, which
// must not stall gRPC's threads that carry the decision calls. Not on gRPC's synchronous API:
// a synchronous server's polling threads pick up the decision calls' socket events too and hand
// them to other threads, a context switch on every other call (bench/PERFORMANCE.md).
//
//   AdminAuthenticator auth(credentials, clock);
//   GrpcAdminService service(*store, decision_log, admin_audit, auth, clock);
//   GrpcServer::Start(admin_listen, {{v1::AdminService::service_full_name(), &service}});
#ifndef VERDICT_SERVER_ADMIN_SERVICE_H_
#define VERDICT_SERVER_ADMIN_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "app/policy_admin.h"
#include "decision/admin/admin_actor.h"
#include "decision/authorizer.h"
#include "server/admin_auth.h"
#include "server/admin_authentication.h"
#include "server/metrics.h"
#include "server/worker_pool.h"
#include "store/admin_audit_log.h"
#include "store/decision_log_store.h"
#include "verdict/v1/admin.grpc.pb.h"

namespace verdict {

// An absl::Status as the gRPC status of the same code and message (both use the canonical
// codes), so NOT_FOUND, ALREADY_EXISTS and FAILED_PRECONDITION reach the operator as such.
grpc::Status AdminGrpcStatus(const absl::Status& status);

// Admin calls are rare; two may be checked or written at once, the rest queue.
inline constexpr int kAdminWorkers = 2;

class GrpcAdminService final : public v1::AdminService::CallbackService {
 public:
  // Everything must outlive the service; it is called on several threads at once.
  // `file_key_ids`: the kids of verdictd's --jwks_file, which verify tokens whatever the store
  // holds under the same kid, so the signing-key calls refuse them (FAILED_PRECONDITION).
  // `admin_audit` records every admin write (server/admin_audit.h); it must be on the database
  // `admin` writes to, so a write and its record commit together.
  GrpcAdminService(PolicyAdmin& admin, DecisionLogStore& decision_log, AdminAuditLog& admin_audit,
                   AdminAuthenticator& auth, Clock clock,
                   std::vector<std::string> file_key_ids = {});

  // Whether verdictd records decisions (--decision_log); QueryDecisionLog and VerifyDecisionLog
  // say so when it does not. Off until set; set before the service is registered.
  void set_decision_logging_on(bool on) { decision_logging_on_ = on; }
  // With --approval_separation, a principal may not approve a request made by an agent it owns
  // (decision/admin/roles.h CheckVoter). Off until set; set before the service is registered.
  void set_approval_separation(bool on) { approval_separation_ = on; }
  // Where each call is counted by method, code and the caller's roles (RecordAdminCall); none
  // until set. Set before the service is registered; `metrics` must outlive the service.
  void set_metrics(Metrics* metrics) { metrics_ = metrics; }

  // Peer uids and sessions (server/admin_authentication.h), tried before the secret; without
  // them only the secret authenticates, and CreateSession and RevokeSession are UNIMPLEMENTED.
  // Set before the service is registered; `authentication` must outlive the service.
  void set_authentication(AdminAuthentication* authentication) { authentication_ = authentication; }
  // The store decisions read, for ListEffectivePermissions (which answers UNIMPLEMENTED
  // without one): listed by the decisions' own code (Authorizer::EffectivePermissionsOf). Must
  // outlive the service; set before the service is registered.
  void set_decision_store(PolicyStore* store);

  grpc::ServerUnaryReactor* CreateAgent(grpc::CallbackServerContext* context,
                                        const v1::CreateAgentRequest* request,
                                        v1::CreateAgentResponse* response) override;
  grpc::ServerUnaryReactor* GetAgent(grpc::CallbackServerContext* context,
                                     const v1::GetAgentRequest* request,
                                     v1::GetAgentResponse* response) override;
  grpc::ServerUnaryReactor* ListAgents(grpc::CallbackServerContext* context,
                                       const v1::ListAgentsRequest* request,
                                       v1::ListAgentsResponse* response) override;
  grpc::ServerUnaryReactor* SuspendAgent(grpc::CallbackServerContext* context,
                                         const v1::SuspendAgentRequest* request,
                                         v1::SuspendAgentResponse* response) override;
  grpc::ServerUnaryReactor* ReactivateAgent(grpc::CallbackServerContext* context,
                                            const v1::ReactivateAgentRequest* request,
                                            v1::ReactivateAgentResponse* response) override;
  grpc::ServerUnaryReactor* RevokeAgent(grpc::CallbackServerContext* context,
                                        const v1::RevokeAgentRequest* request,
                                        v1::RevokeAgentResponse* response) override;
  grpc::ServerUnaryReactor* RotateToken(grpc::CallbackServerContext* context,
                                        const v1::RotateTokenRequest* request,
                                        v1::RotateTokenResponse* response) override;
  grpc::ServerUnaryReactor* GrantPermission(grpc::CallbackServerContext* context,
                                            const v1::GrantPermissionRequest* request,
                                            v1::GrantPermissionResponse* response) override;
  grpc::ServerUnaryReactor* RevokePermission(grpc::CallbackServerContext* context,
                                             const v1::RevokePermissionRequest* request,
                                             v1::RevokePermissionResponse* response) override;
  grpc::ServerUnaryReactor* CreateDelegation(grpc::CallbackServerContext* context,
                                             const v1::CreateDelegationRequest* request,
                                             v1::CreateDelegationResponse* response) override;
  grpc::ServerUnaryReactor* RevokeDelegation(grpc::CallbackServerContext* context,
                                             const v1::RevokeDelegationRequest* request,
                                             v1::RevokeDelegationResponse* response) override;
  grpc::ServerUnaryReactor* ListApprovals(grpc::CallbackServerContext* context,
                                          const v1::ListApprovalsRequest* request,
                                          v1::ListApprovalsResponse* response) override;
  grpc::ServerUnaryReactor* ApproveRequest(grpc::CallbackServerContext* context,
                                           const v1::ApproveRequestRequest* request,
                                           v1::ApproveRequestResponse* response) override;
  grpc::ServerUnaryReactor* DenyRequest(grpc::CallbackServerContext* context,
                                        const v1::DenyRequestRequest* request,
                                        v1::DenyRequestResponse* response) override;
  grpc::ServerUnaryReactor* QueryDecisionLog(grpc::CallbackServerContext* context,
                                             const v1::QueryDecisionLogRequest* request,
                                             v1::QueryDecisionLogResponse* response) override;
  grpc::ServerUnaryReactor* VerifyDecisionLog(grpc::CallbackServerContext* context,
                                              const v1::VerifyDecisionLogRequest* request,
                                              v1::VerifyDecisionLogResponse* response) override;
  grpc::ServerUnaryReactor* ExportPolicy(grpc::CallbackServerContext* context,
                                         const v1::ExportPolicyRequest* request,
                                         v1::ExportPolicyResponse* response) override;
  grpc::ServerUnaryReactor* ImportPolicy(grpc::CallbackServerContext* context,
                                         const v1::ImportPolicyRequest* request,
                                         v1::ImportPolicyResponse* response) override;
  // Policy as code (issue 19).
  grpc::ServerUnaryReactor* ApplyPolicy(grpc::CallbackServerContext* context,
                                        const v1::ApplyPolicyRequest* request,
                                        v1::ApplyPolicyResponse* response) override;
  grpc::ServerUnaryReactor* RevokeTokenId(grpc::CallbackServerContext* context,
                                          const v1::RevokeTokenIdRequest* request,
                                          v1::RevokeTokenIdResponse* response) override;
  grpc::ServerUnaryReactor* AddSigningKey(grpc::CallbackServerContext* context,
                                          const v1::AddSigningKeyRequest* request,
                                          v1::AddSigningKeyResponse* response) override;
  grpc::ServerUnaryReactor* RotateSigningKey(grpc::CallbackServerContext* context,
                                             const v1::RotateSigningKeyRequest* request,
                                             v1::RotateSigningKeyResponse* response) override;
  grpc::ServerUnaryReactor* RetireSigningKey(grpc::CallbackServerContext* context,
                                             const v1::RetireSigningKeyRequest* request,
                                             v1::RetireSigningKeyResponse* response) override;
  grpc::ServerUnaryReactor* ListSigningKeys(grpc::CallbackServerContext* context,
                                            const v1::ListSigningKeysRequest* request,
                                            v1::ListSigningKeysResponse* response) override;

  // The admin audit log (issue 18 item 4).
  grpc::ServerUnaryReactor* QueryAdminAudit(grpc::CallbackServerContext* context,
                                            const v1::QueryAdminAuditRequest* request,
                                            v1::QueryAdminAuditResponse* response) override;
  grpc::ServerUnaryReactor* VerifyAdminAudit(grpc::CallbackServerContext* context,
                                             const v1::VerifyAdminAuditRequest* request,
                                             v1::VerifyAdminAuditResponse* response) override;
  // Admin sessions (server/admin_sessions.h).
  grpc::ServerUnaryReactor* CreateSession(grpc::CallbackServerContext* context,
                                          const v1::CreateSessionRequest* request,
                                          v1::CreateSessionResponse* response) override;
  grpc::ServerUnaryReactor* RevokeSession(grpc::CallbackServerContext* context,
                                          const v1::RevokeSessionRequest* request,
                                          v1::RevokeSessionResponse* response) override;
  // What an agent may do (issue 19 item 5).
  grpc::ServerUnaryReactor* ListAgentPermissions(
      grpc::CallbackServerContext* context, const v1::ListAgentPermissionsRequest* request,
      v1::ListAgentPermissionsResponse* response) override;
  grpc::ServerUnaryReactor* ListAgentDelegations(
      grpc::CallbackServerContext* context, const v1::ListAgentDelegationsRequest* request,
      v1::ListAgentDelegationsResponse* response) override;
  grpc::ServerUnaryReactor* ListEffectivePermissions(
      grpc::CallbackServerContext* context, const v1::ListEffectivePermissionsRequest* request,
      v1::ListEffectivePermissionsResponse* response) override;
  // Admin principals and roles (decision/admin/roles.h).
  grpc::ServerUnaryReactor* CreatePrincipal(grpc::CallbackServerContext* context,
                                            const v1::CreatePrincipalRequest* request,
                                            v1::CreatePrincipalResponse* response) override;
  grpc::ServerUnaryReactor* ListPrincipals(grpc::CallbackServerContext* context,
                                           const v1::ListPrincipalsRequest* request,
                                           v1::ListPrincipalsResponse* response) override;
  grpc::ServerUnaryReactor* SetPrincipalEnabled(grpc::CallbackServerContext* context,
                                                const v1::SetPrincipalEnabledRequest* request,
                                                v1::SetPrincipalEnabledResponse* response) override;
  grpc::ServerUnaryReactor* SetPrincipalRoles(grpc::CallbackServerContext* context,
                                              const v1::SetPrincipalRolesRequest* request,
                                              v1::SetPrincipalRolesResponse* response) override;
  grpc::ServerUnaryReactor* SetPrincipalSecret(grpc::CallbackServerContext* context,
                                               const v1::SetPrincipalSecretRequest* request,
                                               v1::SetPrincipalSecretResponse* response) override;

 private:
  // Checks the caller's credential, then its principal's roles for the call (read fresh:
  // decision/admin/roles.h CheckMayCall), then runs `body(admin, actor)` with the admin plane
  // whose writes commit only while the caller still waits, and the authenticated caller; the gRPC
  // status of the first failure. `request` is the call's request (its type names the call); it
  // must outlive the call, as gRPC's request does. A write call (server/admin_audit.h's
  // IsAdminWrite) by an authenticated caller is recorded in the admin audit log, in its write's
  // transaction, or after the refusal when nothing committed.
  template <typename Body>
  grpc::ServerUnaryReactor* Serve(grpc::CallbackServerContext* context,
                                  const google::protobuf::Message& request, Body body);

  grpc::ServerUnaryReactor* SetStatus(grpc::CallbackServerContext* context,
                                      const google::protobuf::Message& request,
                                      const std::string& agent_id, AgentStatus status,
                                      v1::Agent* response);
  grpc::ServerUnaryReactor* Vote(grpc::CallbackServerContext* context,
                                 const google::protobuf::Message& request,
                                 const std::string& approval_id, const std::string& approver,
                                 bool approve, v1::ApprovalRequest* response);
  // The Argon2id hash of `secret`, or of a generated one (stored into `generated`) when it is
  // empty; INVALID_ARGUMENT for a secret too short or holding white space.
  absl::StatusOr<std::string> HashNewSecret(const std::string& secret, std::string* generated);

  // FAILED_PRECONDITION when `kid` is one of the --jwks_file's.
  absl::Status RefuseFileKey(absl::string_view kid) const;

  // Runs `change` (an add, rotation or retirement) and answers the key as it now is.
  template <typename Change>
  grpc::ServerUnaryReactor* ChangeSigningKey(grpc::CallbackServerContext* context,
                                             const google::protobuf::Message& request,
                                             Change change, v1::SigningKey* response);

  PolicyAdmin& admin_;
  DecisionLogStore& decision_log_;
  AdminAuditLog& admin_audit_;
  bool decision_logging_on_ = false;
  bool approval_separation_ = false;
  Metrics* metrics_ = nullptr;
  AdminAuthenticator& auth_;
  AdminAuthentication* authentication_ = nullptr;
  const Clock clock_;
  const absl::flat_hash_set<std::string> file_key_ids_;
  // Over the decisions' store, for ListEffectivePermissions; null without one.
  std::unique_ptr<Authorizer> held_permissions_;
  // Last: destroyed first, finishing the calls it holds while everything above still lives.
  WorkerPool workers_{kAdminWorkers};
};

}  // namespace verdict

#endif  // VERDICT_SERVER_ADMIN_SERVICE_H_
