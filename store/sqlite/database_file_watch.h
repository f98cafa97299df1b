// What SQLite cannot see through the descriptors it holds open: its database file deleted or
// replaced, made read-only, on a full disk, or overwritten by something that is not a database.
//
// SQLite goes on reading a deleted file through its open descriptor, answers from pages it
// cached before the file was damaged, and reads a read-only file without complaint. A store
// that cannot write cannot commit a revocation either, so verdict treats every one of these as
// a fault and answers UNAVAILABLE (fail closed) until it is gone.
//
// The checks cost a few system calls (about 10 us on the project's machine, most of a direct
// decision's budget), so they run at most once per interval; between runs the last answer
// holds. They never open the database file: closing any descriptor of a file drops every POSIX
// lock the process holds on it, SQLite's included, and another process could then checkpoint
// and delete the WAL under this one's connections (committed writes lost). The header is read
// through a connection's own descriptor instead.
//
//   DatabaseFileWatch watch(path, absl::Milliseconds(100));
//   absl::StatusOr<uint64_t> generation = watch.Check(/*must_exist=*/true, connection);
//   if (!generation.ok()) return generation.status();  // UNAVAILABLE, naming the fault
//   // Close connections opened in an earlier generation: they may hold another file or stale
//   // pages.
#ifndef VERDICT_STORE_SQLITE_DATABASE_FILE_WATCH_H_
#define VERDICT_STORE_SQLITE_DATABASE_FILE_WATCH_H_

#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace verdict {

class DatabaseFileWatch {
 public:
  // Less free space than this on the database's file system is a full disk: a write
  // transaction's WAL frames and the checkpoint after it need room.
  static constexpr int64_t kMinFreeBytes = 1 << 20;

  // Thread-safe. `interval` zero checks on every call.
  DatabaseFileWatch(std::string path, absl::Duration interval);

  // OK with the current generation, or UNAVAILABLE naming the fault. `must_exist` is false
  // until the database has been opened once: a missing file is then one SQLite will create.
  // `connection` (open on the path) reads the header. The generation changes when a fault is
  // seen.
  //
  // A path that names another file than the one first seen (replaced by a restore, say) is a
  // fault until the first file is back: SQLite finds a database's write-ahead log and shared
  // memory by name, so the old file's log, kept alive by every connection still open on it in
  // any process, would be read as the new file's, and checkpointed into it. The same holds for
  // a symbolic link pointed at another file: the new target may be a file replaced while this
  // process held the old one, its old log still alive beside it.
  absl::StatusOr<uint64_t> Check(bool must_exist, sqlite3* connection);

  // Before a connection is opened on the path, whatever the interval: UNAVAILABLE when the file
  // is missing (and `must_exist`) or is another file than the one first seen. Opening the other
  // file would already read the old file's log.
  absl::Status CheckBeforeOpen(bool must_exist);

  // Whether a connection on the path has been opened since the watch began, by any pool that
  // shares it: from then on a missing file is a fault, never one to create.
  bool opened_once() const { return opened_once_.load(); }

  // The connections open on the file, in every pool that shares the watch. While one is open,
  // this process holds a shared lock on the file, and SQLite deletes a write-ahead log only
  // under an exclusive one: the log ("<file>-wal") cannot go away by SQLite's hand, and one
  // deleted or replaced by anything else is a lasting fault (the commits of every connection
  // still on it go into a file no one will read again). When the last closes, the log may go
  // away with it, and the next connection's log is the one watched. A connection is counted out
  // as it starts closing: while it finishes, the log it may delete is watched by no one, and a
  // connection opened meanwhile holds a shared lock that keeps any log it found in place.
  void NoteConnectionOpened() ABSL_LOCKS_EXCLUDED(mutex_);
  void NoteConnectionClosing() ABSL_LOCKS_EXCLUDED(mutex_);

 private:
  struct FileIdentity {
    dev_t device;
    ino_t inode;
    bool operator!=(const FileIdentity& other) const {
      return device != other.device || inode != other.inode;
    }
  };

  // The fault, if any; notes the file's identity the first time.
  absl::Status Inspect(bool must_exist, sqlite3* connection) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The part of Inspect that needs no connection: the file is there (`exists`, `status`) and is
  // the one first seen.
  absl::Status CheckIdentity(bool must_exist, struct stat& status, bool& exists)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  absl::Status Fault(absl::string_view what) const;
  // The write-ahead log's part of Inspect.
  absl::Status CheckWriteAheadLog() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const std::string path_;
  const absl::Duration interval_;
  absl::Mutex mutex_;
  absl::Time next_check_ ABSL_GUARDED_BY(mutex_) = absl::InfinitePast();
  absl::Status last_ ABSL_GUARDED_BY(mutex_);
  uint64_t generation_ ABSL_GUARDED_BY(mutex_) = 0;
  std::optional<FileIdentity> identity_ ABSL_GUARDED_BY(mutex_);
  std::string resolved_path_ ABSL_GUARDED_BY(mutex_);  // the path, links resolved, when first seen
  std::atomic<bool> opened_once_{false};
  int open_connections_ ABSL_GUARDED_BY(mutex_) = 0;
  std::optional<FileIdentity> log_identity_ ABSL_GUARDED_BY(mutex_);
  bool log_lost_ ABSL_GUARDED_BY(mutex_) = false;
};

// The watch of the database at `path` that every connection pool of this process on that path
// shares, for as long as one of them holds it: the policy store's, the admin credential's and the
// decision log's pools must agree on which file is the database and whether it was ever opened,
// or a pool opened after a fault would take a replacement (or an empty file it created) for the
// database. The first caller's `interval` holds.
std::shared_ptr<DatabaseFileWatch> SharedDatabaseFileWatch(const std::string& path,
                                                           absl::Duration interval);

}  // namespace verdict

#endif  // VERDICT_STORE_SQLITE_DATABASE_FILE_WATCH_H_
