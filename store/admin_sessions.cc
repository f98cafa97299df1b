#include "store/admin_sessions.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "store/connection_pool.h"

namespace verdict {

AdminSessions::AdminSessions(std::string path, ConnectionOptions options)
    : AdminSessions(std::make_unique<ConnectionPool>(SqliteSource(std::move(path), options),
                                                     PoolOptions{.size = 1})) {}

absl::StatusOr<int64_t> AdminSessions::Insert(const AdminSession& session,
                                              absl::string_view token_hash, int max_per_principal) {
  if (max_per_principal < 1) {
    return absl::InvalidArgumentError("max_per_principal: must be at least 1");
  }
  int64_t removed = 0;
  absl::Status status = database_->InTransaction(TransactionKind::kWrite, [&](Connection& c) {
    absl::StatusOr<ResultRows> trimmed = c.Execute(
        Statement::kTrimAdminSessionsOf, Params()
                                             .Text(session.principal)
                                             .Int64(absl::ToUnixMicros(session.created_at))
                                             .Int64(max_per_principal - 1));
    if (!trimmed.ok()) return trimmed.status();
    removed = trimmed->changed_rows();
    return c
        .Execute(Statement::kInsertAdminSession, Params()
                                                     .Text(session.id)
                                                     .Bytes(token_hash)
                                                     .Text(session.principal)
                                                     .Int64(absl::ToUnixMicros(session.created_at))
                                                     .Int64(absl::ToUnixMicros(session.expires_at)))
        .status();
  });
  if (!status.ok()) return status;
  return removed;
}

absl::StatusOr<std::optional<AdminSession>> AdminSessions::FindByTokenHash(
    absl::string_view token_hash) {
  std::optional<AdminSession> found;
  absl::Status status = database_->InTransaction(TransactionKind::kRead, [&](Connection& c) {
    absl::StatusOr<ResultRows> rows =
        c.Execute(Statement::kFindAdminSessionByTokenHash, Params().Bytes(token_hash));
    if (rows.ok() && rows->size() > 0) {
      const ResultRow row = rows->row(0);
      found = AdminSession{.id = row.Text(0),
                           .principal = row.Text(1),
                           .created_at = row.Time(2),
                           .expires_at = row.Time(3)};
    }
    return rows.status();
  });
  if (!status.ok()) return status;
  return found;
}

absl::StatusOr<int64_t> AdminSessions::Change(TransactionKind kind, Statement statement,
                                              const Params& params) {
  int64_t changed = 0;
  absl::Status status = database_->InTransaction(kind, [&](Connection& c) {
    absl::StatusOr<ResultRows> rows = c.Execute(statement, params);
    if (rows.ok()) changed = rows->changed_rows();
    return rows.status();
  });
  if (!status.ok()) return status;
  return changed;
}

absl::StatusOr<bool> AdminSessions::Delete(absl::string_view id, absl::string_view principal) {
  absl::StatusOr<int64_t> deleted =
      Change(TransactionKind::kLockFreeWrite, Statement::kDeleteAdminSession,
             Params().Text(id).Text(principal));
  if (!deleted.ok()) return deleted.status();
  return *deleted > 0;
}

absl::StatusOr<int64_t> AdminSessions::DeleteAllOf(absl::string_view principal) {
  return Change(TransactionKind::kLockFreeWrite, Statement::kDeleteAdminSessionsOf,
                Params().Text(principal));
}

absl::StatusOr<int64_t> AdminSessions::PruneExpired(absl::Time now, int64_t max_rows) {
  return Change(TransactionKind::kLockFreeWrite, Statement::kPruneAdminSessions,
                Params().Int64(absl::ToUnixMicros(now)).Int64(std::max<int64_t>(max_rows, 0)));
}

}  // namespace verdict
