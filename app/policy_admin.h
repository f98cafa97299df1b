// The writes and reads of verdict's admin plane, apart from any one database. Both stores
// serve it with the same use cases (app/admin_calls.h, by the rules of decision/admin/), each
// reading and writing its rows in its own SQL (app/admin_transaction.h).
//
// Each call is one transaction (writes serialise with every other writer) and validates its
// input first. Refusals: INVALID_ARGUMENT (malformed input), NOT_FOUND (no such row),
// ALREADY_EXISTS (an id in use, an approver voting twice), FAILED_PRECONDITION (the state
// forbids it), each with a message that says why; UNAVAILABLE when the store cannot be used.
//
//   absl::StatusOr<CreatedAgent> created = admin.CreateAgent({.owner = "alice", .name = "bot"});
//   absl::StatusOr<Permission> p = admin.GrantPermission(
//       {.agent_id = created->agent.id, .resource = "docs:*", .actions = {"read"}});
#ifndef VERDICT_APP_POLICY_ADMIN_H_
#define VERDICT_APP_POLICY_ADMIN_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "decision/admin/policy_plan.h"
#include "decision/admin/roles.h"
#include "decision/types.h"
#include "store/admin_credential_store.h"
#include "store/admin_types.h"

namespace verdict {

// Whether the caller of an admin call still wants it: OK, or the status to answer instead (a
// cancel, a passed deadline). Asked just before a write would commit. By default always OK.
class CancelToken {
 public:
  CancelToken() = default;
  explicit CancelToken(std::function<absl::Status()> still_wanted)
      : still_wanted_(std::move(still_wanted)) {}

  absl::Status Check() const { return still_wanted_ ? still_wanted_() : absl::OkStatus(); }

 private:
  std::function<absl::Status()> still_wanted_;
};

class AdminTransaction;  // app/admin_transaction.h

// Records each admin write in the write's own transaction, so the change and its record commit
// together or not at all (the admin audit log, issue 18 item 4).
class AdminWriteRecorder {
 public:
  virtual ~AdminWriteRecorder() = default;
  // Called inside each write transaction of a call, after its writes and the cancel check, just
  // before it commits: `answer` is what the call will answer (OK, or a refusal that still commits,
  // as a vote on an expired request marks it expired), `created_ids` the ids of the rows it
  // created that its input did not name. A failure rolls the write back and is the call's answer.
  virtual absl::Status RecordWrite(AdminTransaction& transaction, const absl::Status& answer,
                                   const std::vector<std::string>& created_ids) = 0;
  // The transaction whose write was last recorded has committed.
  virtual void Committed() = 0;
};

// A policy file's objects to apply (app/policy_file.h reads them from the file).
struct DeclaredPolicy {
  // The file's name for its objects: the store records it as their manager.
  std::string manager;
  // An agent's token_sha256 is empty when the file gives none.
  PolicyContents policy;
  // Places an error about a field ("agents[1].kind: ...") in the file, with its name and line.
  std::function<absl::Status(const absl::Status&)> locate;
};

// What an apply did: its steps (decision/admin/policy_plan.h), and whether they were written.
struct AppliedPolicy {
  std::vector<PlanStep> steps;
  bool applied = false;  // false for a dry run, and when there was nothing to change
};

// An agent's grants as stored (`verdict agents permissions`, `agents delegations`): its own
// permissions, and the delegations into and out of it that are active and unexpired, in
// creation order, read in one transaction.
struct AgentGrants {
  Agent agent;
  std::vector<Permission> permissions;
  std::vector<Delegation> delegations_in;
  std::vector<Delegation> delegations_out;
};

class PolicyAdmin {
 public:
  virtual ~PolicyAdmin() = default;

  // The same admin plane, whose writes each commit only while `cancel` answers OK just before
  // they would commit; otherwise they roll back and answer its status. The admin service's
  // caller may give up while a write runs, and must then find nothing written: it would never
  // learn of the write, nor of a token the write minted. Reads are answered either way.
  virtual std::unique_ptr<PolicyAdmin> WithCancel(CancelToken cancel) = 0;
  // The same admin plane (and cancel token), whose writes each `recorder` records in their own
  // transaction; `recorder` must outlive the result.
  virtual std::unique_ptr<PolicyAdmin> WithRecorder(AdminWriteRecorder& recorder) = 0;
  // The same admin plane (cancel token and recorder kept) acting for `principal`: the agents
  // its writes create (a policy apply's too) record it as their creator, and a token rotation
  // is refused (PERMISSION_DENIED) unless decision/admin/roles.h's CheckMayRotateToken allows
  // it. Without it, agents record no creator and any rotation is allowed.
  virtual std::unique_ptr<PolicyAdmin> ActingFor(const AdminPrincipal& principal) = 0;

