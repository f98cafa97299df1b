// The SQLite store's own faults: a database file that is missing, misplaced or not a database,
// and options it refuses; and what it tells an operator of a file it would make differently. What
// every store must do (snapshots, write transactions, freshness, the connection pool) is
// store/store_contract_test.cc, which runs on SQLite always.
#include "store/sqlite_store.h"

#include <SQLiteCpp/Database.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/sqlite/schema.h"
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

// What a store told through SqliteOptions::on_advice, from whichever thread opened a connection.
class Advice {
 public:
  std::function<void(const std::string&)> Collector() {
    return [this](const std::string& advice) {
      absl::MutexLock lock(&mu_);
      told_.push_back(advice);
    };
  }
  std::vector<std::string> told() {
    absl::MutexLock lock(&mu_);
    return told_;
  }

 private:
  absl::Mutex mu_;
  std::vector<std::string> told_;
};

// Opens `path` with three connections in its pool and has all three opened, each of them reading
// the file's page size.
std::unique_ptr<SqliteStore> OpenEveryConnection(const std::string& path, Advice& advice) {
  SqliteOptions options;
  options.connections = 3;
  options.on_advice = advice.Collector();
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(path, options);
  EXPECT_TRUE(store.ok()) << store.status();
  if (!store.ok()) return nullptr;
  std::vector<std::unique_ptr<ReadSnapshot>> at_once;
  for (int i = 0; i < options.connections; ++i) {
    absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = (*store)->BeginRead();
    EXPECT_TRUE(snapshot.ok()) << snapshot.status();
    if (snapshot.ok()) at_once.push_back(*std::move(snapshot));
  }
  return *std::move(store);
}

// A database made with SQLite's default pages of 4 KiB, as sqlite3 or a verdict from before 16
// KiB pages made it.
std::string DatabaseWithSmallPages() {
  const std::string path = FreshDatabasePath();
  SQLite::Database made(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  made.exec("PRAGMA page_size = 4096; PRAGMA journal_mode = WAL;");
  return path;
}

TEST(SqliteStoreTest, AnOperatorIsToldOnceOfADatabaseWithSmallPagesAndHowToMoveIt) {
  const std::string path = DatabaseWithSmallPages();
  Advice advice;
  {
    std::unique_ptr<SqliteStore> store = OpenEveryConnection(path, advice);
    ASSERT_NE(store, nullptr);
  }
  const std::vector<std::string> told = advice.told();
  ASSERT_EQ(told.size(), 1u) << "every connection finds the same pages; the store says it once";
  EXPECT_THAT(told[0], HasSubstr(absl::StrCat(path, " has pages of 4096 bytes")));

  // The advice holds the statements that move the file; run as it says, with the store closed,
  // they leave a database the store has nothing to say about.
  const std::string statements_start = " 'PRAGMA";
  const size_t start = told[0].find(statements_start);
  ASSERT_NE(start, std::string::npos) << told[0];
  const size_t end = told[0].find('\'', start + 2);
  ASSERT_NE(end, std::string::npos) << told[0];
  {
    SQLite::Database moved(path, SQLite::OPEN_READWRITE);
    moved.exec(told[0].substr(start + 2, end - start - 2));
    EXPECT_EQ(PageBytes(moved), kNewDatabasePageBytes);
  }
  Advice after;
  ASSERT_NE(OpenEveryConnection(path, after), nullptr);
  EXPECT_TRUE(after.told().empty()) << after.told()[0];
}

TEST(SqliteStoreTest, ADatabaseTheStoreMadeNeedsNoAdvice) {
  Advice advice;
  ASSERT_NE(OpenEveryConnection(FreshDatabasePath(), advice), nullptr);
  EXPECT_TRUE(advice.told().empty()) << advice.told()[0];
}

TEST(SqliteStoreTest, TheAdvisedCommandQuotesThePathForTheShell) {
  const std::optional<std::string> advice = SmallPagesAdvice("/var/lib/it's.db", 4096);
  ASSERT_TRUE(advice.has_value());
  EXPECT_THAT(*advice, HasSubstr(R"(sqlite3 '/var/lib/it'"'"'s.db' 'PRAGMA)"));
  EXPECT_EQ(SmallPagesAdvice("/var/lib/verdict.db", kNewDatabasePageBytes), std::nullopt);
  EXPECT_EQ(SmallPagesAdvice("/var/lib/verdict.db", 65536), std::nullopt);
}

}  // namespace
}  // namespace verdict
