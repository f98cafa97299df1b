#include "store/migrations.h"

#include <deque>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "store/decision_record_sql.h"

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

// Version 4: one row per agent holding everything a decision reads about that agent, so a
// decision finds an agent, its own permissions and the active delegations into it with one
// primary-key search instead of three index searches and their table visits (a direct decision
// at 50,000 agents went from 17.6 to 7.9 us with this alone; bench/PERFORMANCE.md). The row is
// derived, never written by verdict's code: triggers rewrite it inside the transaction of every
// write to agents, permissions or delegations, whoever makes the write, so it is exactly as
// fresh as the tables it is derived from (design section 3). store/decision_record.h decodes it.
//
// A token finds its agent's row through agents_by_token_hash, which holds the agent's id beside
// the token's hash.
//
// Each column is a list of records; a record is a fixed number of fields; a field is its length
// in bytes, a colon and its bytes ("6:active"), or "-" for NULL. Permissions carry their seq and
// delegations their rowid first, so the decoder can restore creation order
// (store/decision_record_sql.h writes them).

constexpr char kDecisionRecords[] =
    "CREATE TABLE decision_records ("
    " agent_id TEXT PRIMARY KEY NOT NULL,"
    " agent TEXT NOT NULL,"
    " permissions TEXT NOT NULL,"
    " delegations_into TEXT NOT NULL"
    ") WITHOUT ROWID;"
    // A token's agent id without a visit to the agents table: the token's search then goes
    // straight on to the agent's record.
    "CREATE INDEX agents_by_token_hash ON agents (token_hash, id);"
    // Decisions no longer read permissions through this index, which covered every column for
    // them: keyed by agent and creation order only, as in PostgreSQL, it is a fifth of the size
    // and still serves the records' triggers and the admin plane's listings.
    "DROP INDEX permissions_by_agent;"
    "CREATE INDEX permissions_by_agent ON permissions (agent_id, seq);"

    "INSERT INTO decision_records (agent_id, agent, permissions, delegations_into)"
    " SELECT a.id, " VERDICT_AGENT_RECORD("a") ", " VERDICT_PERMISSION_RECORDS(
        "a.id") ", " VERDICT_DELEGATION_RECORDS("a.id") " FROM agents a;"

    // OR REPLACE: an INSERT OR REPLACE into agents replaces a row without firing the delete
    // trigger.
    "CREATE TRIGGER decision_records_agent_inserted AFTER INSERT ON agents BEGIN"
    " INSERT OR REPLACE INTO decision_records (agent_id, agent, permissions, delegations_into)"
    " VALUES (NEW.id, " VERDICT_AGENT_RECORD("NEW") ", " VERDICT_PERMISSION_RECORDS(
        "NEW.id") ", " VERDICT_DELEGATION_RECORDS("NEW.id") ");"
    " END;"
    // An agent's id never changes in verdict; should anything change one, its record moves.
    "CREATE TRIGGER decision_records_agent_updated AFTER UPDATE ON agents BEGIN"
    " DELETE FROM decision_records WHERE agent_id = OLD.id;"
    " INSERT OR REPLACE INTO decision_records (agent_id, agent, permissions, delegations_into)"
    " VALUES (NEW.id, " VERDICT_AGENT_RECORD("NEW") ", " VERDICT_PERMISSION_RECORDS(
        "NEW.id") ", " VERDICT_DELEGATION_RECORDS("NEW.id") ");"
    " END;"
    "CREATE TRIGGER decision_records_agent_deleted AFTER DELETE ON agents BEGIN"
    " DELETE FROM decision_records WHERE agent_id = OLD.id;"
    " END;"

    "CREATE TRIGGER decision_records_permission_inserted AFTER INSERT ON permissions BEGIN"
    " UPDATE decision_records SET permissions = " VERDICT_PERMISSION_RECORDS(
        "decision_records.agent_id") " WHERE agent_id = NEW.agent_id;"
    " END;"
    "CREATE TRIGGER decision_records_permission_updated AFTER UPDATE ON permissions BEGIN"
    " UPDATE decision_records SET permissions = " VERDICT_PERMISSION_RECORDS(
        "decision_records.agent_id") " WHERE agent_id IN (OLD.agent_id, NEW.agent_id);"
    " END;"
    "CREATE TRIGGER decision_records_permission_deleted AFTER DELETE ON permissions BEGIN"
    " UPDATE decision_records SET permissions = " VERDICT_PERMISSION_RECORDS(
        "decision_records.agent_id") " WHERE agent_id = OLD.agent_id;"
    " END;"

    "CREATE TRIGGER decision_records_delegation_inserted AFTER INSERT ON delegations BEGIN"
    " UPDATE decision_records SET delegations_into = " VERDICT_DELEGATION_RECORDS(
        "decision_records.agent_id") " WHERE agent_id = NEW.to_agent_id;"
    " END;"
    "CREATE TRIGGER decision_records_delegation_updated AFTER UPDATE ON delegations BEGIN"
    " UPDATE decision_records SET delegations_into = " VERDICT_DELEGATION_RECORDS(
        "decision_records.agent_id") " WHERE agent_id IN (OLD.to_agent_id, NEW.to_agent_id);"
    " END;"
    "CREATE TRIGGER decision_records_delegation_deleted AFTER DELETE ON delegations BEGIN"
    " UPDATE decision_records SET delegations_into = " VERDICT_DELEGATION_RECORDS(
        "decision_records.agent_id") " WHERE agent_id = OLD.to_agent_id;"
    " END;";

