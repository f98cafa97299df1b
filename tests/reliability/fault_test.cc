// Faults that need no privilege: the database file deleted while verdictd serves from it, and
// its header overwritten. Read-only and full-disk faults need root: root_fault_test.cc.
#include <SQLiteCpp/Database.h>
#include <fcntl.h>
#include <unistd.h>

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
