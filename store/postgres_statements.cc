#include "store/postgres_statements.h"

namespace verdict {
namespace {

// Column lists shared by the statements that read whole rows, in the order of the SQLite
// store's, so store/row_readers.h reads both.
#define VERDICT_AGENT_COLUMNS \
  "id, owner, name, kind, status, expires_at, token_prefix, created_at, updated_at"
#define VERDICT_PERMISSION_COLUMNS \
  "id, agent_id, resource, actions, effect, constraints, created_at"
#define VERDICT_DELEGATION_COLUMNS \
  "id, from_agent_id, to_agent_id, permissions, max_depth, status, expires_at, created_at"
#define VERDICT_DECISION_LOG_COLUMNS                                                        \
  "seq, decided_at, request_id, agent_id, action, resource, client_ip, arguments_json, "    \
  "verdict, reason, message, matched_permission_id, delegation_path, approval_request_id, " \
  "latency_us, prev_hash, hash, run_id, run_seq, run_decided"
#define VERDICT_SIGNING_KEY_COLUMNS \
  "kid, jwk_json, allowed_algs, status, created_at, updated_at, retired_at"
// A pending or approved request past its expiry reads as expired, whether or not a vote has
// marked it yet. `now` is the parameter that holds the time.
#define VERDICT_APPROVAL_COLUMNS(now)                                      \
  "a.id, a.agent_id, a.action, a.resource, a.arguments_hash, a.quorum, "   \
  "(SELECT count(*) FROM approval_votes v WHERE v.approval_id = a.id "     \
  "AND v.vote = 'approve') AS approvals, "                                 \
  "CASE WHEN a.status IN ('pending', 'approved') AND a.expires_at <= " now \
  " THEN 'expired' ELSE a.status END AS status, "                          \
  "a.expires_at, a.created_at"

// `rowid` and permissions' `seq` are creation order (store/postgres_migrations.cc), as in SQLite.
constexpr PgStatementSql kStatements[] = {
    {PgStatement::kFindAgent, "FindAgent",
     "SELECT " VERDICT_AGENT_COLUMNS " FROM agents WHERE id = $1"},
    {PgStatement::kFindAgentByTokenHash, "FindAgentByTokenHash",
     "SELECT " VERDICT_AGENT_COLUMNS " FROM agents WHERE token_hash = $1"},
    // Asked only when no current token matches: one unique-index search each.
    {PgStatement::kFindAgentByPreviousTokenHash, "FindAgentByPreviousTokenHash",
     "SELECT " VERDICT_AGENT_COLUMNS
     " FROM agents WHERE prev_token_hash = $1 AND prev_token_expires_at > $2"},
    {PgStatement::kPermissionsOf, "PermissionsOf",
     "SELECT " VERDICT_PERMISSION_COLUMNS " FROM permissions WHERE agent_id = $1 ORDER BY seq"},
    {PgStatement::kActiveDelegationsInto, "ActiveDelegationsInto",
     "SELECT " VERDICT_DELEGATION_COLUMNS
     " FROM delegations WHERE to_agent_id = $1 AND status = 'active'"
     " AND (expires_at IS NULL OR expires_at > $2) ORDER BY rowid"},
    {PgStatement::kFindOpenApproval, "FindOpenApproval",
     "SELECT " VERDICT_APPROVAL_COLUMNS(
         "$5") " FROM approval_requests a WHERE a.agent_id = $1 AND a.action = $2"
               " AND a.resource = $3 AND a.arguments_hash = $4"
               " AND a.status IN ('pending', 'approved', 'denied')"
               " AND (a.expires_at IS NULL OR a.expires_at > $5)"
               " ORDER BY a.created_at DESC, a.rowid DESC LIMIT 1"},
    {PgStatement::kRateCount, "RateCount",
     "SELECT count FROM rate_counters"
     " WHERE agent_id = $1 AND permission_id = $2 AND window_start = $3"},
    {PgStatement::kSpendRate, "SpendRate",
     "INSERT INTO rate_counters AS r (agent_id, permission_id, window_start, count, kept_until)"
     " VALUES ($1, $2, $3, 1, $4)"
     " ON CONFLICT (agent_id, permission_id, window_start) DO UPDATE SET count = r.count + 1"},
    {PgStatement::kForgetEndedRateWindows, "ForgetEndedRateWindows",
     "DELETE FROM rate_counters"
     " WHERE agent_id = $1 AND permission_id = $2 AND window_start < $3"},
    {PgStatement::kInsertApproval, "InsertApproval",
     "INSERT INTO approval_requests (id, agent_id, action, resource, arguments_hash, quorum,"
     " status, expires_at, created_at, updated_at)"
     " VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8, $8)"},
    {PgStatement::kUseApproval, "UseApproval",
     "UPDATE approval_requests SET status = 'used', updated_at = $2"
     " WHERE id = $1 AND status = 'approved' AND (expires_at IS NULL OR expires_at > $2)"},
    {PgStatement::kFindApproval, "FindApproval",
     "SELECT " VERDICT_APPROVAL_COLUMNS("$2") " FROM approval_requests a WHERE a.id = $1"},
    // A row per request, no more than $3, from the agent's pending requests only (a partial
    // index); the caller counts the rows.
    {PgStatement::kCountPendingApprovals, "CountPendingApprovals",
     "SELECT 1 FROM approval_requests"
     " WHERE agent_id = $1 AND status = 'pending' AND (expires_at IS NULL OR expires_at > $2)"
     " LIMIT $3"},

    {PgStatement::kInsertAgent, "InsertAgent",
     "INSERT INTO agents (id, owner, name, kind, status, expires_at, token_hash, token_prefix,"
     " created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)"},
    {PgStatement::kListAgents, "ListAgents",
     "SELECT " VERDICT_AGENT_COLUMNS " FROM agents WHERE id > $1 ORDER BY id LIMIT $2"},
    {PgStatement::kSetAgentStatus, "SetAgentStatus",
     "UPDATE agents SET status = $2, updated_at = $3 WHERE id = $1"},
    // $2 NULL: the old token dies at once; otherwise it stays valid until $2.
    {PgStatement::kRotateToken, "RotateToken",
     "UPDATE agents SET prev_token_hash = CASE WHEN $2 IS NULL THEN NULL ELSE token_hash END,"
     " prev_token_expires_at = $2, token_hash = $3, token_prefix = $4, updated_at = $5"
     " WHERE id = $1"},
    {PgStatement::kFindPermission, "FindPermission",
     "SELECT " VERDICT_PERMISSION_COLUMNS " FROM permissions WHERE id = $1"},
    {PgStatement::kInsertPermission, "InsertPermission",
     "INSERT INTO permissions (" VERDICT_PERMISSION_COLUMNS
     ") VALUES ($1, $2, $3, $4, $5, $6, $7)"},
    {PgStatement::kDeletePermission, "DeletePermission", "DELETE FROM permissions WHERE id = $1"},
    {PgStatement::kFindDelegation, "FindDelegation",
     "SELECT " VERDICT_DELEGATION_COLUMNS " FROM delegations WHERE id = $1"},
    {PgStatement::kInsertDelegation, "InsertDelegation",
     "INSERT INTO delegations (" VERDICT_DELEGATION_COLUMNS
     ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"},
    {PgStatement::kRevokeDelegation, "RevokeDelegation",
     "UPDATE delegations SET status = 'revoked' WHERE id = $1"},
    {PgStatement::kActiveDelegationsFrom, "ActiveDelegationsFrom",
     "SELECT " VERDICT_DELEGATION_COLUMNS
     " FROM delegations WHERE from_agent_id = $1 AND status = 'active'"
     " AND (expires_at IS NULL OR expires_at > $2) ORDER BY rowid"},
    // Keyset pagination in (created_at, id) order, after ($1, $2); $3: the status to list, or
    // NULL for every status.
    {PgStatement::kListApprovals, "ListApprovals",
     "SELECT * FROM (SELECT " VERDICT_APPROVAL_COLUMNS(
         "$5") " FROM approval_requests a) AS listed"
               " WHERE ($3 IS NULL OR status = $3)"
               " AND (created_at > $1 OR (created_at = $1 AND id > $2))"
               " ORDER BY created_at, id LIMIT $4"},
    {PgStatement::kFindVote, "FindVote",
     "SELECT vote FROM approval_votes WHERE approval_id = $1 AND approver = $2"},
    {PgStatement::kInsertVote, "InsertVote",
     "INSERT INTO approval_votes (approval_id, approver, vote, created_at)"
     " VALUES ($1, $2, $3, $4)"},
    {PgStatement::kSetApprovalStatus, "SetApprovalStatus",
     "UPDATE approval_requests SET status = $2, updated_at = $3 WHERE id = $1"},
    // As SQLite's (store/sqlite_statements.cc says what each deletes).
    {PgStatement::kDeleteRateCountersOfPermission, "DeleteRateCountersOfPermission",
     "DELETE FROM rate_counters WHERE permission_id = $1"},
    {PgStatement::kDeleteRateCountersOfLentPermissions, "DeleteRateCountersOfLentPermissions",
     "DELETE FROM rate_counters WHERE permission_id >= $1 AND permission_id < $2"},
    {PgStatement::kDeleteRateCountersOfAgent, "DeleteRateCountersOfAgent",
     "DELETE FROM rate_counters WHERE agent_id = $1"
     " OR permission_id IN (SELECT id FROM permissions WHERE agent_id = $1)"},
    {PgStatement::kPruneApprovals, "PruneApprovals",
     "DELETE FROM approval_requests WHERE id IN ("
     "SELECT id FROM approval_requests WHERE status IN"
     " ('pending', 'approved', 'denied', 'expired', 'used') AND expires_at <= $1"
     " UNION ALL SELECT id FROM approval_requests"
     " WHERE status IN ('used', 'expired') AND updated_at <= $1 LIMIT $2)"},
    {PgStatement::kPruneRateCounters, "PruneRateCounters",
     "DELETE FROM rate_counters WHERE (agent_id, permission_id, window_start) IN ("
     "SELECT agent_id, permission_id, window_start FROM rate_counters"
     " WHERE kept_until <= $1 LIMIT $2)"},

    {PgStatement::kExportAgents, "ExportAgents",
     "SELECT " VERDICT_AGENT_COLUMNS ", token_hash, prev_token_hash, prev_token_expires_at"
     " FROM agents ORDER BY rowid"},
    {PgStatement::kExportPermissions, "ExportPermissions",
     "SELECT " VERDICT_PERMISSION_COLUMNS " FROM permissions ORDER BY seq"},
    {PgStatement::kExportDelegations, "ExportDelegations",
     "SELECT " VERDICT_DELEGATION_COLUMNS " FROM delegations ORDER BY rowid"},
    {PgStatement::kExportRevokedTokenIds, "ExportRevokedTokenIds",
     "SELECT jti, expires_at FROM revoked_token_ids ORDER BY jti"},
    {PgStatement::kPolicyIsEmpty, "PolicyIsEmpty",
     "SELECT NOT EXISTS (SELECT 1 FROM agents) AND NOT EXISTS (SELECT 1 FROM permissions)"
     " AND NOT EXISTS (SELECT 1 FROM delegations)"},
    {PgStatement::kSetPreviousToken, "SetPreviousToken",
     "UPDATE agents SET prev_token_hash = $2, prev_token_expires_at = $3 WHERE id = $1"},

    {PgStatement::kFindActiveSigningKey, "FindActiveSigningKey",
     "SELECT " VERDICT_SIGNING_KEY_COLUMNS
     " FROM signing_keys WHERE kid = $1 AND status = 'active'"},
    {PgStatement::kIsTokenIdRevoked, "IsTokenIdRevoked",
     "SELECT 1 FROM revoked_token_ids WHERE jti = $1"},
    {PgStatement::kFindSigningKey, "FindSigningKey",
     "SELECT " VERDICT_SIGNING_KEY_COLUMNS " FROM signing_keys WHERE kid = $1"},
    {PgStatement::kInsertSigningKey, "InsertSigningKey",
     "INSERT INTO signing_keys (" VERDICT_SIGNING_KEY_COLUMNS
     ") VALUES ($1, $2, $3, $4, $5, $6, $7)"},
    {PgStatement::kRotateSigningKey, "RotateSigningKey",
     "UPDATE signing_keys SET jwk_json = $2, allowed_algs = $3, updated_at = $4"
     " WHERE kid = $1 AND status = 'active'"},
    {PgStatement::kRetireSigningKey, "RetireSigningKey",
     "UPDATE signing_keys SET status = 'retired', retired_at = $2, updated_at = $2"
     " WHERE kid = $1 AND status = 'active'"},
    {PgStatement::kListSigningKeys, "ListSigningKeys",
     "SELECT " VERDICT_SIGNING_KEY_COLUMNS " FROM signing_keys ORDER BY rowid"},
    {PgStatement::kRevokeTokenId, "RevokeTokenId",
     "INSERT INTO revoked_token_ids AS r (jti, expires_at) VALUES ($1, $2)"
     " ON CONFLICT (jti) DO UPDATE SET expires_at = greatest(r.expires_at, excluded.expires_at)"},
    // By the expiry index; $1 is now less the retention (store/signing_keys.h).
    {PgStatement::kPruneRevokedTokenIds, "PruneRevokedTokenIds",
     "DELETE FROM revoked_token_ids WHERE expires_at < $1"},
    {PgStatement::kDecisionLogLastRow, "DecisionLogLastRow",
     "SELECT seq, hash FROM decision_log ORDER BY seq DESC LIMIT 1"},
    // The identity sequence keeps the highest seq ever written (appends set it), as SQLite's
    // AUTOINCREMENT does, so rows deleted from the end of the log leave a trace.
    {PgStatement::kDecisionLogHighWaterSeq, "DecisionLogHighWaterSeq",
     "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM decision_log_seq_seq"},
    {PgStatement::kDecisionLogSetHighWaterSeq, "DecisionLogSetHighWaterSeq",
     "SELECT setval(pg_get_serial_sequence('decision_log', 'seq'), $1)"},
    {PgStatement::kDecisionLogInsert, "DecisionLogInsert",
     "INSERT INTO decision_log (" VERDICT_DECISION_LOG_COLUMNS
     ") OVERRIDING SYSTEM VALUE VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,"
     " $14, $15, $16, $17, $18, $19, $20)"},
    // A filter left out is '' or NULL; one row more than the page is asked for. $7 = 0
    // leaves out the runs' start and stop markers (verdict ''), which are not decisions.
    {PgStatement::kDecisionLogQuery, "DecisionLogQuery",
     "SELECT " VERDICT_DECISION_LOG_COLUMNS " FROM decision_log WHERE seq > $1"
     " AND ($7::bigint <> 0 OR verdict <> '')"
     " AND ($2 = '' OR agent_id = $2) AND ($3::bigint IS NULL OR decided_at >= $3)"
     " AND ($4::bigint IS NULL OR decided_at < $4) AND ($5 = '' OR verdict = $5)"
     " ORDER BY seq LIMIT $6"},
    {PgStatement::kAdminSecretHash, "AdminSecretHash",
     "SELECT secret_hash FROM admin_credentials WHERE id = 1"},
    {PgStatement::kSetAdminSecretHashIfAbsent, "SetAdminSecretHashIfAbsent",
     "INSERT INTO admin_credentials (id, secret_hash, created_at) VALUES (1, $1, $2)"
     " ON CONFLICT (id) DO NOTHING"},
};

#undef VERDICT_AGENT_COLUMNS
#undef VERDICT_PERMISSION_COLUMNS
#undef VERDICT_DELEGATION_COLUMNS
#undef VERDICT_SIGNING_KEY_COLUMNS
#undef VERDICT_APPROVAL_COLUMNS

static_assert(sizeof(kStatements) / sizeof(kStatements[0]) == kPgStatementCount,
              "every PgStatement needs its SQL");

constexpr bool StatementsAreInIdOrder() {
  for (size_t i = 0; i < kPgStatementCount; ++i) {
    if (static_cast<size_t>(kStatements[i].id) != i) return false;
  }
  return true;
}
static_assert(StatementsAreInIdOrder(), "kStatements must be indexed by PgStatement");

constexpr PgStatement kDecisionPath[] = {
    PgStatement::kFindAgent,
    PgStatement::kFindAgentByTokenHash,
    PgStatement::kFindAgentByPreviousTokenHash,
    PgStatement::kPermissionsOf,
    PgStatement::kActiveDelegationsInto,
    PgStatement::kFindOpenApproval,
    PgStatement::kRateCount,
    PgStatement::kSpendRate,
    PgStatement::kForgetEndedRateWindows,
    PgStatement::kInsertApproval,
    PgStatement::kUseApproval,
    PgStatement::kFindApproval,
    PgStatement::kCountPendingApprovals,
    PgStatement::kFindActiveSigningKey,
    PgStatement::kIsTokenIdRevoked,
};

}  // namespace

const PgStatementSql& GetPgStatementSql(PgStatement statement) {
  return kStatements[static_cast<size_t>(statement)];
}

absl::Span<const PgStatement> PgDecisionPathStatements() { return kDecisionPath; }

}  // namespace verdict
