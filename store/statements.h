// Every SQL statement the stores run, by name, in one table for both databases: one placeholder
// form ($1, $2 ... bound in order; the SQLite connection reads them as ?1, ?2 ...) and one
// parameter order. A statement has a second text only where PostgreSQL's dialect truly differs,
// and none where a database has no such statement (SQLite's PRAGMAs, PostgreSQL's clock).
//
//   absl::StatusOr<Rows> rows = connection.Execute(Statement::kFindAgent, Params().Text(id));
#ifndef VERDICT_STORE_STATEMENTS_H_
#define VERDICT_STORE_STATEMENTS_H_

#include <cstddef>

#include "absl/types/span.h"

namespace verdict {

enum class Dialect { kSqlite, kPostgres };

enum class Statement {
  // The decision path (PolicyView lookups and WriteTransaction writes).
  kFindAgent,
  kPermissionsOf,
  kActiveDelegationsInto,
  kFindOpenApproval,
  kRateCount,
  kSpendRate,
  kForgetEndedRateWindows,
  kInsertApproval,
  kUseApproval,
  kFindApproval,
  kCountPendingApprovals,
  // An agent's decision record (store/decision_record.h; PostgreSQL's since migration 17).
  kFindDecisionRecord,
  kFindDecisionRecordByTokenHash,
  kFindDecisionRecordByPreviousTokenHash,
  // The admin plane.
  kInsertAgent,
  kListAgents,
  kSetAgentStatus,
  kRotateToken,
  kFindPermission,
  kInsertPermission,
  kDeletePermission,
  kFindDelegation,
  kInsertDelegation,
  kRevokeDelegation,
  kActiveDelegationsFrom,
  kListApprovals,
  kFindVote,
  kInsertVote,
  kSetApprovalStatus,
  kDeferForeignKeys,  // SQLite's own: PostgreSQL's foreign keys are not deferrable
  // SQLite's own: PostgreSQL rewrites each agent's record once per transaction anyway.
  kSetDecisionRecordAside,
  kPutDecisionRecordBack,
  // Bounded storage: the counters a revoke deletes, and the pruning job (store/pruning.h).
  kDeleteRateCountersOfPermission,
  kDeleteRateCountersOfLentPermissions,
  kDeleteRateCountersOfAgent,
  kPruneApprovals,
  kPruneRateCounters,
  kDatabaseClock,  // PostgreSQL's own: SQLite's database is a file of the host, whose clock the
                   // store has
  // Whole-policy export and import.
  kExportAgents,
  kExportPermissions,
  kExportDelegations,
  kExportRevokedTokenIds,
  kPolicyIsEmpty,
  kSetPreviousToken,
  // JWT signing keys and revoked token ids (the first two on the decision path).
  kFindActiveSigningKey,
  kIsTokenIdRevoked,
  kFindSigningKey,
  kInsertSigningKey,
  kRotateSigningKey,
  kRetireSigningKey,
  kListSigningKeys,
  kRevokeTokenId,
  kPruneRevokedTokenIds,
  // The decision log (store/decision_log.h) and the admin credential.
  kDecisionLogLastRow,
  kDecisionLogHighWaterSeq,
  kDecisionLogSetHighWaterSeq,
  kDecisionLogInsert,
  kDecisionLogQuery,
  kDecisionLogQueryByAgent,
  kSetAdminSecretHashIfAbsent,
  // The admin audit log (store/admin_audit_log.h).
  kAdminAuditState,
  kAdminAuditSetLast,
  kAdminAuditSetPruned,
  kAdminAuditInsert,
  kAdminAuditInsertObject,
  kAdminAuditQuery,
  kAdminAuditQueryByObject,
  kAdminAuditOldestRows,
  kAdminAuditDeleteObjectsThrough,
  kAdminAuditDeleteThrough,
  // Policy files (issue 19): the objects a policy file's name manages, and the writes an apply
  // makes that no single admin call does.
  kManagedAgents,
  kManagedPermissions,
  kManagedDelegations,
  kSetAgentManager,
  kSetPermissionManager,
  kSetDelegationManager,
  kUpdateAgentFields,
  kDeleteAgent,
  kDeleteDelegation,
  // Admin sessions (store/admin_session_store.h).
  kInsertAdminSession,
  kTrimAdminSessionsOf,
  kFindAdminSessionByTokenHash,
  kDeleteAdminSession,
  kDeleteAdminSessionsOf,
  kPruneAdminSessions,
  // Admin principals (store/admin_credential_store.h).
  kFindAdminPrincipal,
  kListAdminPrincipals,
  kCountAdminPrincipals,
  kCountEnabledAdmins,
  kInsertAdminPrincipal,
  kUpdateAdminPrincipal,
  kApprovalVotes,  // the principals who voted on an approval, for its listings
  // The policy files' managers of every object, for policy export (issue 19).
  kExportAgentManagers,
  kExportPermissionManagers,
  kExportDelegationManagers,
  kApproversOf,  // the principals who approved it, for the decision that uses it
  // Who created an agent (an issuer rotates only its own agents' tokens).
  kSetAgentCreator,
  kAgentCreator,
};

inline constexpr size_t kStatementCount = static_cast<size_t>(Statement::kAgentCreator) + 1;

struct StatementSql {
  Statement id;
  const char* name;  // "FindAgent": also its prepared statement's name on a PostgreSQL connection
  const char* sql;   // nullptr when the dialect has no such statement
};

// The statement's text in `dialect`.
StatementSql GetStatementSql(Statement statement, Dialect dialect = Dialect::kSqlite);

// The lookups and writes an Authorize may run in `dialect`: each must be an index search.
absl::Span<const Statement> DecisionPathStatements(Dialect dialect = Dialect::kSqlite);

}  // namespace verdict

#endif  // VERDICT_STORE_STATEMENTS_H_
