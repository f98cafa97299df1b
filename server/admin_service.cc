#include "server/admin_service.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "app/policy_file.h"
#include "app/policy_json.h"
#include "common/json.h"
#include "common/log.h"
#include "common/redaction.h"
#include "crypto/secret_hash.h"
#include "crypto/token.h"
#include "decision/admin/roles.h"
#include "decision/admin/signing_key_rules.h"
#include "server/admin_audit.h"
#include "server/admin_convert.h"
#include "server/admin_secret.h"
#include "server/proto_convert.h"
#include "server/unix_socket.h"

namespace verdict {
namespace {

// The "kid" of a JWK's JSON, or "" when it has none (the store then says what is wrong).
std::string KidOfJwk(const std::string& jwk_json) {
  absl::StatusOr<JsonValue> jwk = ParseJson(jwk_json);
  if (!jwk.ok()) return "";
  const JsonValue* kid = jwk->Find("kid");
  return kid != nullptr && kid->is_string() ? kid->as_string() : "";
}

constexpr absl::string_view kAuthorizationHeader = "authorization";
constexpr absl::string_view kPrincipalHeader = "verdict-principal";

// The metadata `key`'s value, or `absent` when the caller sent none.
absl::string_view MetadataOf(const grpc::ServerContextBase& context, absl::string_view key,
                             absl::string_view absent = "") {
  auto it = context.client_metadata().find(grpc::string_ref(key.data(), key.size()));
  if (it == context.client_metadata().end()) return absent;
  return absl::string_view(it->second.data(), it->second.size());
}

absl::string_view AuthorizationOf(const grpc::ServerContextBase& context) {
  return MetadataOf(context, kAuthorizationHeader);
}

// The principal the caller names; "admin" when it names none, so that clients of the single
// admin secret keep working.
absl::string_view PrincipalOf(const grpc::ServerContextBase& context) {
  return MetadataOf(context, kPrincipalHeader, kBootstrapPrincipal);
}

void PrincipalToProto(const StoredAdminPrincipal& stored, v1::AdminPrincipal* proto) {
  proto->set_name(stored.principal.name);
  for (const std::string& role : stored.principal.roles.Names()) proto->add_roles(role);
  for (const std::string& pattern : stored.principal.grant_patterns) {
    proto->add_grant_patterns(pattern);
  }
  proto->set_enabled(stored.principal.enabled);
  *proto->mutable_created_at() = TimeToProto(stored.created_at);
  *proto->mutable_updated_at() = TimeToProto(stored.updated_at);
}

std::vector<std::string> Strings(const google::protobuf::RepeatedPtrField<std::string>& field) {
  return {field.begin(), field.end()};
}

// Roles and grant patterns as a request gives them: INVALID_ARGUMENT when a role is unknown, a
// pattern is not one verdict stores, or patterns are given to a principal without issuer.
absl::StatusOr<AdminRoleSet> RolesFromRequest(
    const google::protobuf::RepeatedPtrField<std::string>& role_names,
    const std::vector<std::string>& patterns) {
  absl::StatusOr<AdminRoleSet> roles = ParseAdminRoles(Strings(role_names));
  if (!roles.ok()) return roles.status();
  if (absl::Status valid = ValidateGrantPatterns(patterns); !valid.ok()) return valid;
  if (!patterns.empty() && !roles->Has(AdminRole::kIssuer)) {
    return absl::InvalidArgumentError("grant patterns are for a principal with the role issuer");
  }
  return roles;
}

// The principals who voted on the approval `id`, into its answer.
absl::Status AddVoters(PolicyAdmin& admin, const std::string& id, v1::ApprovalRequest* proto) {
  absl::StatusOr<std::vector<ApprovalVoteCast>> votes = admin.ApprovalVotes(id);
  if (!votes.ok()) return votes.status();
  for (const ApprovalVoteCast& vote : *votes) {
    (vote.approve ? proto->add_approved_by() : proto->add_denied_by())->assign(vote.approver);
  }
  return absl::OkStatus();
}

// A generated secret: 32 random bytes, base64url, behind a prefix that says what it is.
std::string NewPrincipalSecret() { return absl::StrCat("vdp_", Base64UrlEncode(RandomBytes(32))); }

}  // namespace

grpc::Status AdminGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  // An error may quote what the caller sent ("agent X does not exist"): never a token sent there.
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      RedactSessionTokens(RedactTokens(status.message())));
}

