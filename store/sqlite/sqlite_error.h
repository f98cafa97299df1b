// What an SQLite failure means to verdict's callers, decided in one place.
//
// SQLiteCpp reports failures by throwing SQLite::Exception; the store catches every exception
// at its boundary and returns the status built here, so nothing above store/ sees one.
//
//   catch (const SQLite::Exception& e) {
//     return SqliteErrorStatus(e.getErrorCode(), e.what());
//   }
#ifndef VERDICT_STORE_SQLITE_SQLITE_ERROR_H_
#define VERDICT_STORE_SQLITE_SQLITE_ERROR_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace verdict {

// UNAVAILABLE when the database cannot be reached or used right now (busy or locked, I/O error,
// cannot open, corrupt or not a database, read-only, disk full, out of memory): a caller may
// retry later. INTERNAL otherwise (misuse, a constraint or SQL error: a bug). The message
// keeps SQLite's own text. `error_code` may be extended; -1 means "not from SQLite".
absl::Status SqliteErrorStatus(int error_code, absl::string_view message);

// True when a connection that saw this error should be closed and opened again on next use,
// so the store recovers once the fault (a missing directory, a full disk) is fixed.
bool IsConnectionFault(int error_code);

// True for SQLITE_BUSY and SQLITE_LOCKED: another connection holds the lock.
bool IsBusy(int error_code);

}  // namespace verdict

#endif  // VERDICT_STORE_SQLITE_SQLITE_ERROR_H_
