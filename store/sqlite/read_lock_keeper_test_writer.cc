// Another process writing to a database, for store/sqlite/read_lock_keeper_test.cc: SQLite's
// read marks are locks between processes, so what a kept read lock does to a writer and its
// checkpoints is only seen from a second process.
//
//   read_lock_keeper_test_writer DB lockstep N
//     sets marker.n to 1, 2 ... N, one commit each; after each commit prints the number and
//     waits for a line on stdin before the next.
//   read_lock_keeper_test_writer DB stream N BYTES LOG_LIMIT
//     commits N rows of BYTES bytes each as fast as it can, checkpointing every 64 pages and
//     truncating a restarted log to LOG_LIMIT bytes; prints the largest log size it saw.
//   read_lock_keeper_test_writer DB stream-as-verdict N BYTES
//     the same with the settings every verdict connection has (store/sqlite/schema.h): the log
//     checkpointed every kAutoCheckpointBytes, truncated to kWriteAheadLogSizeLimit.
//   read_lock_keeper_test_writer DB one-large N BYTES
//     commits one transaction of a BYTES-byte row and prints the log size; then, each time a
//     line comes on stdin, sets marker.n to 1, 2 ... N, one commit each, printing the log size
//     after each.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "store/sqlite/schema.h"

namespace {

int64_t FileSize(const std::string& path) {
  struct stat status;
  return stat(path.c_str(), &status) == 0 ? static_cast<int64_t>(status.st_size) : 0;
}

int Usage() {
  std::fprintf(stderr,
               "usage: read_lock_keeper_test_writer DB lockstep N\n"
               "       read_lock_keeper_test_writer DB stream N BYTES LOG_LIMIT\n"
               "       read_lock_keeper_test_writer DB stream-as-verdict N BYTES\n"
               "       read_lock_keeper_test_writer DB one-large N BYTES\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) return Usage();
  const std::string path = argv[1];
  const std::string mode = argv[2];
  int64_t count = 0;
  if (!absl::SimpleAtoi(argv[3], &count)) return Usage();
  try {
    SQLite::Database db(path, SQLite::OPEN_READWRITE, /*busy_timeout_ms=*/10'000);
    if (!verdict::ConfigureConnection(db, absl::Seconds(10)).ok()) return 1;
    if (mode == "lockstep") {
      std::string line;
      for (int64_t n = 1; n <= count; ++n) {
        db.exec(absl::StrCat("UPDATE marker SET n = ", n));
        std::printf("%lld\n", static_cast<long long>(n));
        std::fflush(stdout);
        if (!std::getline(std::cin, line)) return 1;
      }
      return 0;
    }
    int64_t bytes = 0;
    if (argc < 5 || !absl::SimpleAtoi(argv[4], &bytes)) return Usage();
    if (mode == "one-large") {
      db.exec(absl::StrCat("INSERT INTO blobs(b) VALUES (zeroblob(", bytes, "))"));
      std::printf("%lld\n", static_cast<long long>(FileSize(path + "-wal")));
      std::fflush(stdout);
      std::string line;
      for (int64_t n = 1; n <= count; ++n) {
        if (!std::getline(std::cin, line)) return 1;
        db.exec(absl::StrCat("UPDATE marker SET n = ", n));
        std::printf("%lld\n", static_cast<long long>(FileSize(path + "-wal")));
        std::fflush(stdout);
      }
      return 0;
    }
    if (mode == "stream") {
      int64_t log_limit = 0;
      if (argc != 6 || !absl::SimpleAtoi(argv[5], &log_limit)) return Usage();
      db.exec(absl::StrCat("PRAGMA journal_size_limit = ", log_limit));
      db.exec("PRAGMA wal_autocheckpoint = 64");
    } else if (mode != "stream-as-verdict" || argc != 5) {
      return Usage();
    }
    SQLite::Statement insert(db, "INSERT INTO blobs(b) VALUES (zeroblob(?1))");
    int64_t largest_log = 0;
    for (int64_t n = 0; n < count; ++n) {
      insert.bind(1, static_cast<int64_t>(bytes));
      insert.exec();
      insert.reset();
      largest_log = std::max(largest_log, FileSize(path + "-wal"));
    }
    std::printf("%lld\n", static_cast<long long>(largest_log));
    return 0;
  } catch (const SQLite::Exception& e) {
    std::fprintf(stderr, "read_lock_keeper_test_writer: %s\n", e.what());
    return 1;
  }
}
