// Every SQL statement the SQLite store runs, by name, so each connection prepares each one once
// and the query-plan test can check every statement on the decision path.
//
//   ScopedStatement find = connection.Use(StatementId::kFindAgent);
#ifndef VERDICT_STORE_SQLITE_STATEMENTS_H_
#define VERDICT_STORE_SQLITE_STATEMENTS_H_

#include <cstddef>

#include "absl/types/span.h"

namespace verdict {

enum class StatementId {
  // Transactions.
  kBeginRead,
  kBeginWrite,
  kCommit,
  kRollback,
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
  kFindDecisionRecord,
  kFindDecisionRecordByTokenHash,
  kFindDecisionRecordByPreviousTokenHash,
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
  // Whole-policy export and import.
  kExportAgents,
  kExportPermissions,
  kExportDelegations,
  kExportRevokedTokenIds,
  kPolicyIsEmpty,
  kSetPreviousToken,
  // JWT access tokens: the decision path's two lookups, then the admin plane's.
  kFindActiveSigningKey,
  kIsTokenIdRevoked,
  kFindSigningKey,
  kInsertSigningKey,
  kRotateSigningKey,
  kRetireSigningKey,
  kListSigningKeys,
  kRevokeTokenId,
  kPruneRevokedTokenIds,
  // Bounded storage: the counters a revoke deletes, and the pruning job (store/pruning.h).
  kDeleteRateCountersOfPermission,
  kDeleteRateCountersOfLentPermissions,
  kDeleteRateCountersOfAgent,
  kPruneApprovals,
  kPruneRateCounters,
};

inline constexpr size_t kStatementCount = static_cast<size_t>(StatementId::kPruneRateCounters) + 1;

struct StatementSql {
  StatementId id;
  const char* name;  // "FindAgent"
  const char* sql;
};

const StatementSql& GetStatementSql(StatementId id);

// The lookups and writes an Authorize may run: each must be an indexed search.
absl::Span<const StatementId> DecisionPathStatements();

}  // namespace verdict

#endif  // VERDICT_STORE_SQLITE_STATEMENTS_H_
