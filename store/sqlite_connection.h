// One SQLite connection with its prepared statements, used by one thread at a time (the pool in
// store/connection_pool.h hands it out).
//
// Each statement is prepared once per connection and then reset and rebound by every use:
//
//   ScopedStatement find = connection.Use(StatementId::kFindAgent);
//   find.BindText(1, agent_id);
//   if (find.Step()) agent = ReadAgentColumns(find);
//   // `find` is reset when it leaves scope; its bindings are rebound by the next use.
//
// Everything here throws SQLite::Exception like SQLiteCpp does; CatchSqlite turns a throw into
// a status at the store boundary and marks the connection for reopening when the failure means
// it is unusable.
#ifndef VERDICT_STORE_SQLITE_CONNECTION_H_
#define VERDICT_STORE_SQLITE_CONNECTION_H_

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>

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
#include "store/decision_record.h"
#include "store/sqlite_error.h"
#include "store/sqlite_statements.h"
#include "store/wide_permissions.h"

namespace verdict {

struct ConnectionOptions {
  absl::Duration busy_timeout = absl::Seconds(5);
  bool create_if_missing = true;
  // How much of the file reads map into memory (SqliteOptions::mmap_bytes).
  int64_t mmap_bytes = 0;
};

class ScopedStatement;

class SqliteConnection {
 public:
  // Opens the file (creating it when allowed), configures the connection and migrates the
  // schema. UNAVAILABLE when the file cannot be opened or used.
  static absl::StatusOr<std::unique_ptr<SqliteConnection>> Open(const std::string& path,
                                                                const ConnectionOptions& options);

  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  // The statement, prepared on first use, ready to bind.
  ScopedStatement Use(StatementId id);

  // Runs a statement that returns no rows (BEGIN, an UPDATE) and returns the rows it changed.
  int Execute(StatementId id);

  SQLite::Database& database() { return database_; }
  // The rows this connection's transactions decode decision records into, reused for their
  // memory (store/decision_record.h).
  DecodedRecords& decoded_records() { return decoded_records_; }
  // The indexed lists of agents with many permissions (store/wide_permissions.h).
  WidePermissions& wide_permissions() { return wide_permissions_; }
  const ConnectionOptions& options() const { return options_; }

  // Records a failure; after a connection fault (store/sqlite_error.h) the connection is
  // closed instead of being reused.
  void NoteError(int sqlite_error_code);
  // Closes the connection when it returns to the pool.
  void MarkBroken() { broken_ = true; }
  bool broken() const { return broken_; }

  // `closing` runs as the connection is destroyed, before its database handle closes (the
  // pool's file watch counts the connections open on the file: store/database_file_watch.h).
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

  SQLite::Database database_;
  ConnectionOptions options_;
  std::array<CachedStatement, kStatementCount> statements_;
  DecodedRecords decoded_records_;
  WidePermissions wide_permissions_;
  bool broken_ = false;
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

#endif  // VERDICT_STORE_SQLITE_CONNECTION_H_
