// The rows one admin-plane transaction reads and writes, so that the admin calls themselves
// (their checks, the order of their reads and writes, the rules between them) are written once,
// in app/admin_calls.h, over any source of rows. store/admin_transaction.h reads and writes them
// over a database connection, for both databases.
//
// Every method runs inside the caller's transaction. A failing method returns the store's
// status (UNAVAILABLE, INTERNAL); nothing throws.
#ifndef VERDICT_APP_ADMIN_TRANSACTION_H_
#define VERDICT_APP_ADMIN_TRANSACTION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "app/admin_input.h"
#include "decision/types.h"
#include "store/admin_audit_row.h"
#include "store/admin_credential_store.h"
#include "store/admin_types.h"

namespace verdict {

class AdminTransaction {
 public:
  virtual ~AdminTransaction() = default;

  // The row with this id, or nullopt. An approval past its expiry at `now` reads as expired.
  virtual absl::StatusOr<std::optional<Agent>> FindAgent(absl::string_view agent_id) = 0;
  virtual absl::StatusOr<std::optional<Permission>> FindPermission(
      absl::string_view permission_id) = 0;
  virtual absl::StatusOr<std::optional<Delegation>> FindDelegation(
      absl::string_view delegation_id) = 0;
  virtual absl::StatusOr<std::optional<ApprovalRequest>> FindApproval(absl::string_view approval_id,
                                                                      absl::Time now) = 0;

  // Up to `limit` agents whose ids sort after `after_id`, in id order.
  virtual absl::StatusOr<std::vector<Agent>> ListAgents(absl::string_view after_id,
                                                        int64_t limit) = 0;
  // Up to `limit` approval requests after `start` in (created_at, id) order, with `status`
  // (any when nullopt) as read at `now`.
  virtual absl::StatusOr<std::vector<ApprovalRequest>> ListApprovals(
      const ApprovalPageStart& start, std::optional<ApprovalStatus> status, int64_t limit,
      absl::Time now) = 0;

  // What the delegation rules read (decision/admin/delegation_rules.h): an agent's permissions, and
  // the delegations into and out of it that are active and unexpired at `now`.
  virtual absl::StatusOr<std::vector<Permission>> PermissionsOf(absl::string_view agent_id) = 0;
  virtual absl::StatusOr<std::vector<Delegation>> ActiveDelegationsInto(absl::string_view agent_id,
                                                                        absl::Time now) = 0;
  virtual absl::StatusOr<std::vector<Delegation>> ActiveDelegationsFrom(absl::string_view agent_id,
                                                                        absl::Time now) = 0;

  // True when `approver` has voted on the approval.
  virtual absl::StatusOr<bool> HasVoted(absl::string_view approval_id,
                                        absl::string_view approver) = 0;
  // The votes on the approval, in the order they were cast.
  virtual absl::StatusOr<std::vector<ApprovalVoteCast>> VotesOn(absl::string_view approval_id) = 0;
  // Foreign keys checked when the transaction commits rather than by each write, where the
  // database can (SQLite: true); false leaves them checked as each row is written (PostgreSQL's
  // are not deferrable).
  virtual absl::StatusOr<bool> DeferForeignKeyChecks() = 0;
  // Where the database rewrites an agent's whole decision record on every write of one of its
  // permissions or delegations (SQLite), takes the records of `agent_ids` out of the way until
  // PutDecisionRecordsBack, so that a transaction writing many rows of one agent pays for its
  // record once, not once per row (quadratic in the rows otherwise). Nothing outside the
  // transaction ever sees a record missing. Where records are rewritten once per transaction
  // anyway (PostgreSQL), nothing is done.
  virtual absl::Status SetDecisionRecordsAside(const std::vector<std::string>& agent_ids) = 0;
  // Builds the records of `agent_ids` again from the tables (an agent deleted since has none).
  virtual absl::Status PutDecisionRecordsBack(const std::vector<std::string>& agent_ids) = 0;
  // True when there is no agent, permission or delegation.
  virtual absl::StatusOr<bool> PolicyIsEmpty() = 0;
  // Every agent (with its token's hash), permission and delegation, in creation order.
  virtual absl::StatusOr<PolicyContents> ReadPolicy() = 0;

