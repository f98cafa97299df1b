// Which store a --db value names, and how it is shown in logs.
#include "store/open_store.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "SQLiteCpp/SQLiteCpp.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/postgres/postgres_libpq.h"
#include "store/postgres/postgres_test_support.h"
#include "store/test_support.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

struct LocationCase {
  std::string db;
  StoreKind kind;
  std::string location;
};

// A relative path is made absolute against the working directory when it is read, so that a
// directory moved away later takes the database with it instead of leaving verdictd on it.
TEST(OpenStoreTest, PathsAndSqliteUrlsNameSqliteAndPostgresUrlsNamePostgres) {
  char directory[PATH_MAX];
  ASSERT_NE(getcwd(directory, sizeof directory), nullptr);
  const std::string cwd = directory;
  const std::vector<LocationCase> cases = {
      {"verdict.db", StoreKind::kSqlite, cwd + "/verdict.db"},
      {"./verdict.db", StoreKind::kSqlite, cwd + "/verdict.db"},
      {"/var/lib/verdict/verdict.db", StoreKind::kSqlite, "/var/lib/verdict/verdict.db"},
      {"sqlite:///var/lib/verdict.db", StoreKind::kSqlite, "/var/lib/verdict.db"},
      {"sqlite://relative.db", StoreKind::kSqlite, cwd + "/relative.db"},
      {"./data/a://b.db", StoreKind::kSqlite, cwd + "/data/a://b.db"},
      {"postgresql://verdict@db:5432/verdict", StoreKind::kPostgres,
       "postgresql://verdict@db:5432/verdict"},
      {"postgres://db/verdict?sslmode=require", StoreKind::kPostgres,
       "postgres://db/verdict?sslmode=require"},
  };
  for (const LocationCase& c : cases) {
    absl::StatusOr<StoreLocation> location = ParseStoreLocation(c.db);
    ASSERT_TRUE(location.ok()) << c.db << ": " << location.status();
    EXPECT_EQ(location->kind, c.kind) << c.db;
    EXPECT_EQ(location->location, c.location) << c.db;
  }
}

// verdictd would otherwise wait NOT_SERVING for a file it can never open.
TEST(OpenStoreTest, ADirectoryIsRefusedAtOnce) {
  StoreOptions options;
  options.connections = 1;
  options.defer_open_errors = true;
  absl::StatusOr<std::unique_ptr<Store>> store = OpenStore(std::getenv("TEST_TMPDIR"), options);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(store.status().message(), HasSubstr("is a directory"));
}

TEST(OpenStoreTest, EmptyOrUnknownLocationsAreRefused) {
  for (const char* db : {"", "sqlite://", "mysql://db/verdict", "http://x",
                         // A scheme without its "//" would name a relative file "sqlite:/...".
                         "sqlite:/tmp/v.db", "postgresql:/verdict", "file:d.db", "sqlite:"}) {
    EXPECT_EQ(ParseStoreLocation(db).status().code(), absl::StatusCode::kInvalidArgument) << db;
  }
  EXPECT_THAT(ParseStoreLocation("mysql://db").status().message(), HasSubstr("mysql://"));
}

TEST(OpenStoreTest, DescriptionNeverShowsAPassword) {
  EXPECT_EQ(DescribeStoreLocation("postgresql://verdict:s3cret@db:5432/verdict?sslmode=require"),
            "postgresql://verdict:***@db:5432/verdict?sslmode=require");
  EXPECT_EQ(DescribeStoreLocation("postgres://u:p@ss@db/v"), "postgres://u:***@db/v");
  EXPECT_EQ(DescribeStoreLocation("postgresql://verdict@db/verdict"),
            "postgresql://verdict@db/verdict");
  EXPECT_EQ(DescribeStoreLocation("/var/lib/verdict.db"), "/var/lib/verdict.db");
  // libpq takes any parameter in the query string, passwords included.
  EXPECT_EQ(DescribeStoreLocation(
                "postgresql://verdict@db/verdict?password=hunter2&sslmode=disable&sslpassword=k"),
            "postgresql://verdict@db/verdict?password=***&sslmode=disable&sslpassword=***");
  EXPECT_EQ(DescribeStoreLocation("postgresql://u:p@db?password=x"),
            "postgresql://u:***@db?password=***");
}

TEST(OpenStoreTest, OpensASqliteStoreFromASqliteUrl) {
  const std::string path = FreshDatabasePath();
  absl::StatusOr<std::unique_ptr<Store>> store = OpenStore("sqlite://" + path);
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->admin().CreateAgent({.owner = "o", .name = "n", .id = "agt_a"}).ok());
  absl::StatusOr<std::unique_ptr<Store>> by_path = OpenStore(path);
  ASSERT_TRUE(by_path.ok()) << by_path.status();
  EXPECT_TRUE((*by_path)->admin().GetAgent("agt_a").ok());
}

