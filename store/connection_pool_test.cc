#include "store/connection_pool.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "store/sqlite/sqlite_source.h"
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
  ConnectionPool pool(SqliteSource(FreshDatabasePath(), ConnectionOptions{}), {.size = 1});
  {
    absl::StatusOr<ConnectionPool::Lease> lease = pool.Checkout();
    ASSERT_TRUE(lease.ok()) << lease.status();
    Mark(lease->As<SqliteConnection>());
  }
  absl::StatusOr<ConnectionPool::Lease> again = pool.Checkout();
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(IsMarked(again->As<SqliteConnection>()));
}

TEST(ConnectionPoolTest, ConnectionThatSawAFaultIsReplacedByAFreshOne) {
  ConnectionPool pool(SqliteSource(FreshDatabasePath(), ConnectionOptions{}), {.size = 1});
  {
    absl::StatusOr<ConnectionPool::Lease> lease = pool.Checkout();
    ASSERT_TRUE(lease.ok());
    Mark(lease->As<SqliteConnection>());
    lease->As<SqliteConnection>().NoteError(SQLITE_IOERR_READ);
    EXPECT_TRUE(lease->As<SqliteConnection>().broken());
  }
  absl::StatusOr<ConnectionPool::Lease> fresh = pool.Checkout();
  ASSERT_TRUE(fresh.ok());
  EXPECT_FALSE(IsMarked(fresh->As<SqliteConnection>()));
}

TEST(ConnectionPoolTest, BusyOrMisuseDoesNotCloseTheConnection) {
  ConnectionPool pool(SqliteSource(FreshDatabasePath(), ConnectionOptions{}), {.size = 1});
  {
    absl::StatusOr<ConnectionPool::Lease> lease = pool.Checkout();
    ASSERT_TRUE(lease.ok());
    Mark(lease->As<SqliteConnection>());
    lease->As<SqliteConnection>().NoteError(SQLITE_BUSY);
    lease->As<SqliteConnection>().NoteError(SQLITE_CONSTRAINT);
  }
  absl::StatusOr<ConnectionPool::Lease> again = pool.Checkout();
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(IsMarked(again->As<SqliteConnection>()));
}

TEST(ConnectionPoolTest, FailedOpenGivesItsSlotBack) {
  ConnectionOptions options;
  options.create_if_missing = false;
  const std::string path = FreshDatabasePath();
  ConnectionPool pool(SqliteSource(path, options), {.size = 1});
  // Each failure must return its slot: with one slot, a leak would block the next checkout.
  for (int attempt = 0; attempt < 3; ++attempt) {
    EXPECT_EQ(pool.Checkout().status().code(), absl::StatusCode::kUnavailable);
  }
  ConnectionPool creator(SqliteSource(path, ConnectionOptions{}), {.size = 1});
  ASSERT_TRUE(creator.Checkout().ok());
  EXPECT_TRUE(pool.Checkout().ok());
}

