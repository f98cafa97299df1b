// What a new row holds (design section 9): the agent, permission and delegation rows an admin
// call creates and the rows ImportPolicy writes, with their defaults, derived fields and checks.
// Pure: the random values a row needs and the time are handed in. Their storage form (whole
// microseconds, canonical constraints, lent permissions as JSON) is app/admin_input.h's.
//
//   absl::StatusOr<AgentToCreate> agent = NewAgentRow(request, now, randomness);
//   if (!agent.ok()) return agent.status();  // INVALID_ARGUMENT: nothing to write
#ifndef VERDICT_DECISION_ADMIN_NEW_ROWS_H_
#define VERDICT_DECISION_ADMIN_NEW_ROWS_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "decision/admin/admin_types.h"
#include "decision/types.h"

namespace verdict {

// The random values new rows need, drawn by the caller: the stores draw them from the CSPRNG,
// tests hand in fixed ones.
class RowRandomness {
 public:
  virtual ~RowRandomness() = default;
  // An id no caller chose: `prefix` and random characters (decision/admin/row_ids.h).
  virtual std::string NewId(absl::string_view prefix) = 0;
  // A new agent token (crypto/token.h).
  virtual std::string NewAgentToken() = 0;
  // `n` random bytes.
  virtual std::string RandomBytes(size_t n) = 0;
};

// An agent's token hash (SHA-256) is this long.
inline constexpr size_t kTokenHashBytes = 32;

// INVALID_ARGUMENT for an enum value outside its declared range (a cast from a wire integer).
absl::Status CheckApprovalStatus(ApprovalStatus status);
absl::Status CheckAgentStatus(AgentStatus status);

// A new agent, its token (shown once) and the token's SHA-256 (stored).
struct AgentToCreate {
  Agent agent;
  std::string token;
  std::string token_sha256;
};
// Active, with a new token, the requested id or a random one, and `now` as created_at and
// updated_at; INVALID_ARGUMENT for a malformed field or an expiry not after `now`.
absl::StatusOr<AgentToCreate> NewAgentRow(const NewAgent& request, absl::Time now,
                                          RowRandomness& randomness);

// The requested id or a random one, and `now` as created_at; INVALID_ARGUMENT for a malformed
// field or a grant that would not read back as written (decision/new_grant_rules.h).
absl::StatusOr<Permission> NewPermissionRow(const NewPermission& request, absl::Time now,
                                            RowRandomness& randomness);

// Active, the requested id or a random one, and `now` as created_at; INVALID_ARGUMENT for a
// malformed field, a delegation to oneself, a lent grant that would not read back as written or
// an expiry not after `now`.
absl::StatusOr<Delegation> NewDelegationRow(const NewDelegation& request, absl::Time now,
                                            RowRandomness& randomness);

// A whole policy's rows for ImportPolicy: every row checked as its admin call checks it, ids
// unique, every agent a row names in the policy, token hashes 32 bytes and never shared (a random
// one for an agent without a token, so nothing can match it), a previous token with an expiry,
// revoked token ids unique with their expiry, and `now` as every created_at and updated_at.
struct PolicyRows {
  std::vector<StoredAgent> agents;  // token_sha256 always kTokenHashBytes
  std::vector<Permission> permissions;
  std::vector<Delegation> delegations;
};
absl::StatusOr<PolicyRows> NewPolicyRows(const PolicyContents& policy, absl::Time now,
                                         RowRandomness& randomness);

}  // namespace verdict

#endif  // VERDICT_DECISION_ADMIN_NEW_ROWS_H_
