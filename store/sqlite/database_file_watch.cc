#include "store/sqlite/database_file_watch.h"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"

namespace verdict {
namespace {

// Every SQLite database file starts with these 16 bytes (the header's magic string).
constexpr absl::string_view kSqliteMagic("SQLite format 3\0", 16);

// The first bytes of the database file, read through the connection's own descriptor.
bool HeaderStartsLikeSqlite(sqlite3* connection) {
  sqlite3_file* file = nullptr;
  if (sqlite3_file_control(connection, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK ||
      file == nullptr || file->pMethods == nullptr) {
    return false;
  }
  char magic[kSqliteMagic.size()];
  return file->pMethods->xRead(file, magic, sizeof magic, 0) == SQLITE_OK &&
         absl::string_view(magic, sizeof magic) == kSqliteMagic;
}

std::string ErrnoText() { return std::strerror(errno); }

// The path with every link resolved, as SQLite resolves it to name the log; "" when it cannot
// be resolved.
std::string ResolvedPath(const std::string& path) {
  char* resolved = realpath(path.c_str(), nullptr);
  if (resolved == nullptr) return "";
  std::string result(resolved);
  std::free(resolved);
  return result;
}

}  // namespace

DatabaseFileWatch::DatabaseFileWatch(std::string path, absl::Duration interval)
    : path_(std::move(path)), interval_(interval) {}

absl::StatusOr<uint64_t> DatabaseFileWatch::Check(bool must_exist, sqlite3* connection) {
  absl::MutexLock lock(&mutex_);
  const absl::Time now = absl::Now();
  if (now >= next_check_) {
    next_check_ = now + interval_;
    absl::Status fault = Inspect(must_exist, connection);
    // Entering a fault retires every connection: none may answer from before it once it heals.
    if (!fault.ok() && last_.ok()) ++generation_;
    last_ = std::move(fault);
  }
  if (!last_.ok()) return last_;
  return generation_;
}

absl::Status DatabaseFileWatch::CheckBeforeOpen(bool must_exist) {
  absl::MutexLock lock(&mutex_);
  struct stat status;
  bool exists = false;
  absl::Status fault = CheckIdentity(must_exist, status, exists);
  if (!fault.ok() && last_.ok()) ++generation_;
  if (!fault.ok()) last_ = fault;
  return fault;
}

absl::Status DatabaseFileWatch::Fault(absl::string_view what) const {
  return absl::UnavailableError(absl::StrCat("policy store unavailable: ", path_, ": ", what));
}

absl::Status DatabaseFileWatch::CheckIdentity(bool must_exist, struct stat& status, bool& exists) {
  exists = stat(path_.c_str(), &status) == 0;
  if (!exists) {
    if (errno != ENOENT) return Fault(ErrnoText());
    return must_exist ? Fault("the database file was deleted or moved away") : absl::OkStatus();
  }
  const FileIdentity identity{status.st_dev, status.st_ino};
  const std::string resolved = ResolvedPath(path_);
  if (!identity_.has_value()) {
    identity_ = identity;
    resolved_path_ = resolved;
  }
  // SQLite names the log after the path with its links resolved: the same file reached under
  // another name (a hard link behind a directory link pointed elsewhere) has another log.
  if (*identity_ != identity || resolved != resolved_path_) {
    // Whether renamed onto the path or reached through a link pointed elsewhere: the old file's
    // log may be named like the new file's, and connections of this and other processes may
    // still hold the old one; only a restart sees the new file whole.
    return Fault(
        "it is another file, or the file under another name, than the one verdictd opened "
        "(replaced, or a link pointed elsewhere), and SQLite would read it with another "
        "write-ahead log; restart every verdictd on the database to serve it");
  }
  return absl::OkStatus();
}

void DatabaseFileWatch::NoteConnectionOpened() {
  absl::MutexLock lock(&mutex_);
  ++open_connections_;
  opened_once_.store(true);
}

void DatabaseFileWatch::NoteConnectionClosing() {
  absl::MutexLock lock(&mutex_);
  if (--open_connections_ == 0) log_identity_.reset();
}

absl::Status DatabaseFileWatch::CheckWriteAheadLog() {
  constexpr absl::string_view kLost =
      "its write-ahead log (-wal) was deleted or replaced while verdictd had the database open, "
      "and the writes committed into it since are lost to every other connection; restart "
      "every verdictd on the database";
  if (log_lost_) return Fault(kLost);
  if (open_connections_ == 0 || resolved_path_.empty()) return absl::OkStatus();
  struct stat log;
  if (stat(absl::StrCat(resolved_path_, "-wal").c_str(), &log) != 0) {
    if (errno != ENOENT) return Fault(ErrnoText());
    if (!log_identity_.has_value()) return absl::OkStatus();  // not written yet
    log_lost_ = true;
    return Fault(kLost);
  }
  const FileIdentity identity{log.st_dev, log.st_ino};
  if (!log_identity_.has_value()) log_identity_ = identity;
  if (*log_identity_ != identity) {
    log_lost_ = true;
    return Fault(kLost);
  }
  return absl::OkStatus();
}

absl::Status DatabaseFileWatch::Inspect(bool must_exist, sqlite3* connection) {
  struct stat status;
  bool exists = false;
  if (absl::Status identity = CheckIdentity(must_exist, status, exists); !identity.ok()) {
    return identity;
  }
  if (!exists) return absl::OkStatus();  // SQLite creates it

  // SQLite creates an empty file and writes its header with the first transaction.
  if (status.st_size > 0 && !HeaderStartsLikeSqlite(connection)) {
    return Fault("not an SQLite database any more (overwritten or corrupted)");
  }
  if (absl::Status log = CheckWriteAheadLog(); !log.ok()) return log;
  struct statvfs file_system;
  if (statvfs(path_.c_str(), &file_system) != 0) return Fault(ErrnoText());
  if ((file_system.f_flag & ST_RDONLY) != 0) return Fault("read-only file system");
  // f_bavail: what an unprivileged writer may use; verdictd runs as one in its image.
  const int64_t free_bytes =
      static_cast<int64_t>(file_system.f_bavail) * static_cast<int64_t>(file_system.f_frsize);
  if (free_bytes < kMinFreeBytes) {
    return Fault(absl::StrCat("disk full (", free_bytes, " bytes free)"));
  }
  // Also refuses a file made immutable (chattr +i), which root cannot write either.
  if (access(path_.c_str(), W_OK) != 0) return Fault(absl::StrCat("not writable: ", ErrnoText()));
  return absl::OkStatus();
}

std::shared_ptr<DatabaseFileWatch> SharedDatabaseFileWatch(const std::string& path,
                                                           absl::Duration interval) {
  static absl::Mutex registry_mutex(absl::kConstInit);
  static auto* registry = new std::map<std::string, std::weak_ptr<DatabaseFileWatch>>();
  absl::MutexLock lock(&registry_mutex);
  std::weak_ptr<DatabaseFileWatch>& entry = (*registry)[path];
  std::shared_ptr<DatabaseFileWatch> watch = entry.lock();
  if (watch == nullptr) {
    watch = std::make_shared<DatabaseFileWatch>(path, interval);
    entry = watch;
  }
  // Forget the paths no pool holds any more.
  for (auto it = registry->begin(); it != registry->end();) {
    it = it->second.expired() ? registry->erase(it) : std::next(it);
  }
  return watch;
}

}  // namespace verdict
