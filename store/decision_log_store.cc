#include "store/decision_log_store.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace verdict {

absl::StatusOr<DecisionLogCursor> ParseDecisionLogCursor(int page_size,
                                                         absl::string_view page_token) {
  DecisionLogCursor cursor;
  if (!page_token.empty() &&
      (!absl::SimpleAtoi(page_token, &cursor.after_seq) || cursor.after_seq < 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_token: \"", page_token, "\" is not a token this query returned"));
  }
  if (page_size > 0) cursor.page_size = std::min(page_size, kMaxDecisionLogPageSize);
  return cursor;
}

DecisionLogPage MakeDecisionLogPage(const DecisionLogCursor& cursor,
                                    std::vector<DecisionLogRow> rows) {
  DecisionLogPage page;
  page.rows = std::move(rows);
  if (page.rows.size() > static_cast<size_t>(cursor.page_size)) {
    page.rows.resize(cursor.page_size);
    page.next_page_token = absl::StrCat(page.rows.back().seq);
  }
  return page;
}

bool ChainChecker::Add(const DecisionLogRow& row) {
  if (!links_.Add(row.seq, row.prev_hash, row.hash, ChainHash(row))) {
    verification_.intact = false;
    verification_.first_bad_seq = links_.first_bad_seq();
    verification_.problem = links_.problem();
    return false;
  }
  ++verification_.rows_checked;
  CheckRun(row);
  return true;
}

namespace {

std::string RunName(const std::string& run_id, const std::string& origin_text) {
  return origin_text.empty() ? absl::StrCat("run ", run_id)
                             : absl::StrCat("run ", run_id, " (", origin_text, ")");
}

std::string Numbers(int64_t first, int64_t last) {
  return first == last ? absl::StrCat("decision ", first, " is")
                       : absl::StrCat("decisions ", first, " to ", last, " are");
}

}  // namespace

bool RunProcessGoneFromThisHost(const RunOrigin& origin) {
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof(host) - 1) != 0 || origin.host != host) return false;
  if (origin.pid <= 0 || origin.pid > INT_MAX) return false;
  return kill(static_cast<pid_t>(origin.pid), 0) != 0 && errno == ESRCH;
}

void ChainChecker::AddGap(ChainVerification& verification, const std::string& run_id,
                          const Run& run, int64_t first, int64_t last, std::string problem) {
  ++verification.gap_count;
  if (verification.gaps.size() >= static_cast<size_t>(kMaxReportedGaps)) return;
  verification.gaps.push_back(
      DecisionLogGap{run_id, run.origin_text, first, last, std::move(problem)});
}

void ChainChecker::CheckRun(const DecisionLogRow& row) {
  if (row.run_id.empty()) return;  // written before runs were recorded
  auto [it, inserted] = runs_.try_emplace(row.run_id);
  Run& run = it->second;
  if (inserted) run_order_.push_back(row.run_id);
  run.decided = std::max(run.decided, row.run_decided);
  const bool marker = IsRunMarker(row);
  if (marker && row.reason == kRunStartReason) {
    absl::StatusOr<RunOrigin> origin = RunOriginOf(row);
    if (!inserted || !origin.ok()) {
      AddGap(verification_, row.run_id, run, 0, 0,
             absl::StrCat(RunName(row.run_id, run.origin_text), ": row ", row.seq,
                          " is a start marker out of place"));
      return;
    }
    run.origin = *origin;
    run.origin_text = absl::StrCat("pid ", origin->pid, " on ", origin->host);
    return;
  }
  const std::string name = RunName(row.run_id, run.origin_text);
  if (inserted) {
    // The start marker is the run's first row; a batch the database refused can lose it.
    AddGap(verification_, row.run_id, run, row.run_seq > 1 ? 1 : 0,
           row.run_seq > 1 ? row.run_seq - 1 : 0,
           absl::StrCat(name, ": its start marker is missing",
                        row.run_seq > 1
                            ? absl::StrCat(", and ", Numbers(1, row.run_seq - 1), " missing")
                            : ""));
  }
  if (run.stopped) {
    AddGap(verification_, row.run_id, run, 0, 0,
           absl::StrCat(name, ": row ", row.seq, " follows its stop marker"));
    return;
  }
  if (marker) {  // the stop marker: its run_seq is the run's last decision
    if (row.run_seq > run.last_seq) {
      AddGap(verification_, row.run_id, run, run.last_seq + 1, row.run_seq,
             absl::StrCat(name, ": ", Numbers(run.last_seq + 1, row.run_seq),
                          " missing (dropped, or not written)"));
    }
    run.stopped = true;
    return;
  }
  if (row.run_seq <= run.last_seq) {
    AddGap(verification_, row.run_id, run, 0, 0,
           absl::StrCat(name, ": decision ", row.run_seq, " (row ", row.seq,
                        ") comes after decision ", run.last_seq));
    return;
  }
  if (!inserted && row.run_seq > run.last_seq + 1) {
    AddGap(verification_, row.run_id, run, run.last_seq + 1, row.run_seq - 1,
           absl::StrCat(name, ": ", Numbers(run.last_seq + 1, row.run_seq - 1),
                        " missing (dropped, or not written)"));
  }
  run.last_seq = row.run_seq;
}

ChainVerification ChainChecker::Finish(int64_t high_water_seq) const {
  ChainVerification verification = verification_;
  if (ChainLinks end = links_; verification.intact && !end.CheckEnd(high_water_seq, "log")) {
    verification.intact = false;
    verification.first_bad_seq = end.first_bad_seq();
    verification.problem = end.problem();
  }
  for (const std::string& run_id : run_order_) {
    const Run& run = runs_.at(run_id);
    ++verification.runs;
    if (run.stopped) continue;
    if (!run.origin || !process_gone_(*run.origin)) {
      ++verification.open_runs;
      continue;
    }
    // The process is gone without a stop marker: whatever it had queued is lost. The numbers
    // it gave decisions up to its last batch are known; any after that are not.
    const int64_t first = run.last_seq + 1;
    const int64_t last = run.decided >= first ? run.decided : 0;
    AddGap(verification, run_id, run, first, last,
           absl::StrCat(
               RunName(run_id, run.origin_text),
               " ended without stopping (killed, or crashed) after decision ", run.last_seq, ": ",
               last == 0
                   ? absl::StrCat("any decision from ", first, " on is missing")
                   : absl::StrCat(Numbers(first, last), " missing, and any it made after them")));
  }
  if (verification.intact && verification.gap_count > 0) {
    verification.intact = false;
    verification.problem = verification.gaps.front().problem;
  }
  return verification;
}

}  // namespace verdict
