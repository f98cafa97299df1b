#include "store/sqlite_statements.h"

namespace verdict {
namespace {

// Column lists shared by the statements that read whole rows; the row readers in
// store/sqlite_rows.cc read them in this order.
#define VERDICT_AGENT_COLUMNS \
  "id, owner, name, kind, status, expires_at, token_prefix, created_at, updated_at"
#define VERDICT_PERMISSION_COLUMNS \
  "id, agent_id, resource, actions, effect, constraints, created_at"
#define VERDICT_DELEGATION_COLUMNS \
  "id, from_agent_id, to_agent_id, permissions, max_depth, status, expires_at, created_at"
#define VERDICT_DECISION_RECORD_COLUMNS "r.agent, r.permissions, r.delegations_into"
#define VERDICT_SIGNING_KEY_COLUMNS \
  "kid, jwk_json, allowed_algs, status, created_at, updated_at, retired_at"
// A pending or approved request past its expiry reads as expired, whether or not a vote has
// marked it yet. ?9 is always the time `now` in the statements that use it.
#define VERDICT_APPROVAL_COLUMNS                                                         \
  "a.id, a.agent_id, a.action, a.resource, a.arguments_hash, a.quorum, "                 \
  "(SELECT count(*) FROM approval_votes v WHERE v.approval_id = a.id "                   \
  "AND v.vote = 'approve') AS approvals, "                                               \
  "CASE WHEN a.status IN ('pending', 'approved') AND a.expires_at <= ?9 THEN 'expired' " \
  "ELSE a.status END AS status, "                                                        \
  "a.expires_at, a.created_at"

constexpr StatementSql kStatements[] = {
    {StatementId::kBeginRead, "BeginRead", "BEGIN"},
    {StatementId::kBeginWrite, "BeginWrite", "BEGIN IMMEDIATE"},
    {StatementId::kCommit, "Commit", "COMMIT"},
    {StatementId::kRollback, "Rollback", "ROLLBACK"},

    {StatementId::kFindAgent, "FindAgent",
     "SELECT " VERDICT_AGENT_COLUMNS " FROM agents WHERE id = ?1"},
    // seq order is creation order.
    {StatementId::kPermissionsOf, "PermissionsOf",
     "SELECT " VERDICT_PERMISSION_COLUMNS " FROM permissions WHERE agent_id = ?1 ORDER BY seq"},
    {StatementId::kActiveDelegationsInto, "ActiveDelegationsInto",
     "SELECT " VERDICT_DELEGATION_COLUMNS
     " FROM delegations WHERE to_agent_id = ?1 AND status = 'active'"
     " AND (expires_at IS NULL OR expires_at > ?2) ORDER BY rowid"},
    {StatementId::kFindOpenApproval, "FindOpenApproval",
     "SELECT " VERDICT_APPROVAL_COLUMNS
     " FROM approval_requests a WHERE a.agent_id = ?1 AND a.action = ?2"
     " AND a.resource = ?3 AND a.arguments_hash = ?4"
     " AND a.status IN ('pending', 'approved', 'denied')"
     " AND (a.expires_at IS NULL OR a.expires_at > ?9)"
     " ORDER BY a.created_at DESC, a.rowid DESC LIMIT 1"},
    {StatementId::kRateCount, "RateCount",
     "SELECT count FROM rate_counters"
     " WHERE agent_id = ?1 AND permission_id = ?2 AND window_start = ?3"},
    // ?4: when no decision reads the count any more (RateCountKeptUntil), or NULL.
    {StatementId::kSpendRate, "SpendRate",
     "INSERT INTO rate_counters (agent_id, permission_id, window_start, count, kept_until)"
     " VALUES (?1, ?2, ?3, 1, ?4)"
     " ON CONFLICT (agent_id, permission_id, window_start) DO UPDATE SET count = count + 1"},
    {StatementId::kForgetEndedRateWindows, "ForgetEndedRateWindows",
     "DELETE FROM rate_counters"
     " WHERE agent_id = ?1 AND permission_id = ?2 AND window_start < ?3"},
    {StatementId::kInsertApproval, "InsertApproval",
     "INSERT INTO approval_requests (id, agent_id, action, resource, arguments_hash, quorum,"
     " status, expires_at, created_at, updated_at)"
     " VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', ?7, ?8, ?8)"},
    {StatementId::kUseApproval, "UseApproval",
     "UPDATE approval_requests SET status = 'used', updated_at = ?2"
     " WHERE id = ?1 AND status = 'approved' AND (expires_at IS NULL OR expires_at > ?2)"},
    {StatementId::kFindApproval, "FindApproval",
     "SELECT " VERDICT_APPROVAL_COLUMNS " FROM approval_requests a WHERE a.id = ?1"},
    // An agent with its permissions and the delegations into it (store/decision_record.h):
    // one primary-key search, or a search of the token's covering index (agents_by_token_hash,
    // the plan store/query_plan_test.cc pins) and then that one.
    {StatementId::kFindDecisionRecord, "FindDecisionRecord",
     "SELECT " VERDICT_DECISION_RECORD_COLUMNS " FROM decision_records r WHERE r.agent_id = ?1"},
    {StatementId::kFindDecisionRecordByTokenHash, "FindDecisionRecordByTokenHash",
     "SELECT " VERDICT_DECISION_RECORD_COLUMNS
     " FROM agents a JOIN decision_records r ON r.agent_id = a.id WHERE a.token_hash = ?1"},
    {StatementId::kFindDecisionRecordByPreviousTokenHash, "FindDecisionRecordByPreviousTokenHash",
     "SELECT " VERDICT_DECISION_RECORD_COLUMNS
     " FROM agents a JOIN decision_records r ON r.agent_id = a.id"
     " WHERE a.prev_token_hash = ?1 AND a.prev_token_expires_at > ?2"},
    // A row per request, no more than ?3, from the agent's pending requests only (a partial
    // index); the caller counts the rows.
    {StatementId::kCountPendingApprovals, "CountPendingApprovals",
     "SELECT 1 FROM approval_requests"
     " WHERE agent_id = ?1 AND status = 'pending' AND (expires_at IS NULL OR expires_at > ?2)"
     " LIMIT ?3"},

    {StatementId::kInsertAgent, "InsertAgent",
     "INSERT INTO agents (id, owner, name, kind, status, expires_at, token_hash, token_prefix,"
     " created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)"},
    {StatementId::kListAgents, "ListAgents",
     "SELECT " VERDICT_AGENT_COLUMNS " FROM agents WHERE id > ?1 ORDER BY id LIMIT ?2"},
    {StatementId::kSetAgentStatus, "SetAgentStatus",
     "UPDATE agents SET status = ?2, updated_at = ?3 WHERE id = ?1"},
    // ?2 NULL: the old token dies at once; otherwise it stays valid until ?2.
    {StatementId::kRotateToken, "RotateToken",
     "UPDATE agents SET prev_token_hash = CASE WHEN ?2 IS NULL THEN NULL ELSE token_hash END,"
     " prev_token_expires_at = ?2, token_hash = ?3, token_prefix = ?4, updated_at = ?5"
     " WHERE id = ?1"},
    {StatementId::kFindPermission, "FindPermission",
     "SELECT " VERDICT_PERMISSION_COLUMNS " FROM permissions WHERE id = ?1"},
    {StatementId::kInsertPermission, "InsertPermission",
     "INSERT INTO permissions (" VERDICT_PERMISSION_COLUMNS
     ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"},
    {StatementId::kDeletePermission, "DeletePermission", "DELETE FROM permissions WHERE id = ?1"},
    {StatementId::kFindDelegation, "FindDelegation",
     "SELECT " VERDICT_DELEGATION_COLUMNS " FROM delegations WHERE id = ?1"},
    {StatementId::kInsertDelegation, "InsertDelegation",
     "INSERT INTO delegations (" VERDICT_DELEGATION_COLUMNS
     ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"},
    {StatementId::kRevokeDelegation, "RevokeDelegation",
     "UPDATE delegations SET status = 'revoked' WHERE id = ?1"},
    {StatementId::kActiveDelegationsFrom, "ActiveDelegationsFrom",
     "SELECT " VERDICT_DELEGATION_COLUMNS
     " FROM delegations WHERE from_agent_id = ?1 AND status = 'active'"
     " AND (expires_at IS NULL OR expires_at > ?2) ORDER BY rowid"},
    // Keyset pagination in (created_at, id) order, after (?1, ?4); ?2: the status to list, or
    // NULL for every status.
    {StatementId::kListApprovals, "ListApprovals",
     "SELECT * FROM (SELECT " VERDICT_APPROVAL_COLUMNS " FROM approval_requests a)"
     " WHERE (?2 IS NULL OR status = ?2)"
     " AND (created_at > ?1 OR (created_at = ?1 AND id > ?4))"
     " ORDER BY created_at, id LIMIT ?3"},
    {StatementId::kFindVote, "FindVote",
     "SELECT vote FROM approval_votes WHERE approval_id = ?1 AND approver = ?2"},
    {StatementId::kInsertVote, "InsertVote",
     "INSERT INTO approval_votes (approval_id, approver, vote, created_at)"
     " VALUES (?1, ?2, ?3, ?4)"},
    {StatementId::kSetApprovalStatus, "SetApprovalStatus",
     "UPDATE approval_requests SET status = ?2, updated_at = ?3 WHERE id = ?1"},

    {StatementId::kExportAgents, "ExportAgents",
     "SELECT " VERDICT_AGENT_COLUMNS ", token_hash, prev_token_hash, prev_token_expires_at"
     " FROM agents ORDER BY rowid"},
    {StatementId::kExportPermissions, "ExportPermissions",
     "SELECT " VERDICT_PERMISSION_COLUMNS " FROM permissions ORDER BY seq"},
    {StatementId::kExportDelegations, "ExportDelegations",
     "SELECT " VERDICT_DELEGATION_COLUMNS " FROM delegations ORDER BY rowid"},
    {StatementId::kExportRevokedTokenIds, "ExportRevokedTokenIds",
     "SELECT jti, expires_at FROM revoked_token_ids ORDER BY jti"},
    {StatementId::kPolicyIsEmpty, "PolicyIsEmpty",
     "SELECT NOT EXISTS (SELECT 1 FROM agents) AND NOT EXISTS (SELECT 1 FROM permissions)"
     " AND NOT EXISTS (SELECT 1 FROM delegations)"},
    {StatementId::kSetPreviousToken, "SetPreviousToken",
     "UPDATE agents SET prev_token_hash = ?2, prev_token_expires_at = ?3 WHERE id = ?1"},

    {StatementId::kFindActiveSigningKey, "FindActiveSigningKey",
     "SELECT " VERDICT_SIGNING_KEY_COLUMNS
     " FROM signing_keys WHERE kid = ?1 AND status = 'active'"},
    {StatementId::kIsTokenIdRevoked, "IsTokenIdRevoked",
     "SELECT 1 FROM revoked_token_ids WHERE jti = ?1"},
    {StatementId::kFindSigningKey, "FindSigningKey",
     "SELECT " VERDICT_SIGNING_KEY_COLUMNS " FROM signing_keys WHERE kid = ?1"},
    {StatementId::kInsertSigningKey, "InsertSigningKey",
     "INSERT INTO signing_keys (" VERDICT_SIGNING_KEY_COLUMNS
     ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"},
    {StatementId::kRotateSigningKey, "RotateSigningKey",
     "UPDATE signing_keys SET jwk_json = ?2, allowed_algs = ?3, updated_at = ?4"
     " WHERE kid = ?1 AND status = 'active'"},
    {StatementId::kRetireSigningKey, "RetireSigningKey",
     "UPDATE signing_keys SET status = 'retired', retired_at = ?2, updated_at = ?2"
     " WHERE kid = ?1 AND status = 'active'"},
    // rowid order is creation order.
    {StatementId::kListSigningKeys, "ListSigningKeys",
     "SELECT " VERDICT_SIGNING_KEY_COLUMNS " FROM signing_keys ORDER BY rowid"},
    {StatementId::kRevokeTokenId, "RevokeTokenId",
     "INSERT INTO revoked_token_ids (jti, expires_at) VALUES (?1, ?2)"
     " ON CONFLICT (jti) DO UPDATE SET expires_at = max(expires_at, excluded.expires_at)"},
    // By the expiry index; ?1 is now less the retention (store/signing_keys.h).
    {StatementId::kPruneRevokedTokenIds, "PruneRevokedTokenIds",
     "DELETE FROM revoked_token_ids WHERE expires_at < ?1"},

    // Every agent's counts of the permission: its owner's, and those of the agents it was lent
    // to, which count under the owner's permission id.
    {StatementId::kDeleteRateCountersOfPermission, "DeleteRateCountersOfPermission",
     "DELETE FROM rate_counters WHERE permission_id = ?1"},
    // A delegation's lent permissions count as "<delegation id>#<index>": ?1 is the id and '#',
    // ?2 the id and the character after '#', so the range is the index's.
    {StatementId::kDeleteRateCountersOfLentPermissions, "DeleteRateCountersOfLentPermissions",
     "DELETE FROM rate_counters WHERE permission_id >= ?1 AND permission_id < ?2"},
    {StatementId::kDeleteRateCountersOfAgent, "DeleteRateCountersOfAgent",
     "DELETE FROM rate_counters WHERE agent_id = ?1"
     " OR permission_id IN (SELECT id FROM permissions WHERE agent_id = ?1)"},
    // Requests expired before ?1 whatever their status, and requests used (or marked expired)
    // before ?1, at most ?2 of them; their votes go with them (ON DELETE CASCADE).
    {StatementId::kPruneApprovals, "PruneApprovals",
     "DELETE FROM approval_requests WHERE id IN ("
     "SELECT id FROM approval_requests WHERE status IN"
     " ('pending', 'approved', 'denied', 'expired', 'used') AND expires_at <= ?1"
     " UNION ALL SELECT id FROM approval_requests"
     " WHERE status IN ('used', 'expired') AND updated_at <= ?1 LIMIT ?2)"},
    // Counts no decision reads any more (kept_until, unix seconds, at or before ?1), at most ?2.
    {StatementId::kPruneRateCounters, "PruneRateCounters",
     "DELETE FROM rate_counters WHERE (agent_id, permission_id, window_start) IN ("
     "SELECT agent_id, permission_id, window_start FROM rate_counters"
     " WHERE kept_until <= ?1 LIMIT ?2)"},
};

#undef VERDICT_AGENT_COLUMNS
#undef VERDICT_PERMISSION_COLUMNS
#undef VERDICT_DELEGATION_COLUMNS
#undef VERDICT_SIGNING_KEY_COLUMNS
#undef VERDICT_DECISION_RECORD_COLUMNS
#undef VERDICT_APPROVAL_COLUMNS

static_assert(sizeof(kStatements) / sizeof(kStatements[0]) == kStatementCount,
              "every StatementId needs its SQL");

constexpr bool StatementsAreInIdOrder() {
  for (size_t i = 0; i < kStatementCount; ++i) {
    if (static_cast<size_t>(kStatements[i].id) != i) return false;
  }
  return true;
}
static_assert(StatementsAreInIdOrder(), "kStatements must be indexed by StatementId");

constexpr StatementId kDecisionPath[] = {
    StatementId::kFindAgent,
    StatementId::kPermissionsOf,
    StatementId::kActiveDelegationsInto,
    StatementId::kFindOpenApproval,
    StatementId::kRateCount,
    StatementId::kSpendRate,
    StatementId::kForgetEndedRateWindows,
    StatementId::kInsertApproval,
    StatementId::kUseApproval,
    StatementId::kFindApproval,
    StatementId::kFindDecisionRecord,
    StatementId::kFindDecisionRecordByTokenHash,
    StatementId::kFindDecisionRecordByPreviousTokenHash,
    StatementId::kCountPendingApprovals,
    StatementId::kFindActiveSigningKey,
    StatementId::kIsTokenIdRevoked,
};

}  // namespace

const StatementSql& GetStatementSql(StatementId id) { return kStatements[static_cast<size_t>(id)]; }

absl::Span<const StatementId> DecisionPathStatements() { return kDecisionPath; }

}  // namespace verdict
