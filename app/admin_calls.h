// The admin plane's use cases (app/policy_admin.h), written once for every database and
// composed over a transaction runner that a store provides: each call checks its input by the
// rules of decision/admin/, then, in one transaction, reads the rows the rules need and writes
// what they decided (app/admin_transaction.h).
//
//   AdminCalls admin(runner, clock, CancelToken([context] {
//     return context->IsCancelled() ? absl::CancelledError("gave up") : absl::OkStatus();
//   }));
//   absl::StatusOr<CreatedAgent> created = admin.CreateAgent({.owner = "alice", .name = "bot"});
#ifndef VERDICT_APP_ADMIN_CALLS_H_
#define VERDICT_APP_ADMIN_CALLS_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "app/admin_transaction.h"
#include "app/policy_admin.h"
#include "decision/types.h"
#include "store/admin_types.h"
#include "store/connection.h"

namespace verdict {

// Runs admin transactions over a store's rows.
class AdminTransactionRunner {
 public:
  virtual ~AdminTransactionRunner() = default;
  // Runs `body` in one transaction of `kind`; a write commits when `body` returns OK and rolls
  // back otherwise. `body`'s status, or the store's (UNAVAILABLE, INTERNAL).
  virtual absl::Status RunAdminTransaction(
      TransactionKind kind, absl::FunctionRef<absl::Status(AdminTransaction&)> body) = 0;
};

class AdminCalls final : public PolicyAdmin {
 public:
  // `clock` is the time of admin writes (created_at, updated_at, grace expiries) and of
  // approvals' expiry. A write commits only while `cancel` answers OK. `runner` must outlive
  // the calls.
  // Each write transaction is recorded by `recorder` when there is one (PolicyAdmin::
  // WithRecorder).
  // Agents it creates record `actor` as their creator, and its token rotations follow
  // CheckMayRotateToken for it, when there is one (PolicyAdmin::ActingFor).
  AdminCalls(AdminTransactionRunner& runner, std::function<absl::Time()> clock,
             CancelToken cancel = CancelToken(), AdminWriteRecorder* recorder = nullptr,
             std::shared_ptr<const AdminPrincipal> actor = nullptr);

  // Another AdminCalls over the same runner, cancelled when this one's token or `cancel` is.
  std::unique_ptr<PolicyAdmin> WithCancel(CancelToken cancel) override;
  std::unique_ptr<PolicyAdmin> WithRecorder(AdminWriteRecorder& recorder) override;
  std::unique_ptr<PolicyAdmin> ActingFor(const AdminPrincipal& principal) override;

  absl::StatusOr<CreatedAgent> CreateAgent(const NewAgent& agent) override;
  absl::StatusOr<Agent> GetAgent(absl::string_view agent_id) override;
  absl::StatusOr<AgentPage> ListAgents(const PageRequest& page) override;
  absl::StatusOr<Agent> SetAgentStatus(absl::string_view agent_id, AgentStatus status) override;
  absl::StatusOr<RotatedToken> RotateToken(absl::string_view agent_id,
                                           absl::Duration grace) override;
  absl::StatusOr<Permission> GrantPermission(const NewPermission& permission) override;
  absl::Status RevokePermission(absl::string_view permission_id) override;
  absl::StatusOr<Delegation> CreateDelegation(const NewDelegation& delegation) override;
  absl::Status RevokeDelegation(absl::string_view delegation_id) override;
  absl::StatusOr<ApprovalPage> ListApprovals(std::optional<ApprovalStatus> status,
                                             const PageRequest& page) override;
  absl::StatusOr<ApprovalRequest> GetApproval(absl::string_view approval_id) override;
  absl::StatusOr<std::vector<ApprovalVoteCast>> ApprovalVotes(
      absl::string_view approval_id) override;
  absl::StatusOr<ApprovalRequest> VoteOnApproval(absl::string_view approval_id,
                                                 absl::string_view approver, bool approve,
                                                 absl::Time now) override;
  absl::StatusOr<PolicyContents> ExportPolicy() override;
  absl::Status ImportPolicy(const PolicyContents& policy) override;
  absl::StatusOr<bool> IsEmpty() override;
  absl::Status RevokeTokenId(absl::string_view jti, absl::Time expires_at) override;
  absl::StatusOr<SigningKey> AddSigningKey(const NewSigningKey& key) override;
  absl::StatusOr<SigningKey> RotateSigningKey(const NewSigningKey& key) override;
  absl::StatusOr<SigningKey> RetireSigningKey(absl::string_view kid) override;
  absl::StatusOr<std::vector<SigningKey>> ListSigningKeys() override;
  absl::StatusOr<AppliedPolicy> ApplyPolicy(const DeclaredPolicy& declared, bool dry_run) override;
  absl::StatusOr<AgentGrants> GetAgentGrants(absl::string_view agent_id) override;
  absl::Status CreatePrincipal(const StoredAdminPrincipal& principal) override;
  absl::StatusOr<StoredAdminPrincipal> ChangePrincipal(
      absl::string_view name,
      const std::function<absl::Status(StoredAdminPrincipal&)>& change) override;

 private:
  // The principal an agent created in `t` records as its creator ("" without an actor).
  absl::Status RecordCreator(AdminTransaction& t, absl::string_view agent_id);
  absl::Time AdminClock() { return clock_(); }
  // One transaction; a write as RecordedWrite({}, nullptr, body).
  absl::Status Transact(TransactionKind kind,
                        absl::FunctionRef<absl::Status(AdminTransaction&)> body);
  // One write transaction, committed only while cancel_ answers OK, and recorded by recorder_
  // (if any) just before it commits, with `answer` (OK when null) as the call's answer, read
  // after `body` ran, and `created_ids`, the ids of the rows it creates that the input did not
  // name.
  absl::Status RecordedWrite(const std::vector<std::string>& created_ids,
                             const absl::Status* answer,
                             absl::FunctionRef<absl::Status(AdminTransaction&)> body);

  AdminTransactionRunner& runner_;
  const std::function<absl::Time()> clock_;
  const CancelToken cancel_;
  AdminWriteRecorder* const recorder_;
  const std::shared_ptr<const AdminPrincipal> actor_;
};

}  // namespace verdict

#endif  // VERDICT_APP_ADMIN_CALLS_H_
