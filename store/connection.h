// One database connection as the stores use it, whichever the database: run a statement of
// store/statements.h with its parameters, and begin, commit or roll back a transaction. Nothing
// here throws: errors are UNAVAILABLE when the database cannot be used right now, INTERNAL
// otherwise. A connection is used by one thread at a time (its pool hands it out).
//
//   absl::StatusOr<ResultRows> rows = connection.Execute(Statement::kFindAgent, Params().Text(id));
//   if (!rows.ok()) return rows.status();
//   if (rows->size() == 1) agent = ReadAgentColumns(rows->row(0));
//
// Implementations: SqliteConnection (store/sqlite/sqlite_connection.h) and PostgresConnection
// (store/postgres/postgres_connection.h); a Database (below) runs transactions on them.
#ifndef VERDICT_STORE_CONNECTION_H_
#define VERDICT_STORE_CONNECTION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "store/statements.h"

namespace verdict {

// What a transaction may do, and which other transactions it waits for.
enum class TransactionKind {
  kRead,           // one snapshot, writes nothing
  kWrite,          // serialised with every other policy write, in every process
  kLogAppend,      // serialised with every other decision log append (store/decision_log.h)
  kLockFreeWrite,  // writes that need no writer's lock (rows no decision reads again, a row
                   // inserted only if absent): waits for no writer where the database can
                   // (PostgreSQL)
};

// Parameters $1, $2 ... in the order they are added, each with its type.
class Params {
 public:
  enum class Type { kText, kBytes, kInt64 };
  struct Value {
    Type type;
    bool is_null;
    int64_t integer;
    std::string text;
  };

  Params& Text(absl::string_view text) { return Add({Type::kText, false, 0, std::string(text)}); }
  Params& Bytes(absl::string_view bytes) {
    return Add({Type::kBytes, false, 0, std::string(bytes)});
  }
  Params& Int64(int64_t value) { return Add({Type::kInt64, false, value, {}}); }
  // NULL for absl::InfiniteFuture() ("never"), as the schema stores it.
  Params& Time(absl::Time time);
  // A bound a filter may leave open: unix microseconds, or NULL when there is none.
  Params& OptionalTime(const std::optional<absl::Time>& time) {
    return time.has_value() ? Int64(absl::ToUnixMicros(*time)) : NullInt64();
  }
  Params& NullText() { return Add({Type::kText, true, 0, {}}); }
  Params& NullInt64() { return Add({Type::kInt64, true, 0, {}}); }

  const std::vector<Value>& values() const { return values_; }

 private:
  Params& Add(Value value) {
    values_.push_back(std::move(value));
    return *this;
  }
  std::vector<Value> values_;
};

class ResultRows;

// One row of a result; columns are 0-based.
class ResultRow {
 public:
  bool IsNull(int column) const;
  // Text and bytes; empty for NULL.
  const std::string& Text(int column) const;
  int64_t Int64(int column) const;
  bool Bool(int column) const { return Int64(column) != 0; }
  // Unix microseconds; NULL reads as absl::InfiniteFuture().
  absl::Time Time(int column) const;

 private:
  friend class ResultRows;
  ResultRow(const ResultRows& rows, int row) : rows_(rows), row_(row) {}
  const ResultRows& rows_;
  int row_;
};

// The rows of one statement, read in full, and the rows it changed.
class ResultRows {
 public:
  explicit ResultRows(int columns = 0) : columns_(columns) {}

  int size() const { return columns_ == 0 ? 0 : static_cast<int>(cells_.size()) / columns_; }
  int columns() const { return columns_; }
  ResultRow row(int index) const { return ResultRow(*this, index); }
  int64_t changed_rows() const { return changed_rows_; }

  // For connections, row by row, column by column.
  void AddNull() { cells_.push_back({true, 0, {}}); }
  void AddInt64(int64_t value) { cells_.push_back({false, value, {}}); }
  void AddText(absl::string_view text) { cells_.push_back({false, 0, std::string(text)}); }
  void set_changed_rows(int64_t rows) { changed_rows_ = rows; }

 private:
  friend class ResultRow;
  struct Cell {
    bool is_null;
    int64_t integer;
    std::string text;
  };
  const Cell& cell(int row, int column) const { return cells_[row * columns_ + column]; }

  int columns_;
  std::vector<Cell> cells_;
  int64_t changed_rows_ = 0;
};

class Connection {
 public:
  virtual ~Connection() = default;

  virtual Dialect dialect() const = 0;

  // Runs the statement (prepared on its first use on this connection) with `params`.
  virtual absl::StatusOr<ResultRows> Execute(Statement statement,
                                             const Params& params = Params()) = 0;

  // Begins a transaction of `kind`; a connection that cannot is left out of any transaction.
  virtual absl::Status Begin(TransactionKind kind) = 0;
  // Commits the open transaction. A transaction in which a statement failed is not committed.
  virtual absl::Status Commit() = 0;
  // Rolls the open transaction back; a connection that cannot leave it is not reused.
  virtual void Rollback() = 0;

  // Whether the pool may lease the connection again: false once it saw a fault that makes it
  // unusable, or was left inside a transaction.
  virtual bool Reusable() const = 0;
  // Ends at once, from any thread, a wait for the database's answer; the connection is not
  // reused after. For a database that stopped answering (store/connection_pool.h BreakLeased).
  virtual void Interrupt() {}
  // True when the database ended the connection before it answered anything on this lease:
  // nothing sent was done, so it may all be sent again on a fresh connection.
  virtual bool LostBeforeAnyAnswer() const { return false; }
};

// A pool of connections to one database that runs transactions on them.
class Database {
 public:
  virtual ~Database() = default;

  // Runs `body` in one transaction of `kind` on a pooled connection: committed when `body`
  // returns OK, rolled back otherwise.
  virtual absl::Status InTransaction(TransactionKind kind,
                                     absl::FunctionRef<absl::Status(Connection&)> body) = 0;
};

// The first row read with `read`, or nullopt when there is none.
template <typename T, typename Read>
absl::StatusOr<std::optional<T>> ReadFirst(const absl::StatusOr<ResultRows>& rows, Read read) {
  if (!rows.ok()) return rows.status();
  if (rows->size() == 0) return std::optional<T>();
  absl::StatusOr<T> row = read(rows->row(0));
  if (!row.ok()) return row.status();
  return std::optional<T>(*std::move(row));
}

// Every row read with `read`; the first that cannot be read fails them all.
template <typename T, typename Read>
absl::StatusOr<std::vector<T>> ReadAll(const absl::StatusOr<ResultRows>& rows, Read read) {
  if (!rows.ok()) return rows.status();
  std::vector<T> all;
  all.reserve(rows->size());
  for (int i = 0; i < rows->size(); ++i) {
    absl::StatusOr<T> row = read(rows->row(i));
    if (!row.ok()) return row.status();
    all.push_back(*std::move(row));
  }
  return all;
}

}  // namespace verdict

#endif  // VERDICT_STORE_CONNECTION_H_
