#include "store/sqlite/read_lock_keeper.h"

#include <pthread.h>
#include <sqlite3.h>

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "store/sqlite/sqlite_connection.h"

namespace verdict {

// A read transaction begun and left open: its snapshot is never read, only its read mark kept.
class ReadLockKeeper::HeldRead {
 public:
  explicit HeldRead(ConnectionPool::Lease lease) : lease_(std::move(lease)) {}
  HeldRead(const HeldRead&) = delete;
  HeldRead& operator=(const HeldRead&) = delete;
  ~HeldRead() {
    if (!lease_->Commit().ok()) lease_->Rollback();
  }

  SqliteConnection& sqlite() { return lease_.As<SqliteConnection>(); }

 private:
  ConnectionPool::Lease lease_;
};

ReadLockKeeper::ReadLockKeeper(std::function<std::unique_ptr<ConnectionSource>()> source,
                               Options options)
    : source_(std::move(source)), options_(options), thread_([this] { Run(); }) {}

ReadLockKeeper::~ReadLockKeeper() {
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
  }
  thread_.join();
}

// The first read since the keeper last checked, or a read that saw a change. Sequentially
// consistent, with the keeper's own store of asleep_until_read_ before it looks at
// read_since_check_: one of the two sees the other's store, so a read never leaves the keeper
// asleep.
void ReadLockKeeper::NoteReadSlowly(bool database_changed) {
  read_since_check_.store(true);
  if (database_changed) {
    absl::MutexLock lock(&mutex_);
    change_seen_ = true;
  } else if (asleep_until_read_.load()) {
    absl::MutexLock wake(&mutex_);  // the keeper's Await looks at the flag again on unlock
  }
}

bool ReadLockKeeper::AwaitHolding(bool holding, absl::Duration timeout) {
  absl::MutexLock lock(&mutex_);
  auto reached = [this, holding]()
                     ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return holding_ == holding; };
  return mutex_.AwaitWithTimeout(absl::Condition(&reached), timeout);
}

bool ReadLockKeeper::AwaitTransactionsBegun(int64_t count, absl::Duration timeout) {
  absl::MutexLock lock(&mutex_);
  auto reached = [this, count]()
                     ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return transactions_begun_ >= count; };
  return mutex_.AwaitWithTimeout(absl::Condition(&reached), timeout);
}

void ReadLockKeeper::SetHolding(bool holding, bool began) {
  absl::MutexLock lock(&mutex_);
  holding_ = holding;
  if (began) ++transactions_begun_;
}

ReadLockKeeper::Attempt ReadLockKeeper::BeginHeldRead() {
  if (pool_ == nullptr) pool_ = std::make_unique<ConnectionPool>(source_(), PoolOptions{.size = 2});
  absl::StatusOr<ConnectionPool::Lease> lease =
      pool_->CheckoutInTransaction(TransactionKind::kRead);
  if (!lease.ok()) return Attempt{.fault = true};
  auto held = std::make_unique<HeldRead>(*std::move(lease));
  SqliteConnection& sqlite = held->sqlite();
  // BEGIN takes no lock; the first read of a table does (it reads the log's index and takes a
  // read mark).
  const absl::Status read = CatchSqlite(sqlite, [&] {
    sqlite.database().exec("SELECT 1 FROM sqlite_schema LIMIT 1");
    return absl::OkStatus();
  });
  if (!read.ok() || sqlite3_txn_state(sqlite.database().getHandle(), "main") != SQLITE_TXN_READ) {
    return Attempt{.fault = true};
  }
  if (WriteAheadLogBytes(sqlite.database().getHandle()) > options_.max_log_bytes) {
    return Attempt{.began = true};
  }
  return Attempt{.held = std::move(held), .began = true};
}

bool ReadLockKeeper::Sleep(absl::Duration timeout) {
  absl::MutexLock lock(&mutex_);
  mutex_.AwaitWithTimeout(absl::Condition(&stopping_), timeout);
  return !stopping_;
}

void ReadLockKeeper::Run() {
  // Named for `top -H` and /proc/PID/task/*/comm: its CPU is this file's cost.
  pthread_setname_np(pthread_self(), "read-lock-keep");
  std::unique_ptr<HeldRead> held;
  while (true) {
    bool idle = false;
    bool changed = false;
    {
      absl::MutexLock lock(&mutex_);
      if (held == nullptr) {
        // Holding nothing: asleep until a read comes.
        asleep_until_read_.store(true);
        auto read_came = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
          return stopping_ || read_since_check_.load();
        };
        mutex_.Await(absl::Condition(&read_came));
        asleep_until_read_.store(false);
      } else {
        // Holding: awake for a change a read saw, or after idle_after to see whether reads
        // still come.
        auto change_came = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
          return stopping_ || change_seen_;
        };
        if (!mutex_.AwaitWithTimeout(absl::Condition(&change_came), options_.idle_after)) {
          idle = !read_since_check_.exchange(false);
        }
      }
      if (stopping_) break;
      changed = std::exchange(change_seen_, false);
    }
    if (idle) {
      held.reset();
      SetHolding(false, false);
      continue;
    }
    if (held != nullptr && !changed) continue;  // reads still come, and nothing changed
    read_since_check_.store(false);
    // The newest snapshot first, then the old one ends: when nothing was committed in between,
    // both are on the same read mark and the process never lets go of it.
    Attempt next = BeginHeldRead();
    held = std::move(next.held);
    SetHolding(held != nullptr, next.began);
    if (held != nullptr) {
      if (!Sleep(options_.renew_every)) break;  // at most one renewal per renew_every
      continue;
    }
    // Standing aside (the log is over its limit) or a fault. Connections opened before a
    // fault may hold a file that went away, so they are closed. The next try waits.
    if (next.fault) pool_.reset();
    if (!Sleep(options_.idle_after)) break;
  }
  held.reset();
  pool_.reset();
  SetHolding(false, false);
}

}  // namespace verdict
