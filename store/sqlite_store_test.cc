// The SQLite store's own faults: a database file that is missing, misplaced or not a database,
// and options it refuses. What every store must do (snapshots, write transactions, freshness, the
// connection pool) is store/store_contract_test.cc, which runs on SQLite always.
#include "store/sqlite_store.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/test_support.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

TEST(SqliteStoreTest, MissingDirectoryIsUnavailable) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/no/such/dir/verdict.db");
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(path);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(store.status().message(), HasSubstr(path));
}

TEST(SqliteStoreTest, StoreRecoversOnceTheDirectoryAppears) {
  const std::string directory = absl::StrCat(std::getenv("TEST_TMPDIR"), "/appears_later");
  const std::string path = directory + "/verdict.db";
  SqliteOptions options;
  options.defer_open_errors = true;
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(path, options);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->BeginRead().status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ((*store)->BeginWrite().status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ((*store)->CheckAvailable().code(), absl::StatusCode::kUnavailable);

  ASSERT_EQ(mkdir(directory.c_str(), 0700), 0);
  EXPECT_TRUE((*store)->CheckAvailable().ok());
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = (*store)->BeginRead();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  EXPECT_EQ(*(*snapshot)->FindAgent("agt_a"), std::nullopt);
}

TEST(SqliteStoreTest, PathThroughAFileIsUnavailableUntilItIsADirectory) {
  // Stands for an unreadable directory too, which the root user of a test sandbox could read.
  const std::string directory = absl::StrCat(std::getenv("TEST_TMPDIR"), "/not_a_directory");
  std::ofstream(directory) << "a file where a directory should be";
  SqliteOptions options;
  options.defer_open_errors = true;
  absl::StatusOr<std::unique_ptr<SqliteStore>> store =
      SqliteStore::Open(directory + "/verdict.db", options);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->BeginRead().status().code(), absl::StatusCode::kUnavailable);

  ASSERT_EQ(std::remove(directory.c_str()), 0);
  ASSERT_EQ(mkdir(directory.c_str(), 0700), 0);
  // The store may hold on to the fault it saw for a short while before it looks again.
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  absl::Status available = (*store)->CheckAvailable();
  while (!available.ok() && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));
    available = (*store)->CheckAvailable();
  }
  EXPECT_TRUE(available.ok()) << available;
  EXPECT_TRUE((*store)->BeginWrite().ok());
}

TEST(SqliteStoreTest, FileThatIsNotADatabaseIsUnavailable) {
  const std::string path = FreshDatabasePath("garbage");
  std::ofstream(path) << std::string(8192, 'x');
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(path);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kUnavailable) << store.status();
}

TEST(SqliteStoreTest, MissingFileIsUnavailableWhenCreationIsNotAllowed) {
  SqliteOptions options;
  options.create_if_missing = false;
  absl::StatusOr<std::unique_ptr<SqliteStore>> store =
      SqliteStore::Open(FreshDatabasePath("absent"), options);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kUnavailable);
}

TEST(SqliteStoreTest, BadOptionsAreRefused) {
  SqliteOptions no_connections;
  no_connections.connections = 0;
  EXPECT_EQ(SqliteStore::Open(FreshDatabasePath("x"), no_connections).status().code(),
            absl::StatusCode::kInvalidArgument);
  SqliteOptions negative_timeout;
  negative_timeout.busy_timeout = absl::Seconds(-1);
  EXPECT_EQ(SqliteStore::Open(FreshDatabasePath("y"), negative_timeout).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SqliteStore::Open("").status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace verdict
