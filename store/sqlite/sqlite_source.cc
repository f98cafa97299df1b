#include "store/sqlite/sqlite_source.h"

#include <utility>

#include "store/sqlite/database_file_watch.h"

namespace verdict {
namespace {

// How stale the database file watch's answer may be: a fault is noticed within this long, at a
// cost of about 10 us per interval (store/sqlite/database_file_watch.h).
constexpr absl::Duration kFileCheckInterval = absl::Milliseconds(100);

class SqliteConnectionSource final : public ConnectionSource {
 public:
  SqliteConnectionSource(std::string path, ConnectionOptions options)
      : path_(std::move(path)),
        options_(options),
        watch_(SharedDatabaseFileWatch(path_, kFileCheckInterval)) {}

  // The epoch is the file watch's generation.
  absl::StatusOr<Opened> Open(const std::function<bool()>& /*given_up*/) override {
    const bool opened_once = watch_->opened_once();
    ConnectionOptions options = options_;
    if (opened_once) {
      // A missing or replaced file is a fault, never opened: a new file would be created empty,
      // and a replacement read with the old file's write-ahead log.
      if (absl::Status fault = watch_->CheckBeforeOpen(/*must_exist=*/true); !fault.ok()) {
        return fault;
      }
      options.create_if_missing = false;
    }
    absl::StatusOr<std::unique_ptr<SqliteConnection>> opened =
        SqliteConnection::Open(path_, options);
    if (!opened.ok()) return opened.status();
    watch_->NoteConnectionOpened();
    (*opened)->OnClosing([watch = watch_] { watch->NoteConnectionClosing(); });
    // A fault closes the connection: it retires every connection opened before it.
    absl::StatusOr<uint64_t> file =
        watch_->Check(/*must_exist=*/opened_once, (*opened)->database().getHandle());
    if (!file.ok()) return file.status();
    return Opened{*std::move(opened), *file};
  }

  absl::StatusOr<std::optional<uint64_t>> Reuse(Connection& idle, uint64_t epoch) override {
    absl::StatusOr<uint64_t> file = watch_->Check(
        /*must_exist=*/true, static_cast<SqliteConnection&>(idle).database().getHandle());
    if (!file.ok()) return file.status();
    if (*file != epoch) return std::nullopt;
    return *file;
  }

 private:
  const std::string path_;
  const ConnectionOptions options_;
  // Shared with every other pool of this process on the same path.
  const std::shared_ptr<DatabaseFileWatch> watch_;
};

}  // namespace

std::unique_ptr<ConnectionSource> SqliteSource(std::string path, ConnectionOptions options) {
  return std::make_unique<SqliteConnectionSource>(std::move(path), options);
}

}  // namespace verdict