  // A new active agent and its token. ALREADY_EXISTS when the given id is taken.
  virtual absl::StatusOr<CreatedAgent> CreateAgent(const NewAgent& agent) = 0;
  virtual absl::StatusOr<Agent> GetAgent(absl::string_view agent_id) = 0;
  virtual absl::StatusOr<AgentPage> ListAgents(const PageRequest& page) = 0;
  // Suspends, reactivates or revokes. Revoked is final: leaving it is FAILED_PRECONDITION;
  // setting the status an agent already has changes nothing.
  virtual absl::StatusOr<Agent> SetAgentStatus(absl::string_view agent_id, AgentStatus status) = 0;
  // A new token; the previous one keeps working for `grace` (zero: it stops now). A token that
  // was still in an earlier grace period stops now.
  virtual absl::StatusOr<RotatedToken> RotateToken(absl::string_view agent_id,
                                                   absl::Duration grace) = 0;

  virtual absl::StatusOr<Permission> GrantPermission(const NewPermission& permission) = 0;
  virtual absl::Status RevokePermission(absl::string_view permission_id) = 0;

  // FAILED_PRECONDITION when the delegation lends more than the delegator holds, would sit on
  // a path longer than a max_depth allows, or would close a cycle (see
  // decision/admin/delegation_rules.h).
  virtual absl::StatusOr<Delegation> CreateDelegation(const NewDelegation& delegation) = 0;
  // Revoking a revoked delegation changes nothing.
  virtual absl::Status RevokeDelegation(absl::string_view delegation_id) = 0;

  // Approval requests with `status` (every status when nullopt), oldest first. A pending or
  // approved request past its expiry is listed as expired.
  virtual absl::StatusOr<ApprovalPage> ListApprovals(std::optional<ApprovalStatus> status,
                                                     const PageRequest& page) = 0;
  virtual absl::StatusOr<ApprovalRequest> GetApproval(absl::string_view approval_id) = 0;
  // One vote on a pending request. Quorum distinct approvals approve it; one deny denies it.
  // ALREADY_EXISTS when this approver has voted; FAILED_PRECONDITION when the request is no
  // longer pending, or has expired at `now` (it is then marked expired).
  virtual absl::StatusOr<ApprovalRequest> VoteOnApproval(absl::string_view approval_id,
                                                         absl::string_view approver, bool approve,
                                                         absl::Time now) = 0;

  // The votes cast on an approval request, in the order they were cast. NOT_FOUND when there is
  // no such request.
  virtual absl::StatusOr<std::vector<ApprovalVoteCast>> ApprovalVotes(
      absl::string_view approval_id);

  // The whole policy in one consistent read.
  virtual absl::StatusOr<PolicyContents> ExportPolicy() = 0;
  // Writes `policy` into an empty store, all or nothing; FAILED_PRECONDITION when the store
  // holds any agent, permission or delegation. Validates every field like the calls above, but
  // not the delegation rules: an export may hold delegations whose delegator has since lost
  // what it lent, and the engine ignores those at decision time anyway.
  virtual absl::Status ImportPolicy(const PolicyContents& policy) = 0;
  // True when the store holds no agent, permission or delegation.
  virtual absl::StatusOr<bool> IsEmpty() = 0;

  // JWT access tokens (design section 2; store/signing_keys.h states what input is accepted).
  // A store that keeps no signing keys answers UNIMPLEMENTED.

  // Revokes the access token with this "jti" until `expires_at`, its "exp" (after which the token
  // is refused anyway). Revoking it again keeps the later expiry.
  virtual absl::Status RevokeTokenId(absl::string_view jti, absl::Time expires_at);
  // A new active signing key under its JWK's kid. ALREADY_EXISTS when the kid is taken, by a
  // retired key too: a kid is never reused.
  virtual absl::StatusOr<SigningKey> AddSigningKey(const NewSigningKey& key);
  // New content and allowlist for the active key with the JWK's kid (a rotation in place: tokens
  // the old content signed stop verifying at once). NOT_FOUND when no key has the kid;
  // FAILED_PRECONDITION when it is retired.
  virtual absl::StatusOr<SigningKey> RotateSigningKey(const NewSigningKey& key);
  // Tokens the key signed stop verifying. Retiring a retired key changes nothing.
  virtual absl::StatusOr<SigningKey> RetireSigningKey(absl::string_view kid);
  // Every signing key, oldest first.
  virtual absl::StatusOr<std::vector<SigningKey>> ListSigningKeys();

