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
// the held transaction does change is what a checkpoint may do, so the keeper bounds it:
//   * it renews its snapshot every `renew_every` (a second connection begins on the newest
//     snapshot before the first ends, so a renewal with no commit in between makes no system
//     call): no checkpoint waits on it for longer than that;
//   * it lets go once no read came for `idle_after`, so an idle sidecar holds nothing;
//   * it holds nothing while the write-ahead log is larger than `max_log_bytes`: a log that
//     keeps growing under a stream of writes is one whose restart a reader always present would
//     keep putting off, and the keeper then stands aside until the log is back under the limit
//     (connections truncate it to that size when they restart it: store/sqlite/schema.h).
// A keeper that cannot open or read the database holds nothing and tries again an interval
// later; decisions never wait for it.
//
//   ReadLockKeeper keeper([&] { return SqliteSource(path, options); }, ReadLockKeeper::Options{});
//   keeper.NoteRead();  // at each decision's read: a relaxed load once the keeper is awake
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
    absl::Duration idle_after = absl::Milliseconds(100);
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

  // A read transaction began on the database. Thread-safe; wakes the keeper when it holds
  // nothing.
  void NoteRead() {
    if (read_since_renewal_.load(std::memory_order_relaxed)) return;
    NoteFirstReadSinceRenewal();
  }

  // Waits until the keeper holds a read transaction (`holding`) or holds none; false when
  // `timeout` passed first. For tests.
  bool AwaitHolding(bool holding, absl::Duration timeout);

 private:
  class HeldRead;
  struct Attempt {
    std::unique_ptr<HeldRead> held;  // null when standing aside or after a fault
    bool fault = false;              // the database could not give a read transaction
  };

  void NoteFirstReadSinceRenewal();
  void Run();
  // A read transaction on the newest snapshot, unless the database cannot give one or its log
  // is over the limit.
  Attempt BeginHeldRead();
  void SetHolding(bool holding);

  const std::function<std::unique_ptr<ConnectionSource>()> source_;
  const Options options_;
  std::unique_ptr<ConnectionPool> pool_;  // the keeper thread's own

  std::atomic<bool> read_since_renewal_{false};
  std::atomic<bool> asleep_until_read_{false};
  absl::Mutex mutex_;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  bool holding_ ABSL_GUARDED_BY(mutex_) = false;
  std::thread thread_;  // last: starts once everything above is set up
};

}  // namespace verdict

#endif  // VERDICT_STORE_SQLITE_READ_LOCK_KEEPER_H_
