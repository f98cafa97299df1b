// The store's reads over one SQLite connection, inside a transaction the caller holds: the
// PolicyView lookups (shared by read snapshots and write transactions) and the few reads the
// admin plane adds, with rows read by store/row_readers.h. They may throw SQLite::Exception
// (wrap calls in CatchSqlite); a stored row that cannot be decoded is INTERNAL, never skipped.
//
//   absl::StatusOr<std::optional<Agent>> agent = CatchSqlite(connection, [&] {
//     return LookupAgent(connection, "agt_1");
//   });
#ifndef VERDICT_STORE_SQLITE_LOOKUPS_H_
#define VERDICT_STORE_SQLITE_LOOKUPS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "decision/types.h"
#include "store/decision_record.h"
#include "store/sqlite_connection.h"

namespace verdict {

// Binds nothing more, steps `statement` to the end and reads every row with `read`.
template <typename Row, typename Read>
absl::StatusOr<std::vector<Row>> ReadAllRows(ScopedStatement& statement, Read read) {
  std::vector<Row> rows;
  while (statement.Step()) {
    absl::StatusOr<Row> row = read(statement);
    if (!row.ok()) return row.status();
    rows.push_back(*std::move(row));
  }
  return rows;
}

// The first row read with `read`, or nullopt when there is none.
template <typename Row, typename Read>
absl::StatusOr<std::optional<Row>> ReadFirstRow(ScopedStatement& statement, Read read) {
  if (!statement.Step()) return std::optional<Row>();
  absl::StatusOr<Row> row = read(statement);
  if (!row.ok()) return row.status();
  return std::optional<Row>(*std::move(row));
}

// The agent's row of decision_records (store/decision_record.h) into `record`, overwriting its
// strings; false when there is no such agent. By token: its current token, or the previous one
// still in its grace at `now`. What the SQLite store's PolicyView reads.
bool LookupDecisionRecord(SqliteConnection& connection, absl::string_view agent_id,
                          DecisionRecord& record);
bool LookupDecisionRecordByTokenHash(SqliteConnection& connection, absl::string_view token_sha256,
                                     absl::Time now, DecisionRecord& record);

// The same rows from their own tables (decision/policy_view.h states the contracts), for the
// admin plane and the tests that check the records against them.
absl::StatusOr<std::optional<Agent>> LookupAgent(SqliteConnection& connection,
                                                 absl::string_view agent_id);
absl::StatusOr<std::vector<Permission>> LookupPermissionsOf(SqliteConnection& connection,
                                                            absl::string_view agent_id);
absl::StatusOr<std::vector<Delegation>> LookupActiveDelegationsInto(SqliteConnection& connection,
                                                                    absl::string_view agent_id,
                                                                    absl::Time now);
absl::StatusOr<std::optional<ApprovalRequest>> LookupOpenApproval(
    SqliteConnection& connection, absl::string_view agent_id, absl::string_view action,
    absl::string_view resource, absl::string_view arguments_hash, absl::Time now);
absl::StatusOr<int64_t> LookupRateCount(SqliteConnection& connection, absl::string_view agent_id,
                                        absl::string_view permission_id, int64_t window_start_unix);
// The agent's requests pending and unexpired at `now`, counted no further than `up_to`.
absl::StatusOr<int64_t> CountPendingApprovals(SqliteConnection& connection,
                                              absl::string_view agent_id, absl::Time now,
                                              int64_t up_to);

// The approval request with this id; a pending or approved one past its expiry at `now` reads
// as expired.
absl::StatusOr<std::optional<ApprovalRequest>> LookupApproval(SqliteConnection& connection,
                                                              absl::string_view approval_id,
                                                              absl::Time now);
absl::StatusOr<std::optional<Permission>> LookupPermission(SqliteConnection& connection,
                                                           absl::string_view permission_id);
absl::StatusOr<std::optional<Delegation>> LookupDelegation(SqliteConnection& connection,
                                                           absl::string_view delegation_id);
// Delegations out of the agent, active and unexpired at `now`, in creation order.
absl::StatusOr<std::vector<Delegation>> LookupActiveDelegationsFrom(SqliteConnection& connection,
                                                                    absl::string_view agent_id,
                                                                    absl::Time now);

}  // namespace verdict

#endif  // VERDICT_STORE_SQLITE_LOOKUPS_H_
