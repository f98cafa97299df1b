#include "store/decision_log_store.h"

#include <algorithm>
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
  std::string problem;
  if (row.seq != previous_seq_ + 1) {
    problem = absl::StrCat("row ", previous_seq_ + 1, " is missing: row ", row.seq, " follows row ",
                           previous_seq_);
  } else if (row.prev_hash != previous_hash_) {
    problem = absl::StrCat("row ", row.seq, " does not link to the hash of row ", previous_seq_);
  } else if (row.hash != ChainHash(row)) {
    problem = absl::StrCat("row ", row.seq, " does not match its hash: it was edited");
  }
  if (!problem.empty()) {
    verification_.intact = false;
    verification_.first_bad_seq = previous_seq_ + 1;
    verification_.problem = std::move(problem);
    return false;
  }
  ++verification_.rows_checked;
  previous_seq_ = row.seq;
  previous_hash_ = row.hash;
  return true;
}

ChainVerification ChainChecker::Finish(int64_t high_water_seq) const {
  ChainVerification verification = verification_;
  if (verification.intact && high_water_seq > previous_seq_) {
    verification.intact = false;
    verification.first_bad_seq = previous_seq_ + 1;
    verification.problem = absl::StrCat("rows ", previous_seq_ + 1, " to ", high_water_seq,
                                        " are missing from the end of the log");
  }
  return verification;
}

}  // namespace verdict
