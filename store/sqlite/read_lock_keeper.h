// Keeps this process's hold on a SQLite database's write-ahead-log read lock while decisions
// come, so that each decision's own read transaction takes and releases that lock within the
// process instead of through two fcntl system calls.
//
// Every read transaction in WAL mode takes a shared lock on one of the log's read marks (in the
// -shm file) and releases it at COMMIT: that is what keeps another process's checkpoint from
// overwriting the pages it reads. SQLite makes the fcntl only when no other connection of the
// same process holds that mark (unixShmLock, os_unix.c), and on this project's virtual machine
// the pair costs more than the rest of a direct Authorize (bench/PERFORMANCE.md, "Issue 21:
// keeping the read lock"). The keeper is such a connection: it holds a read transaction of its
// own, on the newest snapshot, which it never reads from.
//
// What a decision sees does not change: each one still begins its own read transaction, reads
// the log's index afresh and sees every commit made before it began (design section 3). What
// the held transaction does change is what a checkpoint may do: none may copy into the database
// file a page committed after the keeper's snapshot. So the keeper follows the commits:
//   * each read tells it whether its connection saw the database change since that connection's
//     previous transaction (SqliteConnection::DatabaseChangedSinceLastAsked); the keeper then
//     renews its snapshot, at most once per `renew_every`. A second connection begins on the
//     newest snapshot before the first ends, so the hand-over never lets go of the lock. While
//     nothing is committed, the keeper sleeps and makes no call at all;
//   * it lets go once no read came for `idle_after`, so a sidecar that stops deciding holds
//     nothing, and a commit no read saw holds back checkpoints for at most that long;
//   * it holds nothing while the write-ahead log is larger than `max_log_bytes`: a log that
//     keeps growing under a stream of writes is one whose restart a reader always present would
//     keep putting off, and the keeper then stands aside until the log is back under the limit
//     (connections truncate it to that size when they restart it: store/sqlite/schema.h).
// A keeper that cannot open or read the database, or that stands aside, holds nothing and tries
// again `idle_after` later, if reads still come; decisions never wait for it.
//
//   ReadLockKeeper keeper([&] { return SqliteSource(path, options); }, ReadLockKeeper::Options{});
//   // at the end of each decision's read transaction (a relaxed load, unless something changed):
//   keeper.NoteRead(connection.DatabaseChangedSinceLastAsked());
#ifndef VERDICT_STORE_SQLITE_READ_LOCK_KEEPER_H_
#define VERDICT_STORE_SQLITE_READ_LOCK_KEEPER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "store/connection_pool.h"
#include "store/sqlite/schema.h"

namespace verdict {

class ReadLockKeeper {
 public:
  struct Options {
    absl::Duration renew_every = absl::Milliseconds(10);
    absl::Duration idle_after = absl::Seconds(1);
    int64_t max_log_bytes = kWriteAheadLogSizeLimit;
  };

  // Opens nothing until the first NoteRead. `source` opens the keeper's connections (two, for
  // the hand-over); it is called again after a failure, so that no connection to a file that
  // went away is kept.
  ReadLockKeeper(std::function<std::unique_ptr<ConnectionSource>()> source, Options options);
  ReadLockKeeper(const ReadLockKeeper&) = delete;
  ReadLockKeeper& operator=(const ReadLockKeeper&) = delete;
  // Ends the held transaction and joins the keeper's thread.
  ~ReadLockKeeper();

  // A read transaction ran on the database; `database_changed` when its connection saw a
  // commit since its previous one. Thread-safe.
  void NoteRead(bool database_changed) {
    if (!database_changed && read_since_check_.load(std::memory_order_relaxed)) return;
    NoteReadSlowly(database_changed);
  }

  // Waits until the keeper holds a read transaction (`holding`) or holds none; false when
  // `timeout` passed first. For tests.
  bool AwaitHolding(bool holding, absl::Duration timeout);
  // Waits until the keeper has begun at least `count` read transactions since it started;
  // false when `timeout` passed first. For tests.
  bool AwaitTransactionsBegun(int64_t count, absl::Duration timeout);

 private:
  class HeldRead;
  struct Attempt {
    std::unique_ptr<HeldRead> held;  // null when standing aside or after a fault
    bool began = false;              // a read transaction began (and may have ended since)
    bool fault = false;              // the database could not give a read transaction
  };

  void NoteReadSlowly(bool database_changed);
  void Run();
  // Sleeps for `timeout` unless stopping first; false when stopping.
  bool Sleep(absl::Duration timeout);
  // A read transaction on the newest snapshot, unless the database cannot give one or its log
  // is over the limit.
  Attempt BeginHeldRead();
  // After an attempt: whether it holds a transaction, and whether it began one.
  void SetHolding(bool holding, bool began);

  const std::function<std::unique_ptr<ConnectionSource>()> source_;
  const Options options_;
  std::unique_ptr<ConnectionPool> pool_;  // the keeper thread's own

  // Set by reads, cleared by the keeper when it checks whether reads still come.
  std::atomic<bool> read_since_check_{false};
  std::atomic<bool> asleep_until_read_{false};
  absl::Mutex mutex_;
  bool change_seen_ ABSL_GUARDED_BY(mutex_) = false;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  bool holding_ ABSL_GUARDED_BY(mutex_) = false;
  int64_t transactions_begun_ ABSL_GUARDED_BY(mutex_) = 0;
  std::thread thread_;  // last: starts once everything above is set up
};

}  // namespace verdict

#endif  // VERDICT_STORE_SQLITE_READ_LOCK_KEEPER_H_
