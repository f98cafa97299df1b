// One SQLite connection with its prepared statements (store/connection.h), used by one thread at
// a time (the pool in store/connection_pool.h hands it out). Execute, Begin, Commit and Rollback
// never throw: SQLiteCpp's exceptions stop here, and a failure that means the connection is
// unusable marks it for reopening.
//
// The decision records' fast path (store/sqlite_store.cc) reads a statement's columns in place,
// without copying its rows; that use throws like SQLiteCpp does, inside CatchSqlite:
//
//   ScopedStatement find = connection.Use(Statement::kFindDecisionRecord);
//   find.BindText(1, agent_id);
//   if (find.Step()) record.agent = find.TextView(0);
//   // `find` is reset when it leaves scope; its bindings are rebound by the next use.
#ifndef VERDICT_STORE_SQLITE_SQLITE_CONNECTION_H_
#define VERDICT_STORE_SQLITE_SQLITE_CONNECTION_H_

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <sqlite3.h>

#include <array>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "store/connection.h"
#include "store/decision_record.h"
#include "store/sqlite/sqlite_error.h"
#include "store/statements.h"
#include "store/wide_permissions.h"

namespace verdict {

struct ConnectionOptions {
  absl::Duration busy_timeout = absl::Seconds(5);
  bool create_if_missing = true;
  // How much of the file reads map into memory (SqliteOptions::mmap_bytes).
  int64_t mmap_bytes = 0;
  // Told, by every connection that opens, what an operator may want to change about the file
  // (SmallPagesAdvice, store/sqlite/schema.h); not called when there is nothing to say.
  std::function<void(const std::string& advice)> on_advice;
};

class ScopedStatement;

class SqliteConnection final : public Connection {
 public:
  // Opens the file (creating it when allowed), configures the connection and migrates the
  // schema. UNAVAILABLE when the file cannot be opened or used.
  static absl::StatusOr<std::unique_ptr<SqliteConnection>> Open(const std::string& path,
                                                                const ConnectionOptions& options);

  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  // Connection.
  Dialect dialect() const override { return Dialect::kSqlite; }
  absl::StatusOr<ResultRows> Execute(Statement statement, const Params& params = Params()) override;
  // A write begins with BEGIN IMMEDIATE, which waits for the write lock within busy_timeout.
  absl::Status Begin(TransactionKind kind) override;
  absl::Status Commit() override;
  void Rollback() override;

  // The statement, prepared on first use, ready to bind (parameters ?1, ?2 ...).
  ScopedStatement Use(Statement id);

  SQLite::Database& database() { return database_; }
  // The rows this connection's transactions decode decision records into, reused for their
  // memory (store/decision_record.h).
  DecodedRecords& decoded_records() { return decoded_records_; }
  // The indexed lists of agents with many permissions (store/wide_permissions.h).
  WidePermissions& wide_permissions() { return wide_permissions_; }
  const ConnectionOptions& options() const { return options_; }

  // Whether this connection saw the database change (a commit by any connection, its own
  // included) since the last call: SQLite's data version for the connection, as its current or
  // last transaction found it. No system call.
  bool DatabaseChangedSinceLastAsked();

  // Records a failure; after a connection fault (store/sqlite/sqlite_error.h) the connection is
  // closed instead of being reused.
  void NoteError(int sqlite_error_code);
  // Closes the connection when it returns to the pool.
  void MarkBroken() { broken_ = true; }
  bool broken() const { return broken_; }
  bool Reusable() const override { return !broken_; }

  // `closing` runs as the connection is destroyed, before its database handle closes (the
  // pool's file watch counts the connections open on the file: store/sqlite/database_file_watch.h).
  // Before, not after: the last handle's close may delete the write-ahead log, and a connection
  // opened meanwhile must find the count already down, or it would take the new log for a
  // replaced one (review h40).
  void OnClosing(std::function<void()> closing) { on_closing_.run = std::move(closing); }

 private:
  friend class ScopedStatement;

  struct RunWhenDestroyed {
    std::function<void()> run;
    ~RunWhenDestroyed() {
      if (run) run();
    }
  };

  struct CachedStatement {
    std::unique_ptr<SQLite::Statement> statement;
    // Owned copies of bound text, so it can be bound without SQLite copying it again; reused
    // across calls, so a warm connection binds without allocating.
    std::vector<std::string> text_parameters;
  };

  SqliteConnection(SQLite::Database database, const ConnectionOptions& options);

  // Runs transaction control SQL, prepared once.
  enum TransactionControl { kBegin, kBeginImmediate, kCommit, kRollback };
  absl::Status Control(TransactionControl which, bool retry_while_busy);

  SQLite::Database database_;
  ConnectionOptions options_;
  std::array<CachedStatement, kStatementCount> statements_;
  std::array<std::unique_ptr<SQLite::Statement>, 4> control_;
  DecodedRecords decoded_records_;
  WidePermissions wide_permissions_;
  bool broken_ = false;
  unsigned int data_version_ = 0;  // as DatabaseChangedSinceLastAsked last read it
  // Declared last, so destroyed first: before database_ closes.
  RunWhenDestroyed on_closing_;
};

// One use of a cached statement; resets it when destroyed. Parameter indexes start at 1, column
// indexes at 0, as in SQLite.
class ScopedStatement {
 public:
  ScopedStatement(const ScopedStatement&) = delete;
  ScopedStatement& operator=(const ScopedStatement&) = delete;
  ~ScopedStatement() { statement_.tryReset(); }

  void BindText(int index, absl::string_view text);
  // `bytes` must stay alive until this ScopedStatement is destroyed.
  void BindBlob(int index, absl::string_view bytes);
  void BindInt64(int index, int64_t value);
  void BindNull(int index);
  // NULL for absl::InfiniteFuture() ("never").
  void BindTime(int index, absl::Time time);

  // Advances to the next row; false when there is none.
  bool Step() { return statement_.executeStep(); }
  // Runs a statement that returns no rows; returns the rows it changed.
  int Execute() { return statement_.exec(); }

  bool IsNull(int column) const { return statement_.isColumnNull(column); }
  int64_t Int64(int column) const { return statement_.getColumn(column).getInt64(); }
  std::string Text(int column) const { return std::string(TextView(column)); }
  // The column's text without a copy; valid until the next Step or the end of this use.
  absl::string_view TextView(int column) const;
  // The column as unix microseconds; NULL reads as absl::InfiniteFuture().
  absl::Time Time(int column) const;

 private:
  friend class SqliteConnection;
  ScopedStatement(SQLite::Statement& statement, std::vector<std::string>& text_parameters)
      : statement_(statement), text_parameters_(text_parameters) {}

  SQLite::Statement& statement_;
  std::vector<std::string>& text_parameters_;
};

// The size of the database's write-ahead log through SQLite's own handle on it (one fstat):
// 0 when the log is not open or its size cannot be read.
int64_t WriteAheadLogBytes(sqlite3* db);

// Runs `body` (which returns absl::Status or absl::StatusOr<T>) and turns anything SQLiteCpp
// or the standard library throws into a status, noting SQLite failures on the connection.
template <typename Body>
auto CatchSqlite(SqliteConnection& connection, Body&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const SQLite::Exception& e) {
    connection.NoteError(e.getErrorCode());
    return SqliteErrorStatus(e.getErrorCode(), e.what());
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("policy store error: ", e.what()));
  }
}

}  // namespace verdict

#endif  // VERDICT_STORE_SQLITE_SQLITE_CONNECTION_H_
