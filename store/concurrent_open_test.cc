// Several threads, and several processes, opening one brand-new database file at the same
// instant all succeed, and the file ends up with one schema, migrated once.
#include <SQLiteCpp/Database.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/barrier.h"
#include "gtest/gtest.h"
#include "store/migrations.h"
#include "store/sqlite_store.h"
#include "store/test_support.h"

namespace verdict {
namespace {

constexpr int kOpeners = 8;

// Opens the store at `path` and writes one agent through it; true when both worked.
bool OpenAndWrite(const std::string& path, int opener) {
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(path);
  if (!store.ok()) return false;
  return (*store)
      ->admin()
      .CreateAgent({.owner = "test", .name = "opener", .id = absl::StrCat("agt_", opener)})
      .ok();
}

void ExpectOneMigratedSchemaWithAgents(const std::string& path, int agents) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  EXPECT_EQ(db.execAndGet("PRAGMA user_version").getInt(), LatestSchemaVersion());
  EXPECT_EQ(db.execAndGet("PRAGMA journal_mode").getString(), "wal");
  EXPECT_EQ(db.execAndGet("SELECT count(*) FROM sqlite_master WHERE name = 'agents'").getInt(), 1);
  EXPECT_EQ(db.execAndGet("SELECT count(*) FROM agents").getInt(), agents);
}

TEST(ConcurrentOpenTest, ThreadsOpeningANewFileAtOnceAllSucceed) {
  const std::string path = FreshDatabasePath();
  absl::Barrier* start = new absl::Barrier(kOpeners);  // deleted by the last to pass it
  std::vector<int> succeeded(kOpeners, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < kOpeners; ++i) {
    threads.emplace_back([&, i] {
      if (start->Block()) delete start;
      succeeded[i] = OpenAndWrite(path, i) ? 1 : 0;
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int i = 0; i < kOpeners; ++i) EXPECT_EQ(succeeded[i], 1) << "opener " << i;
  ExpectOneMigratedSchemaWithAgents(path, kOpeners);
}

TEST(ConcurrentOpenTest, ProcessesOpeningANewFileAtOnceAllSucceed) {
  const std::string path = FreshDatabasePath();
  // Every child blocks reading the pipe; closing its write end releases them all at once.
  int start[2];
  ASSERT_EQ(pipe(start), 0);
  std::vector<pid_t> children;
  for (int i = 0; i < kOpeners; ++i) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(start[1]);
      char byte;
      (void)!read(start[0], &byte, 1);
      _exit(OpenAndWrite(path, i) ? 0 : 1);
    }
    children.push_back(pid);
  }
  close(start[0]);
  close(start[1]);
  for (pid_t child : children) {
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child " << child;
  }
  ExpectOneMigratedSchemaWithAgents(path, kOpeners);
}

}  // namespace
}  // namespace verdict
