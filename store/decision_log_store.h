// Where the decision log lives (design section 1: "rows hash-chained so tampering is
// detectable"): appends that continue the hash chain, filtered queries, and a check of the whole
// chain. The rows and their hash are store/decision_log_row.h's, the same for every backend.
//
// Appends are serialized across every process on the database (SQLite's BEGIN IMMEDIATE, a
// PostgreSQL advisory lock) and continue the chain from the last row, read under that lock: any
// number of sidecars sharing one database form one chain.
//
// Implementations: DecisionLog (SQLite, store/decision_log.h) and PostgresDecisionLog
// (store/postgres_decision_log.h); OpenDecisionLogStore (store/open_store.h) picks one from --db.
//
//   absl::Status s = log.Append(rows);                 // fills seq, prev_hash, hash
//   absl::StatusOr<ChainVerification> v = log.VerifyChain();
//   if (v.ok() && !v->intact) ... v->first_bad_seq ...
#ifndef VERDICT_STORE_DECISION_LOG_STORE_H_
#define VERDICT_STORE_DECISION_LOG_STORE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
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

class DecisionLogStore {
 public:
  virtual ~DecisionLogStore() = default;

  // Writes all rows or none, in order, and fills each one's seq, prev_hash and hash.
  virtual absl::Status Append(std::vector<DecisionLogRow>& rows) = 0;

  // page_size 0 means the default; larger than the maximum means the maximum. A page token
  // comes from a previous page of the same query; anything else is INVALID_ARGUMENT.
  virtual absl::StatusOr<DecisionLogPage> Query(const DecisionLogFilter& filter, int page_size,
                                                absl::string_view page_token) = 0;

  // Recomputes every row's hash in one read snapshot. A broken chain is an answer
  // (intact=false), not an error; errors are the store's.
  virtual absl::StatusOr<ChainVerification> VerifyChain() = 0;
};

// --- What every implementation shares, so the paging and chain rules are written once ---

// A query's position: the seq after which its page starts, and its page size, clamped.
struct DecisionLogCursor {
  int64_t after_seq = 0;
  int page_size = kDefaultDecisionLogPageSize;
};

// INVALID_ARGUMENT when `page_token` is not one a page returned.
absl::StatusOr<DecisionLogCursor> ParseDecisionLogCursor(int page_size,
                                                         absl::string_view page_token);

// `rows` read with a limit of cursor.page_size + 1 (one row more shows that another page
// follows), as a page with its next page token.
DecisionLogPage MakeDecisionLogPage(const DecisionLogCursor& cursor,
                                    std::vector<DecisionLogRow> rows);

// Checks the chain row by row, in seq order.
class ChainChecker {
 public:
  // False (and the verification says why) at the first row that breaks the chain; later rows
  // must not be added.
  bool Add(const DecisionLogRow& row);
  // The verification, given the highest seq the store has ever assigned (0 when it keeps no such
  // mark): rows missing from the end of the log show as a mark beyond the last row.
  ChainVerification Finish(int64_t high_water_seq) const;

 private:
  ChainVerification verification_;
  int64_t previous_seq_ = 0;
  std::string previous_hash_ = kGenesisHash;
};

}  // namespace verdict

#endif  // VERDICT_STORE_DECISION_LOG_STORE_H_
