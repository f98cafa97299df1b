// The decision log on SQLite (store/decision_log_store.h): appends that continue the hash chain,
// filtered queries, and a check of the whole chain.
//
// Appends run in one BEGIN IMMEDIATE transaction per batch and continue the chain from the last
// row in the table, read inside that transaction: several processes sharing one database file
// still form one chain. Rows are as durable as the store's other writes (WAL,
// synchronous=NORMAL): a power cut may lose the last batches, never the chain's consistency.
//
//   DecisionLog log(path);
//   absl::Status s = log.Append(rows);                 // fills seq, prev_hash, hash
//   absl::StatusOr<ChainVerification> v = log.VerifyChain();
//   if (v.ok() && !v->intact) ... v->first_bad_seq ...
#ifndef VERDICT_STORE_DECISION_LOG_H_
#define VERDICT_STORE_DECISION_LOG_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "store/connection_pool.h"
#include "store/decision_log_row.h"
#include "store/decision_log_store.h"

namespace verdict {

class DecisionLog final : public DecisionLogStore {
 public:
  // Connects on first use (creating and migrating the database when needed) and again after a
  // connection fault, so a fixed fault heals.
  // `process_gone` tells the chain check which runs without a stop marker have died.
  explicit DecisionLog(std::string path, ConnectionOptions options = {},
                       RunLiveness process_gone = RunProcessGoneFromThisHost);

  absl::Status Append(std::vector<DecisionLogRow>& rows) override;
  absl::StatusOr<DecisionLogPage> Query(const DecisionLogFilter& filter, int page_size,
                                        absl::string_view page_token) override;
  absl::StatusOr<ChainVerification> VerifyChain() override;

 private:
  // Runs `body` (returning a status) on the log's connection, inside CatchSqlite.
  template <typename Body>
  auto WithConnection(Body body) -> decltype(body(std::declval<SQLite::Database&>()));

  ConnectionPool pool_;
  const RunLiveness process_gone_;
};

}  // namespace verdict

#endif  // VERDICT_STORE_DECISION_LOG_H_
