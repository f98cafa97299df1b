#include "store/sqlite/sqlite_connection.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "absl/base/call_once.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "store/policy_encoding.h"
#include "store/sqlite/schema.h"

namespace verdict {
namespace {

int BusyTimeoutMillis(absl::Duration busy_timeout) {
  const int64_t millis = absl::ToInt64Milliseconds(busy_timeout);
  return static_cast<int>(std::clamp<int64_t>(millis, 0, std::numeric_limits<int>::max()));
}

// SQLite's memory statistics take a process-wide mutex on every allocation, and verdict reads
// none of them. The setting only takes before SQLite initialises, so it is made before the
// first connection opens; if something else initialised SQLite first, it is left as it was.
void TurnOffMemoryStatistics() {
  static absl::once_flag once;
  absl::call_once(once, [] { sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); });
}

// Creates the database file readable and writable by its owner only, whatever the umask, unless
// it exists: SQLite would create it 0644 less the umask, and it holds the admin credential's hash
// and the decision log. SQLite gives the -wal and -shm files it creates later the database file's
// permissions. An existing file keeps the permissions its operator gave it.
absl::Status CreateForOwnerOnly(const std::string& path) {
  if (path.empty() || path == ":memory:" || path.rfind("file:", 0) == 0) return absl::OkStatus();
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  // It exists (EEXIST); or SQLite, opening it next, reports the missing directory or the refused
  // permission in its own words.
  if (fd < 0) return absl::OkStatus();
  const int changed = fchmod(fd, 0600);  // the umask may have taken bits off, never added any
  const int saved_errno = errno;
  close(fd);
  if (changed != 0) {
    return absl::UnavailableError(
        absl::StrCat(path, ": cannot make it owner-only: ", std::strerror(saved_errno)));
  }
  return absl::OkStatus();
}

// While the write-ahead log holds no commit (the state of a database no one has written since
// the log was created, such as a read-mostly sidecar's after a restart), SQLite knows the
// database's size from no log frame, so every read transaction asks the file system for it:
// one fstat per transaction (pager.c, pagerPagecount, SQLite 3.40), about 1.4 us of CPU on the
// project's virtual machine (ValidateToken and a direct Authorize took 8 to 11% less time
// without it: bench/PERFORMANCE.md). One commit puts the size in the log's
// index (each commit frame carries it), where every connection of every process reads it for as
// long as any of them keeps the log open; writing the schema version back unchanged is such a
// commit, and changes nothing a reader sees. Best effort: another writer holding the lock (it
// leaves a commit itself), a read-only file or a full disk leave the log as it was, and cost
// the fstat only.
void LeaveACommitInAnEmptyWriteAheadLog(SQLite::Database& db, absl::Duration busy_timeout) {
  sqlite3* handle = db.getHandle();
  if (WriteAheadLogBytes(handle) != 0) return;
  sqlite3_busy_timeout(handle, 0);  // never wait for another writer here
  if (db.tryExec("BEGIN IMMEDIATE") == SQLITE_OK) {
    bool committed = false;
    try {
      const int version = SchemaVersion(db);
      db.exec(absl::StrCat("PRAGMA user_version = ", version));
      committed = db.tryExec("COMMIT") == SQLITE_OK;
    } catch (const SQLite::Exception&) {
    }
    if (!committed) db.tryExec("ROLLBACK");
  }
  sqlite3_busy_timeout(handle, BusyTimeoutMillis(busy_timeout));
}

}  // namespace

int64_t WriteAheadLogBytes(sqlite3* db) {
  sqlite3_file* log = nullptr;
  if (sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &log) != SQLITE_OK ||
      log == nullptr || log->pMethods == nullptr) {
    return 0;
  }
  sqlite3_int64 size = 0;
  if (log->pMethods->xFileSize(log, &size) != SQLITE_OK) return 0;
  return size;
}

absl::StatusOr<std::unique_ptr<SqliteConnection>> SqliteConnection::Open(
    const std::string& path, const ConnectionOptions& options) {
  TurnOffMemoryStatistics();
  if (options.create_if_missing) {
    if (absl::Status created = CreateForOwnerOnly(path); !created.ok()) return created;
  }
  std::unique_ptr<SqliteConnection> connection;
  try {
    // NOMUTEX: the pool gives a connection to one thread at a time. The busy timeout is set
    // as soon as the file opens, before the first statement can meet a lock.
    const int flags = SQLite::OPEN_READWRITE | SQLite::OPEN_NOMUTEX |
                      (options.create_if_missing ? SQLite::OPEN_CREATE : 0);
    connection.reset(new SqliteConnection(
        SQLite::Database(path, flags, BusyTimeoutMillis(options.busy_timeout)), options));
  } catch (const SQLite::Exception& e) {
    return SqliteErrorStatus(e.getErrorCode(), absl::StrCat(path, ": ", e.what()));
  }
  absl::Status configured = ConfigureConnection(connection->database_, options.busy_timeout);
  if (!configured.ok()) return configured;
  try {
    connection->database_.exec(absl::StrCat("PRAGMA mmap_size = ", options.mmap_bytes));
  } catch (const SQLite::Exception& e) {
    return SqliteErrorStatus(e.getErrorCode(), absl::StrCat(path, ": ", e.what()));
  }
  absl::Status migrated = MigrateSchema(connection->database_, options.busy_timeout);
  if (!migrated.ok()) return migrated;
  LeaveACommitInAnEmptyWriteAheadLog(connection->database_, options.busy_timeout);
  if (options.on_advice) {
    std::optional<std::string> advice;
    try {
      advice = SmallPagesAdvice(path, PageBytes(connection->database_));
    } catch (const SQLite::Exception&) {
      // Advice only: a connection that works is not refused for it.
    }
    if (advice.has_value()) options.on_advice(*advice);
  }
  return connection;
}

