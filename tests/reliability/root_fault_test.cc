// Faults that need root, run by scripts/test.d/reliability.sh outside Bazel's sandbox (CI runs
// as root): the database file made read-only, and the disk under it full. Root ignores file
// permissions, so "read-only" is the immutable attribute (chattr +i), which refuses writes even
// through descriptors already open; the full disk is a small tmpfs filled to the last byte.
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/reliability/fault_harness.h"
#include "tests/verdictd_process.h"

namespace verdict {
namespace {

// A file system this small fills in a moment; the store's database and WAL take well under 1 MiB.
constexpr char kTmpfsSize[] = "size=4m";

int Shell(const std::string& command) { return std::system(command.c_str()); }

class RootFaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(geteuid(), 0) << "needs root: run scripts/test.d/reliability.sh";
  }
};

TEST_F(RootFaultTest, ReadOnlyDatabaseFailsClosedUntilWritable) {
  const std::string db_path = TestDirectory("read-only") + "/verdict.db";
  absl::StatusOr<ServedDemoPolicy> served = ServedDemoPolicy::Start(db_path);
  ASSERT_TRUE(served.ok()) << served.status();
  ExpectFailsClosedAndRecovers(
      *served, [&] { ASSERT_EQ(Shell("chattr +i " + db_path), 0) << "chattr +i refused"; },
      [&] { ASSERT_EQ(Shell("chattr -i " + db_path), 0); });
  Shell("chattr -i " + db_path + " 2>/dev/null");
}

TEST_F(RootFaultTest, FullDiskFailsClosedUntilSpaceIsFreed) {
  const std::string mount_point = TestDirectory("full-disk");
  ASSERT_EQ(mount("verdict-full-disk", mount_point.c_str(), "tmpfs", 0, kTmpfsSize), 0)
      << std::strerror(errno);
  {
    const std::string db_path = mount_point + "/verdict.db";
    const std::string filler = mount_point + "/filler";
    absl::StatusOr<ServedDemoPolicy> served = ServedDemoPolicy::Start(db_path);
    ASSERT_TRUE(served.ok()) << served.status();
    ExpectFailsClosedAndRecovers(
        *served,
        [&] {
          // dd stops with "No space left on device": the disk is full.
          Shell("dd if=/dev/zero of=" + filler + " bs=64k 2>/dev/null");
        },
        [&] { ASSERT_EQ(std::remove(filler.c_str()), 0); });
  }  // verdictd stops here, so the file system can be unmounted.
  EXPECT_EQ(umount2(mount_point.c_str(), MNT_DETACH), 0) << std::strerror(errno);
}

}  // namespace
}  // namespace verdict
