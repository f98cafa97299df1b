// The PostgreSQL store's reads over one connection, inside a transaction the caller holds: the
// PolicyView lookups (shared by read snapshots and write transactions) and the few reads the
// admin plane adds. The same lookups as store/sqlite_lookups.h, with the same contracts.
//
//   absl::StatusOr<std::optional<Agent>> agent = PgLookupAgent(connection, "agt_1");
#ifndef VERDICT_STORE_POSTGRES_LOOKUPS_H_
#define VERDICT_STORE_POSTGRES_LOOKUPS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "decision/types.h"
#include "store/postgres_connection.h"

namespace verdict {

// Every row of `rows`, read with `read`.
template <typename T, typename Read>
absl::StatusOr<std::vector<T>> PgReadAll(const PgResult& rows, Read read) {
  std::vector<T> all;
  all.reserve(rows.size());
  for (int i = 0; i < rows.size(); ++i) {
    absl::StatusOr<T> row = read(rows.row(i));
    if (!row.ok()) return row.status();
    all.push_back(*std::move(row));
  }
  return all;
}

// The first row of `rows` read with `read`, or nullopt when there is none.
template <typename T, typename Read>
absl::StatusOr<std::optional<T>> PgReadFirst(const PgResult& rows, Read read) {
  if (rows.size() == 0) return std::optional<T>();
  absl::StatusOr<T> row = read(rows.row(0));
  if (!row.ok()) return row.status();
  return std::optional<T>(*std::move(row));
}

// PolicyView's lookups (decision/policy_view.h states their contracts).
absl::StatusOr<std::optional<Agent>> PgLookupAgent(PostgresConnection& connection,
                                                   absl::string_view agent_id);
absl::StatusOr<std::optional<Agent>> PgLookupAgentByTokenHash(PostgresConnection& connection,
                                                              absl::string_view token_sha256,
                                                              absl::Time now);
absl::StatusOr<std::vector<Permission>> PgLookupPermissionsOf(PostgresConnection& connection,
                                                              absl::string_view agent_id);
absl::StatusOr<std::vector<Delegation>> PgLookupActiveDelegationsInto(
    PostgresConnection& connection, absl::string_view agent_id, absl::Time now);
absl::StatusOr<std::optional<ApprovalRequest>> PgLookupOpenApproval(
    PostgresConnection& connection, absl::string_view agent_id, absl::string_view action,
    absl::string_view resource, absl::string_view arguments_hash, absl::Time now);
absl::StatusOr<int64_t> PgLookupRateCount(PostgresConnection& connection,
                                          absl::string_view agent_id,
                                          absl::string_view permission_id,
                                          int64_t window_start_unix);
// The agent's requests pending and unexpired at `now`, counted no further than `up_to`.
absl::StatusOr<int64_t> PgCountPendingApprovals(PostgresConnection& connection,
                                                absl::string_view agent_id, absl::Time now,
                                                int64_t up_to);

// The approval request with this id; a pending or approved one past its expiry at `now` reads
// as expired.
absl::StatusOr<std::optional<ApprovalRequest>> PgLookupApproval(PostgresConnection& connection,
                                                                absl::string_view approval_id,
                                                                absl::Time now);
absl::StatusOr<std::optional<Permission>> PgLookupPermission(PostgresConnection& connection,
                                                             absl::string_view permission_id);
absl::StatusOr<std::optional<Delegation>> PgLookupDelegation(PostgresConnection& connection,
                                                             absl::string_view delegation_id);
// The JWT lookups of PolicyView, and the key with this kid whether active or retired.
absl::StatusOr<std::optional<SigningKey>> PgLookupActiveSigningKey(PostgresConnection& connection,
                                                                   absl::string_view kid);
absl::StatusOr<bool> PgLookupTokenIdRevoked(PostgresConnection& connection, absl::string_view jti);
absl::StatusOr<std::optional<SigningKey>> PgLookupSigningKey(PostgresConnection& connection,
                                                             absl::string_view kid);

// Delegations out of the agent, active and unexpired at `now`, in creation order.
absl::StatusOr<std::vector<Delegation>> PgLookupActiveDelegationsFrom(
    PostgresConnection& connection, absl::string_view agent_id, absl::Time now);

}  // namespace verdict

#endif  // VERDICT_STORE_POSTGRES_LOOKUPS_H_