// Version 5: the records stay equal to their tables whatever conflict clause a write carries.
//
// An agent's record is deleted and inserted again rather than written with INSERT OR REPLACE:
// SQLite lets the outer statement's conflict clause override the one in a trigger body, so under
// an INSERT OR IGNORE into agents the trigger's REPLACE became IGNORE and a stale record stayed.
//
// A row that a REPLACE deletes to make room fires no delete trigger (recursive_triggers is off,
// and another process's connection decides that for itself), so that row's owner would keep a
// record holding it. The owners the AFTER triggers refresh (the written row's old and new agent)
// are always right; a write that would silently delete a row of any other agent -- a permission
// or a delegation moved onto another agent's id, an agent given another agent's token hash -- is
// refused instead. verdict never writes with REPLACE; this guards what anything else might write.
// clang-format off
#define VERDICT_REWRITE_AGENT_RECORD                                                   \
  " DELETE FROM decision_records WHERE agent_id = NEW.id;"                               \
  " INSERT INTO decision_records (agent_id, agent, permissions, delegations_into)"       \
  " VALUES (NEW.id, " VERDICT_AGENT_RECORD("NEW") ", " VERDICT_PERMISSION_RECORDS(       \
      "NEW.id") ", " VERDICT_DELEGATION_RECORDS("NEW.id") ");"
#define VERDICT_REFUSE(what)                                                           \
  " SELECT RAISE(ABORT, 'decision_records: " what "');"
// clang-format on
constexpr char kDecisionRecordsWhateverTheConflictClause[] =
    "DROP TRIGGER decision_records_agent_inserted;"
    "DROP TRIGGER decision_records_agent_updated;"
    "CREATE TRIGGER decision_records_agent_inserted AFTER INSERT ON agents BEGIN"
    VERDICT_REWRITE_AGENT_RECORD
    " END;"
    // An agent's id never changes in verdict; should anything change one, its record moves.
    "CREATE TRIGGER decision_records_agent_updated AFTER UPDATE ON agents BEGIN"
    " DELETE FROM decision_records WHERE agent_id = OLD.id;"
    VERDICT_REWRITE_AGENT_RECORD
    " END;"

    "CREATE TRIGGER decision_records_agent_replaces_none BEFORE INSERT ON agents"
    " WHEN EXISTS (SELECT 1 FROM agents o WHERE o.id <> NEW.id"
    "  AND (o.token_hash = NEW.token_hash OR o.prev_token_hash = NEW.prev_token_hash)) BEGIN"
    VERDICT_REFUSE("the agent would replace another agent with the same token hash")
    " END;"
    "CREATE TRIGGER decision_records_agent_update_replaces_none BEFORE UPDATE ON agents"
    " WHEN EXISTS (SELECT 1 FROM agents o WHERE o.id NOT IN (OLD.id, NEW.id)"
    "  AND (o.token_hash = NEW.token_hash OR o.prev_token_hash = NEW.prev_token_hash)) BEGIN"
    VERDICT_REFUSE("the agent would replace another agent with the same token hash")
    " END;"
    "CREATE TRIGGER decision_records_permission_replaces_none BEFORE INSERT ON permissions"
    " WHEN EXISTS (SELECT 1 FROM permissions o WHERE (o.seq = NEW.seq OR o.id = NEW.id)"
    "  AND o.agent_id IS NOT NEW.agent_id) BEGIN"
    VERDICT_REFUSE("the permission would replace a permission of another agent")
    " END;"
    "CREATE TRIGGER decision_records_permission_update_replaces_none BEFORE UPDATE ON permissions"
    " WHEN EXISTS (SELECT 1 FROM permissions o WHERE (o.seq = NEW.seq OR o.id = NEW.id)"
    "  AND o.seq <> OLD.seq AND o.agent_id NOT IN (OLD.agent_id, NEW.agent_id)) BEGIN"
    VERDICT_REFUSE("the permission would replace a permission of another agent")
    " END;"
    "CREATE TRIGGER decision_records_delegation_replaces_none BEFORE INSERT ON delegations"
    " WHEN EXISTS (SELECT 1 FROM delegations o WHERE o.id = NEW.id"
    "  AND o.to_agent_id IS NOT NEW.to_agent_id) BEGIN"
    VERDICT_REFUSE("the delegation would replace a delegation into another agent")
    " END;"
    "CREATE TRIGGER decision_records_delegation_update_replaces_none BEFORE UPDATE ON delegations"
    " WHEN NEW.id IS NOT OLD.id AND EXISTS (SELECT 1 FROM delegations o WHERE o.id = NEW.id"
    "  AND o.to_agent_id NOT IN (OLD.to_agent_id, NEW.to_agent_id)) BEGIN"
    VERDICT_REFUSE("the delegation would replace a delegation into another agent")
    " END;";

