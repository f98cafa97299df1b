#include "store/postgres_decision_log.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/memory/memory.h"
#include "absl/strings/str_cat.h"
#include "store/decision_log_row.h"
#include "store/postgres_statements.h"

namespace verdict {
namespace {

// Rows the chain check reads per statement: memory stays bounded however long the log.
constexpr int kVerifyBatchRows = 1000;

const std::string& BeginAppendSql() {
  static const std::string* const sql = new std::string(
      absl::StrCat("BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock(",
                   kPgLockSpace, ", ", kPgDecisionLogLock, ")"));
  return *sql;
}

constexpr char kBeginSnapshot[] = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY";

// kDecisionLogQuery selects the columns in ForEachDecisionLogColumn's order.
DecisionLogRow ReadRow(const PgRow& result) {
  DecisionLogRow row;
  int column = 0;
  ForEachDecisionLogColumn(
      row, [&](std::string& field) { field = result.Text(column++); },
      [&](int64_t& field) { field = result.Int64(column++); });
  return row;
}

PgParams RowParams(const DecisionLogRow& row) {
  PgParams params;
  ForEachDecisionLogColumn(
      row, [&](const std::string& field) { params.Text(field); },
      [&](int64_t field) { params.Int64(field); });
  return params;
}

// Up to `limit` rows after `after_seq` that match `filter`, ascending by seq; the runs' start
// and stop markers only when `with_markers` (the chain check reads them, queries do not).
absl::StatusOr<std::vector<DecisionLogRow>> SelectRows(PostgresConnection& connection,
                                                       const DecisionLogFilter& filter,
                                                       int64_t after_seq, int limit,
                                                       bool with_markers) {
  PgParams params;
  params.Int64(after_seq).Text(filter.agent_id);
  if (filter.since) {
    params.Int64(absl::ToUnixMicros(*filter.since));
  } else {
    params.NullInt64();
  }
  if (filter.until) {
    params.Int64(absl::ToUnixMicros(*filter.until));
  } else {
    params.NullInt64();
  }
  params.Text(filter.verdict).Int64(limit).Int64(with_markers ? 1 : 0);
  absl::StatusOr<PgResult> result = connection.Execute(PgStatement::kDecisionLogQuery, params);
  if (!result.ok()) return result.status();
  std::vector<DecisionLogRow> rows;
  rows.reserve(result->size());
  for (int i = 0; i < result->size(); ++i) rows.push_back(ReadRow(result->row(i)));
  return rows;
}

absl::StatusOr<int64_t> HighWaterSeq(PostgresConnection& connection) {
  absl::StatusOr<PgResult> result = connection.Execute(PgStatement::kDecisionLogHighWaterSeq);
  if (!result.ok()) return result.status();
  return result->size() == 1 ? result->row(0).Int64(0) : 0;
}

// The appends of one batch, inside the transaction that holds the decision log lock.
absl::Status AppendLocked(PostgresConnection& connection, std::vector<DecisionLogRow>& rows) {
  absl::StatusOr<PgResult> last = connection.Execute(PgStatement::kDecisionLogLastRow);
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
    absl::StatusOr<PgResult> inserted =
        connection.Execute(PgStatement::kDecisionLogInsert, RowParams(row));
    if (!inserted.ok()) return inserted.status();
  }
  // Sequences are not transactional: moved last, right before the commit, so a batch that fails
  // leaves the mark where it was (only a commit lost in flight leaves it ahead of the rows).
  absl::StatusOr<PgResult> marked = connection.Execute(PgStatement::kDecisionLogSetHighWaterSeq,
                                                       PgParams().Int64(rows.back().seq));
  return marked.status();
}

// The chain check inside one snapshot.
absl::StatusOr<ChainVerification> VerifyInSnapshot(PostgresConnection& connection,
                                                   const RunLiveness& process_gone) {
  ChainChecker checker(process_gone);
  int64_t after_seq = 0;
  while (true) {
    absl::StatusOr<std::vector<DecisionLogRow>> rows =
        SelectRows(connection, DecisionLogFilter(), after_seq, kVerifyBatchRows,
                   /*with_markers=*/true);
    if (!rows.ok()) return rows.status();
    for (const DecisionLogRow& row : *rows) {
      if (!checker.Add(row)) return checker.Finish(0);
    }
    if (rows->size() < static_cast<size_t>(kVerifyBatchRows)) break;
    after_seq = rows->back().seq;
  }
  absl::StatusOr<int64_t> high_water = HighWaterSeq(connection);
  if (!high_water.ok()) return high_water.status();
  return checker.Finish(*high_water);
}

}  // namespace

PostgresDecisionLog::PostgresDecisionLog(const LibPq& pq, std::string conninfo,
                                         PostgresConnectionOptions options,
                                         RunLiveness process_gone)
    : pool_(pq, std::move(conninfo), options, /*size=*/1), process_gone_(std::move(process_gone)) {}

absl::StatusOr<std::unique_ptr<PostgresDecisionLog>> PostgresDecisionLog::Open(
    std::string conninfo, PostgresConnectionOptions options, RunLiveness process_gone) {
  if (conninfo.empty()) {
    return absl::InvalidArgumentError("PostgreSQL decision log: the connection string is empty");
  }
  absl::StatusOr<const LibPq*> pq = LoadLibPq();
  if (!pq.ok()) return pq.status();
  return absl::WrapUnique(
      new PostgresDecisionLog(**pq, std::move(conninfo), options, std::move(process_gone)));
}

absl::Status PostgresDecisionLog::Append(std::vector<DecisionLogRow>& rows) {
  if (rows.empty()) return absl::OkStatus();
  absl::StatusOr<PostgresPool::Lease> lease = pool_.Checkout();
  if (!lease.ok()) return lease.status();
  PostgresConnection& connection = **lease;
  absl::Status status = connection.ExecuteScript(BeginAppendSql().c_str());
  if (status.ok()) status = AppendLocked(connection, rows);
  if (status.ok()) status = connection.Commit();
  if (!status.ok()) connection.Rollback();
  return status;
}

absl::StatusOr<DecisionLogPage> PostgresDecisionLog::Query(const DecisionLogFilter& filter,
                                                           int page_size,
                                                           absl::string_view page_token) {
  absl::StatusOr<DecisionLogCursor> cursor = ParseDecisionLogCursor(page_size, page_token);
  if (!cursor.ok()) return cursor.status();
  absl::StatusOr<PostgresPool::Lease> lease = pool_.Checkout();
  if (!lease.ok()) return lease.status();
  absl::StatusOr<std::vector<DecisionLogRow>> rows =
      SelectRows(**lease, filter, cursor->after_seq, cursor->page_size + 1,
                 /*with_markers=*/false);
  if (!rows.ok()) return rows.status();
  return MakeDecisionLogPage(*cursor, *std::move(rows));
}

absl::StatusOr<ChainVerification> PostgresDecisionLog::VerifyChain() {
  absl::StatusOr<PostgresPool::Lease> lease = pool_.Checkout();
  if (!lease.ok()) return lease.status();
  PostgresConnection& connection = **lease;
  absl::Status begun = connection.ExecuteScript(kBeginSnapshot);
  if (!begun.ok()) {
    connection.Rollback();
    return begun;
  }
  absl::StatusOr<ChainVerification> verification = VerifyInSnapshot(connection, process_gone_);
  absl::Status ended = verification.ok() ? connection.Commit() : verification.status();
  if (!ended.ok()) {
    connection.Rollback();
    return ended;
  }
  return verification;
}

}  // namespace verdict
