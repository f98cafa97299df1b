// What the admin plane passes to and gets from the store (app/policy_admin.h): new rows,
// pages and the whole policy for export and import. The model types themselves are the
// engine's (decision/types.h).
#ifndef VERDICT_DECISION_ADMIN_ADMIN_TYPES_H_
#define VERDICT_DECISION_ADMIN_ADMIN_TYPES_H_

#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "decision/types.h"

namespace verdict {

// Ids are chosen by the store ("agt_" + 16 hex characters) unless given: a given id must carry
// the kind's prefix (agt_, perm_, dlg_) followed by 1 to 64 of [A-Za-z0-9_.-].

struct NewAgent {
  std::string owner;
  std::string name;
  AgentKind kind = AgentKind::kAutonomous;
  absl::Time expires_at = absl::InfiniteFuture();
  std::string id;  // empty: the store picks one
  // The descriptive columns (decision/types.h), each "" when none was given.
  VERDICT_AGENT_TEXT_COLUMNS(VERDICT_AGENT_TEXT_MEMBER)
};

struct CreatedAgent {
  Agent agent;
  std::string token;  // shown once: only its SHA-256 is stored
};

struct RotatedToken {
  Agent agent;
  std::string token;  // shown once
  // When the previous token stops working: now, when rotated without grace.
  absl::Time previous_token_expires_at;
};

struct NewPermission {
  std::string agent_id;
  std::string resource;  // a pattern (decision/resource_match.h)
  std::vector<std::string> actions;
  Effect effect = Effect::kAllow;
  std::string constraints_json;  // a JSON object (decision/constraints.h); "" for none
  std::string id;                // empty: the store picks one
};

struct NewDelegation {
  std::string from_agent_id;
  std::string to_agent_id;
  std::vector<LentPermission> permissions;
  int max_depth = 1;
  absl::Time expires_at = absl::InfiniteFuture();
  std::string id;  // empty: the store picks one
};

// A JWT signing key to add, or new content for a key rotated in place: its kid is the JWK's.
struct NewSigningKey {
  std::string jwk_json;  // one JWK: a public Ed25519 or P-256 key, or an HS256 secret
  std::vector<std::string> allowed_algorithms;  // "EdDSA", "ES256", "HS256"
};

// Keyset pagination: a page token is opaque and comes from the previous page.
struct PageRequest {
  int page_size = 0;  // 0: kDefaultPageSize; at most kMaxPageSize
  std::string page_token;
};

inline constexpr int kDefaultPageSize = 50;
inline constexpr int kMaxPageSize = 1000;

struct AgentPage {
  std::vector<Agent> agents;    // ordered by id
  std::string next_page_token;  // empty on the last page
};

struct ApprovalPage {
  std::vector<ApprovalRequest> approvals;  // oldest first
  std::string next_page_token;             // empty on the last page
};

// One vote on an approval request: the principal who cast it, and which way.
struct ApprovalVoteCast {
  std::string approver;
  bool approve = false;
};

// An agent as exported and imported: with the SHA-256 of its current token (32 raw bytes).
// On import an empty hash means "no token yet": the agent gets an unusable random one and a
// real one by RotateToken.
struct StoredAgent {
  Agent agent;
  std::string token_sha256;
  // The token a rotation replaced, still accepted until previous_token_expires_at; empty when
  // there is none.
  std::string previous_token_sha256;
  absl::Time previous_token_expires_at = absl::InfinitePast();
};

// The whole policy, in creation order: what ExportPolicy reads and ImportPolicy writes.
// Approvals, votes, rate counters and grace-period tokens are operational state, not policy,
// and are not part of it.
// A JWT id the revocation list holds, until a day past its token's expiry.
struct RevokedTokenId {
  std::string jti;
  absl::Time expires_at;
};

// Which policy file manages each object (`verdict policy apply`; the store's managed_by), by
// the object's id: its name, as the file declares it. An object created at run time is in none.
struct PolicyManagers {
  std::map<std::string, std::string> agents;
  std::map<std::string, std::string> permissions;
  std::map<std::string, std::string> delegations;
};

struct PolicyContents {
  std::vector<StoredAgent> agents;
  std::vector<Permission> permissions;
  std::vector<Delegation> delegations;
  // Carried so that a restore keeps each file's objects its own: the file's next apply finds
  // them, and objects created at run time stay out of every file's reach.
  PolicyManagers managed_by;
  // Carried so that a restore keeps refusing the tokens revoked before the backup.
  std::vector<RevokedTokenId> revoked_token_ids;
};

}  // namespace verdict

#endif  // VERDICT_DECISION_ADMIN_ADMIN_TYPES_H_