#undef VERDICT_REFUSE
#undef VERDICT_REWRITE_AGENT_RECORD

// Version 6: rate counters per (agent, permission, window) (design section 1), where they were per
// (permission, window) and every agent holding a lent grant spent one quota with its lender. A
// count kept from before goes to the agent whose permission it counted (or, for a lent
// permission's slot "dlg_...#i", the delegation's borrower); it may include calls borrowers
// made, which then weigh on the owner until the window ends, never on anyone's later windows.
constexpr char kRateCountersPerAgent[] = R"sql(
CREATE TABLE rate_counters_per_agent (
  agent_id TEXT NOT NULL,
  permission_id TEXT NOT NULL,
  window_start INTEGER NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (agent_id, permission_id, window_start)
) WITHOUT ROWID;
INSERT INTO rate_counters_per_agent (agent_id, permission_id, window_start, count)
  SELECT owner, permission_id, window_start, count FROM (
    SELECT coalesce(
             (SELECT p.agent_id FROM permissions p WHERE p.id = r.permission_id),
             (SELECT d.to_agent_id FROM delegations d
               WHERE d.id = substr(r.permission_id, 1, instr(r.permission_id, '#') - 1))) AS owner,
           r.permission_id, r.window_start, r.count
    FROM rate_counters r)
  WHERE owner IS NOT NULL;
DROP TABLE rate_counters;
ALTER TABLE rate_counters_per_agent RENAME TO rate_counters;
)sql";

// Version 7: decision log runs (store/decision_log_row.h). Each process that logs numbers its
// decisions and opens its run with a start marker, so the chain check names the decisions a run
// lost (dropped, refused, or queued when it was killed). Rows from before have run_id '' and
// verify as they did.
constexpr char kDecisionLogRuns[] = R"sql(
ALTER TABLE decision_log ADD COLUMN run_id TEXT NOT NULL DEFAULT '';
ALTER TABLE decision_log ADD COLUMN run_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE decision_log ADD COLUMN run_decided INTEGER NOT NULL DEFAULT 0;
)sql";

// Version 8: bounded storage (design section 8). Indexes for the bounds: an agent's pending
// requests by expiry (the cap on them, decision/pending_approvals.h); requests by status and
// last change, and counters by the time after which no decision reads them (kept_until, unix
// seconds; NULL for counts kept from before, which the next spend of their slot forgets), for the
// pruning job (store/pruning.h); and counters by permission, which a revoke deletes in its own
// transaction.
//
// The decision records' triggers stay as they are: an agent's record is rebuilt from its table
// by each write of one of its permissions, which made an import of an agent with 10,000
// permissions take 520 s (10,000 rebuilds of a list growing to 10,000). An import now writes an
// agent's permissions and the delegations into it before the agent itself
// (app/admin_calls.cc), whose insert builds the record once.
constexpr char kBoundedStorage[] = R"sql(
CREATE INDEX approval_requests_pending_by_agent
  ON approval_requests (agent_id, expires_at) WHERE status = 'pending';
CREATE INDEX approval_requests_by_update ON approval_requests (status, updated_at);
ALTER TABLE rate_counters ADD COLUMN kept_until INTEGER;
CREATE INDEX rate_counters_by_kept_until ON rate_counters (kept_until)
  WHERE kept_until IS NOT NULL;
CREATE INDEX rate_counters_by_permission ON rate_counters (permission_id);
)sql";

// PostgreSQL's texts of the migrations whose dialects differ. The tables, columns, constraints
// and indexes are SQLite's, with PostgreSQL's types: times are BIGINT unix microseconds (NULL
// meaning "never"), hashes BYTEA, and each table whose rows are read in creation order has an
// explicit `rowid` identity column, where SQLite has an implicit one. Ids sort bytewise
// (COLLATE "C"), as in SQLite, so keyset pages are the same. Versions 4 and 5 are SQLite's own
// (its decision records); PostgreSQL's cost per lookup is the round trip, not the index search.
// SQLite's index by agent on permissions also carries every column the decision path reads; a
// B-tree entry in PostgreSQL must stay under about 2.7 kB, which long constraints would exceed,
// so here it holds the key and the order only. An identity column never reuses a value, as
// SQLite's AUTOINCREMENT does not.
constexpr char kPostgresInitialSchema[] = R"sql(
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

constexpr char kPostgresAdminPlane[] = R"sql(
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