SqliteConnection::SqliteConnection(SQLite::Database database, const ConnectionOptions& options)
    : database_(std::move(database)), options_(options) {}

ScopedStatement SqliteConnection::Use(Statement id) {
  CachedStatement& cached = statements_[static_cast<size_t>(id)];
  if (cached.statement == nullptr) {
    // The table's $1, $2 ... are SQLite's ?1, ?2 ... ($N would be a named parameter here).
    std::string sql = GetStatementSql(id, Dialect::kSqlite).sql;
    for (size_t i = 0; i + 1 < sql.size(); ++i) {
      if (sql[i] == '$' && absl::ascii_isdigit(sql[i + 1])) sql[i] = '?';
    }
    cached.statement = std::make_unique<SQLite::Statement>(database_, sql);
    cached.text_parameters.resize(cached.statement->getBindParameterCount() + 1);
  }
  return ScopedStatement(*cached.statement, cached.text_parameters);
}

absl::StatusOr<ResultRows> SqliteConnection::Execute(Statement statement, const Params& params) {
  return CatchSqlite(*this, [&]() -> absl::StatusOr<ResultRows> {
    ScopedStatement use = Use(statement);
    int index = 1;
    for (const Params::Value& value : params.values()) {
      if (value.is_null) {
        use.BindNull(index++);
      } else if (value.type == Params::Type::kInt64) {
        use.BindInt64(index++, value.integer);
      } else if (value.type == Params::Type::kBytes) {
        use.BindBlob(index++, value.text);
      } else {
        use.BindText(index++, value.text);
      }
    }
    SQLite::Statement& raw = use.statement_;
    ResultRows rows(raw.getColumnCount());
    while (raw.executeStep()) {
      for (int column = 0; column < raw.getColumnCount(); ++column) {
        SQLite::Column value = raw.getColumn(column);
        if (value.isNull()) {
          rows.AddNull();
        } else if (value.isInteger() || value.isFloat()) {
          rows.AddInt64(value.getInt64());
        } else {
          rows.AddText(
              absl::string_view(static_cast<const char*>(value.getBlob()), value.getBytes()));
        }
      }
    }
    rows.set_changed_rows(sqlite3_changes(database_.getHandle()));
    return rows;
  });
}

absl::Status SqliteConnection::Control(TransactionControl which, bool retry_while_busy) {
  static constexpr const char* kSql[] = {"BEGIN", "BEGIN IMMEDIATE", "COMMIT", "ROLLBACK"};
  return CatchSqlite(*this, [&] {
    std::unique_ptr<SQLite::Statement>& control = control_[which];
    if (control == nullptr) control = std::make_unique<SQLite::Statement>(database_, kSql[which]);
    auto run = [&] {
      control->tryReset();
      control->exec();
    };
    if (retry_while_busy) {
      RetryWhileBusy(options_.busy_timeout, run);
    } else {
      run();
    }
    control->tryReset();
    return absl::OkStatus();
  });
}

absl::Status SqliteConnection::Begin(TransactionKind kind) {
  // A write serialises with every other writer, waiting for the write lock within busy_timeout.
  if (kind == TransactionKind::kRead) return Control(kBegin, false);
  return Control(kBeginImmediate, true);
}

absl::Status SqliteConnection::Commit() { return Control(kCommit, false); }

// A connection left inside a transaction would fail its next BEGIN, so one that cannot leave it
// is closed instead of reused.
void SqliteConnection::Rollback() {
  if (!Control(kRollback, false).ok()) database_.tryExec("ROLLBACK");
  if (sqlite3_get_autocommit(database_.getHandle()) == 0) MarkBroken();
}

bool SqliteConnection::DatabaseChangedSinceLastAsked() {
  unsigned int version = data_version_;
  if (sqlite3_file_control(database_.getHandle(), "main", SQLITE_FCNTL_DATA_VERSION, &version) !=
      SQLITE_OK) {
    return true;  // unknown: a renewal too many costs less than a missed change
  }
  const bool changed = version != data_version_;
  data_version_ = version;
  return changed;
}

void SqliteConnection::NoteError(int sqlite_error_code) {
  if (IsConnectionFault(sqlite_error_code)) broken_ = true;
}

void ScopedStatement::BindText(int index, absl::string_view text) {
  std::string& owned = text_parameters_[index];
  owned.assign(text.data(), text.size());
  statement_.bindNoCopy(index, owned);
}

void ScopedStatement::BindBlob(int index, absl::string_view bytes) {
  statement_.bindNoCopy(index, bytes.data(), static_cast<int>(bytes.size()));
}

void ScopedStatement::BindInt64(int index, int64_t value) { statement_.bind(index, value); }

void ScopedStatement::BindNull(int index) { statement_.bind(index); }

void ScopedStatement::BindTime(int index, absl::Time time) {
  std::optional<int64_t> micros = TimeToMicros(time);
  if (micros.has_value()) {
    statement_.bind(index, *micros);
  } else {
    statement_.bind(index);
  }
}

absl::string_view ScopedStatement::TextView(int column) const {
  SQLite::Column value = statement_.getColumn(column);
  const char* text = value.getText();  // converts to text first, so the size is the text's
  return absl::string_view(text, value.getBytes());
}

absl::Time ScopedStatement::Time(int column) const {
  SQLite::Column value = statement_.getColumn(column);
  if (value.isNull()) return absl::InfiniteFuture();
  return absl::FromUnixMicros(value.getInt64());
}

}  // namespace verdict
