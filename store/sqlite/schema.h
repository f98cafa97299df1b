// Opening a verdict database safely: per-connection settings and schema migration, both safe
// when several threads or processes open the same brand-new file at the same instant.
//
//   SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, busy_timeout_ms);
//   absl::Status s = ConfigureConnection(db, absl::Seconds(5));
//   if (s.ok()) s = MigrateSchema(db, absl::Seconds(5));
#ifndef VERDICT_STORE_SQLITE_SCHEMA_H_
#define VERDICT_STORE_SQLITE_SCHEMA_H_

#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <optional>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "store/migrations.h"

namespace verdict {

// Runs `attempt` again while it throws SQLITE_BUSY/SQLITE_LOCKED, until `budget` has passed;
// then, or at once for any other failure, rethrows. SQLite's busy handler does not cover every
// lock wait (changing the journal mode, some BEGIN IMMEDIATE races), so lock-taking steps go
// through here.
void RetryWhileBusy(absl::Duration budget, absl::FunctionRef<void()> attempt);

// The size a connection truncates the write-ahead log back to when it restarts it (SQLite
// otherwise keeps the file as large as it ever grew, reusing it from the start). A log larger
// than this has not been restarted since it grew: store/sqlite/read_lock_keeper.h stands aside.
inline constexpr int64_t kWriteAheadLogSizeLimit = 16 << 20;

// The page size of a database verdict creates; SQLite's default is 4 KiB. A decision record
// (store/migrations.cc, version 4) is a row of about 670 bytes in a table without rowids, whose
// interior pages hold whole rows: five or six to a 4 KiB page, so the table was seven levels
// deep at 50,000 agents and every record a decision read cost a walk through seven pages. At 16
// KiB it is four; a direct decision, three delegation hops and ValidateToken took 3 to 6%, 10 to
// 14% and 4 to 9% less time, while admin writes, which log whole pages, ran at about 0.8x the rate
// (bench/PERFORMANCE.md, "Issue 21: 16 KiB pages"). A database keeps the page size it was
// created with: an existing one is read as it is.
inline constexpr int kNewDatabasePageBytes = 16 << 10;

// The database's page size in bytes. Throws SQLite::Exception, as the statements do.
int64_t PageBytes(SQLite::Database& db);

// What to tell the operator of the database at `path`, whose pages are `page_bytes` long, when
// they are smaller than kNewDatabasePageBytes (a database made by a verdict from before 16 KiB
// pages, or by another program): what its small pages cost and the command that moves it to
// the size verdict makes. nullopt for any other size.
std::optional<std::string> SmallPagesAdvice(absl::string_view path, int64_t page_bytes);

// How much the write-ahead log takes in before a commit checkpoints it: SQLite's default, 1,000
// pages of 4 KiB, kept in bytes whatever the database's page size, so a log of 16 KiB pages is
// not checkpointed four times more rarely, nor left to grow to kWriteAheadLogSizeLimit, where
// the kept read lock stands aside, between two checkpoints.
inline constexpr int64_t kAutoCheckpointBytes = 1000 * 4096;

// page_size=kNewDatabasePageBytes (which only a database that does not exist yet takes),
// journal_mode=WAL (retried: it needs a lock another opener may hold), synchronous=NORMAL
// (durable across process crashes; WAL keeps the file consistent across power loss),
// foreign_keys=ON, a bounded page cache, journal_size_limit (kWriteAheadLogSizeLimit) and
// wal_autocheckpoint (kAutoCheckpointBytes). The busy timeout is set when the connection opens.
absl::Status ConfigureConnection(SQLite::Database& db, absl::Duration busy_timeout);

// Applies every migration newer than the database's PRAGMA user_version (store/migrations.h
// RunMigrations), in one BEGIN IMMEDIATE transaction.
absl::Status MigrateSchema(SQLite::Database& db, absl::Duration busy_timeout,
                           absl::Span<const Migration> migrations = Migrations());

// The database's PRAGMA user_version. Throws SQLite::Exception.
int SchemaVersion(SQLite::Database& db);

}  // namespace verdict

#endif  // VERDICT_STORE_SQLITE_SCHEMA_H_