GrpcAdminService::GrpcAdminService(PolicyAdmin& admin, DecisionLogStore& decision_log,
                                   AdminAuditLog& admin_audit, AdminAuthenticator& auth,
                                   Clock clock, std::vector<std::string> file_key_ids)
    : admin_(admin),
      decision_log_(decision_log),
      admin_audit_(admin_audit),
      auth_(auth),
      clock_(std::move(clock)),
      file_key_ids_(file_key_ids.begin(), file_key_ids.end()) {}

absl::Status GrpcAdminService::RefuseFileKey(absl::string_view kid) const {
  return CheckKidNotFromFile(kid, file_key_ids_);
}

// The call's work goes to the service's own threads: gRPC's callback threads also carry the
// decision calls, and an admin call may hold one for an Argon2id verification or a write that
// waits on SQLite's lock. A call whose caller gave up (its deadline passed, it cancelled, the
// server is shutting down) while it waited here, while it was authenticated or while its write
// ran does nothing: the caller would never learn of its write, and a token it minted would be
// lost with the answer.
template <typename Body>
grpc::ServerUnaryReactor* GrpcAdminService::Serve(grpc::CallbackServerContext* context,
                                                  const google::protobuf::Message& request,
                                                  Body body) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  workers_.Schedule([this, context, reactor, &request, body = std::move(body)]() mutable {
    // OK while the caller still waits for the answer.
    const auto still_awaited = [context] {
      return context->IsCancelled() ? absl::CancelledError("the caller gave up before the call ran")
                                    : absl::OkStatus();
    };
    // Who the caller is, read while its connection is known to be open: a call still awaited
    // after the read was on the connection its descriptor number named (server/unix_socket.h).
    const std::string caller = CallerIdentity(context->peer());
    const std::string call = AdminCallName(request);
    // The caller's roles as the metrics name them, once its principal is known.
    std::string roles = "unauthenticated";
    const auto finish = [&](const absl::Status& answer) {
      const grpc::Status status = AdminGrpcStatus(answer);
      if (metrics_ != nullptr) {
        metrics_->RecordAdminCall(call, static_cast<int>(status.error_code()), roles);
      }
      reactor->Finish(status);
    };
    const absl::StatusOr<AdminActor> actor = [&]() -> absl::StatusOr<AdminActor> {
      if (absl::Status awaited = still_awaited(); !awaited.ok()) return awaited;
      const auto by_secret = [&] {
        return auth_.Authenticate(caller, AuthorizationOf(*context), PrincipalOf(*context));
      };
      return authentication_ != nullptr
                 ? authentication_->Authenticate(caller, AuthorizationOf(*context), by_secret)
                 : by_secret();
    }();
    if (!actor.ok()) return finish(actor.status());
    // Whatever the method, the principal as it is now: disabled or stripped of a role, it is
    // refused from its next call on. A refusal here is the answer of an authenticated caller,
    // so a write's is recorded in the admin audit log like any other refused write.
    absl::StatusOr<AdminPrincipal> principal = auth_.CurrentPrincipal(actor->principal);
    const absl::Status allowed = [&]() -> absl::Status {
      if (!principal.ok()) return principal.status();
      roles = principal->roles.empty() ? "none" : principal->roles.Joined();
      if (absl::Status may = CheckMayCall(call, *principal); !may.ok()) return may;
      return still_awaited();
    }();
    // And once more just before a write commits: the caller may give up while it runs. The
    // writes act for the principal: agents record their creator, and an issuer rotates only the
    // tokens of its own.
    std::unique_ptr<PolicyAdmin> admin = admin_.WithCancel(CancelToken(still_awaited));
    if (allowed.ok()) admin = admin->ActingFor(*principal);
    if (!IsAdminWrite(call)) return finish(allowed.ok() ? body(*admin, *actor) : allowed);
    // A write's row commits with it; a refusal's is written after it (server/admin_audit.h).
    AdminAuditRecorder recorder(*actor, request, clock_);
    std::unique_ptr<PolicyAdmin> recorded = admin->WithRecorder(recorder);
    const absl::Status answer = allowed.ok() ? body(*recorded, *actor) : allowed;
    if (absl::Status kept = recorder.RecordIfNotCommitted(admin_audit_, answer); !kept.ok()) {
      // Nothing was written (a refusal): the answer stands; only its record is missing, which
      // the operator must hear of.
      LogWarning(absl::StrCat("verdictd: the admin audit log could not record ", call, " (",
                              absl::StatusCodeToString(answer.code()),
                              "): ", RedactTokens(kept.message())));
    }
    finish(answer);
  });
  return reactor;
}

