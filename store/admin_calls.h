// The admin plane's calls (store/policy_admin.h), written once for every database: each call
// checks its input, then reads and writes in one transaction by the rules of design section 1.
// A store derives from StoreWithAdminCalls and hands it its database (store/connection.h), whose
// rows the calls read and write through store/admin_transaction.h, and the clock of its writes.
//
//   class SqliteStore final : public StoreWithAdminCalls { ... };
#ifndef VERDICT_STORE_ADMIN_CALLS_H_
#define VERDICT_STORE_ADMIN_CALLS_H_

#include <functional>
#include <optional>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "decision/types.h"
#include "store/admin_transaction.h"
#include "store/admin_types.h"
#include "store/store.h"

namespace verdict {

// While one lives, the admin calls its thread makes commit only if `still_wanted` answers OK
// just before they would commit; otherwise they roll back and return its status. The admin
// service's caller may give up (a deadline, a cancel) while a write runs, and must then find
// nothing written: it would never learn of the write, nor of a token the write minted.
class CommitOnlyWhile {
 public:
  explicit CommitOnlyWhile(std::function<absl::Status()> still_wanted);
  ~CommitOnlyWhile();
  CommitOnlyWhile(const CommitOnlyWhile&) = delete;
  CommitOnlyWhile& operator=(const CommitOnlyWhile&) = delete;

  // OK, or the status of this thread's first condition, innermost first, that no longer holds.
  static absl::Status Check();

 private:
  std::function<absl::Status()> still_wanted_;
  const CommitOnlyWhile* const outer_;
};

class StoreWithAdminCalls : public Store {
 public:
  // Store: one read of the policy's tables, which opens (and migrates) a connection when none is.
  absl::Status CheckAvailable() override;
  // Store: in one kLockFreeWrite transaction of `prune_database`.
  absl::StatusOr<PrunedRows> PruneDeadRows(const PruneLimits& limits, absl::Time now) override;
  // Store: the same, at the time the database's kDatabaseClock statement reads in that
  // transaction, or at this store's clock where the database has none.
  absl::StatusOr<PrunedRows> PruneDeadRowsByDatabaseClock(const PruneLimits& limits) override;

  absl::StatusOr<CreatedAgent> CreateAgent(const NewAgent& agent) final;
  absl::StatusOr<Agent> GetAgent(absl::string_view agent_id) final;
  absl::StatusOr<AgentPage> ListAgents(const PageRequest& page) final;
  absl::StatusOr<Agent> SetAgentStatus(absl::string_view agent_id, AgentStatus status) final;
  absl::StatusOr<RotatedToken> RotateToken(absl::string_view agent_id, absl::Duration grace) final;
  absl::StatusOr<Permission> GrantPermission(const NewPermission& permission) final;
  absl::Status RevokePermission(absl::string_view permission_id) final;
  absl::StatusOr<Delegation> CreateDelegation(const NewDelegation& delegation) final;
  absl::Status RevokeDelegation(absl::string_view delegation_id) final;
  absl::StatusOr<ApprovalPage> ListApprovals(std::optional<ApprovalStatus> status,
                                             const PageRequest& page) final;
  absl::StatusOr<ApprovalRequest> GetApproval(absl::string_view approval_id) final;
  absl::StatusOr<ApprovalRequest> VoteOnApproval(absl::string_view approval_id,
                                                 absl::string_view approver, bool approve,
                                                 absl::Time now) final;
  absl::StatusOr<PolicyContents> ExportPolicy() final;
  absl::Status ImportPolicy(const PolicyContents& policy) final;
  absl::StatusOr<bool> IsEmpty() final;
  absl::Status RevokeTokenId(absl::string_view jti, absl::Time expires_at) final;
  absl::StatusOr<SigningKey> AddSigningKey(const NewSigningKey& key) final;
  absl::StatusOr<SigningKey> RotateSigningKey(const NewSigningKey& key) final;
  absl::StatusOr<SigningKey> RetireSigningKey(absl::string_view kid) final;
  absl::StatusOr<std::vector<SigningKey>> ListSigningKeys() final;

 protected:
  // The admin calls run in `database`'s transactions; the pruning job in `prune_database`'s, a
  // connection of its own that a decision never waits for. `clock` is the time of admin writes
  // (created_at, updated_at, grace expiries) and of approvals' expiry. The databases must
  // outlive this store.
  StoreWithAdminCalls(Database& database, Database& prune_database,
                      std::function<absl::Time()> clock)
      : database_(database), prune_database_(prune_database), clock_(std::move(clock)) {}

 private:
  absl::Time AdminClock() { return clock_(); }
  // Prunes at `now`, or at the database's clock when there is no `now`.
  absl::StatusOr<PrunedRows> Prune(const PruneLimits& limits, std::optional<absl::Time> now);
  // One transaction, with a write committed only while CommitOnlyWhile::Check() is OK.
  absl::Status Transact(TransactionKind kind,
                        absl::FunctionRef<absl::Status(AdminTransaction&)> body);

  Database& database_;
  Database& prune_database_;
  const std::function<absl::Time()> clock_;
};

}  // namespace verdict

#endif  // VERDICT_STORE_ADMIN_CALLS_H_