  virtual absl::Status InsertAgent(const Agent& agent, absl::string_view token_sha256) = 0;
  // The token a rotation replaced, accepted until `expires_at` (a policy import restores it).
  virtual absl::Status SetPreviousToken(absl::string_view agent_id,
                                        absl::string_view previous_token_sha256,
                                        absl::Time expires_at) = 0;
  virtual absl::Status SetAgentStatus(absl::string_view agent_id, AgentStatus status,
                                      absl::Time now) = 0;
  // The agent's token becomes `token_sha256`; its previous token keeps working until
  // `previous_until` (nullopt: it stops now).
  virtual absl::Status ReplaceToken(absl::string_view agent_id,
                                    std::optional<absl::Time> previous_until,
                                    absl::string_view token_sha256, absl::string_view token_prefix,
                                    absl::Time now) = 0;
  // `permission.constraints_json` must be canonical (CanonicalConstraintsJson).
  virtual absl::Status InsertPermission(const Permission& permission) = 0;
  // False when there was no such permission.
  virtual absl::StatusOr<bool> DeletePermission(absl::string_view permission_id) = 0;
  virtual absl::Status InsertDelegation(const Delegation& delegation,
                                        absl::string_view lent_json) = 0;
  virtual absl::Status RevokeDelegation(absl::string_view delegation_id) = 0;
  // Rate counts no decision reads again, deleted with the write that ends them: every agent's
  // counts of a permission; of a delegation's lent permissions ("<id>#<index>"); an agent's own
  // counts and every agent's counts of its permissions.
  virtual absl::Status DeleteRateCountersOfPermission(absl::string_view permission_id) = 0;
  virtual absl::Status DeleteRateCountersOfDelegation(absl::string_view delegation_id) = 0;
  virtual absl::Status DeleteRateCountersOfAgent(absl::string_view agent_id) = 0;
  virtual absl::Status InsertVote(absl::string_view approval_id, absl::string_view approver,
                                  bool approve, absl::Time now) = 0;
  virtual absl::Status SetApprovalStatus(absl::string_view approval_id, ApprovalStatus status,
                                         absl::Time now) = 0;

  // JWT access tokens (design section 2).
  // The signing key with this kid, active or retired, or nullopt.
  virtual absl::StatusOr<std::optional<SigningKey>> FindSigningKey(absl::string_view kid) = 0;
  // Every signing key, oldest first.
  virtual absl::StatusOr<std::vector<SigningKey>> ListSigningKeys() = 0;
  virtual absl::Status InsertSigningKey(const SigningKey& key) = 0;
  // The key's JWK and algorithms become `content`'s (a rotation in place).
  virtual absl::Status ReplaceSigningKeyContent(const SigningKey& content) = 0;
  virtual absl::Status RetireSigningKey(absl::string_view kid, absl::Time now) = 0;
  // Forgets revoked token ids whose tokens expired before `expired_before`.
  virtual absl::Status PruneRevokedTokenIds(absl::Time expired_before) = 0;
  // Revokes the token id until `expires_at`; revoking it again keeps the later expiry.
  virtual absl::Status RevokeTokenId(absl::string_view jti, absl::Time expires_at) = 0;

  // Appends `row` to the admin audit log (store/admin_audit_log.h), chained after the last row;
  // fills its seq and hashes.
  virtual absl::Status AppendAdminAudit(AdminAuditRow& row) = 0;
  // Policy files (issue 19). The agents (with their token hashes), permissions and delegations
  // recorded as managed by `manager` (a policy file's name), in creation order.
  virtual absl::StatusOr<PolicyContents> ReadManaged(absl::string_view manager) = 0;
  // Records the row as managed by `manager` ("" for none: a run-time object).
  virtual absl::Status SetAgentManager(absl::string_view agent_id, absl::string_view manager) = 0;
  virtual absl::Status SetPermissionManager(absl::string_view permission_id,
                                            absl::string_view manager) = 0;
  virtual absl::Status SetDelegationManager(absl::string_view delegation_id,
                                            absl::string_view manager) = 0;
  // Sets the agent's owner, name, kind, status, expiry, descriptive columns and updated_at to
  // `agent`'s (its token is ReplaceToken's).
  virtual absl::Status UpdateAgentFields(const Agent& agent) = 0;
  // Deletes the row and, with it, what hangs off it (an agent's permissions and delegations).
  // False when there was no such row.
  virtual absl::StatusOr<bool> DeleteAgent(absl::string_view agent_id) = 0;
  virtual absl::StatusOr<bool> DeleteDelegation(absl::string_view delegation_id) = 0;

  // Who created an agent (issue 18): the principal recorded, "" for none (an agent created
  // before creators were recorded, or by an import). NOT_FOUND when there is no such agent.
  virtual absl::Status SetAgentCreator(absl::string_view agent_id, absl::string_view principal) = 0;
  virtual absl::StatusOr<std::string> AgentCreator(absl::string_view agent_id) = 0;
  // Admin principals, as PolicyAdmin::CreatePrincipal and ChangePrincipal say, in this
  // transaction.
  virtual absl::Status CreatePrincipal(const StoredAdminPrincipal& principal) = 0;
  virtual absl::StatusOr<StoredAdminPrincipal> ChangePrincipal(
      absl::string_view name, const std::function<absl::Status(StoredAdminPrincipal&)>& change,
      absl::Time now) = 0;
};

}  // namespace verdict

#endif  // VERDICT_APP_ADMIN_TRANSACTION_H_