constexpr char kPostgresSigningKeys[] = R"sql(
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

constexpr char kPostgresRateCountersPerAgent[] = R"sql(
ALTER TABLE rate_counters ADD COLUMN agent_id TEXT COLLATE "C";
UPDATE rate_counters r SET agent_id = coalesce(
  (SELECT p.agent_id FROM permissions p WHERE p.id = r.permission_id),
  (SELECT d.to_agent_id FROM delegations d WHERE d.id = split_part(r.permission_id, '#', 1)));
DELETE FROM rate_counters WHERE agent_id IS NULL;
ALTER TABLE rate_counters ALTER COLUMN agent_id SET NOT NULL;
ALTER TABLE rate_counters DROP CONSTRAINT rate_counters_pkey;
ALTER TABLE rate_counters ADD PRIMARY KEY (agent_id, permission_id, window_start);
)sql";

// One sequence for both databases: SQLite's text, and PostgreSQL's where its dialect differs.
// Never edit a migration that has shipped: add a new one (schema_test pins each shipped text).
enum class PostgresForm {
  kOwn,              // `postgres` is PostgreSQL's text
  kNone,             // SQLite's alone (its decision_records)
  kSameWithBigints,  // SQLite's text with PostgreSQL's 64-bit INTEGER, BIGINT
};
struct DialectMigration {
  int version;
  const char* sqlite;
  PostgresForm form;
  const char* postgres = nullptr;
};
// Version 9: a description of each agent for its operators, set when it is created, shown in
// listings and kept by policy export and import; never read by a decision.
constexpr char kPostgresAgentDescriptions[] =
    "ALTER TABLE agents ADD COLUMN description TEXT NOT NULL DEFAULT ''";
// With one more column in agents, SQLite's planner, knowing nothing of the rows, prices the
// unique index on token_hash and a visit to the table below the covering agents_by_token_hash
// (the token's record search then costs one more B-tree search). sqlite_stat1 tells it what is
// true of every verdict database: one agent per token hash, so the covering index is as
// selective; ANALYZE of the schema table alone loads that and gathers nothing else.
constexpr char kAgentDescriptions[] =
    "ALTER TABLE agents ADD COLUMN description TEXT NOT NULL DEFAULT '';"
    "ANALYZE sqlite_schema;"
    "INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES ('agents', 'agents_by_token_hash', '1 1 1');"
    "ANALYZE sqlite_schema;";

// Version 10: how to reach whoever answers for each agent (decision/types.h's descriptive
// columns).
constexpr char kAgentContacts[] = "ALTER TABLE agents ADD COLUMN contact TEXT NOT NULL DEFAULT ''";

// Version 11: admin principals (design section 9), each with its own credential (the Argon2id
// hash of its bearer secret), its roles (decision/admin/roles.h, comma-joined), the resource
// patterns an issuer may grant within (newline-joined: a pattern holds no control character)
// and whether it is enabled. The one admin credential of version 2 becomes the principal
// "admin" with the role admin, and its table goes: principals are the only credentials.
constexpr char kAdminPrincipals[] = R"sql(
CREATE TABLE admin_principals (
  name TEXT PRIMARY KEY NOT NULL,
  secret_hash TEXT NOT NULL,
  roles TEXT NOT NULL,
  grant_patterns TEXT NOT NULL,
  enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO admin_principals
  (name, secret_hash, roles, grant_patterns, enabled, created_at, updated_at)
  SELECT 'admin', secret_hash, 'admin', '', 1, created_at, created_at FROM admin_credentials;
DROP TABLE admin_credentials;
)sql";
constexpr char kPostgresAdminPrincipals[] = R"sql(
CREATE TABLE admin_principals (
  name TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  secret_hash TEXT NOT NULL,
  roles TEXT NOT NULL,
  grant_patterns TEXT NOT NULL,
  enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
INSERT INTO admin_principals
  (name, secret_hash, roles, grant_patterns, enabled, created_at, updated_at)
  SELECT 'admin', secret_hash, 'admin', '', 1, created_at, created_at FROM admin_credentials;
DROP TABLE admin_credentials;
)sql";

