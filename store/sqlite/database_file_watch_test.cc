#include "store/sqlite/database_file_watch.h"

#include <SQLiteCpp/Database.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "store/test_support.h"

namespace verdict {
namespace {

constexpr absl::Duration kEveryCall = absl::ZeroDuration();

// A real database with one table, and a connection to it.
std::unique_ptr<SQLite::Database> CreateDatabase(const std::string& path) {
  auto db = std::make_unique<SQLite::Database>(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db->exec("CREATE TABLE t (x INTEGER)");
  return db;
}

void OverwriteHeader(const std::string& path, const std::string& bytes) {
  std::fstream file(path, std::ios::binary | std::ios::in | std::ios::out);
  file.seekp(0);
  file << bytes;
}

TEST(DatabaseFileWatchTest, MissingFileIsFineUntilTheDatabaseHasBeenOpened) {
  const std::string path = FreshDatabasePath();
  DatabaseFileWatch watch(path, kEveryCall);
  // SQLite has created the file but not written it yet; then it disappears.
  SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  ASSERT_EQ(std::remove(path.c_str()), 0);
  EXPECT_TRUE(watch.Check(/*must_exist=*/false, db.getHandle()).ok());
  absl::StatusOr<uint64_t> after_open = watch.Check(/*must_exist=*/true, db.getHandle());
  EXPECT_EQ(after_open.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(absl::StrContains(after_open.status().message(), "deleted or moved away"))
      << after_open.status();
}

TEST(DatabaseFileWatchTest, DeletedFileIsAFaultUntilItIsBack) {
  const std::string path = FreshDatabasePath();
  std::unique_ptr<SQLite::Database> db = CreateDatabase(path);
  DatabaseFileWatch watch(path, kEveryCall);
  absl::StatusOr<uint64_t> before = watch.Check(true, db->getHandle());
  ASSERT_TRUE(before.ok()) << before.status();

  ASSERT_EQ(std::rename(path.c_str(), (path + ".away").c_str()), 0);
  EXPECT_EQ(watch.Check(true, db->getHandle()).status().code(), absl::StatusCode::kUnavailable);

  ASSERT_EQ(std::rename((path + ".away").c_str(), path.c_str()), 0);
  absl::StatusOr<uint64_t> after = watch.Check(true, db->getHandle());
  ASSERT_TRUE(after.ok()) << after.status();
  // Connections from before the fault are not reused.
  EXPECT_NE(*after, *before);
}

TEST(DatabaseFileWatchTest, OverwrittenHeaderIsAFaultUntilRestored) {
  const std::string path = FreshDatabasePath();
  std::unique_ptr<SQLite::Database> db = CreateDatabase(path);
  DatabaseFileWatch watch(path, kEveryCall);
  ASSERT_TRUE(watch.Check(true, db->getHandle()).ok());

  OverwriteHeader(path, "garbage garbage!");
  absl::StatusOr<uint64_t> corrupted = watch.Check(true, db->getHandle());
  EXPECT_EQ(corrupted.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(absl::StrContains(corrupted.status().message(), "not an SQLite database"))
      << corrupted.status();

  OverwriteHeader(path, std::string("SQLite format 3\0", 16));
  EXPECT_TRUE(watch.Check(true, db->getHandle()).ok());
}

TEST(DatabaseFileWatchTest, EmptyFileIsADatabaseSqliteHasNotWrittenYet) {
  const std::string path = FreshDatabasePath();
  SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  DatabaseFileWatch watch(path, kEveryCall);
  EXPECT_TRUE(watch.Check(true, db.getHandle()).ok());
}

// SQLite finds a database's write-ahead log by name: another file on the path would be read with
// the log of the file the connections still hold open. It is a fault until the first file is
// back, and nothing may be opened on it meanwhile.
TEST(DatabaseFileWatchTest, ReplacedFileIsAFaultUntilTheFirstIsBack) {
  const std::string path = FreshDatabasePath();
  std::unique_ptr<SQLite::Database> db = CreateDatabase(path);
  DatabaseFileWatch watch(path, kEveryCall);
  absl::StatusOr<uint64_t> first = watch.Check(true, db->getHandle());
  ASSERT_TRUE(first.ok()) << first.status();

  ASSERT_EQ(std::rename(path.c_str(), (path + ".first").c_str()), 0);
  CreateDatabase(path + ".restored");
  ASSERT_EQ(std::rename((path + ".restored").c_str(), path.c_str()), 0);
  for (const absl::Status& status :
       {watch.Check(true, db->getHandle()).status(), watch.CheckBeforeOpen(true),
        watch.Check(true, db->getHandle()).status()}) {
    EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
    EXPECT_TRUE(absl::StrContains(status.message(), "than the one verdictd opened")) << status;
  }

  ASSERT_EQ(std::rename((path + ".first").c_str(), path.c_str()), 0);
  absl::StatusOr<uint64_t> back = watch.Check(true, db->getHandle());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_NE(*back, *first);  // connections from before the fault are not reused
  EXPECT_TRUE(watch.CheckBeforeOpen(true).ok());
}

// A link pointed at another file is another file too: the new target may be one replaced while
// this process held the old one, its old log still alive beside it (review h36).
TEST(DatabaseFileWatchTest, LinkPointedAtAnotherFileIsAFaultUntilItPointsBack) {
  const std::string target = FreshDatabasePath();
  const std::string other = target + ".other";
  const std::string link = target + ".link";
  std::unique_ptr<SQLite::Database> first = CreateDatabase(target);
  CreateDatabase(other);
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  DatabaseFileWatch watch(link, kEveryCall);
  ASSERT_TRUE(watch.Check(true, first->getHandle()).ok());

  auto point_link_at = [&](const std::string& file) {
    ASSERT_EQ(symlink(file.c_str(), (link + ".new").c_str()), 0);
    ASSERT_EQ(std::rename((link + ".new").c_str(), link.c_str()), 0);
  };
  point_link_at(other);
  EXPECT_EQ(watch.CheckBeforeOpen(true).code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(watch.Check(true, first->getHandle()).status().code(), absl::StatusCode::kUnavailable);
  point_link_at(target);
  EXPECT_TRUE(watch.Check(true, first->getHandle()).ok());
}

// SQLite names the log after the path with its links resolved: the same file reached through a
// directory link pointed at another directory that holds a hard link to it has another log,
// and a connection opened there would write where the others never read (review h37).
TEST(DatabaseFileWatchTest, TheSameFileUnderAnotherResolvedNameIsAFault) {
  const std::string base = FreshDatabasePath();
  const std::string first_dir = base + ".a";
  const std::string second_dir = base + ".b";
  const std::string current = base + ".current";
  ASSERT_EQ(mkdir(first_dir.c_str(), 0755), 0);
  ASSERT_EQ(mkdir(second_dir.c_str(), 0755), 0);
  std::unique_ptr<SQLite::Database> db = CreateDatabase(first_dir + "/v.db");
  ASSERT_EQ(link((first_dir + "/v.db").c_str(), (second_dir + "/v.db").c_str()), 0);
  ASSERT_EQ(symlink(first_dir.c_str(), current.c_str()), 0);
  DatabaseFileWatch watch(current + "/v.db", kEveryCall);
  ASSERT_TRUE(watch.Check(true, db->getHandle()).ok());

  ASSERT_EQ(symlink(second_dir.c_str(), (current + ".new").c_str()), 0);
  ASSERT_EQ(std::rename((current + ".new").c_str(), current.c_str()), 0);
  const absl::Status renamed = watch.CheckBeforeOpen(true);
  EXPECT_EQ(renamed.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(absl::StrContains(renamed.message(), "under another name")) << renamed;
}

// A connection goes on committing into a write-ahead log that was deleted, and the next process
// to open the database starts another: those commits are lost to everyone else. While a
// connection is open SQLite never deletes the log itself, so a missing or new one is a fault,
// and a lasting one.
TEST(DatabaseFileWatchTest, AWriteAheadLogDeletedUnderOpenConnectionsIsALastingFault) {
  const std::string path = FreshDatabasePath();
  std::unique_ptr<SQLite::Database> db = CreateDatabase(path);
  db->exec("PRAGMA journal_mode = WAL");
  db->exec("INSERT INTO t VALUES (1)");
  DatabaseFileWatch watch(path, kEveryCall);
  watch.NoteConnectionOpened();
  ASSERT_TRUE(watch.Check(true, db->getHandle()).ok());

  ASSERT_EQ(std::remove((path + "-wal").c_str()), 0);
  db->exec("INSERT INTO t VALUES (2)");  // SQLite itself notices nothing
  const absl::Status lost = watch.Check(true, db->getHandle()).status();
  EXPECT_EQ(lost.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(absl::StrContains(lost.message(), "write-ahead log (-wal) was deleted or replaced"))
      << lost;
  watch.NoteConnectionClosing();
  db.reset();
  SQLite::Database fresh(path, SQLite::OPEN_READWRITE);
  watch.NoteConnectionOpened();
  EXPECT_EQ(watch.Check(true, fresh.getHandle()).status().code(), absl::StatusCode::kUnavailable);
}

// When the last connection closes, SQLite checkpoints the log and deletes it: the next
// connection's new log is no fault.
TEST(DatabaseFileWatchTest, ANewLogAfterTheLastConnectionClosedIsNoFault) {
  const std::string path = FreshDatabasePath();
  DatabaseFileWatch watch(path, kEveryCall);
  for (int round = 0; round < 3; ++round) {
    SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    watch.NoteConnectionOpened();
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("CREATE TABLE IF NOT EXISTS t (x INTEGER)");
    db.exec("INSERT INTO t VALUES (1)");
    EXPECT_TRUE(watch.Check(true, db.getHandle()).ok()) << "round " << round;
    watch.NoteConnectionClosing();  // db closes at the end of the round: its log goes with it
  }
}

// Checked before a connection is opened whatever the interval, so a pool that lost its
// connections to a fault never opens a new one on a file that is not there.
TEST(DatabaseFileWatchTest, CheckBeforeOpenDoesNotWaitForTheInterval) {
  const std::string path = FreshDatabasePath();
  std::unique_ptr<SQLite::Database> db = CreateDatabase(path);
  DatabaseFileWatch watch(path, absl::Hours(1));
  ASSERT_TRUE(watch.Check(true, db->getHandle()).ok());
  ASSERT_EQ(std::remove(path.c_str()), 0);
  const absl::Status before_open = watch.CheckBeforeOpen(true);
  EXPECT_EQ(before_open.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(absl::StrContains(before_open.message(), "deleted or moved away")) << before_open;
  // The fault now holds for the interval in Check too.
  EXPECT_EQ(watch.Check(true, db->getHandle()).status().code(), absl::StatusCode::kUnavailable);
}

TEST(DatabaseFileWatchTest, AnswerHoldsForTheInterval) {
  const std::string path = FreshDatabasePath();
  std::unique_ptr<SQLite::Database> db = CreateDatabase(path);
  DatabaseFileWatch watch(path, absl::Hours(1));
  ASSERT_TRUE(watch.Check(true, db->getHandle()).ok());
  ASSERT_EQ(std::remove(path.c_str()), 0);
  EXPECT_TRUE(watch.Check(true, db->getHandle()).ok());
}

}  // namespace
}  // namespace verdict
