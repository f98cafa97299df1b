#include "store/sqlite/read_lock_keeper.h"

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

// Once per renewal at most: the keeper clears the flag when it renews. Sequentially consistent,
// with the keeper's own store of asleep_until_read_ before it checks the flag: one of the two
// sees the other's store, so a read never leaves the keeper asleep.
void ReadLockKeeper::NoteFirstReadSinceRenewal() {
  read_since_renewal_.store(true);
  if (asleep_until_read_.load()) {
    absl::MutexLock wake(&mutex_);  // the keeper's Await looks at the flag again on unlock
  }
}

bool ReadLockKeeper::AwaitHolding(bool holding, absl::Duration timeout) {
  absl::MutexLock lock(&mutex_);
  auto reached = [this, holding]()
                     ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return holding_ == holding; };
  return mutex_.AwaitWithTimeout(absl::Condition(&reached), timeout);
}

void ReadLockKeeper::SetHolding(bool holding) {
  absl::MutexLock lock(&mutex_);
  holding_ = holding;
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
  if (WriteAheadLogBytes(sqlite.database().getHandle()) > options_.max_log_bytes) return {};
  return Attempt{.held = std::move(held)};
}

void ReadLockKeeper::Run() {
  std::unique_ptr<HeldRead> held;
  absl::Time last_read = absl::InfinitePast();
  while (true) {
    {
      absl::MutexLock lock(&mutex_);
      if (held == nullptr) {
        asleep_until_read_.store(true);
        auto woken = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
          return stopping_ || read_since_renewal_.load();
        };
        mutex_.Await(absl::Condition(&woken));
        asleep_until_read_.store(false);
      } else {
        mutex_.AwaitWithTimeout(absl::Condition(&stopping_), options_.renew_every);
      }
      if (stopping_) break;
    }
    const absl::Time now = absl::Now();
    if (read_since_renewal_.exchange(false)) last_read = now;
    if (now - last_read >= options_.idle_after) {
      held.reset();
      SetHolding(false);
      continue;
    }
    // The newest snapshot first, then the old one ends: when nothing was committed in between,
    // both are on the same read mark and neither step makes a system call.
    Attempt next = BeginHeldRead();
    held = std::move(next.held);
    SetHolding(held != nullptr);
    if (held == nullptr) {
      // Standing aside (the log is over its limit) or a fault. Connections opened before a
      // fault may hold a file that went away, so they are closed. The next try waits an
      // interval, whatever the reads.
      if (next.fault) pool_.reset();
      absl::MutexLock lock(&mutex_);
      mutex_.AwaitWithTimeout(absl::Condition(&stopping_), options_.renew_every);
      if (stopping_) break;
    }
  }
  held.reset();
  pool_.reset();
  SetHolding(false);
}

}  // namespace verdict