// Version 13: the admin audit log (store/admin_audit_log.h): one hash-chained row per admin
// write, its objects indexed apart (a call may name several), and one state row holding the
// chain's ends: the last seq and hash written, so rows deleted from the end stay detectable,
// and the last row pruned, where the rest of the chain starts.
constexpr char kAdminAuditLog[] = R"sql(
CREATE TABLE admin_audit_log (
  seq INTEGER PRIMARY KEY NOT NULL,
  recorded_at INTEGER NOT NULL,
  principal TEXT NOT NULL,
  auth_method TEXT NOT NULL,
  peer TEXT NOT NULL,
  call_name TEXT NOT NULL,
  arguments_json TEXT NOT NULL,
  result_code TEXT NOT NULL,
  result_message TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL,
  objects TEXT NOT NULL
);
CREATE INDEX admin_audit_log_by_principal ON admin_audit_log (principal, seq);
CREATE INDEX admin_audit_log_by_time ON admin_audit_log (recorded_at);
CREATE TABLE admin_audit_objects (
  object_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (object_id, seq)
);
CREATE INDEX admin_audit_objects_by_seq ON admin_audit_objects (seq);
CREATE TABLE admin_audit_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  last_seq INTEGER NOT NULL,
  last_hash TEXT NOT NULL,
  pruned_seq INTEGER NOT NULL,
  pruned_hash TEXT NOT NULL
);
INSERT INTO admin_audit_state (id, last_seq, last_hash, pruned_seq, pruned_hash) VALUES
  (1, 0, '0000000000000000000000000000000000000000000000000000000000000000',
   0, '0000000000000000000000000000000000000000000000000000000000000000');
)sql";
// Version 14: which policy file manages each agent, permission and delegation (issue 19): the
// name a policy file declares, or '' for what was created at run time through AdminService,
// which `verdict policy apply` never touches. Never read by a decision.
constexpr char kPolicyFileOwnership[] =
    "ALTER TABLE agents ADD COLUMN managed_by TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE permissions ADD COLUMN managed_by TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE delegations ADD COLUMN managed_by TEXT NOT NULL DEFAULT '';";
// Version 16: `verdict policy apply` (and a watched policy file, at each change) reads the
// objects its file manages by managed_by (store/statements.cc's Managed*): an index each, so an
// apply reads what its file manages, in creation order, and not the whole store. SQLite's
// indexes end with the rowid (a permission's seq), which is that order.
constexpr char kPolicyFileOwnershipIndexes[] =
    "CREATE INDEX agents_by_manager ON agents (managed_by);"
    "CREATE INDEX permissions_by_manager ON permissions (managed_by);"
    "CREATE INDEX delegations_by_manager ON delegations (managed_by);";
constexpr char kPostgresPolicyFileOwnershipIndexes[] =
    "CREATE INDEX agents_by_manager ON agents (managed_by, rowid);"
    "CREATE INDEX permissions_by_manager ON permissions (managed_by, seq);"
    "CREATE INDEX delegations_by_manager ON delegations (managed_by, rowid);";
// Version 17: PostgreSQL's decision_records (issue 22 item 3), SQLite's since version 4: one row
// per agent holding everything a decision reads about it, in the same encoding
// (store/decision_record.h decodes both), so a direct decision on PostgreSQL is one statement
// on one primary-key search. PostgreSQL's own text (PL/pgSQL): statement triggers note every
// agent a write touched (from its transition tables), and a deferred trigger rewrites each noted
// agent's row from the tables once, at the commit, inside the writing transaction, whoever
// writes: a commit and its rows become visible together, and a row cannot drift from its tables
// whatever the statement (a cascade from a deleted agent, an upsert, a TRUNCATE). Rewritten at
// the commit because PostgreSQL's foreign keys cannot wait for it as SQLite's do (the import
// puts an agent in after its rows there, issue 16). No statement of a write transaction reads
// the rows before its commit (decisions read them, in read snapshots or in decision write
// transactions that write no policy). The functions keep the schema they were created in, where
// the tables they read are. SQLite has nothing to do.
constexpr char kSqliteDecisionRecordsForPostgres[] =
    "-- SQLite has had its decision_records since version 4.\n";
constexpr char kPostgresDecisionRecords[] = R"sql(
CREATE TABLE decision_records (
  agent_id TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  agent TEXT NOT NULL,
  permissions TEXT NOT NULL,
  delegations_into TEXT NOT NULL
);
CREATE INDEX agents_by_token_hash ON agents (token_hash, id);

-- A field: its length in bytes, a colon and its text, or '-' for NULL.
CREATE FUNCTION verdict_record_field(value TEXT) RETURNS TEXT
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN coalesce(octet_length(value) || ':' || value, '-');

