#include "store/postgres_migrations.h"

namespace verdict {
namespace {

// Version 1 (store/migrations.cc says why each index exists).
constexpr char kInitialSchema[] = R"sql(
CREATE TABLE agents (
  rowid BIGINT GENERATED ALWAYS AS IDENTITY,
  id TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  owner TEXT NOT NULL,
  name TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('autonomous', 'delegated', 'service')),
  status TEXT NOT NULL CHECK (status IN ('active', 'suspended', 'revoked')),
  expires_at BIGINT,
  token_hash BYTEA NOT NULL UNIQUE,
  token_prefix TEXT NOT NULL,
  prev_token_hash BYTEA UNIQUE,
  prev_token_expires_at BIGINT,
  last_active_at BIGINT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

-- seq is the creation order, as in SQLite. SQLite's index by agent also carries every column
-- the decision path reads; a B-tree entry in PostgreSQL must stay under about 2.7 kB, which
-- long constraints would exceed, so here it holds the key and the order only.
CREATE TABLE permissions (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id TEXT COLLATE "C" NOT NULL UNIQUE,
  agent_id TEXT COLLATE "C" NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  resource TEXT NOT NULL,
  actions TEXT NOT NULL,
  effect TEXT NOT NULL CHECK (effect IN ('allow', 'deny')),
  constraints TEXT NOT NULL DEFAULT '{}',
  created_at BIGINT NOT NULL
);
CREATE INDEX permissions_by_agent ON permissions (agent_id, seq);

CREATE TABLE delegations (
  rowid BIGINT GENERATED ALWAYS AS IDENTITY,
  id TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  from_agent_id TEXT COLLATE "C" NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  to_agent_id TEXT COLLATE "C" NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  permissions TEXT NOT NULL,
  max_depth BIGINT NOT NULL CHECK (max_depth >= 1),
  status TEXT NOT NULL CHECK (status IN ('active', 'revoked')),
  expires_at BIGINT,
  created_at BIGINT NOT NULL
);
CREATE INDEX delegations_by_to ON delegations (to_agent_id, status);
CREATE INDEX delegations_by_from ON delegations (from_agent_id, status);

CREATE TABLE approval_requests (
  rowid BIGINT GENERATED ALWAYS AS IDENTITY,
  id TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  agent_id TEXT COLLATE "C" NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  action TEXT NOT NULL,
  resource TEXT NOT NULL,
  arguments_hash TEXT NOT NULL,
  quorum BIGINT NOT NULL CHECK (quorum >= 1),
  status TEXT NOT NULL
    CHECK (status IN ('pending', 'approved', 'denied', 'expired', 'used')),
  expires_at BIGINT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX approval_requests_open
  ON approval_requests (agent_id, action, resource, arguments_hash, status);
CREATE INDEX approval_requests_by_status ON approval_requests (status, expires_at);

CREATE TABLE approval_votes (
  approval_id TEXT COLLATE "C" NOT NULL REFERENCES approval_requests (id) ON DELETE CASCADE,
  approver TEXT NOT NULL,
  vote TEXT NOT NULL CHECK (vote IN ('approve', 'deny')),
  created_at BIGINT NOT NULL,
  PRIMARY KEY (approval_id, approver)
);

CREATE TABLE rate_counters (
  permission_id TEXT COLLATE "C" NOT NULL,
  window_start BIGINT NOT NULL,
  count BIGINT NOT NULL,
  PRIMARY KEY (permission_id, window_start)
);

CREATE TABLE revoked_token_ids (
  jti TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX revoked_token_ids_by_expiry ON revoked_token_ids (expires_at);
)sql";

// Version 2: the decision log and the admin credential. An identity column never reuses a
// value, as SQLite's AUTOINCREMENT does not.
constexpr char kAdminPlane[] = R"sql(
CREATE TABLE decision_log (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  decided_at BIGINT NOT NULL,
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
  latency_us BIGINT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
);
CREATE INDEX decision_log_by_agent ON decision_log (agent_id, seq);
CREATE INDEX decision_log_by_time ON decision_log (decided_at);

CREATE TABLE admin_credentials (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  secret_hash TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
)sql";

// Version 3: JWT signing keys kept in the store, found by kid (the primary key).
constexpr char kSigningKeys[] = R"sql(
CREATE TABLE signing_keys (
  rowid BIGINT GENERATED ALWAYS AS IDENTITY,
  kid TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  jwk_json TEXT NOT NULL,
  allowed_algs TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active', 'retired')),
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  retired_at BIGINT
);
)sql";

// Version 6 (4 and 5 are SQLite's own): rate counters per (agent, permission, window), as in
// SQLite's version 6 (store/migrations.cc says why); a count kept from before goes to the agent
// whose permission it counted, or for a lent permission's slot to the delegation's borrower.
constexpr char kRateCountersPerAgent[] = R"sql(
ALTER TABLE rate_counters ADD COLUMN agent_id TEXT COLLATE "C";
UPDATE rate_counters r SET agent_id = coalesce(
  (SELECT p.agent_id FROM permissions p WHERE p.id = r.permission_id),
  (SELECT d.to_agent_id FROM delegations d WHERE d.id = split_part(r.permission_id, '#', 1)));
DELETE FROM rate_counters WHERE agent_id IS NULL;
ALTER TABLE rate_counters ALTER COLUMN agent_id SET NOT NULL;
ALTER TABLE rate_counters DROP CONSTRAINT rate_counters_pkey;
ALTER TABLE rate_counters ADD PRIMARY KEY (agent_id, permission_id, window_start);
)sql";

// Version 7: decision log runs, as in SQLite's version 7 (store/migrations.cc says why).
constexpr char kDecisionLogRuns[] = R"sql(
ALTER TABLE decision_log ADD COLUMN run_id TEXT NOT NULL DEFAULT '';
ALTER TABLE decision_log ADD COLUMN run_seq BIGINT NOT NULL DEFAULT 0;
ALTER TABLE decision_log ADD COLUMN run_decided BIGINT NOT NULL DEFAULT 0;
)sql";

// Version 8: bounded storage, the same indexes and column as SQLite's version 8
// (store/migrations.cc says why).
constexpr char kBoundedStorage[] = R"sql(
CREATE INDEX approval_requests_pending_by_agent
  ON approval_requests (agent_id, expires_at) WHERE status = 'pending';
CREATE INDEX approval_requests_by_update ON approval_requests (status, updated_at);
ALTER TABLE rate_counters ADD COLUMN kept_until BIGINT;
CREATE INDEX rate_counters_by_kept_until ON rate_counters (kept_until)
  WHERE kept_until IS NOT NULL;
CREATE INDEX rate_counters_by_permission ON rate_counters (permission_id);
)sql";

// One a line, however many.
// clang-format off
constexpr Migration kMigrations[] = {
    {1, kInitialSchema},
    {2, kAdminPlane},
    {3, kSigningKeys},
    {6, kRateCountersPerAgent},
    {7, kDecisionLogRuns},
    {8, kBoundedStorage},
};
// clang-format on

}  // namespace

absl::Span<const Migration> PostgresMigrations() { return kMigrations; }

}  // namespace verdict