// verdictd opens several pools on one database (the policy store's, the admin credential's, the
// decision log's), some only when first used. They share one watch: a pool that opens after
// the file was deleted or replaced must neither create an empty database nor take the
// replacement for the database.
TEST(ConnectionPoolTest, APoolOpenedAfterAFaultSeesTheFaultItsSiblingsSee) {
  const std::string path = FreshDatabasePath();
  ConnectionPool store_pool(SqliteSource(path, ConnectionOptions{}), {.size = 1});
  ASSERT_TRUE(store_pool.Checkout().ok());

  ASSERT_EQ(std::rename(path.c_str(), (path + ".away").c_str()), 0);
  ConnectionPool late_pool(SqliteSource(path, ConnectionOptions{}), {.size = 1});
  const absl::Status deleted = late_pool.Checkout().status();
  EXPECT_EQ(deleted.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(absl::StrContains(deleted.message(), "deleted or moved away")) << deleted;
  struct stat status;
  EXPECT_NE(stat(path.c_str(), &status), 0) << "the late pool created an empty database";

  ConnectionPool(SqliteSource(path + ".other", ConnectionOptions{}), {.size = 1})
      .Checkout()
      .IgnoreError();
  ASSERT_EQ(std::rename((path + ".other").c_str(), path.c_str()), 0);
  const absl::Status replaced = late_pool.Checkout().status();
  EXPECT_EQ(replaced.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(absl::StrContains(replaced.message(), "than the one verdictd opened")) << replaced;

  ASSERT_EQ(std::rename((path + ".away").c_str(), path.c_str()), 0);
  absl::SleepFor(absl::Milliseconds(150));  // the watch's interval
  EXPECT_TRUE(late_pool.Checkout().ok());
  EXPECT_TRUE(store_pool.Checkout().ok());
}

// The pool itself, over a backend that only counts: what every backend gets from it.
class CountedConnection final : public Connection {
 public:
  explicit CountedConnection(int id) : id(id) {}
  Dialect dialect() const override { return Dialect::kSqlite; }
  absl::StatusOr<ResultRows> Execute(Statement, const Params&) override { return ResultRows(); }
  absl::Status Begin(TransactionKind) override { return absl::OkStatus(); }
  absl::Status Commit() override { return absl::OkStatus(); }
  void Rollback() override {}
  bool Reusable() const override { return !interrupted; }
  void Interrupt() override { interrupted = true; }

  const int id;
  std::atomic<bool> interrupted{false};
};

class CountingSource final : public ConnectionSource {
 public:
  absl::StatusOr<Opened> Open(const std::function<bool()>&) override {
    if (fail_from > 0 && opened + 1 >= fail_from) {
      return absl::UnavailableError("policy store unavailable: the test's source refused");
    }
    return Opened{std::make_unique<CountedConnection>(++opened), 0};
  }
  absl::StatusOr<std::optional<uint64_t>> Reuse(Connection&, uint64_t epoch) override {
    if (refuse_idle) return std::nullopt;
    return epoch;
  }
  int opened = 0;
  bool refuse_idle = false;
  int fail_from = 0;  // when > 0, this open and every later one fail (counted from 1)
};

int IdOf(const ConnectionPool::Lease& lease) { return lease.As<CountedConnection>().id; }

TEST(ConnectionPoolTest, AnIdleConnectionTheSourceRefusesIsReplacedByAFreshOne) {
  auto source = std::make_unique<CountingSource>();
  CountingSource& counts = *source;
  ConnectionPool pool(std::move(source), {.size = 1});
  ASSERT_EQ(IdOf(*pool.Checkout()), 1);
  EXPECT_EQ(IdOf(*pool.Checkout()), 1);
  counts.refuse_idle = true;
  EXPECT_EQ(IdOf(*pool.Checkout()), 2);
}

TEST(ConnectionPoolTest, OpenAllLeavesEverySlotWithAnIdleConnectionSoNoLaterCheckoutOpens) {
  auto source = std::make_unique<CountingSource>();
  CountingSource& counts = *source;
  ConnectionPool pool(std::move(source), {.size = 3});
  ASSERT_TRUE(pool.Checkout().ok());  // the store's first connection, opened at start
  ASSERT_EQ(counts.opened, 1);

  ASSERT_TRUE(pool.OpenAll().ok());
  EXPECT_EQ(counts.opened, 3) << "the idle one kept, two opened";
  {
    // The most calls the pool serves at once: each finds a connection open.
    absl::StatusOr<ConnectionPool::Lease> a = pool.Checkout();
    absl::StatusOr<ConnectionPool::Lease> b = pool.Checkout();
    absl::StatusOr<ConnectionPool::Lease> c = pool.Checkout();
    ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  }
  EXPECT_EQ(counts.opened, 3);
  ASSERT_TRUE(pool.OpenAll().ok());
  EXPECT_EQ(counts.opened, 3) << "a full pool opens nothing more";
}

TEST(ConnectionPoolTest, OpenAllReportsTheFirstFailedOpenAndKeepsWhatItOpened) {
  auto source = std::make_unique<CountingSource>();
  CountingSource& counts = *source;
  counts.fail_from = 3;  // the third open fails
  ConnectionPool pool(std::move(source), {.size = 3, .wait_limit = absl::Seconds(5)});
  EXPECT_EQ(pool.OpenAll().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(counts.opened, 2);

  counts.fail_from = 0;
  // The two opened wait in the pool, and the failed open gave its slot back: three calls at
  // once get three connections, one of them opened now.
  absl::StatusOr<ConnectionPool::Lease> a = pool.Checkout();
  absl::StatusOr<ConnectionPool::Lease> b = pool.Checkout();
  absl::StatusOr<ConnectionPool::Lease> c = pool.Checkout();
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(counts.opened, 3);
}

TEST(ConnectionPoolTest, ACheckoutWaitsForAFreeConnectionAtMostTheWaitLimit) {
  ConnectionPool pool(std::make_unique<CountingSource>(),
                      {.size = 1, .wait_limit = absl::Milliseconds(50)});
  absl::StatusOr<ConnectionPool::Lease> held = pool.Checkout();
  ASSERT_TRUE(held.ok());
  EXPECT_EQ(pool.Checkout().status().code(), absl::StatusCode::kUnavailable);
  held->Release();
  EXPECT_TRUE(pool.Checkout().ok());
}

TEST(ConnectionPoolTest, BreakLeasedInterruptsEveryLeasedConnectionAndNoneIsReused) {
  ConnectionPool pool(std::make_unique<CountingSource>(), {.size = 2, .breakable = true});
  absl::StatusOr<ConnectionPool::Lease> first = pool.Checkout();
  absl::StatusOr<ConnectionPool::Lease> second = pool.Checkout();
  ASSERT_TRUE(first.ok() && second.ok());
  pool.BreakLeased();
  EXPECT_TRUE(first->As<CountedConnection>().interrupted);
  EXPECT_TRUE(second->As<CountedConnection>().interrupted);
  first->Release();
  second->Release();
  EXPECT_EQ(IdOf(*pool.Checkout()), 3);
}

}  // namespace
}  // namespace verdict
