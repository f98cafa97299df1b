#include "store/sqlite/sqlite_error.h"

#include <sqlite3.h>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

struct ErrorCase {
  int sqlite_code;
  absl::StatusCode status;
  bool connection_fault;
};

class SqliteErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(SqliteErrorTest, StatusAndFaultFollowTheSqliteCode) {
  const ErrorCase& c = GetParam();
  absl::Status status = SqliteErrorStatus(c.sqlite_code, "what SQLite said");
  EXPECT_EQ(status.code(), c.status) << c.sqlite_code;
  EXPECT_THAT(status.message(), ::testing::HasSubstr("what SQLite said"));
  EXPECT_EQ(IsConnectionFault(c.sqlite_code), c.connection_fault) << c.sqlite_code;
}

constexpr absl::StatusCode kUnavailable = absl::StatusCode::kUnavailable;
constexpr absl::StatusCode kInternal = absl::StatusCode::kInternal;

INSTANTIATE_TEST_SUITE_P(
    Codes, SqliteErrorTest,
    ::testing::Values(
        ErrorCase{SQLITE_BUSY, kUnavailable, false},
        ErrorCase{SQLITE_BUSY_SNAPSHOT, kUnavailable, false},  // extended
        ErrorCase{SQLITE_LOCKED, kUnavailable, false}, ErrorCase{SQLITE_IOERR, kUnavailable, true},
        ErrorCase{SQLITE_IOERR_SHORT_READ, kUnavailable, true},
        ErrorCase{SQLITE_CANTOPEN, kUnavailable, true},
        ErrorCase{SQLITE_CORRUPT, kUnavailable, true}, ErrorCase{SQLITE_NOTADB, kUnavailable, true},
        ErrorCase{SQLITE_READONLY, kUnavailable, true}, ErrorCase{SQLITE_FULL, kUnavailable, true},
        ErrorCase{SQLITE_MISUSE, kInternal, false}, ErrorCase{SQLITE_ERROR, kInternal, false},
        ErrorCase{SQLITE_CONSTRAINT, kInternal, false},
        ErrorCase{-1, kInternal, false}));  // thrown by SQLiteCpp itself

}  // namespace
}  // namespace verdict
