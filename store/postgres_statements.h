// Every SQL statement the PostgreSQL store prepares, by name: the same statements as the SQLite
// store's (store/sqlite_statements.h), in PostgreSQL's dialect, over the same schema.
//
//   const PgStatementSql& sql = GetPgStatementSql(PgStatement::kFindAgent);
#ifndef VERDICT_STORE_POSTGRES_STATEMENTS_H_
#define VERDICT_STORE_POSTGRES_STATEMENTS_H_

#include <cstddef>

#include "absl/types/span.h"

namespace verdict {

enum class PgStatement {
  // The decision path (PolicyView lookups and WriteTransaction writes).
  kFindAgent,
  kFindAgentByTokenHash,
  kFindAgentByPreviousTokenHash,
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
  // Bounded storage: the counters a revoke deletes, and the pruning job (store/pruning.h).
  kDeleteRateCountersOfPermission,
  kDeleteRateCountersOfLentPermissions,
  kDeleteRateCountersOfAgent,
  kPruneApprovals,
  kPruneRateCounters,
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
  // The decision log (store/postgres_decision_log.h) and the admin credential.
  kDecisionLogLastRow,
  kDecisionLogHighWaterSeq,
  kDecisionLogSetHighWaterSeq,
  kDecisionLogInsert,
  kDecisionLogQuery,
  kAdminSecretHash,
  kSetAdminSecretHashIfAbsent,
};

inline constexpr size_t kPgStatementCount =
    static_cast<size_t>(PgStatement::kSetAdminSecretHashIfAbsent) + 1;

// Transaction-scoped advisory locks (pg_advisory_xact_lock(kPgLockSpace, key)), so verdict's
// locks cannot collide with an application's that shares the database.
inline constexpr int kPgLockSpace = 0x76726463;  // "vrdc"
// Held while migrating: one process migrates, the others wait and then find it done.
inline constexpr int kPgMigrationLock = 1;
// Held by every write transaction, as SQLite's BEGIN IMMEDIATE takes its one write lock: the
// writes that read before they write (rate limits, delegation cycles, votes) stay exact across
// every sidecar on the database.
inline constexpr int kPgWriterLock = 2;
// Held by every decision log append, so the appends of every sidecar form one chain; apart from
// the writers' lock, so logging never waits for a policy write or delays one.
inline constexpr int kPgDecisionLogLock = 3;

struct PgStatementSql {
  PgStatement id;
  const char* name;  // "FindAgent": also its prepared statement's name on each connection
  const char* sql;
};

const PgStatementSql& GetPgStatementSql(PgStatement statement);

// The lookups and writes an Authorize may run: each must be an index search.
absl::Span<const PgStatement> PgDecisionPathStatements();

}  // namespace verdict

#endif  // VERDICT_STORE_POSTGRES_STATEMENTS_H_
