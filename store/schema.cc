#include "store/schema.h"

#include <SQLiteCpp/Exception.h>

#include <algorithm>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "store/sqlite_error.h"

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

absl::Status ConfigureConnection(SQLite::Database& db, absl::Duration busy_timeout) {
  try {
    std::string journal_mode;
    RetryWhileBusy(busy_timeout,
                   [&] { journal_mode = db.execAndGet("PRAGMA journal_mode = WAL").getString(); });
    if (journal_mode != "wal") {
      return absl::UnavailableError(absl::StrCat("policy store unavailable: ", db.getFilename(),
                                                 " cannot use WAL (journal mode is ", journal_mode,
                                                 ")"));
    }
    db.exec(kConnectionPragmas);
  } catch (const SQLite::Exception& e) {
    return ExceptionStatus(e);
  }
  return absl::OkStatus();
}

absl::Status MigrateSchema(SQLite::Database& db, absl::Duration busy_timeout,
                           absl::Span<const Migration> migrations) {
  const int latest = migrations.empty() ? 0 : migrations.back().version;
  auto too_new = [&](int version) {
    return absl::FailedPreconditionError(absl::StrCat(db.getFilename(), " has schema version ",
                                                      version, ", newer than this verdict knows (",
                                                      latest, "): upgrade verdict"));
  };
  try {
    int version = SchemaVersion(db);
    if (version == latest) return absl::OkStatus();
    if (version > latest) return too_new(version);

    RetryWhileBusy(busy_timeout, [&] { db.exec("BEGIN IMMEDIATE"); });
    try {
      // Another connection may have migrated while this one waited for the write lock.
      version = SchemaVersion(db);
      if (version > latest) {
        db.exec("ROLLBACK");
        return too_new(version);
      }
      for (const Migration& migration : migrations) {
        if (migration.version <= version) continue;
        try {
          db.exec(migration.sql);
        } catch (const SQLite::Exception& e) {
          // Which step failed, from which version: a database the migrations cannot bring up
          // to date says so instead of failing every call with a bare SQL error.
          db.tryExec("ROLLBACK");
          const absl::Status failed = ExceptionStatus(e);
          return absl::Status(
              failed.code(),
              absl::StrCat("migrating ", db.getFilename(), " from schema version ", version,
                           ": migration ", migration.version, " failed: ", failed.message()));
        }
        db.exec(absl::StrCat("PRAGMA user_version = ", migration.version));
      }
      db.exec("COMMIT");
    } catch (const SQLite::Exception&) {
      db.tryExec("ROLLBACK");
      throw;
    }
  } catch (const SQLite::Exception& e) {
    return ExceptionStatus(e);
  }
  return absl::OkStatus();
}

}  // namespace verdict
