// The decision log table: appends that continue the hash chain, filtered queries, and a check
// of the whole chain (design section 1: "rows hash-chained so tampering is detectable").
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

namespace verdict {

// Every set member must match; unset members match everything.
struct DecisionLogFilter {
  std::string agent_id;
  std::optional<absl::Time> since;  // decided at or after
  std::optional<absl::Time> until;  // decided before
  std::string verdict;              // VerdictName, "" for any
};

struct DecisionLogPage {
  std::vector<DecisionLogRow> rows;  // ascending by seq
  std::string next_page_token;       // "" on the last page
};

struct ChainVerification {
  bool intact = true;
  int64_t rows_checked = 0;
  // When not intact: the first seq at which the stored rows differ from what was written (an
  // edited row, or the first of the missing ones), and what is wrong there.
  int64_t first_bad_seq = 0;
  std::string problem;
};

inline constexpr int kDefaultDecisionLogPageSize = 50;
inline constexpr int kMaxDecisionLogPageSize = 1000;

class DecisionLog {
 public:
  // Connects on first use (creating and migrating the database when needed) and again after a
  // connection fault, so a fixed fault heals.
  explicit DecisionLog(std::string path, ConnectionOptions options = {});

  // Writes all rows or none, in order, and fills each one's seq, prev_hash and hash.
  absl::Status Append(std::vector<DecisionLogRow>& rows);

  // page_size 0 means the default; larger than the maximum means the maximum. A page token
  // comes from a previous page of the same query; anything else is INVALID_ARGUMENT.
  absl::StatusOr<DecisionLogPage> Query(const DecisionLogFilter& filter, int page_size,
                                        absl::string_view page_token);

  // Recomputes every row's hash in one read snapshot. A broken chain is an answer
  // (intact=false), not an error; errors are the store's.
  absl::StatusOr<ChainVerification> VerifyChain();

 private:
  // Runs `body` (returning a status) on the log's connection, inside CatchSqlite.
  template <typename Body>
  auto WithConnection(Body body) -> decltype(body(std::declval<SQLite::Database&>()));

  ConnectionPool pool_;
};

}  // namespace verdict

#endif  // VERDICT_STORE_DECISION_LOG_H_
