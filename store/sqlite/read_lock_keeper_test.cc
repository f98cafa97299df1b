// What keeping the write-ahead log's read lock may and may not change
// (store/sqlite/read_lock_keeper.h): the keeper holds a read transaction only while reads come
// and renews it only when a read saw a commit, every read still sees every commit made before it
// began, and the log stays bounded under a stream of writes from another process, at verdict's
// own settings with either page size, and comes back to its limit after one larger transaction.
#include "store/sqlite/read_lock_keeper.h"

#include <SQLiteCpp/Database.h>
#include <dirent.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "store/sqlite/schema.h"
#include "store/sqlite/sqlite_connection.h"
#include "store/sqlite/sqlite_source.h"
#include "store/test_support.h"

extern char** environ;

namespace verdict {
namespace {

constexpr absl::Duration kEventTimeout = absl::Seconds(30);

// A verdict database with the two scratch tables the writer process uses; pages of
// `page_bytes` when given, else of the size verdict makes.
std::string ScratchDatabase(int page_bytes = 0) {
  const std::string path = FreshDatabasePath();
  SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  // Written before ConfigureConnection asks for kNewDatabasePageBytes, which only a database not
  // written yet takes: as a database made by another program or an older verdict.
  if (page_bytes != 0) {
    db.exec(absl::StrCat("PRAGMA page_size = ", page_bytes, "; PRAGMA journal_mode = WAL;"));
  }
  EXPECT_TRUE(ConfigureConnection(db, absl::Seconds(5)).ok());
  EXPECT_TRUE(MigrateSchema(db, absl::Seconds(5)).ok());
  db.exec("CREATE TABLE marker(n INTEGER NOT NULL); INSERT INTO marker VALUES (0);");
  db.exec("CREATE TABLE blobs(b BLOB)");
  return path;
}

std::unique_ptr<ReadLockKeeper> KeeperOn(const std::string& path, ReadLockKeeper::Options options) {
  return std::make_unique<ReadLockKeeper>(
      [path] { return SqliteSource(path, ConnectionOptions{.create_if_missing = false}); },
      options);
}

// The writer process (read_lock_keeper_test_writer.cc), talking through pipes.
class Writer {
 public:
  explicit Writer(const std::vector<std::string>& args) {
    int to_child[2];
    int from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0) return;
    std::vector<std::string> argv = {
        absl::StrCat(getenv("TEST_SRCDIR"), "/verdict/store/sqlite/read_lock_keeper_test_writer")};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> c_argv;
    for (std::string& arg : argv) c_argv.push_back(arg.data());
    c_argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, to_child[1]);
    posix_spawn_file_actions_addclose(&actions, from_child[0]);
    if (posix_spawn(&pid_, c_argv[0], &actions, nullptr, c_argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    close(to_child[0]);
    close(from_child[1]);
    to_child_ = fdopen(to_child[1], "w");
    from_child_ = fdopen(from_child[0], "r");
  }
  ~Writer() {
    if (to_child_ != nullptr) fclose(to_child_);
    if (from_child_ != nullptr) fclose(from_child_);
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
  }

  bool started() const { return pid_ > 0 && to_child_ != nullptr && from_child_ != nullptr; }
  // The next number the writer printed; -1 when it ended first.
  int64_t ReadNumber() {
    char line[64];
    int64_t number = -1;
    if (fgets(line, sizeof(line), from_child_) == nullptr) return -1;
    std::string text(line);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return absl::SimpleAtoi(text, &number) ? number : -1;
  }
  void Go() {
    std::fputs("go\n", to_child_);
    std::fflush(to_child_);
  }
  // The writer's exit status once it ended.
  int Wait() {
    int status = 0;
    if (waitpid(pid_, &status, 0) != pid_) return -1;
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  pid_t pid_ = -1;
  FILE* to_child_ = nullptr;
  FILE* from_child_ = nullptr;
};

// Tells the keeper of a read every 100 us until stopped, as a stream of decisions does, each
// having seen a change when `changes` (a stream of writes).
class Reader {
 public:
  Reader(ReadLockKeeper& keeper, bool changes)
      : thread_([this, &keeper, changes] {
          while (!stop_.load()) {
            keeper.NoteRead(changes);
            absl::SleepFor(absl::Microseconds(100));
          }
        }) {}
  ~Reader() {
    stop_.store(true);
    thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST(ReadLockKeeperTest, HoldsAReadTransactionOnlyWhileReadsCome) {
  const std::string path = ScratchDatabase();
  std::unique_ptr<ReadLockKeeper> keeper =
      KeeperOn(path, {.renew_every = absl::Milliseconds(5), .idle_after = absl::Milliseconds(50)});
  // Nothing is opened, let alone held, before the first read.
  EXPECT_TRUE(keeper->AwaitHolding(false, absl::ZeroDuration()));

  keeper->NoteRead(/*database_changed=*/false);
  EXPECT_TRUE(keeper->AwaitHolding(true, kEventTimeout));

  // No read for idle_after: the keeper lets go.
  EXPECT_TRUE(keeper->AwaitHolding(false, kEventTimeout));

  // And takes it again at the next read.
  keeper->NoteRead(/*database_changed=*/false);
  EXPECT_TRUE(keeper->AwaitHolding(true, kEventTimeout));
}

// While nothing is committed, the snapshot held is the newest, and the keeper leaves it be: no
// transaction, no system call, however many reads come.
TEST(ReadLockKeeperTest, RenewsOnlyWhenAReadSawAChange) {
  const std::string path = ScratchDatabase();
  std::unique_ptr<ReadLockKeeper> keeper = KeeperOn(path, {.renew_every = absl::Milliseconds(1)});
  keeper->NoteRead(/*database_changed=*/false);
  ASSERT_TRUE(keeper->AwaitTransactionsBegun(1, kEventTimeout));
  for (int i = 0; i < 1000; ++i) keeper->NoteRead(/*database_changed=*/false);
  EXPECT_FALSE(keeper->AwaitTransactionsBegun(2, absl::Milliseconds(100)));

  keeper->NoteRead(/*database_changed=*/true);
  EXPECT_TRUE(keeper->AwaitTransactionsBegun(2, kEventTimeout));
  EXPECT_TRUE(keeper->AwaitHolding(true, kEventTimeout));
}

// The kept transaction is never read from: each read begins its own, on the newest snapshot,
// and its connection tells the keeper that it saw the commit.
TEST(ReadLockKeeperTest, EveryReadSeesEachCommitOfAnotherProcessWhileTheLockIsKept) {
  const std::string path = ScratchDatabase();
  std::unique_ptr<ReadLockKeeper> keeper = KeeperOn(path, ReadLockKeeper::Options{});
  absl::StatusOr<std::unique_ptr<SqliteConnection>> reader =
      SqliteConnection::Open(path, ConnectionOptions{.create_if_missing = false});
  ASSERT_TRUE(reader.ok()) << reader.status();
  auto read_marker = [&]() -> int {
    EXPECT_TRUE((*reader)->Begin(TransactionKind::kRead).ok());
    const int n = (*reader)->database().execAndGet("SELECT n FROM marker").getInt();
    keeper->NoteRead((*reader)->DatabaseChangedSinceLastAsked());
    EXPECT_TRUE((*reader)->Commit().ok());
    return n;
  };
  EXPECT_EQ(read_marker(), 0);
  ASSERT_TRUE(keeper->AwaitHolding(true, kEventTimeout));
  EXPECT_EQ(read_marker(), 0);
  EXPECT_FALSE((*reader)->DatabaseChangedSinceLastAsked()) << "nothing was committed";

  constexpr int kCommits = 50;
  Writer writer({path, "lockstep", absl::StrCat(kCommits)});
  ASSERT_TRUE(writer.started());
  for (int n = 1; n <= kCommits; ++n) {
    ASSERT_EQ(writer.ReadNumber(), n);  // the writer committed n
    ASSERT_TRUE((*reader)->Begin(TransactionKind::kRead).ok());
    EXPECT_EQ((*reader)->database().execAndGet("SELECT n FROM marker").getInt(), n);
    EXPECT_TRUE((*reader)->DatabaseChangedSinceLastAsked()) << "commit " << n;
    keeper->NoteRead(/*database_changed=*/true);
    ASSERT_TRUE((*reader)->Commit().ok());
    writer.Go();
  }
  EXPECT_EQ(writer.Wait(), 0);
  // The keeper followed the commits (at most one renewal per renew_every).
  EXPECT_TRUE(keeper->AwaitTransactionsBegun(2, kEventTimeout));
  EXPECT_TRUE(keeper->AwaitHolding(true, kEventTimeout));
}

// Runs a writer's stream (`args`: the database, the mode and its numbers) to its end, and returns
// the largest the log grew meanwhile, as the writer reported it (-1 when it reported nothing),
// printed beside the `written` bytes.
int64_t LargestLogOfStream(const std::vector<std::string>& args, int64_t written) {
  Writer writer(args);
  EXPECT_TRUE(writer.started());
  if (!writer.started()) return -1;
  const int64_t largest_log = writer.ReadNumber();
  EXPECT_EQ(writer.Wait(), 0);
  std::printf("largest log: %lld bytes of %lld written\n", static_cast<long long>(largest_log),
              static_cast<long long>(written));
  return largest_log;
}

// A read transaction that is always there would keep a writer's checkpoints from ever reaching
// the end of the log, so the log would never restart and would grow with every commit. The
// keeper stands aside once the log passes its limit; checkpoints then catch up, the log
// restarts, and the writer truncates it back.
TEST(ReadLockKeeperTest, TheLogStaysBoundedUnderAStreamOfWrites) {
  const std::string path = ScratchDatabase();
  constexpr int64_t kLogLimit = 1 << 20;
  std::unique_ptr<ReadLockKeeper> keeper = KeeperOn(path, {.renew_every = absl::Milliseconds(1),
                                                           .idle_after = absl::Milliseconds(10),
                                                           .max_log_bytes = kLogLimit});
  Reader reads(*keeper, /*changes=*/true);
  ASSERT_TRUE(keeper->AwaitHolding(true, kEventTimeout));

  constexpr int64_t kRows = 2000;
  constexpr int64_t kRowBytes = 16 << 10;  // 32 MiB written in all
  const int64_t largest_log = LargestLogOfStream(
      {path, "stream", absl::StrCat(kRows), absl::StrCat(kRowBytes), absl::StrCat(kLogLimit)},
      kRows * kRowBytes);
  ASSERT_GT(largest_log, 0);
  EXPECT_LT(largest_log, kRows * kRowBytes / 4)
      << "the log grew with the writes: the kept read lock held its checkpoints back";
}

// The same with the settings every verdict connection has, the writer's included (a second
// verdictd, the verdict CLI): the log checkpointed every kAutoCheckpointBytes and truncated to
// kWriteAheadLogSizeLimit, and the keeper's own limit, kWriteAheadLogSizeLimit. The checkpoint
// interval is set in pages from the page size, so both sizes a verdict database has are run.
class ReadLockKeeperPageSizeTest : public ::testing::TestWithParam<int> {};

INSTANTIATE_TEST_SUITE_P(PageSizes, ReadLockKeeperPageSizeTest,
                         ::testing::Values(4096, kNewDatabasePageBytes));

TEST_P(ReadLockKeeperPageSizeTest, TheLogStaysNearItsLimitUnderAStreamOfWritesAtVerdictsSettings) {
  const std::string path = ScratchDatabase(GetParam());
  {
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    ASSERT_EQ(PageBytes(db), GetParam());
  }
  std::unique_ptr<ReadLockKeeper> keeper = KeeperOn(path, ReadLockKeeper::Options{});
  Reader reads(*keeper, /*changes=*/true);
  ASSERT_TRUE(keeper->AwaitHolding(true, kEventTimeout));

  constexpr int64_t kRowBytes = 16 << 10;
  constexpr int64_t kRows = 3 * kWriteAheadLogSizeLimit / kRowBytes;  // three times the limit
  const int64_t largest_log = LargestLogOfStream(
      {path, "stream-as-verdict", absl::StrCat(kRows), absl::StrCat(kRowBytes)}, kRows * kRowBytes);
  ASSERT_GT(largest_log, 0);
  // Past the limit by what is written before the keeper's next renewal sees it and the
  // checkpoints catch up, far less than another limit's worth.
  EXPECT_LT(largest_log, kWriteAheadLogSizeLimit * 3 / 2)
      << "the log grew with the writes: the kept read lock held its checkpoints back";
}

// A transaction larger than the limit makes the log as large as it is: SQLite cannot commit it
// otherwise, and the keeper does not stand in its way. The keeper then stands aside, and a
// couple of ordinary commits later the log is restarted and truncated back to the limit, the
// keeper holds again, and every read on the way sees the commit made just before it.
TEST(ReadLockKeeperTest, AfterATransactionLargerThanTheLimitTheLogComesBackToIt) {
  const std::string path = ScratchDatabase();
  std::unique_ptr<ReadLockKeeper> keeper =
      KeeperOn(path, {.renew_every = absl::Milliseconds(1), .idle_after = absl::Milliseconds(20)});
  Reader reads(*keeper, /*changes=*/true);
  ASSERT_TRUE(keeper->AwaitHolding(true, kEventTimeout));
  absl::StatusOr<std::unique_ptr<SqliteConnection>> reader =
      SqliteConnection::Open(path, ConnectionOptions{.create_if_missing = false});
  ASSERT_TRUE(reader.ok()) << reader.status();
  auto read_marker = [&]() -> int {
    EXPECT_TRUE((*reader)->Begin(TransactionKind::kRead).ok());
    const int n = (*reader)->database().execAndGet("SELECT n FROM marker").getInt();
    EXPECT_TRUE((*reader)->Commit().ok());
    return n;
  };

  constexpr int kCommitsAfter = 10;
  constexpr int64_t kLargeBytes = kWriteAheadLogSizeLimit * 3 / 2;
  Writer writer({path, "one-large", absl::StrCat(kCommitsAfter), absl::StrCat(kLargeBytes)});
  ASSERT_TRUE(writer.started());
  const int64_t log_after_large = writer.ReadNumber();
  ASSERT_GT(log_after_large, kLargeBytes) << "the large transaction was not committed";
  EXPECT_TRUE(keeper->AwaitHolding(false, kEventTimeout)) << "the keeper did not stand aside";

  int commits_until_back = 0;
  int64_t log = log_after_large;
  for (int n = 1; n <= kCommitsAfter; ++n) {
    writer.Go();
    log = writer.ReadNumber();
    ASSERT_GT(log, 0);
    EXPECT_EQ(read_marker(), n);
    if (log <= kWriteAheadLogSizeLimit && commits_until_back == 0) commits_until_back = n;
  }
  EXPECT_EQ(writer.Wait(), 0);
  EXPECT_LE(log, kWriteAheadLogSizeLimit) << "the log was not truncated back to the limit";
  EXPECT_GE(commits_until_back, 1);
  // Two when nothing else reads at the checkpoint (one to checkpoint it all, one to restart and
  // truncate); a keeper's look at the log at that instant may cost one or two more.
  EXPECT_LE(commits_until_back, kCommitsAfter / 2);
  EXPECT_TRUE(keeper->AwaitHolding(true, kEventTimeout)) << "the keeper did not hold again";
  EXPECT_EQ(read_marker(), kCommitsAfter);
}

// The entries of a /proc/self directory: the process's open files or its threads.
int EntriesOf(const char* directory) {
  DIR* listing = opendir(directory);
  if (listing == nullptr) return -1;
  int entries = 0;
  while (dirent* entry = readdir(listing)) {
    if (entry->d_name[0] != '.') ++entries;
  }
  closedir(listing);
  return entries;
}

// A keeper destroyed while it holds, while it stands aside or after reads stopped closes every
// connection it opened and ends its thread: a store opened and closed again and again (a test
// suite, a server that reopens its store) leaves nothing behind.
TEST(ReadLockKeeperTest, LeavesNoFileOrThreadOpenOnceDestroyed) {
  const std::string path = ScratchDatabase();
  const int files_before = EntriesOf("/proc/self/fd");
  const int threads_before = EntriesOf("/proc/self/task");
  ASSERT_GT(files_before, 0);
  ASSERT_GT(threads_before, 0);
  for (int round = 0; round < 3; ++round) {
    {
      std::unique_ptr<ReadLockKeeper> holding = KeeperOn(path, ReadLockKeeper::Options{});
      holding->NoteRead(/*database_changed=*/true);
      ASSERT_TRUE(holding->AwaitHolding(true, kEventTimeout));
    }
    {
      // Any log is over a limit of 0 bytes.
      std::unique_ptr<ReadLockKeeper> aside = KeeperOn(path, {.max_log_bytes = 0});
      aside->NoteRead(/*database_changed=*/true);
      ASSERT_TRUE(aside->AwaitTransactionsBegun(1, kEventTimeout));
      ASSERT_TRUE(aside->AwaitHolding(false, kEventTimeout));
    }
    {
      std::unique_ptr<ReadLockKeeper> idle = KeeperOn(path, {.idle_after = absl::Milliseconds(1)});
      idle->NoteRead(/*database_changed=*/true);
      ASSERT_TRUE(idle->AwaitTransactionsBegun(1, kEventTimeout));
      ASSERT_TRUE(idle->AwaitHolding(false, kEventTimeout));
    }
    // At most as many: a thread or file of an earlier test may end meanwhile, never start.
    EXPECT_LE(EntriesOf("/proc/self/fd"), files_before) << "round " << round;
    EXPECT_LE(EntriesOf("/proc/self/task"), threads_before) << "round " << round;
  }
}

TEST(ReadLockKeeperTest, HoldsNothingWhileTheDatabaseCannotBeOpened) {
  const std::string path = FreshDatabasePath();  // no file, and the keeper never creates one
  std::unique_ptr<ReadLockKeeper> keeper =
      KeeperOn(path, {.renew_every = absl::Milliseconds(1), .idle_after = absl::Milliseconds(10)});
  Reader reads(*keeper, /*changes=*/false);
  EXPECT_FALSE(keeper->AwaitHolding(true, absl::Milliseconds(200)));
  EXPECT_EQ(access(path.c_str(), F_OK), -1);
}

}  // namespace
}  // namespace verdict
