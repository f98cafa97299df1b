#include "store/sqlite_store.h"

#include <sqlite3.h>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/memory/memory.h"
#include "absl/strings/str_cat.h"
#include "store/decision_record.h"
#include "store/ids.h"
#include "store/lookups.h"
#include "store/policy_encoding.h"
#include "store/sqlite/schema.h"
#include "store/sqlite/sqlite_lookups.h"

namespace verdict {
namespace {

// The PolicyView lookups over the leased connection, for both kinds of transaction. The decoded
// rows are kept in the connection's workspace, which the next transaction overwrites (reusing
// its memory); the writes a WriteTransaction makes (rate counters, approvals) never touch them.
template <typename Base>
class SqlitePolicyView : public PolicyViewOn<Base> {
 public:
  explicit SqlitePolicyView(ConnectionPool::Lease lease) : lease_(std::move(lease)) {
    sqlite().decoded_records().Reset();
  }

  // An agent with many permissions: only those that may match, from the connection's index of
  // exactly this text (store/wide_permissions.h). A shorter list is filtered as it is decoded.
  absl::StatusOr<absl::Span<const Permission>> PermissionsThatMayMatch(
      absl::string_view agent_id, absl::string_view action, absl::string_view resource) override {
    absl::StatusOr<const DecodedRecords::Kept*> kept = this->Record(agent_id);
    if (!kept.ok()) return kept.status();
    const std::string& text = (*kept)->record.permissions;
    if (text.size() < WidePermissions::kMinBytes) {
      return records().PermissionsThatMayMatch(text, resource);
    }
    std::vector<Permission>& may_match =
        *may_match_.emplace_back(std::make_unique<std::vector<Permission>>());
    absl::Status found =
        sqlite().wide_permissions().MayMatch(agent_id, text, action, resource, may_match);
    if (!found.ok()) return found;
    return absl::MakeConstSpan(may_match);
  }

 protected:
  Connection* connection() override { return &*lease_; }
  SqliteConnection& sqlite() { return lease_.As<SqliteConnection>(); }

  DecodedRecords& records() override { return sqlite().decoded_records(); }
  absl::StatusOr<bool> ReadRecord(absl::string_view agent_id, DecisionRecord& record) override {
    return CatchSqlite(sqlite(), [&]() -> absl::StatusOr<bool> {
      return LookupDecisionRecord(sqlite(), agent_id, record);
    });
  }
  absl::StatusOr<bool> ReadRecordByTokenHash(absl::string_view token_sha256, absl::Time now,
                                             DecisionRecord& record) override {
    return CatchSqlite(sqlite(), [&]() -> absl::StatusOr<bool> {
      return LookupDecisionRecordByTokenHash(sqlite(), token_sha256, now, record);
    });
  }

 private:
  ConnectionPool::Lease lease_;
  // PermissionsThatMayMatch's answers, each alive (and in place: its span is handed out) as
  // long as the snapshot. Most snapshots give none, and an empty vector costs no allocation.
  std::vector<std::unique_ptr<std::vector<Permission>>> may_match_;
};

class SqliteReadSnapshot final : public SqlitePolicyView<ReadSnapshot> {
 public:
  // `read_lock` (may be null) hears of each read and of the changes it saw.
  SqliteReadSnapshot(ConnectionPool::Lease lease, ReadLockKeeper* read_lock)
      : SqlitePolicyView(std::move(lease)), read_lock_(read_lock) {}
  // A read transaction has nothing to keep: COMMIT just releases its snapshot.
  ~SqliteReadSnapshot() override {
    if (read_lock_ != nullptr) read_lock_->NoteRead(sqlite().DatabaseChangedSinceLastAsked());
    if (!sqlite().Commit().ok()) sqlite().Rollback();
  }

 private:
  ReadLockKeeper* const read_lock_;
};

using SqliteWriteTransaction = WriteTransactionOn<SqlitePolicyView<WriteTransaction>>;

ConnectionOptions ConnectionOptionsOf(const SqliteOptions& options) {
  return ConnectionOptions{options.busy_timeout, options.create_if_missing, options.mmap_bytes,
                           options.on_advice};
}

// `tell`, called the first time only: every connection of every pool would say the same.
std::function<void(const std::string&)> TellOnce(std::function<void(const std::string&)> tell) {
  auto told = std::make_shared<std::atomic<bool>>(false);
  return [told, tell = std::move(tell)](const std::string& advice) {
    if (!told->exchange(true)) tell(advice);
  };
}

}  // namespace

SqliteStore::SqliteStore(const std::string& path, const SqliteOptions& options)
    : DatabaseStore([&] { return SqliteSource(path, ConnectionOptionsOf(options)); },
                    PoolOptions{.size = options.connections}, PoolOptions{.size = 1},
                    options.clock) {
  if (options.keep_read_lock) {
    // The keeper's connections never create the file: the pool's first connection does.
    ConnectionOptions keeper = ConnectionOptionsOf(options);
    keeper.create_if_missing = false;
    read_lock_ = std::make_unique<ReadLockKeeper>(
        [path, keeper] { return SqliteSource(path, keeper); }, ReadLockKeeper::Options{});
  }
}

SqliteStore::~SqliteStore() = default;

absl::StatusOr<std::unique_ptr<SqliteStore>> SqliteStore::Open(std::string path,
                                                               SqliteOptions options) {
  if (path.empty()) return absl::InvalidArgumentError("SQLite store: the path is empty");
  if (absl::Status checked = CheckPoolAndClock("SQLite store", options.connections, options.clock);
      !checked.ok()) {
    return checked;
  }
  if (options.on_advice) options.on_advice = TellOnce(std::move(options.on_advice));
  if (options.mmap_bytes < 0) {
    return absl::InvalidArgumentError("SQLite store: mmap_bytes must not be negative");
  }
  if (options.busy_timeout < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("SQLite store: busy_timeout must not be negative");
  }
  return OpenFirstConnection(absl::WrapUnique(new SqliteStore(path, options)),
                             options.defer_open_errors);
}

absl::StatusOr<std::unique_ptr<ReadSnapshot>> SqliteStore::BeginRead() {
  absl::StatusOr<ConnectionPool::Lease> lease = pool_.CheckoutInTransaction(TransactionKind::kRead);
  if (!lease.ok()) return lease.status();
  return std::make_unique<SqliteReadSnapshot>(*std::move(lease), read_lock_.get());
}

absl::StatusOr<std::unique_ptr<WriteTransaction>> SqliteStore::BeginWrite() {
  absl::StatusOr<ConnectionPool::Lease> lease =
      pool_.CheckoutInTransaction(TransactionKind::kWrite);
  if (!lease.ok()) return lease.status();
  return std::make_unique<SqliteWriteTransaction>(*std::move(lease));
}

}  // namespace verdict
