// What opening a SQLite connection does to the file: a new database gets pages of
// kNewDatabasePageBytes and an existing one keeps its own, with the log checkpointed after the same
// bytes either way (store/sqlite/schema.h). And what it does to the write-ahead log: it leaves a
// commit in a log that holds none (so read transactions learn the database's size from the log,
// not from an fstat of the file: store/sqlite/sqlite_connection.cc), writes nothing more when the
// log holds one, and never waits for another writer to do it.
#include "store/sqlite/sqlite_connection.h"

#include <SQLiteCpp/Database.h>
#include <sys/stat.h>

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "store/sqlite/schema.h"
#include "store/test_support.h"

namespace verdict {
namespace {

// The file's size, or -1 when there is no file.
int64_t FileSize(const std::string& path) {
  struct stat status;
  if (stat(path.c_str(), &status) != 0) return -1;
  return static_cast<int64_t>(status.st_size);
}

std::unique_ptr<SqliteConnection> OpenOrFail(const std::string& path,
                                             const ConnectionOptions& options = {}) {
  absl::StatusOr<std::unique_ptr<SqliteConnection>> opened = SqliteConnection::Open(path, options);
  EXPECT_TRUE(opened.ok()) << opened.status();
  return opened.ok() ? *std::move(opened) : nullptr;
}

// A database created and closed again: the last connection's close checkpoints the log and
// deletes it, so the next connection starts a log with no commit.
std::string ClosedDatabase() {
  const std::string path = FreshDatabasePath();
  { std::unique_ptr<SqliteConnection> creator = OpenOrFail(path); }
  EXPECT_LE(FileSize(path + "-wal"), 0) << "the log should be gone or empty once all closed";
  return path;
}

int64_t PragmaValue(SQLite::Database& db, const char* pragma) {
  return db.execAndGet(std::string("PRAGMA ") + pragma).getInt64();
}

TEST(SqliteConnectionTest, ANewDatabaseHasSixteenKibPages) {
  std::unique_ptr<SqliteConnection> connection = OpenOrFail(FreshDatabasePath());
  ASSERT_NE(connection, nullptr);
  EXPECT_EQ(PragmaValue(connection->database(), "page_size"), 16384);
  // 1,000 pages of 4 KiB, as SQLite's default: 250 of these.
  EXPECT_EQ(PragmaValue(connection->database(), "wal_autocheckpoint"), 250);
}

TEST(SqliteConnectionTest, AnExistingDatabaseKeepsItsPageSize) {
  const std::string path = FreshDatabasePath();
  {
    // As SQLite makes a database by default, before verdict ever opened it.
    SQLite::Database made_elsewhere(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    made_elsewhere.exec("PRAGMA page_size = 4096; PRAGMA journal_mode = WAL;");
  }
  std::unique_ptr<SqliteConnection> connection = OpenOrFail(path);
  ASSERT_NE(connection, nullptr);
  EXPECT_EQ(PragmaValue(connection->database(), "page_size"), 4096);
  EXPECT_EQ(PragmaValue(connection->database(), "wal_autocheckpoint"), 1000);
  EXPECT_EQ(SchemaVersion(connection->database()), LatestSchemaVersion());
}

TEST(SqliteConnectionTest, OpeningLeavesACommitInAWriteAheadLogThatHasNone) {
  const std::string path = ClosedDatabase();
  std::unique_ptr<SqliteConnection> connection = OpenOrFail(path);
  ASSERT_NE(connection, nullptr);
  EXPECT_GT(FileSize(path + "-wal"), 0);
  // The commit writes the schema version back as it was.
  EXPECT_EQ(SchemaVersion(connection->database()), LatestSchemaVersion());
}

TEST(SqliteConnectionTest, OpeningWritesNothingWhenTheLogHoldsACommit) {
  const std::string path = ClosedDatabase();
  std::unique_ptr<SqliteConnection> first = OpenOrFail(path);
  const int64_t log_size = FileSize(path + "-wal");
  ASSERT_GT(log_size, 0);
  std::unique_ptr<SqliteConnection> second = OpenOrFail(path);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(FileSize(path + "-wal"), log_size);
}

TEST(SqliteConnectionTest, OpeningDoesNotWaitForAnotherWriter) {
  const std::string path = ClosedDatabase();
  SQLite::Database writer(path, SQLite::OPEN_READWRITE);
  writer.exec("BEGIN IMMEDIATE");  // holds the write lock, writes no frame

  ConnectionOptions options;
  options.busy_timeout = absl::Seconds(30);
  const absl::Time start = absl::Now();
  std::unique_ptr<SqliteConnection> connection = OpenOrFail(path, options);
  ASSERT_NE(connection, nullptr);
  // Far below the busy timeout: the open tried the lock once and went on without its commit.
  EXPECT_LT(absl::Now() - start, absl::Seconds(15));
  EXPECT_LE(FileSize(path + "-wal"), 0);
  // The connection waits for writers as configured again.
  EXPECT_EQ(connection->database().execAndGet("PRAGMA busy_timeout").getInt(), 30000);
  writer.exec("ROLLBACK");
}

}  // namespace
}  // namespace verdict
