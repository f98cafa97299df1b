#include "store/connection_pool.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <cstdio>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "store/test_support.h"

namespace verdict {
namespace {

// A per-connection setting marks a connection, so a test can tell whether the pool handed out
// the same one again.
void Mark(SqliteConnection& connection) { connection.database().exec("PRAGMA cache_size = 123"); }
bool IsMarked(SqliteConnection& connection) {
  return connection.database().execAndGet("PRAGMA cache_size").getInt() == 123;
}

TEST(ConnectionPoolTest, ReturnedConnectionIsReused) {
  ConnectionPool pool(FreshDatabasePath(), ConnectionOptions{}, 1);
  {
    absl::StatusOr<ConnectionPool::Lease> lease = pool.Checkout();
    ASSERT_TRUE(lease.ok()) << lease.status();
    Mark(**lease);
  }
  absl::StatusOr<ConnectionPool::Lease> again = pool.Checkout();
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(IsMarked(**again));
}

TEST(ConnectionPoolTest, ConnectionThatSawAFaultIsReplacedByAFreshOne) {
  ConnectionPool pool(FreshDatabasePath(), ConnectionOptions{}, 1);
  {
    absl::StatusOr<ConnectionPool::Lease> lease = pool.Checkout();
    ASSERT_TRUE(lease.ok());
    Mark(**lease);
    (*lease)->NoteError(SQLITE_IOERR_READ);
    EXPECT_TRUE((*lease)->broken());
  }
  absl::StatusOr<ConnectionPool::Lease> fresh = pool.Checkout();
  ASSERT_TRUE(fresh.ok());
  EXPECT_FALSE(IsMarked(**fresh));
}

TEST(ConnectionPoolTest, BusyOrMisuseDoesNotCloseTheConnection) {
  ConnectionPool pool(FreshDatabasePath(), ConnectionOptions{}, 1);
  {
    absl::StatusOr<ConnectionPool::Lease> lease = pool.Checkout();
    ASSERT_TRUE(lease.ok());
    Mark(**lease);
    (*lease)->NoteError(SQLITE_BUSY);
    (*lease)->NoteError(SQLITE_CONSTRAINT);
  }
  absl::StatusOr<ConnectionPool::Lease> again = pool.Checkout();
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(IsMarked(**again));
}

TEST(ConnectionPoolTest, FailedOpenGivesItsSlotBack) {
  ConnectionOptions options;
  options.create_if_missing = false;
  const std::string path = FreshDatabasePath();
  ConnectionPool pool(path, options, 1);
  // Each failure must return its slot: with one slot, a leak would block the next checkout.
  for (int attempt = 0; attempt < 3; ++attempt) {
    EXPECT_EQ(pool.Checkout().status().code(), absl::StatusCode::kUnavailable);
  }
  ConnectionPool creator(path, ConnectionOptions{}, 1);
  ASSERT_TRUE(creator.Checkout().ok());
  EXPECT_TRUE(pool.Checkout().ok());
}

// verdictd opens several pools on one database (the policy store's, the admin credential's, the
// decision log's), some only when first used. They share one watch: a pool that opens after
// the file was deleted or replaced must neither create an empty database nor take the
// replacement for the database.
TEST(ConnectionPoolTest, APoolOpenedAfterAFaultSeesTheFaultItsSiblingsSee) {
  const std::string path = FreshDatabasePath();
  ConnectionPool store_pool(path, ConnectionOptions{}, 1);
  ASSERT_TRUE(store_pool.Checkout().ok());

  ASSERT_EQ(std::rename(path.c_str(), (path + ".away").c_str()), 0);
  ConnectionPool late_pool(path, ConnectionOptions{}, 1);
  const absl::Status deleted = late_pool.Checkout().status();
  EXPECT_EQ(deleted.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(absl::StrContains(deleted.message(), "deleted or moved away")) << deleted;
  struct stat status;
  EXPECT_NE(stat(path.c_str(), &status), 0) << "the late pool created an empty database";

  ConnectionPool(path + ".other", ConnectionOptions{}, 1).Checkout().IgnoreError();
  ASSERT_EQ(std::rename((path + ".other").c_str(), path.c_str()), 0);
  const absl::Status replaced = late_pool.Checkout().status();
  EXPECT_EQ(replaced.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(absl::StrContains(replaced.message(), "than the one verdictd opened")) << replaced;

  ASSERT_EQ(std::rename((path + ".away").c_str(), path.c_str()), 0);
  absl::SleepFor(absl::Milliseconds(150));  // the watch's interval
  EXPECT_TRUE(late_pool.Checkout().ok());
  EXPECT_TRUE(store_pool.Checkout().ok());
}

}  // namespace
}  // namespace verdict
