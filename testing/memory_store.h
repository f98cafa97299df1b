// An in-memory PolicyStore for tests, fuzzers and benchmarks (testonly). It keeps the contract
// the SQL stores keep (store/policy_store_contract_test.cc runs the same cases on all three).
//
// The state is a handful of tables shared copy-on-write between versions. A snapshot holds the
// version that was current when it began (a few shared pointers, nothing copied), so it keeps
// seeing exactly that state. Writers (the setters below and WriteTransaction) run one at a time
// and copy a table only while some snapshot still holds it. A transaction's writes become
// visible at Commit and are dropped when it is destroyed uncommitted.
//
//   MemoryPolicyStore store;
//   Agent agent;
//   agent.id = "agt_a";
//   store.AddAgent(agent);
//   Permission read;
//   read.agent_id = "agt_a";
//   read.resource = "docs:*";
//   read.actions = {"read"};
//   absl::StatusOr<std::string> id = store.AddPermission(read);  // "perm_1"
//
// The store must outlive its snapshots and transactions.
#ifndef VERDICT_TESTING_MEMORY_STORE_H_
#define VERDICT_TESTING_MEMORY_STORE_H_

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "decision/policy_store.h"
#include "decision/types.h"

namespace verdict {

namespace memory_store_internal {

struct AgentRecord {
  Agent agent;
  std::string token_sha256;
  // A rotated-out token that still authenticates until previous_valid_until.
  std::string previous_token_sha256;
  absl::Time previous_valid_until = absl::InfinitePast();
};

struct DelegationTable {
  absl::flat_hash_map<std::string, std::vector<Delegation>> into;  // by to_agent_id
  absl::flat_hash_map<std::string, std::string> to_agent_of;       // by delegation id
};

struct ApprovalEntry {
  ApprovalRequest request;
  absl::flat_hash_set<std::string> voters;  // who voted, either way
  std::set<std::string> approvers;          // who voted to approve, by name
};

struct ApprovalTable {
  absl::flat_hash_map<std::string, ApprovalEntry> by_id;
  // Ids of the requests for one call (agent, action, resource, arguments hash), oldest first.
  absl::flat_hash_map<std::string, std::vector<std::string>> by_call;
  std::vector<std::string> in_creation_order;
};

using RateKey = std::pair<std::string, std::string>;  // agent, permission
// One (agent, permission)'s counts by window start: the current window and the previous one
// (older ones are forgotten as the SQL stores forget them), more while window lengths are unknown.
using RateWindows = std::vector<std::pair<int64_t, int64_t>>;
using RateTable = absl::flat_hash_map<RateKey, RateWindows>;

// One version of the whole state. Copying it copies pointers only.
struct Tables {
  std::shared_ptr<absl::flat_hash_map<std::string, AgentRecord>> agents;
  std::shared_ptr<absl::flat_hash_map<std::string, SigningKey>> signing_keys;  // by kid
  std::shared_ptr<absl::flat_hash_set<std::string>> revoked_token_ids;
  std::shared_ptr<absl::flat_hash_map<std::string, std::string>> agent_by_token;
  std::shared_ptr<absl::flat_hash_map<std::string, std::vector<Permission>>> permissions;
  std::shared_ptr<DelegationTable> delegations;
  std::shared_ptr<ApprovalTable> approvals;
  std::shared_ptr<RateTable> rates;
};

}  // namespace memory_store_internal

class MemoryPolicyStore : public PolicyStore {
 public:
  MemoryPolicyStore();
  MemoryPolicyStore(const MemoryPolicyStore&) = delete;
  MemoryPolicyStore& operator=(const MemoryPolicyStore&) = delete;

  absl::StatusOr<std::unique_ptr<ReadSnapshot>> BeginRead() override;
  // Waits while another transaction is open.
  absl::StatusOr<std::unique_ptr<WriteTransaction>> BeginWrite() override;

  // The setters below wait for an open transaction to finish, then apply at once.
  // An empty agent id is INVALID_ARGUMENT; a taken one ALREADY_EXISTS.
  absl::Status AddAgent(const Agent& agent);
  absl::Status SetAgentStatus(absl::string_view agent_id, AgentStatus status);
  absl::Status SetAgentExpiry(absl::string_view agent_id, absl::Time expires_at);
  // Makes token_sha256 (32 raw bytes) the agent's token; the token it replaces keeps working
  // until previous_valid_until (the rotation grace), by default not at all.
  absl::Status SetAgentToken(absl::string_view agent_id, absl::string_view token_sha256,
                             absl::Time previous_valid_until = absl::InfinitePast());

  // Returns the permission's id ("perm_N" when permission.id is empty). NOT_FOUND when its
  // agent does not exist.
  absl::StatusOr<std::string> AddPermission(const Permission& permission);
  absl::Status RemovePermission(absl::string_view permission_id);

  // Returns the delegation's id ("dlg_N" when delegation.id is empty). NOT_FOUND when either
  // agent does not exist.
  absl::StatusOr<std::string> AddDelegation(const Delegation& delegation);
  absl::Status RevokeDelegation(absl::string_view delegation_id);

  // One vote on a request at `now`, by the voting rule the SQL stores follow
  // (decision/admin/voting.h): quorum distinct approvals approve it, one deny denies it;
  // ALREADY_EXISTS for an approver's second vote; FAILED_PRECONDITION when the request is no
  // longer pending, or has expired (it is then marked expired).
  absl::StatusOr<ApprovalRequest> VoteOnApproval(absl::string_view approval_id,
                                                 absl::string_view approver, bool approve,
                                                 absl::Time now);
  absl::Status ApproveRequest(absl::string_view approval_id, absl::string_view approver,
                              absl::Time now);
  absl::Status DenyRequest(absl::string_view approval_id, absl::string_view approver,
                           absl::Time now);
  // Every approval request, oldest first.
  std::vector<ApprovalRequest> ApprovalRequests();

  // JWT access tokens: a signing key replaces any key with the same kid (a rotation in place,
  // or a retirement when its status says so); a revoked token id stays revoked.
  absl::Status PutSigningKey(const SigningKey& key);
  absl::Status RevokeTokenId(absl::string_view jti);

 private:
  friend class MemoryReadSnapshot;
  friend class MemoryWriteTransaction;

  std::string NextId(absl::string_view prefix) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // An approval request's id in the SQL stores' form: "apr_" and 16 hex digits.
  std::string NextApprovalId() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  // Every copy of these table pointers is made and dropped under mu_, so a use count of one
  // (read under mu_) proves no snapshot holds the table and it may change in place.
  memory_store_internal::Tables current_ ABSL_GUARDED_BY(mu_);
  // Writers wait on this; it is false while a transaction is open.
  bool no_transaction_open_ ABSL_GUARDED_BY(mu_) = true;
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
};

}  // namespace verdict

#endif  // VERDICT_TESTING_MEMORY_STORE_H_
