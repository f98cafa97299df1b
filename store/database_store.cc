#include "store/database_store.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "store/admin_transaction.h"
#include "store/statements.h"

namespace verdict {

absl::Status DatabaseStore::RunAdminTransaction(
    TransactionKind kind, absl::FunctionRef<absl::Status(AdminTransaction&)> body) {
  return pool_.InTransaction(
      kind, [&](Connection& connection) { return body(*AdminTransactionOn(connection)); });
}

absl::Status DatabaseStore::CheckPoolAndClock(absl::string_view store, int connections,
                                              const std::function<absl::Time()>& clock) {
  if (connections < 1 || connections > kMaxConnections) {
    return absl::InvalidArgumentError(
        absl::StrCat(store, ": connections must be 1 to ", kMaxConnections, ", not ", connections));
  }
  if (!clock) return absl::InvalidArgumentError(absl::StrCat(store, ": no clock"));
  return absl::OkStatus();
}

absl::StatusOr<PrunedRows> DatabaseStore::PruneDeadRows(const PruneLimits& limits, absl::Time now) {
  return Prune(limits, now);
}

absl::StatusOr<PrunedRows> DatabaseStore::PruneDeadRowsByDatabaseClock(const PruneLimits& limits) {
  return Prune(limits, std::nullopt);
}

absl::StatusOr<PrunedRows> DatabaseStore::Prune(const PruneLimits& limits,
                                                std::optional<absl::Time> given_now) {
  if (absl::Status valid = CheckPruneLimits(limits); !valid.ok()) return valid;
  PrunedRows pruned;
  absl::Status status =
      prune_pool_.InTransaction(TransactionKind::kLockFreeWrite, [&](Connection& connection) {
        absl::Time now;
        if (given_now.has_value()) {
          now = *given_now;
        } else if (GetStatementSql(Statement::kDatabaseClock, connection.dialect()).sql ==
                   nullptr) {
          now = clock_();  // the database is a file of this host: its clock is the host's
        } else {
          absl::StatusOr<ResultRows> clock =
              connection.Execute(Statement::kDatabaseClock, Params());
          if (!clock.ok()) return clock.status();
          if (clock->size() != 1) return absl::InternalError("the database's clock read no row");
          now = clock->row(0).Time(0);
        }
        absl::StatusOr<ResultRows> approvals = connection.Execute(
            Statement::kPruneApprovals,
            Params().Time(now - limits.approval_retention).Int64(limits.max_rows));
        if (!approvals.ok()) return approvals.status();
        pruned.approvals = approvals->changed_rows();
        absl::StatusOr<ResultRows> counters =
            connection.Execute(Statement::kPruneRateCounters,
                               Params().Int64(absl::ToUnixSeconds(now)).Int64(limits.max_rows));
        if (!counters.ok()) return counters.status();
        pruned.rate_counters = counters->changed_rows();
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return pruned;
}

absl::Status DatabaseStore::CheckAvailable() {
  return probe_pool_.InTransaction(TransactionKind::kRead, [](Connection& connection) {
    return AdminTransactionOn(connection)->PolicyIsEmpty().status();
  });
}

}  // namespace verdict
