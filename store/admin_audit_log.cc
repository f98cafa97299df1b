#include "store/admin_audit_log.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "store/hash_chain.h"
#include "store/statements.h"

namespace verdict {
namespace {

// Rows the chain check reads per statement: memory stays bounded however long the log.
constexpr int kVerifyBatchRows = 1000;
constexpr int64_t kMaxPruneBatchRows = 100'000;

// The state row: the last seq and hash ever written, and the last pruned row's.
struct ChainState {
  int64_t last_seq = 0;
  std::string last_hash = kGenesisHash;
  int64_t pruned_seq = 0;
  std::string pruned_hash = kGenesisHash;
};

absl::StatusOr<ChainState> ReadState(Connection& connection) {
  absl::StatusOr<ResultRows> result = connection.Execute(Statement::kAdminAuditState);
  if (!result.ok()) return result.status();
  if (result->size() != 1) return absl::InternalError("the admin audit log has no state row");
  const ResultRow row = result->row(0);
  return ChainState{row.Int64(0), row.Text(1), row.Int64(2), row.Text(3)};
}

// kAdminAuditQuery selects ForEachAdminAuditColumn's columns, then the objects.
absl::StatusOr<AdminAuditRow> ReadRow(const ResultRow& result) {
  AdminAuditRow row;
  int column = 0;
  ForEachAdminAuditColumn(
      row, [&](std::string& field) { field = result.Text(column++); },
      [&](int64_t& field) { field = result.Int64(column++); });
  absl::StatusOr<std::vector<std::string>> objects = AdminAuditObjectsFromJson(result.Text(column));
  // A row whose objects column was edited into something else is still read: its hash then
  // fails to match, and the chain check names it.
  if (objects.ok()) {
    row.objects = *std::move(objects);
  } else {
    row.objects = {result.Text(column)};
  }
  return row;
}

Params QueryParams(const AdminAuditFilter& filter, int64_t after_seq, int limit) {
  Params params;
  params.Int64(after_seq)
      .Text(filter.principal)
      .Text(filter.call)
      .OptionalTime(filter.since)
      .OptionalTime(filter.until);
  params.Int64(limit);
  if (!filter.object_id.empty()) params.Text(filter.object_id);
  return params;
}

absl::StatusOr<std::vector<AdminAuditRow>> SelectRows(Connection& connection,
                                                      const AdminAuditFilter& filter,
                                                      int64_t after_seq, int limit) {
  absl::StatusOr<ResultRows> result = connection.Execute(
      filter.object_id.empty() ? Statement::kAdminAuditQuery : Statement::kAdminAuditQueryByObject,
      QueryParams(filter, after_seq, limit));
  if (!result.ok()) return result.status();
  std::vector<AdminAuditRow> rows;
  rows.reserve(result->size());
  for (int i = 0; i < result->size(); ++i) {
    absl::StatusOr<AdminAuditRow> row = ReadRow(result->row(i));
    if (!row.ok()) return row.status();
    rows.push_back(*std::move(row));
  }
  return rows;
}

}  // namespace

absl::Status AppendAdminAuditRow(Connection& connection, AdminAuditRow& row) {
  absl::StatusOr<ChainState> state = ReadState(connection);
  if (!state.ok()) return state.status();
  // Each object once: the index's key is (object, seq).
  std::vector<std::string> objects;
  absl::flat_hash_set<std::string> seen;
  for (std::string& object : row.objects) {
    if (!object.empty() && seen.insert(object).second) objects.push_back(std::move(object));
  }
  row.objects = std::move(objects);
  std::vector<AdminAuditRow> rows = {std::move(row)};
  ChainRows(state->last_seq + 1, state->last_hash, rows,
            [](const AdminAuditRow& r) { return ChainHash(r); });
  row = std::move(rows[0]);
  Params params;
  ForEachAdminAuditColumn(
      row, [&](const std::string& field) { params.Text(field); },
      [&](int64_t field) { params.Int64(field); });
  params.Text(AdminAuditObjectsToJson(row.objects));
  if (absl::Status s = connection.Execute(Statement::kAdminAuditInsert, params).status(); !s.ok()) {
    return s;
  }
  for (const std::string& object : row.objects) {
    if (absl::Status s =
            connection
                .Execute(Statement::kAdminAuditInsertObject, Params().Text(object).Int64(row.seq))
                .status();
        !s.ok()) {
      return s;
    }
  }
  return connection.Execute(Statement::kAdminAuditSetLast, Params().Int64(row.seq).Text(row.hash))
      .status();
}

absl::Status CheckAdminAuditRetention(const AdminAuditRetention& retention) {
  if (retention.max_age <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("admin audit retention: max_age must be positive");
  }
  if (retention.max_rows < 1) {
    return absl::InvalidArgumentError("admin audit retention: max_rows must be positive");
  }
  if (retention.batch < 1 || retention.batch > kMaxPruneBatchRows) {
    return absl::InvalidArgumentError(
        absl::StrCat("admin audit retention: batch must be 1 to ", kMaxPruneBatchRows));
  }
  return absl::OkStatus();
}

AdminAuditLog::AdminAuditLog(std::unique_ptr<Database> database) : database_(std::move(database)) {}

absl::Status AdminAuditLog::Append(AdminAuditRow& row) {
  return database_->InTransaction(TransactionKind::kWrite, [&](Connection& connection) {
    return AppendAdminAuditRow(connection, row);
  });
}

absl::StatusOr<AdminAuditPage> AdminAuditLog::Query(const AdminAuditFilter& filter, int page_size,
                                                    absl::string_view page_token) {
  int64_t after_seq = 0;
  if (!page_token.empty() && (!absl::SimpleAtoi(page_token, &after_seq) || after_seq < 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_token: \"", page_token, "\" is not a token this query returned"));
  }
  const int size =
      page_size > 0 ? std::min(page_size, kMaxAdminAuditPageSize) : kDefaultAdminAuditPageSize;
  AdminAuditPage page;
  absl::Status status =
      database_->InTransaction(TransactionKind::kRead, [&](Connection& connection) {
        absl::StatusOr<std::vector<AdminAuditRow>> rows =
            SelectRows(connection, filter, after_seq, size + 1);
        if (!rows.ok()) return rows.status();
        page.rows = *std::move(rows);
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  // One row more than the page shows that another page follows.
  if (page.rows.size() > static_cast<size_t>(size)) {
    page.rows.resize(size);
    page.next_page_token = absl::StrCat(page.rows.back().seq);
  }
  return page;
}

absl::StatusOr<AdminAuditVerification> AdminAuditLog::Verify() {
  AdminAuditVerification verification;
  absl::Status status = database_->InTransaction(TransactionKind::kRead, [&](Connection& c) {
    absl::StatusOr<ChainState> state = ReadState(c);
    if (!state.ok()) return state.status();
    verification.pruned_through_seq = state->pruned_seq;
    ChainLinks links(state->pruned_seq, state->pruned_hash);
    int64_t after_seq = 0;  // rows before the chain's start show as out of place
    bool broken = false;
    for (bool more = true; more && !broken;) {
      absl::StatusOr<std::vector<AdminAuditRow>> rows =
          SelectRows(c, AdminAuditFilter(), after_seq, kVerifyBatchRows);
      if (!rows.ok()) return rows.status();
      more = rows->size() == static_cast<size_t>(kVerifyBatchRows);
      for (const AdminAuditRow& row : *rows) {
        if (!links.Add(row.seq, row.prev_hash, row.hash, ChainHash(row))) {
          broken = true;
          break;
        }
      }
      if (more) after_seq = rows->back().seq;
    }
    if (!broken) links.CheckEnd(state->last_seq, "admin audit log");
    verification.rows_checked = links.rows_checked();
    verification.first_bad_seq = links.first_bad_seq();
    verification.problem = links.problem();
    verification.intact = links.problem().empty();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return verification;
}

absl::StatusOr<int64_t> AdminAuditLog::Prune(const AdminAuditRetention& retention, absl::Time now) {
  if (absl::Status valid = CheckAdminAuditRetention(retention); !valid.ok()) return valid;
  const int64_t cutoff_us = absl::ToUnixMicros(now - retention.max_age);
  int64_t deleted = 0;
  absl::Status status =
      database_->InTransaction(TransactionKind::kWrite, [&](Connection& connection) {
        absl::StatusOr<ChainState> state = ReadState(connection);
        if (!state.ok()) return state.status();
        // Rows beyond the cap, counted by seq: the chain numbers every row once.
        const int64_t over_cap =
            std::max<int64_t>(0, state->last_seq - state->pruned_seq - retention.max_rows);
        absl::StatusOr<ResultRows> oldest =
            connection.Execute(Statement::kAdminAuditOldestRows,
                               Params().Int64(state->pruned_seq).Int64(retention.batch));
        if (!oldest.ok()) return oldest.status();
        // A prefix only: the first row that must stay ends it, so the rest still chains from the
        // last row deleted.
        int64_t through_seq = 0;
        std::string through_hash;
        for (int i = 0; i < oldest->size(); ++i) {
          const ResultRow row = oldest->row(i);
          const int64_t seq = row.Int64(0);
          const bool expired = row.Int64(2) < cutoff_us;
          const bool beyond_cap = seq <= state->pruned_seq + over_cap;
          if (!expired && !beyond_cap) break;
          through_seq = seq;
          through_hash = row.Text(1);
          ++deleted;
        }
        if (deleted == 0) return absl::OkStatus();
        for (Statement statement :
             {Statement::kAdminAuditDeleteObjectsThrough, Statement::kAdminAuditDeleteThrough}) {
          if (absl::Status s = connection.Execute(statement, Params().Int64(through_seq)).status();
              !s.ok()) {
            return s;
          }
        }
        return connection
            .Execute(Statement::kAdminAuditSetPruned,
                     Params().Int64(through_seq).Text(through_hash))
            .status();
      });
  if (!status.ok()) return status;
  return deleted;
}

}  // namespace verdict
