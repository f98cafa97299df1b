// The decision log on PostgreSQL (store/decision_log_store.h): the SQLite log's table, rows and
// hash chain, shared by every sidecar on the database.
//
// Each append runs in one transaction that holds verdict's decision log advisory lock
// (pg_advisory_xact_lock(kPgLockSpace, kPgDecisionLogLock)) and reads the last row under it, so
// the appends of every sidecar continue one chain. The chain check reads in one REPEATABLE READ
// snapshot. Nothing here throws: UNAVAILABLE when the server cannot be used, INTERNAL otherwise.
//
//   absl::StatusOr<std::unique_ptr<PostgresDecisionLog>> log =
//       PostgresDecisionLog::Open("postgresql://verdict@db.internal/verdict");
//   absl::Status appended = (*log)->Append(rows);
#ifndef VERDICT_STORE_POSTGRES_DECISION_LOG_H_
#define VERDICT_STORE_POSTGRES_DECISION_LOG_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "store/decision_log_store.h"
#include "store/postgres_connection.h"
#include "store/postgres_pool.h"

namespace verdict {

class PostgresDecisionLog final : public DecisionLogStore {
 public:
  // Loads libpq (UNAVAILABLE without it); connects, and brings the schema up to date, on first
  // use and again after a connection fault. `process_gone` tells the chain check which runs
  // without a stop marker have died.
  static absl::StatusOr<std::unique_ptr<PostgresDecisionLog>> Open(
      std::string conninfo, PostgresConnectionOptions options = {},
      RunLiveness process_gone = RunProcessGoneFromThisHost);

  absl::Status Append(std::vector<DecisionLogRow>& rows) override;
  absl::StatusOr<DecisionLogPage> Query(const DecisionLogFilter& filter, int page_size,
                                        absl::string_view page_token) override;
  absl::StatusOr<ChainVerification> VerifyChain() override;

 private:
  PostgresDecisionLog(const LibPq& pq, std::string conninfo, PostgresConnectionOptions options,
                      RunLiveness process_gone);

  PostgresPool pool_;
  const RunLiveness process_gone_;
};

}  // namespace verdict

#endif  // VERDICT_STORE_POSTGRES_DECISION_LOG_H_
