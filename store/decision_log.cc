#include "store/decision_log.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace verdict {
namespace {

// ResultRows the chain check reads per statement: memory stays bounded however long the log.
constexpr int kVerifyBatchRows = 1000;

// kDecisionLogQuery selects the columns in ForEachDecisionLogColumn's order.
DecisionLogRow ReadRow(const ResultRow& result) {
  DecisionLogRow row;
  int column = 0;
  ForEachDecisionLogColumn(
      row, [&](std::string& field) { field = result.Text(column++); },
      [&](int64_t& field) { field = result.Int64(column++); });
  return row;
}

Params RowParams(const DecisionLogRow& row) {
  Params params;
  ForEachDecisionLogColumn(
      row, [&](const std::string& field) { params.Text(field); },
      [&](int64_t field) { params.Int64(field); });
  return params;
}

// Up to `limit` rows after `after_seq` that match `filter`, ascending by seq; the runs' start
// and stop markers only when `with_markers` (the chain check reads them, queries do not).
absl::StatusOr<std::vector<DecisionLogRow>> SelectRows(Connection& connection,
                                                       const DecisionLogFilter& filter,
                                                       int64_t after_seq, int limit,
                                                       bool with_markers) {
  Params params;
  params.Int64(after_seq)
      .Text(filter.agent_id)
      .OptionalTime(filter.since)
      .OptionalTime(filter.until);
  params.Text(filter.verdict).Int64(limit).Int64(with_markers ? 1 : 0);
  absl::StatusOr<ResultRows> result = connection.Execute(
      filter.agent_id.empty() ? Statement::kDecisionLogQuery : Statement::kDecisionLogQueryByAgent,
      params);
  if (!result.ok()) return result.status();
  std::vector<DecisionLogRow> rows;
  rows.reserve(result->size());
  for (int i = 0; i < result->size(); ++i) rows.push_back(ReadRow(result->row(i)));
  return rows;
}

absl::StatusOr<int64_t> HighWaterSeq(Connection& connection) {
  absl::StatusOr<ResultRows> result = connection.Execute(Statement::kDecisionLogHighWaterSeq);
  if (!result.ok()) return result.status();
  return result->size() == 1 ? result->row(0).Int64(0) : 0;
}

// The appends of one batch, inside the transaction that holds the decision log's lock.
absl::Status AppendLocked(Connection& connection, std::vector<DecisionLogRow>& rows) {
  absl::StatusOr<ResultRows> last = connection.Execute(Statement::kDecisionLogLastRow);
  if (!last.ok()) return last.status();
  int64_t last_seq = 0;
  std::string previous_hash = kGenesisHash;
  if (last->size() == 1) {
    last_seq = last->row(0).Int64(0);
    previous_hash = last->row(0).Text(1);
  }
  absl::StatusOr<int64_t> high_water = HighWaterSeq(connection);
  if (!high_water.ok()) return high_water.status();
  ChainRows(std::max(last_seq, *high_water) + 1, previous_hash, rows);
  for (const DecisionLogRow& row : rows) {
    absl::Status inserted =
        connection.Execute(Statement::kDecisionLogInsert, RowParams(row)).status();
    if (!inserted.ok()) return inserted;
  }
  // PostgreSQL's sequence is not transactional: moved last, right before the commit, so a batch
  // that fails leaves the mark where it was (only a commit lost in flight leaves it ahead).
  return connection.Execute(Statement::kDecisionLogSetHighWaterSeq, Params().Int64(rows.back().seq))
      .status();
}

}  // namespace

DecisionLog::DecisionLog(std::unique_ptr<Database> database, RunLiveness process_gone)
    : database_(std::move(database)), process_gone_(std::move(process_gone)) {}

DecisionLog::DecisionLog(std::string path, ConnectionOptions options, RunLiveness process_gone)
    : DecisionLog(std::make_unique<ConnectionPool>(SqliteSource(std::move(path), options),
                                                   PoolOptions{.size = 1}),
                  std::move(process_gone)) {}

absl::Status DecisionLog::Append(std::vector<DecisionLogRow>& rows) {
  if (rows.empty()) return absl::OkStatus();
  return database_->InTransaction(TransactionKind::kLogAppend, [&](Connection& connection) {
    return AppendLocked(connection, rows);
  });
}

absl::StatusOr<DecisionLogPage> DecisionLog::Query(const DecisionLogFilter& filter, int page_size,
                                                   absl::string_view page_token) {
  absl::StatusOr<DecisionLogCursor> cursor = ParseDecisionLogCursor(page_size, page_token);
  if (!cursor.ok()) return cursor.status();
  absl::StatusOr<std::vector<DecisionLogRow>> rows;
  absl::Status status =
      database_->InTransaction(TransactionKind::kRead, [&](Connection& connection) {
        rows = SelectRows(connection, filter, cursor->after_seq, cursor->page_size + 1,
                          /*with_markers=*/false);
        return rows.status();
      });
  if (!status.ok()) return status;
  return MakeDecisionLogPage(*cursor, *std::move(rows));
}

absl::StatusOr<ChainVerification> DecisionLog::VerifyChain() {
  absl::StatusOr<ChainVerification> verification;
  absl::Status status = database_->InTransaction(TransactionKind::kRead, [&](Connection& c) {
    ChainChecker checker(process_gone_);
    int64_t after_seq = 0;
    for (bool more = true; more;) {
      absl::StatusOr<std::vector<DecisionLogRow>> rows =
          SelectRows(c, DecisionLogFilter(), after_seq, kVerifyBatchRows, /*with_markers=*/true);
      if (!rows.ok()) return rows.status();
      more = rows->size() == static_cast<size_t>(kVerifyBatchRows);
      for (const DecisionLogRow& row : *rows) {
        if (!checker.Add(row)) {
          more = false;  // the first break is the one to report
          break;
        }
      }
      if (more) after_seq = rows->back().seq;
    }
    absl::StatusOr<int64_t> high_water = HighWaterSeq(c);
    if (!high_water.ok()) return high_water.status();
    verification = checker.Finish(*high_water);
    return verification.status();
  });
  if (!status.ok()) return status;
  return verification;
}

}  // namespace verdict
