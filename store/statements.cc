#include "store/statements.h"

#include <vector>

#include "store/decision_record_sql.h"
#include "store/row_readers.h"

namespace verdict {
namespace {

// Column lists shared by the statements that read whole rows; store/row_readers.h reads them in
// this order (and holds the agent's, VERDICT_AGENT_COLUMNS).
#define VERDICT_PERMISSION_COLUMNS \
  "id, agent_id, resource, actions, effect, constraints, created_at"
#define VERDICT_DELEGATION_COLUMNS \
  "id, from_agent_id, to_agent_id, permissions, max_depth, status, expires_at, created_at"
#define VERDICT_DECISION_RECORD_COLUMNS "r.agent, r.permissions, r.delegations_into"
// store/admin_credentials.cc reads them in this order.
#define VERDICT_ADMIN_PRINCIPAL_COLUMNS \
  "name, secret_hash, roles, grant_patterns, enabled, created_at, updated_at"
#define VERDICT_SIGNING_KEY_COLUMNS \
  "kid, jwk_json, allowed_algs, status, created_at, updated_at, retired_at"
// ForEachDecisionLogColumn's order (store/decision_log_row.h).
#define VERDICT_DECISION_LOG_COLUMNS                                                        \
  "seq, decided_at, request_id, agent_id, action, resource, client_ip, arguments_json, "    \
  "verdict, reason, message, matched_permission_id, delegation_path, approval_request_id, " \
  "latency_us, prev_hash, hash, run_id, run_seq, run_decided, approved_by"
#define VERDICT_DECISION_LOG_VALUES                                                              \
  "($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, " \
  "$21)"
// ForEachAdminAuditColumn's order (store/admin_audit_row.h), then the objects, each column
// after `prefix` (a table alias).
#define VERDICT_ADMIN_AUDIT_COLUMNS(prefix)                                                    \
  prefix "seq, " prefix "recorded_at, " prefix "principal, " prefix "auth_method, " prefix     \
         "peer, " prefix "call_name, " prefix "arguments_json, " prefix "result_code, " prefix \
         "result_message, " prefix "prev_hash, " prefix "hash, " prefix "objects"
// The admin audit query's filters: $2 principal, $3 call, $4 since, $5 until.
#define VERDICT_ADMIN_AUDIT_FILTER                                  \
  "($2 = '' OR l.principal = $2) AND ($3 = '' OR l.call_name = $3)" \
  " AND (CAST($4 AS BIGINT) IS NULL OR l.recorded_at >= $4)"        \
  " AND (CAST($5 AS BIGINT) IS NULL OR l.recorded_at < $5)"
// A pending or approved request past its expiry reads as expired, whether or not a vote has
// marked it yet. `now` is the parameter that holds the time.
#define VERDICT_APPROVAL_COLUMNS(now)                                      \
  "a.id, a.agent_id, a.action, a.resource, a.arguments_hash, a.quorum, "   \
  "(SELECT count(*) FROM approval_votes v WHERE v.approval_id = a.id "     \
  "AND v.vote = 'approve') AS approvals, "                                 \
  "CASE WHEN a.status IN ('pending', 'approved') AND a.expires_at <= " now \
  " THEN 'expired' ELSE a.status END AS status, "                          \
  "a.expires_at, a.created_at"

// Text built at compile time: the agents' INSERT and UPDATE, whose placeholders follow the
// column list.
struct SqlText {
  char text[1024] = {};
  size_t size = 0;
  constexpr SqlText& Append(const char* more) {
    while (*more != '\0') text[size++] = *more++;
    return *this;
  }
  constexpr SqlText& AppendPlaceholder(int n) {  // "$12"
    text[size++] = '$';
    if (n >= 10) text[size++] = static_cast<char>('0' + n / 10);
    text[size++] = static_cast<char>('0' + n % 10);
    return *this;
  }
};
static_assert(kAgentColumnCount + 1 < 100, "two-digit placeholders");

// $1 is the token's hash; VERDICT_AGENT_COLUMNS are $2 on.
constexpr SqlText kInsertAgentSql = [] {
  SqlText sql;
  sql.Append("INSERT INTO agents (token_hash, " VERDICT_AGENT_COLUMNS ") VALUES ($1");
  for (int n = 2; n <= kAgentColumnCount + 1; ++n) sql.Append(", ").AppendPlaceholder(n);
  sql.Append(")");
  return sql;
}();

// What a policy file sets of an agent (decision/admin/policy_plan.h): $1 is its id, then owner,
// name, kind, status and expiry, its descriptive columns (VERDICT_AGENT_TEXT_COLUMNS' order),
// and updated_at last.
#define VERDICT_AGENT_TEXT_SET(name, help) sql.Append(", " #name " = ").AppendPlaceholder(n++);
constexpr SqlText kUpdateAgentFieldsSql = [] {
  SqlText sql;
  sql.Append("UPDATE agents SET owner = $2, name = $3, kind = $4, status = $5, expires_at = $6");
  int n = 7;
  VERDICT_AGENT_TEXT_COLUMNS(VERDICT_AGENT_TEXT_SET)
  sql.Append(", updated_at = ").AppendPlaceholder(n).Append(" WHERE id = $1");
  return sql;
}();
#undef VERDICT_AGENT_TEXT_SET

struct Entry {
  Statement id;
  const char* name;
  // nullptr where SQLite has no such statement.
  const char* sql;
  // PostgreSQL's own text where its dialect differs; kNone where it has no such statement.
  const char* postgres_sql = nullptr;
};
constexpr char kNone[] = "";

// `rowid` and permissions' `seq` are creation order in both databases (PostgreSQL's migrations
// make them explicit columns).
constexpr Entry kStatements[] = {
    {Statement::kFindAgent, "FindAgent",
     "SELECT " VERDICT_AGENT_COLUMNS " FROM agents WHERE id = $1"},
    {Statement::kPermissionsOf, "PermissionsOf",
     "SELECT " VERDICT_PERMISSION_COLUMNS " FROM permissions WHERE agent_id = $1 ORDER BY seq"},
    {Statement::kActiveDelegationsInto, "ActiveDelegationsInto",
     "SELECT " VERDICT_DELEGATION_COLUMNS
     " FROM delegations WHERE to_agent_id = $1 AND status = 'active'"
     " AND (expires_at IS NULL OR expires_at > $2) ORDER BY rowid"},
    {Statement::kFindOpenApproval, "FindOpenApproval",
     "SELECT " VERDICT_APPROVAL_COLUMNS(
         "$5") " FROM approval_requests a WHERE a.agent_id = $1 AND a.action = $2"
               " AND a.resource = $3 AND a.arguments_hash = $4"
               " AND a.status IN ('pending', 'approved', 'denied')"
               " AND (a.expires_at IS NULL OR a.expires_at > $5)"
               " ORDER BY a.created_at DESC, a.rowid DESC LIMIT 1"},
    {Statement::kRateCount, "RateCount",
     "SELECT count FROM rate_counters"
     " WHERE agent_id = $1 AND permission_id = $2 AND window_start = $3"},
    // $4: when no decision reads the count any more (RateCountKeptUntil), or NULL.
    {Statement::kSpendRate, "SpendRate",
     "INSERT INTO rate_counters AS r (agent_id, permission_id, window_start, count, kept_until)"
     " VALUES ($1, $2, $3, 1, $4)"
     " ON CONFLICT (agent_id, permission_id, window_start) DO UPDATE SET count = r.count + 1"},
    {Statement::kForgetEndedRateWindows, "ForgetEndedRateWindows",
     "DELETE FROM rate_counters"
     " WHERE agent_id = $1 AND permission_id = $2 AND window_start < $3"},
    {Statement::kInsertApproval, "InsertApproval",
     "INSERT INTO approval_requests (id, agent_id, action, resource, arguments_hash, quorum,"
     " status, expires_at, created_at, updated_at)"
     " VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8, $8)"},
    {Statement::kUseApproval, "UseApproval",
     "UPDATE approval_requests SET status = 'used', updated_at = $2"
     " WHERE id = $1 AND status = 'approved' AND (expires_at IS NULL OR expires_at > $2)"},
    {Statement::kFindApproval, "FindApproval",
     "SELECT " VERDICT_APPROVAL_COLUMNS("$2") " FROM approval_requests a WHERE a.id = $1"},
    // A row per request, no more than $3, from the agent's pending requests only (a partial
    // index); the caller counts the rows.
    {Statement::kCountPendingApprovals, "CountPendingApprovals",
     "SELECT 1 FROM approval_requests"
     " WHERE agent_id = $1 AND status = 'pending' AND (expires_at IS NULL OR expires_at > $2)"
     " LIMIT $3"},

    // An agent with its permissions and the delegations into it (store/decision_record.h):
    // one primary-key search, or a search of the token's covering index (agents_by_token_hash,
    // the plan store/query_plan_test.cc pins; store/migrations.cc's version 9 says why the
    // planner keeps choosing it) and then that one.
    {Statement::kFindDecisionRecord, "FindDecisionRecord",
     "SELECT " VERDICT_DECISION_RECORD_COLUMNS " FROM decision_records r WHERE r.agent_id = $1"},
    {Statement::kFindDecisionRecordByTokenHash, "FindDecisionRecordByTokenHash",
     "SELECT " VERDICT_DECISION_RECORD_COLUMNS
     " FROM agents a JOIN decision_records r ON r.agent_id = a.id WHERE a.token_hash = $1"},
    {Statement::kFindDecisionRecordByPreviousTokenHash, "FindDecisionRecordByPreviousTokenHash",
     "SELECT " VERDICT_DECISION_RECORD_COLUMNS
     " FROM agents a JOIN decision_records r ON r.agent_id = a.id"
     " WHERE a.prev_token_hash = $1 AND a.prev_token_expires_at > $2"},

    {Statement::kInsertAgent, "InsertAgent", kInsertAgentSql.text},
    {Statement::kListAgents, "ListAgents",
     "SELECT " VERDICT_AGENT_COLUMNS " FROM agents WHERE id > $1 ORDER BY id LIMIT $2"},
    {Statement::kSetAgentStatus, "SetAgentStatus",
     "UPDATE agents SET status = $2, updated_at = $3 WHERE id = $1"},
    // $2 NULL: the old token dies at once; otherwise it stays valid until $2.
    {Statement::kRotateToken, "RotateToken",
     "UPDATE agents SET prev_token_hash = CASE WHEN $2 IS NULL THEN NULL ELSE token_hash END,"
     " prev_token_expires_at = $2, token_hash = $3, token_prefix = $4, updated_at = $5"
     " WHERE id = $1"},
    {Statement::kFindPermission, "FindPermission",
     "SELECT " VERDICT_PERMISSION_COLUMNS " FROM permissions WHERE id = $1"},
    {Statement::kInsertPermission, "InsertPermission",
     "INSERT INTO permissions (" VERDICT_PERMISSION_COLUMNS
     ") VALUES ($1, $2, $3, $4, $5, $6, $7)"},
    {Statement::kDeletePermission, "DeletePermission", "DELETE FROM permissions WHERE id = $1"},
    {Statement::kFindDelegation, "FindDelegation",
     "SELECT " VERDICT_DELEGATION_COLUMNS " FROM delegations WHERE id = $1"},
    {Statement::kInsertDelegation, "InsertDelegation",
     "INSERT INTO delegations (" VERDICT_DELEGATION_COLUMNS
     ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"},
    {Statement::kRevokeDelegation, "RevokeDelegation",
     "UPDATE delegations SET status = 'revoked' WHERE id = $1"},
    {Statement::kActiveDelegationsFrom, "ActiveDelegationsFrom",
     "SELECT " VERDICT_DELEGATION_COLUMNS
     " FROM delegations WHERE from_agent_id = $1 AND status = 'active'"
     " AND (expires_at IS NULL OR expires_at > $2) ORDER BY rowid"},
    // Keyset pagination in (created_at, id) order, after ($1, $2); $3: the status to list, or
    // NULL for every status.
    {Statement::kListApprovals, "ListApprovals",
     "SELECT * FROM (SELECT " VERDICT_APPROVAL_COLUMNS(
         "$5") " FROM approval_requests a) AS listed"
               " WHERE ($3 IS NULL OR status = $3)"
               " AND (created_at > $1 OR (created_at = $1 AND id > $2))"
               " ORDER BY created_at, id LIMIT $4"},
    {Statement::kFindVote, "FindVote",
     "SELECT vote FROM approval_votes WHERE approval_id = $1 AND approver = $2"},
    {Statement::kInsertVote, "InsertVote",
     "INSERT INTO approval_votes (approval_id, approver, vote, created_at)"
     " VALUES ($1, $2, $3, $4)"},
    {Statement::kSetApprovalStatus, "SetApprovalStatus",
     "UPDATE approval_requests SET status = $2, updated_at = $3 WHERE id = $1"},
    // Until the transaction ends.
    {Statement::kDeferForeignKeys, "DeferForeignKeys", "PRAGMA defer_foreign_keys = ON", kNone},
    // An agent's decision record out of the way of its triggers (they update a record only where
    // there is one), and built again from the tables, within one write transaction
    // (AdminTransaction::SetDecisionRecordsAside).
    {Statement::kSetDecisionRecordAside, "SetDecisionRecordAside",
     "DELETE FROM decision_records WHERE agent_id = $1", kNone},
    {Statement::kPutDecisionRecordBack, "PutDecisionRecordBack",
     "INSERT INTO decision_records (agent_id, agent, permissions, delegations_into)"
     " SELECT a.id, " VERDICT_AGENT_RECORD("a") ", " VERDICT_PERMISSION_RECORDS(
         "a.id") ", " VERDICT_DELEGATION_RECORDS("a.id") " FROM agents a WHERE a.id = $1",
     kNone},

    // Every agent's counts of the permission: its owner's, and those of the agents it was lent
    // to, which count under the owner's permission id.
    {Statement::kDeleteRateCountersOfPermission, "DeleteRateCountersOfPermission",
     "DELETE FROM rate_counters WHERE permission_id = $1"},
    // A delegation's lent permissions count as "<delegation id>#<index>": $1 is the id and '#',
    // $2 the id and the character after '#', so the range is the index's.
    {Statement::kDeleteRateCountersOfLentPermissions, "DeleteRateCountersOfLentPermissions",
     "DELETE FROM rate_counters WHERE permission_id >= $1 AND permission_id < $2"},
    {Statement::kDeleteRateCountersOfAgent, "DeleteRateCountersOfAgent",
     "DELETE FROM rate_counters WHERE agent_id = $1"
     " OR permission_id IN (SELECT id FROM permissions WHERE agent_id = $1)"},
    // Requests expired before $1 whatever their status, and requests used (or marked expired)
    // before $1, at most $2 of them; their votes go with them (ON DELETE CASCADE).
    {Statement::kPruneApprovals, "PruneApprovals",
     "DELETE FROM approval_requests WHERE id IN ("
     "SELECT id FROM approval_requests WHERE status IN"
     " ('pending', 'approved', 'denied', 'expired', 'used') AND expires_at <= $1"
     " UNION ALL SELECT id FROM approval_requests"
     " WHERE status IN ('used', 'expired') AND updated_at <= $1 LIMIT $2)"},
    // Counts no decision reads any more (kept_until, unix seconds, at or before $1), at most $2.
    {Statement::kPruneRateCounters, "PruneRateCounters",
     "DELETE FROM rate_counters WHERE (agent_id, permission_id, window_start) IN ("
     "SELECT agent_id, permission_id, window_start FROM rate_counters"
     " WHERE kept_until <= $1 LIMIT $2)"},
    // The database server's time, unix microseconds: now() is the time its transaction started,
    // the same for every node sharing the database.
    {Statement::kDatabaseClock, "DatabaseClock", nullptr,
     "SELECT CAST(floor(extract(epoch FROM now()) * 1000000) AS bigint)"},

    {Statement::kExportAgents, "ExportAgents",
     "SELECT " VERDICT_AGENT_COLUMNS ", token_hash, prev_token_hash, prev_token_expires_at"
     " FROM agents ORDER BY rowid"},
    {Statement::kExportPermissions, "ExportPermissions",
     "SELECT " VERDICT_PERMISSION_COLUMNS " FROM permissions ORDER BY seq"},
    {Statement::kExportDelegations, "ExportDelegations",
     "SELECT " VERDICT_DELEGATION_COLUMNS " FROM delegations ORDER BY rowid"},
    {Statement::kExportRevokedTokenIds, "ExportRevokedTokenIds",
     "SELECT jti, expires_at FROM revoked_token_ids ORDER BY jti"},
    {Statement::kPolicyIsEmpty, "PolicyIsEmpty",
     "SELECT NOT EXISTS (SELECT 1 FROM agents) AND NOT EXISTS (SELECT 1 FROM permissions)"
     " AND NOT EXISTS (SELECT 1 FROM delegations)"},
    {Statement::kSetPreviousToken, "SetPreviousToken",
     "UPDATE agents SET prev_token_hash = $2, prev_token_expires_at = $3 WHERE id = $1"},

    {Statement::kFindActiveSigningKey, "FindActiveSigningKey",
     "SELECT " VERDICT_SIGNING_KEY_COLUMNS
     " FROM signing_keys WHERE kid = $1 AND status = 'active'"},
    {Statement::kIsTokenIdRevoked, "IsTokenIdRevoked",
     "SELECT 1 FROM revoked_token_ids WHERE jti = $1"},
    {Statement::kFindSigningKey, "FindSigningKey",
     "SELECT " VERDICT_SIGNING_KEY_COLUMNS " FROM signing_keys WHERE kid = $1"},
    {Statement::kInsertSigningKey, "InsertSigningKey",
     "INSERT INTO signing_keys (" VERDICT_SIGNING_KEY_COLUMNS
     ") VALUES ($1, $2, $3, $4, $5, $6, $7)"},
    {Statement::kRotateSigningKey, "RotateSigningKey",
     "UPDATE signing_keys SET jwk_json = $2, allowed_algs = $3, updated_at = $4"
     " WHERE kid = $1 AND status = 'active'"},
    {Statement::kRetireSigningKey, "RetireSigningKey",
     "UPDATE signing_keys SET status = 'retired', retired_at = $2, updated_at = $2"
     " WHERE kid = $1 AND status = 'active'"},
    {Statement::kListSigningKeys, "ListSigningKeys",
     "SELECT " VERDICT_SIGNING_KEY_COLUMNS " FROM signing_keys ORDER BY rowid"},
    // Revoking again keeps the later expiry.
    {Statement::kRevokeTokenId, "RevokeTokenId",
     "INSERT INTO revoked_token_ids AS r (jti, expires_at) VALUES ($1, $2)"
     " ON CONFLICT (jti) DO UPDATE SET expires_at = CASE WHEN r.expires_at > excluded.expires_at"
     " THEN r.expires_at ELSE excluded.expires_at END"},
    // By the expiry index; $1 is now less the retention (store/signing_keys.h).
    {Statement::kPruneRevokedTokenIds, "PruneRevokedTokenIds",
     "DELETE FROM revoked_token_ids WHERE expires_at < $1"},

    {Statement::kDecisionLogLastRow, "DecisionLogLastRow",
     "SELECT seq, hash FROM decision_log ORDER BY seq DESC LIMIT 1"},
    // The highest seq ever written (SQLite's AUTOINCREMENT, PostgreSQL's identity sequence), so
    // rows deleted from the end of the log leave a trace: the next append skips their numbers,
    // and the chain check reports them.
    {Statement::kDecisionLogHighWaterSeq, "DecisionLogHighWaterSeq",
     "SELECT seq FROM sqlite_sequence WHERE name = 'decision_log'",
     "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM decision_log_seq_seq"},
    // SQLite's AUTOINCREMENT moves by itself as rows are inserted; PostgreSQL's sequence is
    // moved last, right before the commit, as sequences are not transactional.
    {Statement::kDecisionLogSetHighWaterSeq, "DecisionLogSetHighWaterSeq",
     "UPDATE sqlite_sequence SET seq = $1 WHERE name = 'decision_log' AND seq < $1",
     "SELECT setval(pg_get_serial_sequence('decision_log', 'seq'), $1)"},
    {Statement::kDecisionLogInsert, "DecisionLogInsert",
     "INSERT INTO decision_log (" VERDICT_DECISION_LOG_COLUMNS
     ") VALUES " VERDICT_DECISION_LOG_VALUES,
     "INSERT INTO decision_log (" VERDICT_DECISION_LOG_COLUMNS
     ") OVERRIDING SYSTEM VALUE VALUES " VERDICT_DECISION_LOG_VALUES},
    // A filter left out is '' or NULL; one row more than the page is asked for. $7 = 0
    // leaves out the runs' start and stop markers (verdict ''), which are not decisions.
    {Statement::kDecisionLogQuery, "DecisionLogQuery",
     "SELECT " VERDICT_DECISION_LOG_COLUMNS " FROM decision_log WHERE seq > $1"
     " AND (CAST($7 AS BIGINT) <> 0 OR verdict <> '')"
     " AND ($2 = '' OR agent_id = $2) AND (CAST($3 AS BIGINT) IS NULL OR decided_at >= $3)"
     " AND (CAST($4 AS BIGINT) IS NULL OR decided_at < $4) AND ($5 = '' OR verdict = $5)"
     " ORDER BY seq LIMIT $6"},
    // The same for one agent ($2), through the index by agent and seq.
    {Statement::kDecisionLogQueryByAgent, "DecisionLogQueryByAgent",
     "SELECT " VERDICT_DECISION_LOG_COLUMNS " FROM decision_log WHERE agent_id = $2"
     " AND seq > $1 AND (CAST($7 AS BIGINT) <> 0 OR verdict <> '')"
     " AND (CAST($3 AS BIGINT) IS NULL OR decided_at >= $3)"
     " AND (CAST($4 AS BIGINT) IS NULL OR decided_at < $4) AND ($5 = '' OR verdict = $5)"
     " ORDER BY seq LIMIT $6"},
    {Statement::kSetAdminSecretHashIfAbsent, "SetAdminSecretHashIfAbsent",
     "INSERT INTO admin_principals"
     " (name, secret_hash, roles, grant_patterns, enabled, created_at, updated_at)"
     " VALUES ('admin', $1, 'admin', '', 1, $2, $2) ON CONFLICT (name) DO NOTHING"},

    // The admin audit log (store/admin_audit_log.h): its state row, the chain's two ends.
    {Statement::kAdminAuditState, "AdminAuditState",
     "SELECT last_seq, last_hash, pruned_seq, pruned_hash FROM admin_audit_state WHERE id = 1"},
    {Statement::kAdminAuditSetLast, "AdminAuditSetLast",
     "UPDATE admin_audit_state SET last_seq = $1, last_hash = $2 WHERE id = 1"},
    {Statement::kAdminAuditSetPruned, "AdminAuditSetPruned",
     "UPDATE admin_audit_state SET pruned_seq = $1, pruned_hash = $2 WHERE id = 1"},
    {Statement::kAdminAuditInsert, "AdminAuditInsert",
     "INSERT INTO admin_audit_log (" VERDICT_ADMIN_AUDIT_COLUMNS(
         "") ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"},
    {Statement::kAdminAuditInsertObject, "AdminAuditInsertObject",
     "INSERT INTO admin_audit_objects (object_id, seq) VALUES ($1, $2)"},
    // A filter left out is '' or NULL; one row more than the page is asked for.
    {Statement::kAdminAuditQuery, "AdminAuditQuery",
     "SELECT " VERDICT_ADMIN_AUDIT_COLUMNS("l.") " FROM admin_audit_log l WHERE l.seq > $1"
                                                 " AND " VERDICT_ADMIN_AUDIT_FILTER
                                                 " ORDER BY l.seq LIMIT $6"},
    // The same for the rows naming one object ($7), through the objects' index.
    {Statement::kAdminAuditQueryByObject, "AdminAuditQueryByObject",
     "SELECT " VERDICT_ADMIN_AUDIT_COLUMNS(
         "l.") " FROM admin_audit_objects o"
               " JOIN admin_audit_log l ON l.seq = o.seq WHERE o.object_id = $7 AND o.seq > $1"
               " AND " VERDICT_ADMIN_AUDIT_FILTER " ORDER BY o.seq LIMIT $6"},
    {Statement::kAdminAuditOldestRows, "AdminAuditOldestRows",
     "SELECT seq, hash, recorded_at FROM admin_audit_log WHERE seq > $1 ORDER BY seq LIMIT $2"},
    {Statement::kAdminAuditDeleteObjectsThrough, "AdminAuditDeleteObjectsThrough",
     "DELETE FROM admin_audit_objects WHERE seq <= $1"},
    {Statement::kAdminAuditDeleteThrough, "AdminAuditDeleteThrough",
     "DELETE FROM admin_audit_log WHERE seq <= $1"},
    // Policy files (issue 19), in creation order.
    {Statement::kManagedAgents, "ManagedAgents",
     "SELECT " VERDICT_AGENT_COLUMNS
     ", token_hash FROM agents WHERE managed_by = $1 ORDER BY rowid"},
    {Statement::kManagedPermissions, "ManagedPermissions",
     "SELECT " VERDICT_PERMISSION_COLUMNS " FROM permissions WHERE managed_by = $1 ORDER BY seq"},
    {Statement::kManagedDelegations, "ManagedDelegations",
     "SELECT " VERDICT_DELEGATION_COLUMNS " FROM delegations WHERE managed_by = $1 ORDER BY rowid"},
    {Statement::kSetAgentManager, "SetAgentManager",
     "UPDATE agents SET managed_by = $2 WHERE id = $1"},
    {Statement::kSetPermissionManager, "SetPermissionManager",
     "UPDATE permissions SET managed_by = $2 WHERE id = $1"},
    {Statement::kSetDelegationManager, "SetDelegationManager",
     "UPDATE delegations SET managed_by = $2 WHERE id = $1"},
    {Statement::kUpdateAgentFields, "UpdateAgentFields", kUpdateAgentFieldsSql.text},
    {Statement::kDeleteAgent, "DeleteAgent", "DELETE FROM agents WHERE id = $1"},
    {Statement::kDeleteDelegation, "DeleteDelegation", "DELETE FROM delegations WHERE id = $1"},
    {Statement::kInsertAdminSession, "InsertAdminSession",
     "INSERT INTO admin_sessions (id, token_hash, principal, created_at, expires_at)"
     " VALUES ($1, $2, $3, $4, $5)"},
    // Makes room for one more session of principal $1 at time $2: deletes its sessions expired by
    // then, and all but its newest $3 live ones.
    {Statement::kTrimAdminSessionsOf, "TrimAdminSessionsOf",
     "DELETE FROM admin_sessions WHERE principal = $1 AND (expires_at <= $2 OR id NOT IN ("
     "SELECT id FROM admin_sessions WHERE principal = $1 AND expires_at > $2"
     " ORDER BY created_at DESC, id DESC LIMIT $3))"},
    {Statement::kFindAdminSessionByTokenHash, "FindAdminSessionByTokenHash",
     "SELECT id, principal, created_at, expires_at FROM admin_sessions WHERE token_hash = $1"},
    // The session $1 when it is principal $2's, or anyone's when $2 is ''.
    {Statement::kDeleteAdminSession, "DeleteAdminSession",
     "DELETE FROM admin_sessions WHERE id = $1 AND ($2 = '' OR principal = $2)"},
    {Statement::kDeleteAdminSessionsOf, "DeleteAdminSessionsOf",
     "DELETE FROM admin_sessions WHERE principal = $1"},
    // Sessions expired at $1, at most $2 of them, by the expiry index.
    {Statement::kPruneAdminSessions, "PruneAdminSessions",
     "DELETE FROM admin_sessions WHERE id IN ("
     "SELECT id FROM admin_sessions WHERE expires_at <= $1 LIMIT $2)"},
    // Admin principals (store/admin_credential_store.h).
    {Statement::kFindAdminPrincipal, "FindAdminPrincipal",
     "SELECT " VERDICT_ADMIN_PRINCIPAL_COLUMNS " FROM admin_principals WHERE name = $1"},
    {Statement::kListAdminPrincipals, "ListAdminPrincipals",
     "SELECT " VERDICT_ADMIN_PRINCIPAL_COLUMNS " FROM admin_principals ORDER BY name LIMIT $1"},
    {Statement::kCountAdminPrincipals, "CountAdminPrincipals",
     "SELECT count(*) FROM admin_principals"},
    {Statement::kCountEnabledAdmins, "CountEnabledAdmins",
     "SELECT count(*) FROM admin_principals"
     " WHERE enabled = 1 AND (',' || roles || ',') LIKE '%,admin,%'"},
    {Statement::kInsertAdminPrincipal, "InsertAdminPrincipal",
     "INSERT INTO admin_principals (" VERDICT_ADMIN_PRINCIPAL_COLUMNS
     ") VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (name) DO NOTHING"},
    {Statement::kUpdateAdminPrincipal, "UpdateAdminPrincipal",
     "UPDATE admin_principals SET secret_hash = $2, roles = $3, grant_patterns = $4,"
     " enabled = $5, updated_at = $6 WHERE name = $1"},
    {Statement::kApprovalVotes, "ApprovalVotes",
     "SELECT approver, vote FROM approval_votes WHERE approval_id = $1"
     " ORDER BY created_at, approver"},
    // Which policy file manages each object; those created at run time ('') are left out.
    {Statement::kExportAgentManagers, "ExportAgentManagers",
     "SELECT id, managed_by FROM agents WHERE managed_by <> ''"},
    {Statement::kExportPermissionManagers, "ExportPermissionManagers",
     "SELECT id, managed_by FROM permissions WHERE managed_by <> ''"},
    {Statement::kExportDelegationManagers, "ExportDelegationManagers",
     "SELECT id, managed_by FROM delegations WHERE managed_by <> ''"},
    // One vote per approver (the primary key): the names are distinct.
    {Statement::kApproversOf, "ApproversOf",
     "SELECT approver FROM approval_votes WHERE approval_id = $1 AND vote = 'approve'"
     " ORDER BY approver"},
    {Statement::kSetAgentCreator, "SetAgentCreator",
     "UPDATE agents SET created_by = $2 WHERE id = $1"},
    {Statement::kAgentCreator, "AgentCreator", "SELECT created_by FROM agents WHERE id = $1"},
};

#undef VERDICT_PERMISSION_COLUMNS
#undef VERDICT_DELEGATION_COLUMNS
#undef VERDICT_DECISION_RECORD_COLUMNS
#undef VERDICT_SIGNING_KEY_COLUMNS
#undef VERDICT_ADMIN_PRINCIPAL_COLUMNS
#undef VERDICT_DECISION_LOG_COLUMNS
#undef VERDICT_DECISION_LOG_VALUES
#undef VERDICT_APPROVAL_COLUMNS
#undef VERDICT_ADMIN_AUDIT_COLUMNS
#undef VERDICT_ADMIN_AUDIT_FILTER

static_assert(sizeof(kStatements) / sizeof(kStatements[0]) == kStatementCount,
              "every Statement needs its SQL");

constexpr bool StatementsAreInIdOrder() {
  for (size_t i = 0; i < kStatementCount; ++i) {
    if (static_cast<size_t>(kStatements[i].id) != i) return false;
  }
  return true;
}
static_assert(StatementsAreInIdOrder(), "kStatements must be indexed by Statement");

constexpr Statement kDecisionPath[] = {
    Statement::kFindAgent,
    Statement::kPermissionsOf,
    Statement::kActiveDelegationsInto,
    Statement::kFindOpenApproval,
    Statement::kRateCount,
    Statement::kSpendRate,
    Statement::kForgetEndedRateWindows,
    Statement::kInsertApproval,
    Statement::kUseApproval,
    Statement::kFindApproval,
    Statement::kCountPendingApprovals,
    Statement::kFindDecisionRecord,
    Statement::kFindDecisionRecordByTokenHash,
    Statement::kFindDecisionRecordByPreviousTokenHash,
    Statement::kFindActiveSigningKey,
    Statement::kIsTokenIdRevoked,
    Statement::kApproversOf,
};

std::vector<Statement> DecisionPathIn(Dialect dialect) {
  std::vector<Statement> path;
  for (Statement statement : kDecisionPath) {
    if (GetStatementSql(statement, dialect).sql != nullptr) path.push_back(statement);
  }
  return path;
}

}  // namespace

StatementSql GetStatementSql(Statement statement, Dialect dialect) {
  const Entry& entry = kStatements[static_cast<size_t>(statement)];
  const char* sql = entry.sql;
  if (dialect == Dialect::kPostgres && entry.postgres_sql != nullptr) {
    sql = entry.postgres_sql == kNone ? nullptr : entry.postgres_sql;
  }
  return {entry.id, entry.name, sql};
}

absl::Span<const Statement> DecisionPathStatements(Dialect dialect) {
  static const std::vector<Statement>* const sqlite =
      new std::vector<Statement>(DecisionPathIn(Dialect::kSqlite));
  static const std::vector<Statement>* const postgres =
      new std::vector<Statement>(DecisionPathIn(Dialect::kPostgres));
  return dialect == Dialect::kSqlite ? *sqlite : *postgres;
}

}  // namespace verdict