// The database holds the admin credential's hash and the decision log: only its owner reads it,
// whatever umask verdictd was started with. The WAL and shared-memory files SQLite creates next
// to it take the database file's permissions.
TEST(OpenStoreTest, ANewSqliteDatabaseAndItsWalAndShmAreForTheOwnerOnly) {
  const std::string path = FreshDatabasePath();
  const mode_t umask_before = umask(0);
  absl::StatusOr<std::unique_ptr<Store>> store = OpenStore(path);
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->admin().CreateAgent({.owner = "o", .name = "n", .id = "agt_a"}).ok());
  umask(umask_before);
  for (const std::string& file : {path, path + "-wal", path + "-shm"}) {
    struct stat status;
    ASSERT_EQ(stat(file.c_str(), &status), 0) << file;
    EXPECT_EQ(status.st_mode & 0777, 0600u)
        << file << " has mode " << std::oct << (status.st_mode & 0777);
  }
}

// One admin write, then one decision's read transaction, which sees it.
void CommitThenRead(Store& store, int round) {
  ASSERT_TRUE(
      store.admin()
          .CreateAgent(
              {.owner = "o", .name = absl::StrCat("n", round), .id = absl::StrCat("agt_", round)})
          .ok());
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> read = store.BeginRead();
  ASSERT_TRUE(read.ok()) << read.status();
}

// Whether another connection's TRUNCATE checkpoint, which restarts the write-ahead log only when
// no reader uses it, finds a reader there (it does not wait: its busy timeout is 0).
bool TruncateCheckpointFindsAReader(const std::string& path) {
  SQLite::Database tool(path, SQLite::OPEN_READWRITE);
  SQLite::Statement checkpoint(tool, "PRAGMA wal_checkpoint(TRUNCATE)");
  EXPECT_TRUE(checkpoint.executeStep());
  return checkpoint.getColumn(0).getInt() != 0;
}

// While decisions come, the store keeps one read transaction open (store/sqlite/
// read_lock_keeper.h), so a tool that must restart the log at once finds it in use;
// --sqlite_keep_read_lock=false turns that off, and the log is free as soon as a read ends.
TEST(OpenStoreTest, TheKeptReadLockIsOnByDefaultAndCanBeTurnedOff) {
  {
    const std::string path = FreshDatabasePath();
    absl::StatusOr<std::unique_ptr<Store>> store = OpenStore(path);
    ASSERT_TRUE(store.ok()) << store.status();
    // The keeper begins its transaction on its own thread after a read tells it to.
    bool found_reader = false;
    const absl::Time deadline = absl::Now() + absl::Seconds(20);
    for (int round = 0; !found_reader && absl::Now() < deadline; ++round) {
      CommitThenRead(**store, round);
      found_reader = TruncateCheckpointFindsAReader(path);
    }
    EXPECT_TRUE(found_reader);
  }
  const std::string path = FreshDatabasePath();
  absl::StatusOr<std::unique_ptr<Store>> store =
      OpenStore(path, StoreOptions{.sqlite_keep_read_lock = false});
  ASSERT_TRUE(store.ok()) << store.status();
  for (int round = 0; round < 20; ++round) {
    CommitThenRead(**store, round);
    EXPECT_FALSE(TruncateCheckpointFindsAReader(path)) << "round " << round;
  }
}

TEST(OpenStoreTest, OpensAPostgresStoreFromAPostgresUrl) {
  if (TestPostgresUrl().empty()) GTEST_SKIP() << kNoPostgresMessage;
  absl::StatusOr<PostgresTestSchema> schema = PostgresTestSchema::Create();
  ASSERT_TRUE(schema.ok()) << schema.status();
  absl::StatusOr<std::unique_ptr<Store>> store = OpenStore(schema->conninfo());
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_TRUE(*(*store)->admin().IsEmpty());
}

TEST(OpenStoreTest, UnreachablePostgresIsUnavailableUnlessDeferred) {
  // Deferring covers a server that is not there yet, not a missing client library: sanitizer
  // builds load no libpq (store/postgres/postgres_libpq.cc).
  if (absl::StatusOr<const LibPq*> pq = LoadLibPq(); !pq.ok()) GTEST_SKIP() << pq.status();
  // Port 1 on loopback: nothing listens there.
  const std::string url = "postgresql://verdict@127.0.0.1:1/verdict?connect_timeout=2";
  EXPECT_EQ(OpenStore(url).status().code(), absl::StatusCode::kUnavailable);
  absl::StatusOr<std::unique_ptr<Store>> deferred = OpenStore(url, {.defer_open_errors = true});
  ASSERT_TRUE(deferred.ok()) << deferred.status();
  EXPECT_EQ((*deferred)->CheckAvailable().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ((*deferred)->BeginRead().status().code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace verdict