  // Policy files (issue 19). Makes the store hold exactly the objects `declared` declares among
  // those it records as managed by `declared.manager`: creates, changes and deletes them in one
  // transaction, all or nothing, and answers the steps (none: nothing written). `dry_run` only
  // plans. Every object is checked by the single calls' rules (the delegation rules for each
  // created delegation); the first refused one is named by its file, line and field.
  // INVALID_ARGUMENT for a malformed object; FAILED_PRECONDITION for an id held by an object the
  // file does not manage (created at run time, or by a file of another name), a revoked agent
  // made live again, or a delegation the delegation rules refuse.
  virtual absl::StatusOr<AppliedPolicy> ApplyPolicy(const DeclaredPolicy& declared, bool dry_run);
  // The agent's grants (AgentGrants above), delegations live at the admin clock's now.
  // NOT_FOUND when there is no such agent.
  virtual absl::StatusOr<AgentGrants> GetAgentGrants(absl::string_view agent_id);

  // Admin principals (store/admin_credential_store.h), written like every other admin write:
  // committed only while the cancel token answers OK, recorded in their own transaction.
  // ALREADY_EXISTS when the name is taken; RESOURCE_EXHAUSTED past kMaxAdminPrincipals. The
  // input is validated by the caller (decision/admin/roles.h).
  virtual absl::Status CreatePrincipal(const StoredAdminPrincipal& principal);
  // `change` gets the principal as stored and answers it as it is to be, at the admin clock's
  // now; refused when it would leave no enabled admin (FAILED_PRECONDITION). NOT_FOUND when there
  // is no such principal.
  virtual absl::StatusOr<StoredAdminPrincipal> ChangePrincipal(
      absl::string_view name, const std::function<absl::Status(StoredAdminPrincipal&)>& change);
};

inline absl::Status PolicyAdmin::CreatePrincipal(const StoredAdminPrincipal&) {
  return absl::UnimplementedError("this policy store keeps no admin principals");
}
inline absl::StatusOr<StoredAdminPrincipal> PolicyAdmin::ChangePrincipal(
    absl::string_view, const std::function<absl::Status(StoredAdminPrincipal&)>&) {
  return absl::UnimplementedError("this policy store keeps no admin principals");
}

inline absl::StatusOr<AppliedPolicy> PolicyAdmin::ApplyPolicy(const DeclaredPolicy&, bool) {
  return absl::UnimplementedError("this policy store applies no policy files");
}

inline absl::Status PolicyAdmin::RevokeTokenId(absl::string_view, absl::Time) {
  return absl::UnimplementedError("this policy store keeps no revoked JWT ids");
}
inline absl::StatusOr<std::vector<ApprovalVoteCast>> PolicyAdmin::ApprovalVotes(absl::string_view) {
  return absl::UnimplementedError("this policy store lists no votes");
}
inline absl::StatusOr<SigningKey> PolicyAdmin::AddSigningKey(const NewSigningKey&) {
  return absl::UnimplementedError("this policy store keeps no JWT signing keys");
}
inline absl::StatusOr<SigningKey> PolicyAdmin::RotateSigningKey(const NewSigningKey&) {
  return absl::UnimplementedError("this policy store keeps no JWT signing keys");
}
inline absl::StatusOr<SigningKey> PolicyAdmin::RetireSigningKey(absl::string_view) {
  return absl::UnimplementedError("this policy store keeps no JWT signing keys");
}
inline absl::StatusOr<std::vector<SigningKey>> PolicyAdmin::ListSigningKeys() {
  return absl::UnimplementedError("this policy store keeps no JWT signing keys");
}
inline absl::StatusOr<AgentGrants> PolicyAdmin::GetAgentGrants(absl::string_view) {
  return absl::UnimplementedError("this policy store lists no agent's grants");
}

}  // namespace verdict

#endif  // VERDICT_APP_POLICY_ADMIN_H_