-- The rows of the agents named, rewritten from the tables (deleted when the agent is gone).
CREATE FUNCTION verdict_rewrite_decision_records(agent_ids TEXT[]) RETURNS void
  LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  DELETE FROM decision_records r WHERE r.agent_id = ANY (agent_ids)
    AND NOT EXISTS (SELECT 1 FROM agents a WHERE a.id = r.agent_id);
  INSERT INTO decision_records AS r (agent_id, agent, permissions, delegations_into)
  SELECT a.id,
    verdict_record_field(a.id) || verdict_record_field(a.owner) ||
    verdict_record_field(a.name) || verdict_record_field(a.kind) ||
    verdict_record_field(a.status) || verdict_record_field(a.expires_at::text) ||
    verdict_record_field(a.token_prefix) || verdict_record_field(a.created_at::text) ||
    verdict_record_field(a.updated_at::text),
    coalesce((SELECT string_agg(
        verdict_record_field(p.seq::text) || verdict_record_field(p.id) ||
        verdict_record_field(p.agent_id) || verdict_record_field(p.resource) ||
        verdict_record_field(p.actions) || verdict_record_field(p.effect) ||
        verdict_record_field(p.constraints) || verdict_record_field(p.created_at::text),
        '' ORDER BY p.seq)
      FROM permissions p WHERE p.agent_id = a.id), ''),
    coalesce((SELECT string_agg(
        verdict_record_field(d.rowid::text) || verdict_record_field(d.id) ||
        verdict_record_field(d.from_agent_id) || verdict_record_field(d.to_agent_id) ||
        verdict_record_field(d.permissions) || verdict_record_field(d.max_depth::text) ||
        verdict_record_field(d.status) || verdict_record_field(d.expires_at::text) ||
        verdict_record_field(d.created_at::text),
        '' ORDER BY d.rowid)
      FROM delegations d WHERE d.to_agent_id = a.id AND d.status = 'active'), '')
  FROM agents a WHERE a.id = ANY (agent_ids)
  ON CONFLICT (agent_id) DO UPDATE SET agent = EXCLUDED.agent,
    permissions = EXCLUDED.permissions, delegations_into = EXCLUDED.delegations_into
  WHERE (r.agent, r.permissions, r.delegations_into)
    IS DISTINCT FROM (EXCLUDED.agent, EXCLUDED.permissions, EXCLUDED.delegations_into);
END $$;

-- The agents whose rows a transaction must rewrite before it commits: a deferred trigger
-- rewrites each once, at the commit, however many of its rows the transaction wrote (an agent
-- imported with 10,000 permissions is encoded once, not 10,000 times). Empty between
-- transactions, so unlogged.
CREATE UNLOGGED TABLE decision_records_stale (agent_id TEXT COLLATE "C" PRIMARY KEY NOT NULL);
CREATE FUNCTION verdict_rewrite_stale_decision_record() RETURNS trigger
  LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM verdict_rewrite_decision_records(ARRAY[NEW.agent_id]);
  DELETE FROM decision_records_stale WHERE agent_id = NEW.agent_id;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER decision_records_rewritten_at_commit
  AFTER INSERT ON decision_records_stale DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION verdict_rewrite_stale_decision_record();

-- Marks the agents a statement touched: TG_ARGV[0] names the column that holds an agent's id
-- (agents.id, permissions.agent_id, delegations.to_agent_id).
CREATE FUNCTION verdict_decision_records_touched() RETURNS trigger
  LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' AND TG_TABLE_NAME = 'agents' THEN
    DELETE FROM decision_records;
    RETURN NULL;
  ELSIF TG_OP = 'TRUNCATE' THEN
    INSERT INTO decision_records_stale SELECT id FROM agents ON CONFLICT DO NOTHING;
    RETURN NULL;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    EXECUTE format('INSERT INTO decision_records_stale SELECT DISTINCT %I FROM old_rows'
                   ' ON CONFLICT DO NOTHING', TG_ARGV[0]);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    EXECUTE format('INSERT INTO decision_records_stale SELECT DISTINCT %I FROM new_rows'
                   ' ON CONFLICT DO NOTHING', TG_ARGV[0]);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER decision_records_agents_inserted AFTER INSERT ON agents
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION verdict_decision_records_touched('id');
CREATE TRIGGER decision_records_agents_updated AFTER UPDATE ON agents
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION verdict_decision_records_touched('id');
CREATE TRIGGER decision_records_agents_deleted AFTER DELETE ON agents
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION verdict_decision_records_touched('id');
CREATE TRIGGER decision_records_agents_truncated AFTER TRUNCATE ON agents
  FOR EACH STATEMENT EXECUTE FUNCTION verdict_decision_records_touched('id');
CREATE TRIGGER decision_records_permissions_inserted AFTER INSERT ON permissions
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION verdict_decision_records_touched('agent_id');
CREATE TRIGGER decision_records_permissions_updated AFTER UPDATE ON permissions
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION verdict_decision_records_touched('agent_id');
CREATE TRIGGER decision_records_permissions_deleted AFTER DELETE ON permissions
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION verdict_decision_records_touched('agent_id');
CREATE TRIGGER decision_records_permissions_truncated AFTER TRUNCATE ON permissions
  FOR EACH STATEMENT EXECUTE FUNCTION verdict_decision_records_touched('agent_id');
CREATE TRIGGER decision_records_delegations_inserted AFTER INSERT ON delegations
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION verdict_decision_records_touched('to_agent_id');
CREATE TRIGGER decision_records_delegations_updated AFTER UPDATE ON delegations
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION verdict_decision_records_touched('to_agent_id');
CREATE TRIGGER decision_records_delegations_deleted AFTER DELETE ON delegations
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION verdict_decision_records_touched('to_agent_id');
CREATE TRIGGER decision_records_delegations_truncated AFTER TRUNCATE ON delegations
  FOR EACH STATEMENT EXECUTE FUNCTION verdict_decision_records_touched('to_agent_id');

