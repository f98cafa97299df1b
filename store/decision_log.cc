#include "store/decision_log.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "store/decision_log_row.h"

namespace verdict {
namespace {

// The columns of a row, in ForEachDecisionLogColumn's order (store/decision_log_row.h).
constexpr char kColumns[] =
    "seq, decided_at, request_id, agent_id, action, resource, client_ip, arguments_json, "
    "verdict, reason, message, matched_permission_id, delegation_path, approval_request_id, "
    "latency_us, prev_hash, hash, run_id, run_seq, run_decided";

constexpr char kInsert[] =
    "INSERT INTO decision_log (seq, decided_at, request_id, agent_id, action, resource, "
    "client_ip, arguments_json, verdict, reason, message, matched_permission_id, "
    "delegation_path, approval_request_id, latency_us, prev_hash, hash, run_id, run_seq, "
    "run_decided) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

constexpr char kLastRow[] = "SELECT seq, hash FROM decision_log ORDER BY seq DESC LIMIT 1";

// AUTOINCREMENT keeps the highest seq ever written here, so rows deleted from the end of the
// table leave a trace: the next append skips their numbers, and VerifyChain reports them.
constexpr char kHighWaterSeq[] = "SELECT seq FROM sqlite_sequence WHERE name = 'decision_log'";

DecisionLogRow ReadRow(SQLite::Statement& statement) {
  DecisionLogRow row;
  int column = 0;
  ForEachDecisionLogColumn(
      row, [&](std::string& field) { field = statement.getColumn(column++).getString(); },
      [&](int64_t& field) { field = statement.getColumn(column++).getInt64(); });
  return row;
}

void BindRow(SQLite::Statement& statement, const DecisionLogRow& row) {
  int index = 1;
  ForEachDecisionLogColumn(
      row, [&](const std::string& field) { statement.bindNoCopy(index++, field); },
      [&](int64_t field) { statement.bind(index++, field); });
}

int64_t HighWaterSeq(SQLite::Database& db) {
  SQLite::Statement statement(db, kHighWaterSeq);
  return statement.executeStep() ? statement.getColumn(0).getInt64() : 0;
}

}  // namespace

DecisionLog::DecisionLog(std::string path, ConnectionOptions options, RunLiveness process_gone)
    : pool_(std::move(path), options, /*size=*/1), process_gone_(std::move(process_gone)) {}

template <typename Body>
auto DecisionLog::WithConnection(Body body) -> decltype(body(std::declval<SQLite::Database&>())) {
  absl::StatusOr<ConnectionPool::Lease> lease = pool_.Checkout();
  if (!lease.ok()) return lease.status();
  SqliteConnection& connection = **lease;
  return CatchSqlite(connection, [&] { return body(connection.database()); });
}

absl::Status DecisionLog::Append(std::vector<DecisionLogRow>& rows) {
  if (rows.empty()) return absl::OkStatus();
  return WithConnection([&](SQLite::Database& db) -> absl::Status {
    SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
    int64_t last_seq = 0;
    std::string previous_hash = kGenesisHash;
    SQLite::Statement last(db, kLastRow);
    if (last.executeStep()) {
      last_seq = last.getColumn(0).getInt64();
      previous_hash = last.getColumn(1).getString();
    }
    ChainRows(std::max(last_seq, HighWaterSeq(db)) + 1, previous_hash, rows);
    SQLite::Statement insert(db, kInsert);
    for (const DecisionLogRow& row : rows) {
      BindRow(insert, row);
      insert.exec();
      insert.reset();
    }
    transaction.commit();
    return absl::OkStatus();
  });
}

absl::StatusOr<DecisionLogPage> DecisionLog::Query(const DecisionLogFilter& filter, int page_size,
                                                   absl::string_view page_token) {
  absl::StatusOr<DecisionLogCursor> cursor = ParseDecisionLogCursor(page_size, page_token);
  if (!cursor.ok()) return cursor.status();

  // A run's start and stop markers (verdict '') are for the chain check, not decisions.
  std::string sql =
      absl::StrCat("SELECT ", kColumns, " FROM decision_log WHERE seq > ? AND verdict <> ''");
  if (!filter.agent_id.empty()) absl::StrAppend(&sql, " AND agent_id = ?");
  if (filter.since) absl::StrAppend(&sql, " AND decided_at >= ?");
  if (filter.until) absl::StrAppend(&sql, " AND decided_at < ?");
  if (!filter.verdict.empty()) absl::StrAppend(&sql, " AND verdict = ?");
  // One row more than the page shows whether another page follows.
  absl::StrAppend(&sql, " ORDER BY seq LIMIT ?");

  return WithConnection([&](SQLite::Database& db) -> absl::StatusOr<DecisionLogPage> {
    SQLite::Statement statement(db, sql);
    int index = 1;
    statement.bind(index++, cursor->after_seq);
    if (!filter.agent_id.empty()) statement.bind(index++, filter.agent_id);
    if (filter.since) statement.bind(index++, absl::ToUnixMicros(*filter.since));
    if (filter.until) statement.bind(index++, absl::ToUnixMicros(*filter.until));
    if (!filter.verdict.empty()) statement.bind(index++, filter.verdict);
    statement.bind(index++, cursor->page_size + 1);
    std::vector<DecisionLogRow> rows;
    while (statement.executeStep()) rows.push_back(ReadRow(statement));
    return MakeDecisionLogPage(*cursor, std::move(rows));
  });
}

absl::StatusOr<ChainVerification> DecisionLog::VerifyChain() {
  return WithConnection([&](SQLite::Database& db) -> absl::StatusOr<ChainVerification> {
    // A deferred transaction: one snapshot, so appends running meanwhile are not half-seen.
    SQLite::Transaction snapshot(db);
    SQLite::Statement rows(db,
                           absl::StrCat("SELECT ", kColumns, " FROM decision_log ORDER BY seq"));
    ChainChecker checker(process_gone_);
    while (rows.executeStep()) {
      if (!checker.Add(ReadRow(rows))) break;
    }
    return checker.Finish(HighWaterSeq(db));
  });
}

}  // namespace verdict