grpc::ServerUnaryReactor* GrpcAdminService::CreateAgent(grpc::CallbackServerContext* context,
                                                        const v1::CreateAgentRequest* request,
                                                        v1::CreateAgentResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin& admin, const AdminActor&) -> absl::Status {
    absl::StatusOr<NewAgent> agent = NewAgentFromProto(*request);
    if (!agent.ok()) return agent.status();
    absl::StatusOr<CreatedAgent> created = admin.CreateAgent(*agent);
    if (!created.ok()) return created.status();
    AgentToProto(created->agent, response->mutable_agent());
    response->set_token(created->token);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::GetAgent(grpc::CallbackServerContext* context,
                                                     const v1::GetAgentRequest* request,
                                                     v1::GetAgentResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin& admin, const AdminActor&) -> absl::Status {
    absl::StatusOr<Agent> agent = admin.GetAgent(request->agent_id());
    if (!agent.ok()) return agent.status();
    AgentToProto(*agent, response->mutable_agent());
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::ListAgents(grpc::CallbackServerContext* context,
                                                       const v1::ListAgentsRequest* request,
                                                       v1::ListAgentsResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin& admin, const AdminActor&) -> absl::Status {
    absl::StatusOr<AgentPage> page =
        admin.ListAgents(PageFromProto(request->page_size(), request->page_token()));
    if (!page.ok()) return page.status();
    for (const Agent& agent : page->agents) AgentToProto(agent, response->add_agents());
    response->set_next_page_token(page->next_page_token);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::SetStatus(grpc::CallbackServerContext* context,
                                                      const google::protobuf::Message& request,
                                                      const std::string& agent_id,
                                                      AgentStatus status, v1::Agent* response) {
  return Serve(context, request, [=](PolicyAdmin& admin, const AdminActor&) -> absl::Status {
    absl::StatusOr<Agent> agent = admin.SetAgentStatus(agent_id, status);
    if (!agent.ok()) return agent.status();
    AgentToProto(*agent, response);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::SuspendAgent(grpc::CallbackServerContext* context,
                                                         const v1::SuspendAgentRequest* request,
                                                         v1::SuspendAgentResponse* response) {
  return SetStatus(context, *request, request->agent_id(), AgentStatus::kSuspended,
                   response->mutable_agent());
}

grpc::ServerUnaryReactor* GrpcAdminService::ReactivateAgent(
    grpc::CallbackServerContext* context, const v1::ReactivateAgentRequest* request,
    v1::ReactivateAgentResponse* response) {
  return SetStatus(context, *request, request->agent_id(), AgentStatus::kActive,
                   response->mutable_agent());
}

grpc::ServerUnaryReactor* GrpcAdminService::RevokeAgent(grpc::CallbackServerContext* context,
                                                        const v1::RevokeAgentRequest* request,
                                                        v1::RevokeAgentResponse* response) {
  return SetStatus(context, *request, request->agent_id(), AgentStatus::kRevoked,
                   response->mutable_agent());
}

grpc::ServerUnaryReactor* GrpcAdminService::RotateToken(grpc::CallbackServerContext* context,
                                                        const v1::RotateTokenRequest* request,
                                                        v1::RotateTokenResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin& admin, const AdminActor&) -> absl::Status {
    absl::StatusOr<absl::Duration> grace = GraceFromProto(*request);
    if (!grace.ok()) return grace.status();
    absl::StatusOr<RotatedToken> rotated = admin.RotateToken(request->agent_id(), *grace);
    if (!rotated.ok()) return rotated.status();
    AgentToProto(rotated->agent, response->mutable_agent());
    response->set_token(rotated->token);
    *response->mutable_previous_token_expires_at() =
        TimeToProto(rotated->previous_token_expires_at);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::GrantPermission(
    grpc::CallbackServerContext* context, const v1::GrantPermissionRequest* request,
    v1::GrantPermissionResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin& admin, const AdminActor& actor) -> absl::Status {
    absl::StatusOr<NewPermission> permission = NewPermissionFromProto(*request);
    if (!permission.ok()) return permission.status();
    absl::StatusOr<AdminPrincipal> principal = auth_.CurrentPrincipal(actor.principal);
    if (!principal.ok()) return principal.status();
    if (absl::Status within = CheckGrantWithinPatterns(*principal, permission->resource);
        !within.ok()) {
      return within;
    }
    absl::StatusOr<Permission> granted = admin.GrantPermission(*permission);
    if (!granted.ok()) return granted.status();
    PermissionToProto(*granted, response->mutable_permission());
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::RevokePermission(
    grpc::CallbackServerContext* context, const v1::RevokePermissionRequest* request,
    v1::RevokePermissionResponse*) {
  return Serve(context, *request, [=](PolicyAdmin& admin, const AdminActor&) {
    return admin.RevokePermission(request->permission_id());
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::CreateDelegation(
    grpc::CallbackServerContext* context, const v1::CreateDelegationRequest* request,
    v1::CreateDelegationResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin& admin, const AdminActor&) -> absl::Status {
    absl::StatusOr<NewDelegation> delegation = NewDelegationFromProto(*request);
    if (!delegation.ok()) return delegation.status();
    absl::StatusOr<Delegation> created = admin.CreateDelegation(*delegation);
    if (!created.ok()) return created.status();
    DelegationToProto(*created, response->mutable_delegation());
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::RevokeDelegation(
    grpc::CallbackServerContext* context, const v1::RevokeDelegationRequest* request,
    v1::RevokeDelegationResponse*) {
  return Serve(context, *request, [=](PolicyAdmin& admin, const AdminActor&) {
    return admin.RevokeDelegation(request->delegation_id());
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::ListApprovals(grpc::CallbackServerContext* context,
                                                          const v1::ListApprovalsRequest* request,
                                                          v1::ListApprovalsResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin& admin, const AdminActor&) -> absl::Status {
    absl::StatusOr<ApprovalStatus> status = ApprovalStatusFromProto(request->status());
    if (!status.ok()) return status.status();
    absl::StatusOr<ApprovalPage> page =
        admin.ListApprovals(*status, PageFromProto(request->page_size(), request->page_token()));
    if (!page.ok()) return page.status();
    for (const ApprovalRequest& approval : page->approvals) {
      v1::ApprovalRequest* listed = response->add_approvals();
      ApprovalToProto(approval, listed);
      if (absl::Status named = AddVoters(admin, approval.id, listed); !named.ok()) return named;
    }
    response->set_next_page_token(page->next_page_token);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::Vote(grpc::CallbackServerContext* context,
                                                 const google::protobuf::Message& request,
                                                 const std::string& approval_id,
                                                 const std::string& approver, bool approve,
                                                 v1::ApprovalRequest* response) {
  return Serve(context, request, [=](PolicyAdmin& admin, const AdminActor& actor) -> absl::Status {
    std::string agent_owner;
    if (approve && approval_separation_) {
      absl::StatusOr<ApprovalRequest> asked = admin.GetApproval(approval_id);
      if (!asked.ok()) return asked.status();
      absl::StatusOr<Agent> agent = admin.GetAgent(asked->agent_id);
      if (!agent.ok()) return agent.status();
      agent_owner = agent->owner;
    }
    if (absl::Status voter =
            CheckVoter(actor.principal, approver, approve, approval_separation_, agent_owner);
        !voter.ok()) {
      return voter;
    }
    absl::StatusOr<ApprovalRequest> approval =
        admin.VoteOnApproval(approval_id, actor.principal, approve, clock_());
    if (!approval.ok()) return approval.status();
    ApprovalToProto(*approval, response);
    if (absl::Status named = AddVoters(admin, approval_id, response); !named.ok()) return named;
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::ApproveRequest(grpc::CallbackServerContext* context,
                                                           const v1::ApproveRequestRequest* request,
                                                           v1::ApproveRequestResponse* response) {
  return Vote(context, *request, request->approval_id(), request->approver(), /*approve=*/true,
              response->mutable_approval());
}

grpc::ServerUnaryReactor* GrpcAdminService::DenyRequest(grpc::CallbackServerContext* context,
                                                        const v1::DenyRequestRequest* request,
                                                        v1::DenyRequestResponse* response) {
  return Vote(context, *request, request->approval_id(), request->approver(), /*approve=*/false,
              response->mutable_approval());
}

grpc::ServerUnaryReactor* GrpcAdminService::QueryDecisionLog(
    grpc::CallbackServerContext* context, const v1::QueryDecisionLogRequest* request,
    v1::QueryDecisionLogResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin&, const AdminActor&) -> absl::Status {
    absl::StatusOr<DecisionLogFilter> filter = DecisionLogFilterFromProto(*request);
    if (!filter.ok()) return filter.status();
    absl::StatusOr<DecisionLogPage> page = decision_log_.Query(
        *filter,
        static_cast<int>(std::min<uint32_t>(request->page_size(), kMaxDecisionLogPageSize)),
        request->page_token());
    if (!page.ok()) return page.status();
    for (const DecisionLogRow& row : page->rows) {
      absl::Status converted = DecisionLogRowToProto(row, response->add_entries());
      if (!converted.ok()) return converted;
    }
    response->set_next_page_token(page->next_page_token);
    response->set_logging_off(!decision_logging_on_);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::VerifyDecisionLog(
    grpc::CallbackServerContext* context, const v1::VerifyDecisionLogRequest* request,
    v1::VerifyDecisionLogResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin&, const AdminActor&) -> absl::Status {
    absl::StatusOr<ChainVerification> verification = decision_log_.VerifyChain();
    if (!verification.ok()) return verification.status();
    ChainVerificationToProto(*verification, response);
    response->set_logging_off(!decision_logging_on_);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::ExportPolicy(grpc::CallbackServerContext* context,
                                                         const v1::ExportPolicyRequest* request,
                                                         v1::ExportPolicyResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin& admin, const AdminActor&) -> absl::Status {
    absl::StatusOr<std::string> policy = ExportPolicyJson(admin);
    if (!policy.ok()) return policy.status();
    response->set_policy_json(*std::move(policy));
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::ImportPolicy(grpc::CallbackServerContext* context,
                                                         const v1::ImportPolicyRequest* request,
                                                         v1::ImportPolicyResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin& admin, const AdminActor&) -> absl::Status {
    absl::StatusOr<ImportCounts> counts = ImportPolicyJson(admin, request->policy_json());
    if (!counts.ok()) return counts.status();
    response->set_agents(static_cast<uint32_t>(counts->agents));
    response->set_permissions(static_cast<uint32_t>(counts->permissions));
    response->set_delegations(static_cast<uint32_t>(counts->delegations));
    response->set_revoked_token_ids(static_cast<uint32_t>(counts->revoked_token_ids));
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::RevokeTokenId(grpc::CallbackServerContext* context,
                                                          const v1::RevokeTokenIdRequest* request,
                                                          v1::RevokeTokenIdResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin& admin, const AdminActor&) -> absl::Status {
    absl::StatusOr<absl::Time> expires_at = RevokedTokenExpiryFromProto(*request);
    if (!expires_at.ok()) return expires_at.status();
    return admin.RevokeTokenId(request->jti(), *expires_at);
  });
}

template <typename Change>
grpc::ServerUnaryReactor* GrpcAdminService::ChangeSigningKey(
    grpc::CallbackServerContext* context, const google::protobuf::Message& request, Change change,
    v1::SigningKey* response) {
  return Serve(context, request, [=](PolicyAdmin& admin, const AdminActor&) -> absl::Status {
    absl::StatusOr<SigningKey> key = change(admin);
    if (!key.ok()) return key.status();
    SigningKeyToProto(*key, response);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::AddSigningKey(grpc::CallbackServerContext* context,
                                                          const v1::AddSigningKeyRequest* request,
                                                          v1::AddSigningKeyResponse* response) {
  return ChangeSigningKey(
      context, *request,
      [=](PolicyAdmin& admin) -> absl::StatusOr<SigningKey> {
        if (absl::Status refused = RefuseFileKey(KidOfJwk(request->jwk_json())); !refused.ok()) {
          return refused;
        }
        return admin.AddSigningKey(
            NewSigningKeyFromProto(request->jwk_json(), request->allowed_algorithms()));
      },
      response->mutable_key());
}

grpc::ServerUnaryReactor* GrpcAdminService::RotateSigningKey(
    grpc::CallbackServerContext* context, const v1::RotateSigningKeyRequest* request,
    v1::RotateSigningKeyResponse* response) {
  return ChangeSigningKey(
      context, *request,
      [=](PolicyAdmin& admin) -> absl::StatusOr<SigningKey> {
        if (absl::Status refused = RefuseFileKey(KidOfJwk(request->jwk_json())); !refused.ok()) {
          return refused;
        }
        return admin.RotateSigningKey(
            NewSigningKeyFromProto(request->jwk_json(), request->allowed_algorithms()));
      },
      response->mutable_key());
}

grpc::ServerUnaryReactor* GrpcAdminService::RetireSigningKey(
    grpc::CallbackServerContext* context, const v1::RetireSigningKeyRequest* request,
    v1::RetireSigningKeyResponse* response) {
  return ChangeSigningKey(
      context, *request,
      [=](PolicyAdmin& admin) -> absl::StatusOr<SigningKey> {
        if (absl::Status refused = RefuseFileKey(request->kid()); !refused.ok()) return refused;
        return admin.RetireSigningKey(request->kid());
      },
      response->mutable_key());
}

grpc::ServerUnaryReactor* GrpcAdminService::ListSigningKeys(
    grpc::CallbackServerContext* context, const v1::ListSigningKeysRequest* request,
    v1::ListSigningKeysResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin& admin, const AdminActor&) -> absl::Status {
    absl::StatusOr<std::vector<SigningKey>> keys = admin.ListSigningKeys();
    if (!keys.ok()) return keys.status();
    for (const SigningKey& key : *keys) SigningKeyToProto(key, response->add_keys());
    return absl::OkStatus();
  });
}

// --- The admin audit log (issue 18 item 4) ---

namespace {

absl::StatusOr<AdminAuditFilter> AdminAuditFilterFromProto(
    const v1::QueryAdminAuditRequest& proto) {
  AdminAuditFilter filter{
      .principal = proto.principal(), .object_id = proto.object_id(), .call = proto.call()};
  if (proto.has_since()) {
    absl::StatusOr<absl::Time> since = TimeFromProto(proto.since());
    if (!since.ok())
      return absl::InvalidArgumentError(absl::StrCat("since: ", since.status().message()));
    filter.since = *since;
  }
  if (proto.has_until()) {
    absl::StatusOr<absl::Time> until = TimeFromProto(proto.until());
    if (!until.ok())
      return absl::InvalidArgumentError(absl::StrCat("until: ", until.status().message()));
    filter.until = *until;
  }
  return filter;
}

void AdminAuditRowToProto(const AdminAuditRow& row, v1::AdminAuditEntry* entry) {
  entry->set_seq(static_cast<uint64_t>(row.seq));
  *entry->mutable_recorded_at() = TimeToProto(absl::FromUnixMicros(row.recorded_at_us));
  entry->set_principal(row.principal);
  entry->set_auth_method(row.auth_method);
  entry->set_peer(row.peer);
  entry->set_call(row.call);
  for (const std::string& object : row.objects) entry->add_object_ids(object);
  entry->set_arguments_json(row.arguments_json);
  entry->set_result_code(row.result_code);
  entry->set_result_message(row.result_message);
  entry->set_prev_hash(row.prev_hash);
  entry->set_hash(row.hash);
}

}  // namespace

grpc::ServerUnaryReactor* GrpcAdminService::QueryAdminAudit(
    grpc::CallbackServerContext* context, const v1::QueryAdminAuditRequest* request,
    v1::QueryAdminAuditResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin&, const AdminActor&) -> absl::Status {
    absl::StatusOr<AdminAuditFilter> filter = AdminAuditFilterFromProto(*request);
    if (!filter.ok()) return filter.status();
    absl::StatusOr<AdminAuditPage> page = admin_audit_.Query(
        *filter, static_cast<int>(std::min<uint32_t>(request->page_size(), kMaxAdminAuditPageSize)),
        request->page_token());
    if (!page.ok()) return page.status();
    for (const AdminAuditRow& row : page->rows) AdminAuditRowToProto(row, response->add_entries());
    response->set_next_page_token(page->next_page_token);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::VerifyAdminAudit(
    grpc::CallbackServerContext* context, const v1::VerifyAdminAuditRequest* request,
    v1::VerifyAdminAuditResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin&, const AdminActor&) -> absl::Status {
    absl::StatusOr<AdminAuditVerification> verification = admin_audit_.Verify();
    if (!verification.ok()) return verification.status();
    response->set_intact(verification->intact);
    response->set_rows_checked(static_cast<uint64_t>(verification->rows_checked));
    response->set_first_bad_seq(static_cast<uint64_t>(verification->first_bad_seq));
    response->set_problem(verification->problem);
    response->set_pruned_through_seq(static_cast<uint64_t>(verification->pruned_through_seq));
    return absl::OkStatus();
  });
}

// Policy as code (issue 19): the file is parsed here, in the call's worker, and applied by the
// admin plane in one transaction.
grpc::ServerUnaryReactor* GrpcAdminService::ApplyPolicy(grpc::CallbackServerContext* context,
                                                        const v1::ApplyPolicyRequest* request,
                                                        v1::ApplyPolicyResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin& admin, const AdminActor&) -> absl::Status {
    const std::string file_name =
        request->file_name().empty() ? std::string("policy") : request->file_name();
    absl::StatusOr<PolicyFile> file = ParsePolicyFile(request->file_text(), file_name);
    if (!file.ok()) return file.status();
    absl::StatusOr<AppliedPolicy> applied =
        admin.ApplyPolicy(DeclaredPolicyOf(*file), request->dry_run());
    if (!applied.ok()) return applied.status();
    for (const PlanStep& step : applied->steps) {
      v1::PolicyPlanStep* out = response->add_steps();
      out->set_action(std::string(PlanActionName(step.action)));
      out->set_object(std::string(PlanObjectName(step.object)));
      out->set_id(step.id);
      for (const FieldChange& change : step.changes) {
        v1::PolicyFieldChange* field = out->add_changes();
        field->set_field(change.field);
        field->set_before(change.before);
        field->set_after(change.after);
      }
    }
    response->set_applied(applied->applied);
    response->set_plan_text(PlanText(applied->steps));
    response->set_policy_name(file->name);
    response->set_file_sha256(file->sha256_hex);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::CreateSession(grpc::CallbackServerContext* context,
                                                          const v1::CreateSessionRequest* request,
                                                          v1::CreateSessionResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin&, const AdminActor& actor) -> absl::Status {
    AdminSessionManager* sessions =
        authentication_ != nullptr ? authentication_->sessions() : nullptr;
    if (sessions == nullptr) return absl::UnimplementedError("admin sessions are not served here");
    absl::StatusOr<absl::Duration> ttl = SessionTtlFromProto(*request);
    if (!ttl.ok()) return ttl.status();
    absl::StatusOr<NewAdminSession> made = sessions->Create(actor, *ttl);
    if (!made.ok()) return made.status();
    response->set_session_id(made->session.id);
    response->set_token(made->token);
    response->set_principal(made->session.principal);
    *response->mutable_expires_at() = TimeToProto(made->session.expires_at);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::RevokeSession(grpc::CallbackServerContext* context,
                                                          const v1::RevokeSessionRequest* request,
                                                          v1::RevokeSessionResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin&, const AdminActor& actor) -> absl::Status {
    AdminSessionManager* sessions =
        authentication_ != nullptr ? authentication_->sessions() : nullptr;
    if (sessions == nullptr) return absl::UnimplementedError("admin sessions are not served here");
    absl::StatusOr<int64_t> revoked =
        sessions->Revoke(actor, BearerCredential(AuthorizationOf(*context)), request->session_id(),
                         request->principal());
    if (!revoked.ok()) return revoked.status();
    response->set_revoked(static_cast<uint32_t>(*revoked));
    return absl::OkStatus();
  });
}

// What an agent may do (issue 19 item 5).

void GrpcAdminService::set_decision_store(PolicyStore* store) {
  held_permissions_ = store == nullptr ? nullptr : std::make_unique<Authorizer>(*store, clock_);
}

namespace {

// The most rows one list of an agent's grants answers (as many as ValidateToken lists).
template <typename Row, typename Field>
bool ListCapped(const std::vector<Row>& rows, Field* field,
                void (*to_proto)(const Row&, typename Field::value_type*)) {
  const size_t listed = std::min(rows.size(), kMaxListedPermissions);
  for (size_t i = 0; i < listed; ++i) to_proto(rows[i], field->Add());
  return rows.size() > listed;
}

}  // namespace

grpc::ServerUnaryReactor* GrpcAdminService::ListAgentPermissions(
    grpc::CallbackServerContext* context, const v1::ListAgentPermissionsRequest* request,
    v1::ListAgentPermissionsResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin& admin, const AdminActor&) -> absl::Status {
    absl::StatusOr<AgentGrants> grants = admin.GetAgentGrants(request->agent_id());
    if (!grants.ok()) return grants.status();
    response->set_truncated(
        ListCapped(grants->permissions, response->mutable_permissions(), &PermissionToProto));
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::ListAgentDelegations(
    grpc::CallbackServerContext* context, const v1::ListAgentDelegationsRequest* request,
    v1::ListAgentDelegationsResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin& admin, const AdminActor&) -> absl::Status {
    absl::StatusOr<AgentGrants> grants = admin.GetAgentGrants(request->agent_id());
    if (!grants.ok()) return grants.status();
    const bool in_cut =
        ListCapped(grants->delegations_in, response->mutable_delegations_in(), &DelegationToProto);
    const bool out_cut = ListCapped(grants->delegations_out, response->mutable_delegations_out(),
                                    &DelegationToProto);
    response->set_truncated(in_cut || out_cut);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::ListEffectivePermissions(
    grpc::CallbackServerContext* context, const v1::ListEffectivePermissionsRequest* request,
    v1::ListEffectivePermissionsResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin& admin, const AdminActor&) -> absl::Status {
    if (held_permissions_ == nullptr) {
      return absl::UnimplementedError("this admin listener lists no effective permissions");
    }
    // The admin plane's checks of the id, and its NOT_FOUND.
    if (absl::StatusOr<Agent> agent = admin.GetAgent(request->agent_id()); !agent.ok()) {
      return agent.status();
    }
    absl::StatusOr<HeldPermissions> held = held_permissions_->EffectivePermissionsOf(
        request->agent_id(), [context] { return context->IsCancelled(); });
    if (!held.ok()) return held.status();
    AgentToProto(held->agent, response->mutable_agent());
    response->set_liveness(ReasonToProto(held->liveness));
    for (const EffectivePermission& permission : held->permissions) {
      EffectivePermissionToProto(permission, response->add_permissions());
    }
    response->set_permissions_truncated(held->permissions_truncated);
    return absl::OkStatus();
  });
}

// --- Admin principals and roles ---------------------------------------------------------------

absl::StatusOr<std::string> GrpcAdminService::HashNewSecret(const std::string& secret,
                                                            std::string* generated) {
  std::string chosen = secret;
  if (chosen.empty()) {
    chosen = NewPrincipalSecret();
    *generated = chosen;
  } else if (absl::Status valid = CheckAdminSecret(chosen); !valid.ok()) {
    return valid;
  }
  return HashSecret(chosen, auth_.hash_params());
}

grpc::ServerUnaryReactor* GrpcAdminService::CreatePrincipal(
    grpc::CallbackServerContext* context, const v1::CreatePrincipalRequest* request,
    v1::CreatePrincipalResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin& admin, const AdminActor&) -> absl::Status {
    if (absl::Status valid = ValidatePrincipalName(request->name()); !valid.ok()) return valid;
    const std::vector<std::string> patterns = Strings(request->grant_patterns());
    absl::StatusOr<AdminRoleSet> roles = RolesFromRequest(request->roles(), patterns);
    if (!roles.ok()) return roles.status();
    std::string generated;
    absl::StatusOr<std::string> hash = HashNewSecret(request->secret(), &generated);
    if (!hash.ok()) return hash.status();
    StoredAdminPrincipal stored;
    stored.principal = {
        .name = request->name(), .roles = *roles, .grant_patterns = patterns, .enabled = true};
    stored.secret_hash = *std::move(hash);
    stored.created_at = stored.updated_at = clock_();
    if (absl::Status created = admin.CreatePrincipal(stored); !created.ok()) return created;
    PrincipalToProto(stored, response->mutable_principal());
    response->set_secret(generated);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::ListPrincipals(grpc::CallbackServerContext* context,
                                                           const v1::ListPrincipalsRequest* request,
                                                           v1::ListPrincipalsResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin&, const AdminActor&) -> absl::Status {
    absl::StatusOr<std::vector<StoredAdminPrincipal>> all = auth_.credentials().ListPrincipals();
    if (!all.ok()) return all.status();
    for (const StoredAdminPrincipal& stored : *all) {
      PrincipalToProto(stored, response->add_principals());
    }
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::SetPrincipalEnabled(
    grpc::CallbackServerContext* context, const v1::SetPrincipalEnabledRequest* request,
    v1::SetPrincipalEnabledResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin& admin, const AdminActor&) -> absl::Status {
    absl::StatusOr<StoredAdminPrincipal> changed =
        admin.ChangePrincipal(request->name(), [&](StoredAdminPrincipal& stored) {
          stored.principal.enabled = request->enabled();
          return absl::OkStatus();
        });
    if (!changed.ok()) return changed.status();
    PrincipalToProto(*changed, response->mutable_principal());
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::SetPrincipalRoles(
    grpc::CallbackServerContext* context, const v1::SetPrincipalRolesRequest* request,
    v1::SetPrincipalRolesResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin& admin, const AdminActor&) -> absl::Status {
    const std::vector<std::string> patterns = Strings(request->grant_patterns());
    absl::StatusOr<AdminRoleSet> roles = RolesFromRequest(request->roles(), patterns);
    if (!roles.ok()) return roles.status();
    absl::StatusOr<StoredAdminPrincipal> changed =
        admin.ChangePrincipal(request->name(), [&](StoredAdminPrincipal& stored) {
          stored.principal.roles = *roles;
          stored.principal.grant_patterns = patterns;
          return absl::OkStatus();
        });
    if (!changed.ok()) return changed.status();
    PrincipalToProto(*changed, response->mutable_principal());
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* GrpcAdminService::SetPrincipalSecret(
    grpc::CallbackServerContext* context, const v1::SetPrincipalSecretRequest* request,
    v1::SetPrincipalSecretResponse* response) {
  return Serve(context, *request, [=](PolicyAdmin& admin, const AdminActor&) -> absl::Status {
    // Hashed before the write transaction begins: an Argon2id hash takes a while.
    std::string generated;
    absl::StatusOr<std::string> hash = HashNewSecret(request->secret(), &generated);
    if (!hash.ok()) return hash.status();
    absl::StatusOr<StoredAdminPrincipal> changed =
        admin.ChangePrincipal(request->name(), [&](StoredAdminPrincipal& stored) {
          stored.secret_hash = *hash;
          return absl::OkStatus();
        });
    if (!changed.ok()) return changed.status();
    PrincipalToProto(*changed, response->mutable_principal());
    response->set_secret(generated);
    return absl::OkStatus();
  });
}

}  // namespace verdict