SELECT verdict_rewrite_decision_records(ARRAY(SELECT id FROM agents));
)sql";
// Version 12: admin sessions (server/admin_sessions.h). A principal exchanges its secret once
// for a short-lived session token; only the token's SHA-256 is kept, found by its unique index
// on every call the session makes. A session ends at expires_at, or when it is deleted (revoked).
// Sessions by principal and creation serve the cap on a principal's sessions; by expiry, the
// pruning job. No foreign key to the principals: a session names the principal it was made for.
constexpr char kAdminSessions[] = R"sql(
CREATE TABLE admin_sessions (
  id TEXT PRIMARY KEY NOT NULL,
  token_hash BLOB NOT NULL UNIQUE,
  principal TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX admin_sessions_by_principal ON admin_sessions (principal, created_at);
CREATE INDEX admin_sessions_by_expiry ON admin_sessions (expires_at);
)sql";
constexpr char kPostgresAdminSessions[] = R"sql(
CREATE TABLE admin_sessions (
  id TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  token_hash BYTEA NOT NULL UNIQUE,
  principal TEXT COLLATE "C" NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX admin_sessions_by_principal ON admin_sessions (principal, created_at);
CREATE INDEX admin_sessions_by_expiry ON admin_sessions (expires_at);
)sql";

// Version 15: who answers for what (issue 18). The decision log records, for a decision that
// used an approved request, the principals who approved it (a canonical JSON array; '' on every
// other row, and on the rows written before, whose hash does not cover it). Each agent records
// the principal that created it ('' for the agents created before: only an operator or admin
// rotates their tokens, decision/admin/roles.h's CheckMayRotateToken).
constexpr char kApproversAndCreators[] =
    "ALTER TABLE decision_log ADD COLUMN approved_by TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE agents ADD COLUMN created_by TEXT NOT NULL DEFAULT '';";

// Version 18: PostgreSQL's decision-record rewrite at a fraction of its cost (an admin write of one
// agent on this project's machine: the rewrite at its commit took 730 us, now about 80 us; the
// rows it writes are the same, byte for byte). verdict_record_field is written with only
// immutable operators (int4 to text, text || text) instead of `integer || text`, which is only
// STABLE: an IMMUTABLE SQL function whose body is not is never inlined, so each of a record's
// fifty fields cost a call of its own. And the rewrite plans its statements once per connection:
// under the default plan_cache_mode a parameter's array made the generic plan look dearer than a
// custom one, so every call planned its statements again. Last, the statement triggers that note
// the agents a write touched run static statements, which PL/pgSQL plans once per connection and
// table, instead of EXECUTE format(...), parsed and planned on every statement (an UPDATE of one
// agent: 120 us with them, 44 us without, here). SQLite has nothing to do.
constexpr char kSqliteCheaperDecisionRecordsForPostgres[] =
    "-- SQLite's decision records are kept by its own triggers (versions 4 and 5).\n";
constexpr char kPostgresCheaperDecisionRecords[] = R"sql(
CREATE OR REPLACE FUNCTION verdict_record_field(value TEXT) RETURNS TEXT
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN coalesce(octet_length(value)::text || ':' || value, '-');
ALTER FUNCTION verdict_rewrite_decision_records(TEXT[]) SET plan_cache_mode = force_generic_plan;
CREATE OR REPLACE FUNCTION verdict_decision_records_touched() RETURNS trigger
  LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' AND TG_TABLE_NAME = 'agents' THEN
    DELETE FROM decision_records;
    RETURN NULL;
  ELSIF TG_OP = 'TRUNCATE' THEN
    INSERT INTO decision_records_stale SELECT id FROM agents ON CONFLICT DO NOTHING;
    RETURN NULL;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    CASE TG_ARGV[0]
      WHEN 'id' THEN
        INSERT INTO decision_records_stale SELECT DISTINCT id FROM old_rows
          ON CONFLICT DO NOTHING;
      WHEN 'agent_id' THEN
        INSERT INTO decision_records_stale SELECT DISTINCT agent_id FROM old_rows
          ON CONFLICT DO NOTHING;
      WHEN 'to_agent_id' THEN
        INSERT INTO decision_records_stale SELECT DISTINCT to_agent_id FROM old_rows
          ON CONFLICT DO NOTHING;
    END CASE;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    CASE TG_ARGV[0]
      WHEN 'id' THEN
        INSERT INTO decision_records_stale SELECT DISTINCT id FROM new_rows
          ON CONFLICT DO NOTHING;
      WHEN 'agent_id' THEN
        INSERT INTO decision_records_stale SELECT DISTINCT agent_id FROM new_rows
          ON CONFLICT DO NOTHING;
      WHEN 'to_agent_id' THEN
        INSERT INTO decision_records_stale SELECT DISTINCT to_agent_id FROM new_rows
          ON CONFLICT DO NOTHING;
    END CASE;
  END IF;
  RETURN NULL;
