#include "store/migrations.h"

#include <iterator>

namespace verdict {
namespace {

// Version 1: the policy model (agents, permissions, delegations), approvals, rate counters and
// revoked JWT ids. Every lookup on the decision path has an index: agents by id and by token
// hash (current or previous), permissions by agent, delegations by (to, status) and
// (from, status), approvals by the open-request key, counters by their primary key.
constexpr char kInitialSchema[] = R"sql(
CREATE TABLE agents (
  id TEXT PRIMARY KEY NOT NULL,
  owner TEXT NOT NULL,
  name TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('autonomous', 'delegated', 'service')),
  status TEXT NOT NULL CHECK (status IN ('active', 'suspended', 'revoked')),
  expires_at INTEGER,
  token_hash BLOB NOT NULL UNIQUE,
  token_prefix TEXT NOT NULL,
  prev_token_hash BLOB UNIQUE,
  prev_token_expires_at INTEGER,
  last_active_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

-- seq is the creation order. The index by agent covers every column the decision path reads,
-- in creation order, so PermissionsOf never visits the table itself.
CREATE TABLE permissions (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  resource TEXT NOT NULL,
  actions TEXT NOT NULL,
  effect TEXT NOT NULL CHECK (effect IN ('allow', 'deny')),
  constraints TEXT NOT NULL DEFAULT '{}',
  created_at INTEGER NOT NULL
);
CREATE INDEX permissions_by_agent
  ON permissions (agent_id, seq, id, resource, actions, effect, constraints, created_at);

CREATE TABLE delegations (
  id TEXT PRIMARY KEY NOT NULL,
  from_agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  to_agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  permissions TEXT NOT NULL,
  max_depth INTEGER NOT NULL CHECK (max_depth >= 1),
  status TEXT NOT NULL CHECK (status IN ('active', 'revoked')),
  expires_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE INDEX delegations_by_to ON delegations (to_agent_id, status);
CREATE INDEX delegations_by_from ON delegations (from_agent_id, status);

CREATE TABLE approval_requests (
  id TEXT PRIMARY KEY NOT NULL,
  agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  action TEXT NOT NULL,
  resource TEXT NOT NULL,
  arguments_hash TEXT NOT NULL,
  quorum INTEGER NOT NULL CHECK (quorum >= 1),
  status TEXT NOT NULL
    CHECK (status IN ('pending', 'approved', 'denied', 'expired', 'used')),
  expires_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX approval_requests_open
  ON approval_requests (agent_id, action, resource, arguments_hash, status);
CREATE INDEX approval_requests_by_status ON approval_requests (status, expires_at);

CREATE TABLE approval_votes (
  approval_id TEXT NOT NULL REFERENCES approval_requests (id) ON DELETE CASCADE,
  approver TEXT NOT NULL,
  vote TEXT NOT NULL CHECK (vote IN ('approve', 'deny')),
  created_at INTEGER NOT NULL,
  PRIMARY KEY (approval_id, approver)
) WITHOUT ROWID;

-- No foreign key to permissions: a lent permission's slot may be keyed by the engine on
-- something other than a stored permission id.
CREATE TABLE rate_counters (
  permission_id TEXT NOT NULL,
  window_start INTEGER NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (permission_id, window_start)
) WITHOUT ROWID;

CREATE TABLE revoked_token_ids (
  jti TEXT PRIMARY KEY NOT NULL,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX revoked_token_ids_by_expiry ON revoked_token_ids (expires_at);
)sql";

// Version 2: the decision log and the admin credential (the admin plane, design section 5).
// The log is append-only and hash-chained (store/decision_log.h): AUTOINCREMENT keeps the
// highest seq ever written, so rows deleted from its end stay detectable. Its rows keep no
// foreign keys: a decision outlives the agent it was about. One admin credential at most: the
// Argon2id hash of the operators' bearer secret.
constexpr char kAdminPlane[] = R"sql(
CREATE TABLE decision_log (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  decided_at INTEGER NOT NULL,
  request_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  action TEXT NOT NULL,
  resource TEXT NOT NULL,
  client_ip TEXT NOT NULL,
  arguments_json TEXT NOT NULL,
  verdict TEXT NOT NULL,
  reason TEXT NOT NULL,
  message TEXT NOT NULL,
  matched_permission_id TEXT NOT NULL,
  delegation_path TEXT NOT NULL,
  approval_request_id TEXT NOT NULL,
  latency_us INTEGER NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
);
CREATE INDEX decision_log_by_agent ON decision_log (agent_id, seq);
CREATE INDEX decision_log_by_time ON decision_log (decided_at);

CREATE TABLE admin_credentials (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  secret_hash TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
)sql";

// Version 3: JWT signing keys kept in the store (the JWKS file holds the others). A decision
// finds a key by its kid, the primary key; a kid is never reused, so a retired key stays for the
// record. Revoked token ids have had their table since version 1.
constexpr char kSigningKeys[] = R"sql(
CREATE TABLE signing_keys (
  kid TEXT PRIMARY KEY NOT NULL,
  jwk_json TEXT NOT NULL,
  allowed_algs TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active', 'retired')),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  retired_at INTEGER
);
)sql";

constexpr Migration kMigrations[] = {
    {1, kInitialSchema},
    {2, kAdminPlane},
    {3, kSigningKeys},
};

}  // namespace

absl::Span<const Migration> Migrations() { return kMigrations; }

int LatestSchemaVersion() { return std::end(kMigrations)[-1].version; }

}  // namespace verdict
