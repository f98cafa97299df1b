#include "store/connection_pool.h"

#include <sqlite3.h>

#include <string>

#include "absl/status/status.h"
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

}  // namespace
}  // namespace verdict
