// verdict's default store: one SQLite file in WAL mode, shared by the threads of a process
// through a pool of connections and by several processes on one host (design section 4).
//
// Every read runs inside one transaction and nothing read is cached across calls, so a write
// committed by any process is seen by the next snapshot. Nothing here throws: SQLite failures
// come back as UNAVAILABLE (the file cannot be used right now) or INTERNAL.
//
//   absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open("/var/lib/verdict.db");
//   if (!store.ok()) ...
//   absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = (*store)->BeginRead();
#ifndef VERDICT_STORE_SQLITE_STORE_H_
#define VERDICT_STORE_SQLITE_STORE_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "decision/policy_store.h"
#include "store/connection_pool.h"
#include "store/database_store.h"
#include "store/sqlite/read_lock_keeper.h"
#include "store/sqlite/sqlite_source.h"
#include "store/store.h"

namespace verdict {

inline constexpr int64_t kDefaultMmapBytes = int64_t{2} << 30;

struct SqliteOptions {
  // Connections in the pool: at most this many calls use the database at once.
  int connections = 4;
  // How long a call waits for a lock another connection or process holds.
  absl::Duration busy_timeout = absl::Seconds(5);
  bool create_if_missing = true;
  // How much of the database file each connection reads through a memory map instead of
  // read() into its page cache; SQLite caps it (2 GiB in Debian's build). A policy larger than
  // the page cache is read at nearly the speed of a small one this way (bench/PERFORMANCE.md).
  // The price: an I/O error on a mapped page is a SIGBUS that ends the process (the sidecar
  // restarts; callers fail closed meanwhile) instead of an UNAVAILABLE. 0 reads with read().
  int64_t mmap_bytes = kDefaultMmapBytes;
  // When false, Open fails if the database cannot be opened now. When true, Open returns a
  // store anyway and every call retries and answers UNAVAILABLE until the database can be
  // used (a server that starts before its volume is mounted).
  bool defer_open_errors = false;
  // The time of admin writes (created_at, updated_at, grace expiries).
  std::function<absl::Time()> clock = [] { return absl::Now(); };
  // Whether the store keeps the write-ahead log's read lock while decisions come, so that their
  // read transactions take it without system calls (store/sqlite/read_lock_keeper.h). What a
  // decision reads is the same either way.
  bool keep_read_lock = true;
  // Told once, when the first connection opens (at Open, or later with defer_open_errors), what
  // an operator may want to change about the file: pages smaller than the size verdict makes
  // (SmallPagesAdvice, store/sqlite/schema.h). Not called when there is nothing to say.
  std::function<void(const std::string& advice)> on_advice;
};

class SqliteStore final : public DatabaseStore {
 public:
  // Opens `path` and brings its schema up to date (creating the file when allowed).
  // INVALID_ARGUMENT for bad options; UNAVAILABLE or FAILED_PRECONDITION (a database written
  // by a newer verdict) when the file cannot be used, unless defer_open_errors.
  static absl::StatusOr<std::unique_ptr<SqliteStore>> Open(std::string path,
                                                           SqliteOptions options = {});
  ~SqliteStore() override;

  // PolicyStore.
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> BeginRead() override;
  absl::StatusOr<std::unique_ptr<WriteTransaction>> BeginWrite() override;

  // Store: DatabaseStore (store/database_store.h).

 private:
  SqliteStore(const std::string& path, const SqliteOptions& options);

  std::unique_ptr<ReadLockKeeper> read_lock_;  // null unless keep_read_lock
};

}  // namespace verdict

#endif  // VERDICT_STORE_SQLITE_STORE_H_
