#include "store/sqlite/schema.h"

#include <SQLiteCpp/Exception.h>

#include <algorithm>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "store/sqlite/sqlite_error.h"

namespace verdict {
namespace {

// Reads go through each connection's page cache, up to 16 MiB (a negative cache_size is in
// KiB): enough to keep a policy of tens of thousands of agents hot, bounded per connection.
// Pages outside it come through the memory map the connection sets up with its options
// (SqliteOptions::mmap_bytes, which says what that costs when the disk fails).
constexpr char kConnectionPragmas[] =
    "PRAGMA synchronous = NORMAL;"
    "PRAGMA foreign_keys = ON;"
    "PRAGMA cache_size = -16384;"
    "PRAGMA temp_store = MEMORY;";

absl::Status ExceptionStatus(const SQLite::Exception& e) {
  return SqliteErrorStatus(e.getErrorCode(), e.what());
}

}  // namespace

void RetryWhileBusy(absl::Duration budget, absl::FunctionRef<void()> attempt) {
  const absl::Time deadline = absl::Now() + budget;
  absl::Duration pause = absl::Milliseconds(1);
  while (true) {
    try {
      attempt();
      return;
    } catch (const SQLite::Exception& e) {
      if (!IsBusy(e.getErrorCode()) || absl::Now() + pause > deadline) throw;
    }
    absl::SleepFor(pause);
    pause = std::min(pause * 2, absl::Milliseconds(50));
  }
}

int SchemaVersion(SQLite::Database& db) { return db.execAndGet("PRAGMA user_version").getInt(); }

int64_t PageBytes(SQLite::Database& db) { return db.execAndGet("PRAGMA page_size").getInt64(); }

std::optional<std::string> SmallPagesAdvice(absl::string_view path, int64_t page_bytes) {
  if (page_bytes <= 0 || page_bytes >= kNewDatabasePageBytes) return std::nullopt;
  // Quoted for a POSIX shell, so the command can be pasted whatever the path holds; a quote in
  // it is written '"'"' rather than '\'', since the log shows a backslash doubled.
  const std::string quoted = absl::StrCat("'", absl::StrReplaceAll(path, {{"'", R"('"'"')"}}), "'");
  return absl::StrCat(
      path, " has pages of ", page_bytes, " bytes; verdict makes a new database with ",
      kNewDatabasePageBytes,
      ", in which a decision finds its agent's record through fewer pages (3 to 14% less time "
      "per call at 50,000 agents, bench/PERFORMANCE.md). To move it, stop every program using it "
      "and run: sqlite3 ",
      quoted, " 'PRAGMA journal_mode=DELETE; PRAGMA page_size=", kNewDatabasePageBytes,
      "; VACUUM; PRAGMA journal_mode=WAL;' (README.md, \"Upgrading\")");
}

absl::Status ConfigureConnection(SQLite::Database& db, absl::Duration busy_timeout) {
  try {
    // Before the journal mode, which writes a new database's first page.
    db.exec(absl::StrCat("PRAGMA page_size = ", kNewDatabasePageBytes));
    std::string journal_mode;
    RetryWhileBusy(busy_timeout,
                   [&] { journal_mode = db.execAndGet("PRAGMA journal_mode = WAL").getString(); });
    if (journal_mode != "wal") {
      return absl::UnavailableError(absl::StrCat("policy store unavailable: ", db.getFilename(),
                                                 " cannot use WAL (journal mode is ", journal_mode,
                                                 ")"));
    }
    db.exec(kConnectionPragmas);
    db.exec(absl::StrCat("PRAGMA journal_size_limit = ", kWriteAheadLogSizeLimit));
    db.exec(absl::StrCat("PRAGMA wal_autocheckpoint = ",
                         kAutoCheckpointBytes / std::max<int64_t>(PageBytes(db), 512)));
  } catch (const SQLite::Exception& e) {
    return ExceptionStatus(e);
  }
  return absl::OkStatus();
}

namespace {

// SQLite keeps the version in PRAGMA user_version, and BEGIN IMMEDIATE takes its one write lock.
class SqliteSchemaSteps final : public SchemaSteps {
 public:
  SqliteSchemaSteps(SQLite::Database& db, absl::Duration busy_timeout)
      : db_(db), busy_timeout_(busy_timeout) {}

  std::string Name() const override { return db_.getFilename(); }
  absl::StatusOr<int> Version() override {
    int version = 0;
    absl::Status read = Catch([&] { version = SchemaVersion(db_); });
    if (!read.ok()) return read;
    return version;
  }
  absl::Status Begin() override {
    return Catch([&] { RetryWhileBusy(busy_timeout_, [&] { db_.exec("BEGIN IMMEDIATE"); }); });
  }
  absl::Status Apply(const Migration& migration) override {
    return Catch([&] {
      db_.exec(migration.sql);
      db_.exec(absl::StrCat("PRAGMA user_version = ", migration.version));
    });
  }
  absl::Status Commit() override {
    return Catch([&] { db_.exec("COMMIT"); });
  }
  void Rollback() override { db_.tryExec("ROLLBACK"); }

 private:
  static absl::Status Catch(absl::FunctionRef<void()> body) {
    try {
      body();
      return absl::OkStatus();
    } catch (const SQLite::Exception& e) {
      return ExceptionStatus(e);
    }
  }

  SQLite::Database& db_;
  const absl::Duration busy_timeout_;
};

}  // namespace

absl::Status MigrateSchema(SQLite::Database& db, absl::Duration busy_timeout,
                           absl::Span<const Migration> migrations) {
  SqliteSchemaSteps steps(db, busy_timeout);
  return RunMigrations(steps, migrations);
}

}  // namespace verdict