END $$;
)sql";

constexpr DialectMigration kMigrations[] = {
    {1, kInitialSchema, PostgresForm::kOwn, kPostgresInitialSchema},
    {2, kAdminPlane, PostgresForm::kOwn, kPostgresAdminPlane},
    {3, kSigningKeys, PostgresForm::kOwn, kPostgresSigningKeys},
    {4, kDecisionRecords, PostgresForm::kNone},
    {5, kDecisionRecordsWhateverTheConflictClause, PostgresForm::kNone},
    {6, kRateCountersPerAgent, PostgresForm::kOwn, kPostgresRateCountersPerAgent},
    {7, kDecisionLogRuns, PostgresForm::kSameWithBigints},
    {8, kBoundedStorage, PostgresForm::kSameWithBigints},
    {9, kAgentDescriptions, PostgresForm::kOwn, kPostgresAgentDescriptions},
    {10, kAgentContacts, PostgresForm::kOwn, kAgentContacts},
    {11, kAdminPrincipals, PostgresForm::kOwn, kPostgresAdminPrincipals},
    {12, kAdminSessions, PostgresForm::kOwn, kPostgresAdminSessions},
    {13, kAdminAuditLog, PostgresForm::kSameWithBigints},
    {14, kPolicyFileOwnership, PostgresForm::kOwn, kPolicyFileOwnership},
    {15, kApproversAndCreators, PostgresForm::kOwn, kApproversAndCreators},
    {16, kPolicyFileOwnershipIndexes, PostgresForm::kOwn, kPostgresPolicyFileOwnershipIndexes},
    {17, kSqliteDecisionRecordsForPostgres, PostgresForm::kOwn, kPostgresDecisionRecords},
    {18, kSqliteCheaperDecisionRecordsForPostgres, PostgresForm::kOwn,
     kPostgresCheaperDecisionRecords},
};

std::vector<Migration> MigrationsIn(Dialect dialect) {
  std::vector<Migration> migrations;
  for (const DialectMigration& m : kMigrations) {
    if (dialect == Dialect::kSqlite) {
      migrations.push_back({m.version, m.sqlite});
      continue;
    }
    switch (m.form) {
      case PostgresForm::kOwn:
        migrations.push_back({m.version, m.postgres});
        break;
      case PostgresForm::kNone:
        break;
      case PostgresForm::kSameWithBigints: {
        // Built once, by Migrations(), and kept for the process's life.
        static auto* const texts = new std::deque<std::string>();
        migrations.push_back(
            {m.version,
             texts->emplace_back(absl::StrReplaceAll(m.sqlite, {{"INTEGER", "BIGINT"}})).c_str()});
        break;
      }
    }
  }
  return migrations;
}

}  // namespace

absl::Span<const Migration> Migrations(Dialect dialect) {
  static const std::vector<Migration>* const sqlite =
      new std::vector<Migration>(MigrationsIn(Dialect::kSqlite));
  static const std::vector<Migration>* const postgres =
      new std::vector<Migration>(MigrationsIn(Dialect::kPostgres));
  return dialect == Dialect::kSqlite ? *sqlite : *postgres;
}

int LatestSchemaVersion() { return std::end(kMigrations)[-1].version; }

absl::Status RunMigrations(SchemaSteps& steps, absl::Span<const Migration> migrations) {
  const int latest = migrations.empty() ? 0 : migrations.back().version;
  auto too_new = [&](int version) {
    return absl::FailedPreconditionError(absl::StrCat(steps.Name(), " has schema version ", version,
                                                      ", newer than this verdict knows (", latest,
                                                      "): upgrade verdict"));
  };
  absl::StatusOr<int> version = steps.Version();
  if (!version.ok()) return version.status();
  if (*version == latest) return absl::OkStatus();
  if (*version > latest) return too_new(*version);

  if (absl::Status begun = steps.Begin(); !begun.ok()) return begun;
  auto abandon = [&](absl::Status failure) {
    steps.Rollback();
    return failure;
  };
  // Another process may have migrated while this one waited for the lock.
  version = steps.Version();
  if (!version.ok()) return abandon(version.status());
  if (*version > latest) return abandon(too_new(*version));
  for (const Migration& migration : migrations) {
    if (migration.version <= *version) continue;
    if (absl::Status applied = steps.Apply(migration); !applied.ok()) {
      // Which step failed, from which version: a database the migrations cannot bring up to
      // date says so instead of failing every call with a bare SQL error.
      return abandon(absl::Status(
          applied.code(),
          absl::StrCat("migrating ", steps.Name(), " from schema version ", *version,
                       ": migration ", migration.version, " failed: ", applied.message())));
    }
  }
  if (absl::Status committed = steps.Commit(); !committed.ok()) return abandon(committed);
  return absl::OkStatus();
}

}  // namespace verdict
