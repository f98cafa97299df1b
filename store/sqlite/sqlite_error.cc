#include "store/sqlite/sqlite_error.h"

#include <sqlite3.h>

#include "absl/strings/str_cat.h"

namespace verdict {
namespace {

int PrimaryCode(int error_code) { return error_code & 0xff; }

bool IsUnavailable(int error_code) {
  switch (PrimaryCode(error_code)) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_NOMEM:
    case SQLITE_READONLY:
    case SQLITE_IOERR:
    case SQLITE_CORRUPT:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
    case SQLITE_PROTOCOL:
    case SQLITE_NOTADB:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return true;
    default:
      return false;
  }
}

}  // namespace

absl::Status SqliteErrorStatus(int error_code, absl::string_view message) {
  if (IsUnavailable(error_code)) {
    return absl::UnavailableError(absl::StrCat("policy store unavailable: ", message));
  }
  return absl::InternalError(absl::StrCat("policy store error: ", message));
}

bool IsConnectionFault(int error_code) { return IsUnavailable(error_code) && !IsBusy(error_code); }

bool IsBusy(int error_code) {
  return PrimaryCode(error_code) == SQLITE_BUSY || PrimaryCode(error_code) == SQLITE_LOCKED;
}

}  // namespace verdict
