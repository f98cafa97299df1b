// Where the decision log lives (design section 1: "rows hash-chained so tampering is
// detectable"): appends that continue the hash chain, filtered queries, and a check of the whole
// chain. The rows and their hash are store/decision_log_row.h's, the same for every backend.
//
// Appends are serialized across every process on the database (SQLite's BEGIN IMMEDIATE, a
// PostgreSQL advisory lock) and continue the chain from the last row, read under that lock: any
// number of sidecars sharing one database form one chain.
//
// Implementation: DecisionLog (store/decision_log.h), on either database; OpenDecisionLogStore
// (store/open_store.h) opens it from --db.
//
//   absl::Status s = log.Append(rows);                 // fills seq, prev_hash, hash
//   absl::StatusOr<ChainVerification> v = log.VerifyChain();
//   if (v.ok() && !v->intact) ... v->first_bad_seq ...
#ifndef VERDICT_STORE_DECISION_LOG_STORE_H_
#define VERDICT_STORE_DECISION_LOG_STORE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "store/decision_log_row.h"
#include "store/hash_chain.h"

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

// Decisions of one run (store/decision_log_row.h) that are not in the log.
struct DecisionLogGap {
  std::string run_id;
  std::string origin;         // "pid 4242 on host-a", "" when the start marker is missing
  int64_t first_missing = 0;  // run_seq numbers
  int64_t last_missing = 0;   // 0: unknown (the run died; the numbers from first_missing on)
  std::string problem;
};

struct ChainVerification {
  // The chain links every row and no run misses a decision.
  bool intact = true;
  int64_t rows_checked = 0;
  // When the chain is broken: the first seq at which the stored rows differ from what was
  // written (an edited row, or the first of the missing ones). `problem` says what is wrong
  // (the chain's, or else the first gap's).
  int64_t first_bad_seq = 0;
  std::string problem;
  // Runs seen, and those of them still open: no stop marker, and their process may still be
  // running (it runs on this host, or on another one where it cannot be checked). Rows an open
  // run has queued are not written yet; they are not counted missing.
  int64_t runs = 0;
  int64_t open_runs = 0;
  // Decisions missing from runs: numbers skipped within a run (a decision dropped or a batch
  // the database refused), and the end of a run whose process is gone without a stop marker
  // (killed). The first kMaxReportedGaps; gap_count counts them all.
  std::vector<DecisionLogGap> gaps;
  int64_t gap_count = 0;
};

inline constexpr int kMaxReportedGaps = 100;

// Whether the process that started a run is known to be gone. The default
// (RunProcessGoneFromThisHost) can tell only for runs started on this host.
using RunLiveness = std::function<bool(const RunOrigin& origin)>;

// True when `origin` names this host (gethostname) and no process has its pid. A pid reused by
// another process since reads as alive: the run then stays open, never falsely lost.
bool RunProcessGoneFromThisHost(const RunOrigin& origin);

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

// Checks the chain row by row, in seq order, and each run's numbering within it (runs
// interleave when several processes share the database).
class ChainChecker {
 public:
  explicit ChainChecker(RunLiveness process_gone = RunProcessGoneFromThisHost)
      : process_gone_(std::move(process_gone)) {}

  // False (and the verification says why) at the first row that breaks the chain; later rows
  // must not be added.
  bool Add(const DecisionLogRow& row);
  // The verification, given the highest seq the store has ever assigned (0 when it keeps no such
  // mark): rows missing from the end of the log show as a mark beyond the last row.
  ChainVerification Finish(int64_t high_water_seq) const;

 private:
  struct Run {
    std::string origin_text;
    std::optional<RunOrigin> origin;  // unset when the start marker is missing
    int64_t last_seq = 0;             // of the last decision (or the start marker: 0)
    int64_t decided = 0;
    bool stopped = false;
  };

  void CheckRun(const DecisionLogRow& row);
  static void AddGap(ChainVerification& verification, const std::string& run_id, const Run& run,
                     int64_t first, int64_t last, std::string problem);

  RunLiveness process_gone_;
  ChainVerification verification_;
  ChainLinks links_;
  // Runs in the order they first appear, so gaps are reported in log order.
  std::vector<std::string> run_order_;
  absl::flat_hash_map<std::string, Run> runs_;
};

}  // namespace verdict

#endif  // VERDICT_STORE_DECISION_LOG_STORE_H_
