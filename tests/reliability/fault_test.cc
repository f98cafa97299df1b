// Faults that need no privilege: the database file deleted or replaced while verdictd serves
// from it, and its header overwritten. Read-only and full-disk faults need root:
// root_fault_test.cc.
#include <SQLiteCpp/Database.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "tests/reliability/fault_harness.h"
#include "tests/verdictd_process.h"

namespace verdict {
namespace {

std::string DatabasePath() {
  return TestDirectory(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
         "/verdict.db";
}

// SQLite would go on reading the deleted file through its open descriptors. A second link to
// the file keeps its contents, so the fault is removed by linking it back.
TEST(FaultTest, DeletedDatabaseFailsClosedUntilRestored) {
  const std::string db_path = DatabasePath();
  absl::StatusOr<ServedDemoPolicy> served = ServedDemoPolicy::Start(db_path);
  ASSERT_TRUE(served.ok()) << served.status();
  const std::string kept = db_path + ".kept";
  ExpectFailsClosedAndRecovers(
      *served,
      [&] {
        ASSERT_EQ(link(db_path.c_str(), kept.c_str()), 0);
        ASSERT_EQ(unlink(db_path.c_str()), 0);
      },
      [&] { ASSERT_EQ(link(kept.c_str(), db_path.c_str()), 0); });
}

std::string FileBytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

// A restore under a running verdictd: another database renamed onto the path. SQLite finds a
// database's write-ahead log by name, and the old file's log lives on while any connection holds
// that file open, so the new file would be read with the old file's log (the old policy served)
// and have that log checkpointed into it. verdictd answers UNAVAILABLE instead, never opens the
// new file, and serves again once the file it opened is back.
TEST(FaultTest, ReplacedDatabaseFailsClosedAndIsLeftUntouched) {
  const std::string db_path = DatabasePath();
  absl::StatusOr<ServedDemoPolicy> served = ServedDemoPolicy::Start(db_path);
  ASSERT_TRUE(served.ok()) << served.status();
  // The replacement: the same policy with the reader suspended, a file of its own.
  const std::string replacement = db_path + ".replacement";
  SQLite::Database(db_path, SQLite::OPEN_READWRITE).exec("PRAGMA wal_checkpoint(TRUNCATE)");
  {
    std::ofstream(replacement, std::ios::binary) << FileBytes(db_path);
    SQLite::Database copy(replacement, SQLite::OPEN_READWRITE);
    copy.exec("UPDATE agents SET status = 'suspended' WHERE id = 'agt_demo_reader'");
  }
  const std::string replacement_bytes = FileBytes(replacement);
  const std::string kept_replacement = replacement + ".kept";
  ASSERT_EQ(link(replacement.c_str(), kept_replacement.c_str()), 0);
  const std::string kept = db_path + ".kept";
  ExpectFailsClosedAndRecovers(
      *served,
      [&] {
        ASSERT_EQ(link(db_path.c_str(), kept.c_str()), 0);
        ASSERT_EQ(std::rename(replacement.c_str(), db_path.c_str()), 0);
      },
      [&] { ASSERT_EQ(std::rename(kept.c_str(), db_path.c_str()), 0); });
  EXPECT_TRUE(FileBytes(kept_replacement) == replacement_bytes)
      << "verdictd wrote into the file that replaced its database";
  SQLite::Database left(kept_replacement, SQLite::OPEN_READONLY);
  EXPECT_EQ(left.execAndGet("SELECT status FROM agents WHERE id = 'agt_demo_reader'").getString(),
            "suspended");
}

// The write-ahead log deleted under a running verdictd: its connections would go on committing
// into the unlinked file, which nothing reads again once they close, while any process that
// opens the database starts another log. A fault that lasts until verdictd restarts.
TEST(FaultTest, DeletedWriteAheadLogFailsClosedUntilRestart) {
  const std::string db_path = DatabasePath();
  absl::StatusOr<ServedDemoPolicy> served = ServedDemoPolicy::Start(db_path);
  ASSERT_TRUE(served.ok()) << served.status();
  ExpectFailsClosed(*served, [&] { ASSERT_EQ(std::remove((db_path + "-wal").c_str()), 0); });
}

// The first page (the header and the schema) overwritten in place; repaired by writing the
// original page back. The WAL is checkpointed into the file first: a newer copy of the page in
// the WAL would otherwise be written over the damage by the next checkpoint, healing it.
TEST(FaultTest, CorruptedDatabaseFailsClosedUntilRepaired) {
  const std::string db_path = DatabasePath();
  absl::StatusOr<ServedDemoPolicy> served = ServedDemoPolicy::Start(db_path);
  ASSERT_TRUE(served.ok()) << served.status();
  constexpr size_t kPage = 4096;
  std::string original(kPage, '\0');
  const int fd = open(db_path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  ExpectFailsClosedAndRecovers(
      *served,
      [&] {
        SQLite::Database(db_path, SQLite::OPEN_READWRITE).exec("PRAGMA wal_checkpoint(TRUNCATE)");
        ASSERT_EQ(pread(fd, original.data(), kPage, 0), static_cast<ssize_t>(kPage));
        const std::string garbage(kPage, '\xA5');
        ASSERT_EQ(pwrite(fd, garbage.data(), kPage, 0), static_cast<ssize_t>(kPage));
      },
      [&] { ASSERT_EQ(pwrite(fd, original.data(), kPage, 0), static_cast<ssize_t>(kPage)); });
  close(fd);
}

}  // namespace
}  // namespace verdict
