// How the pool (store/connection_pool.h) opens SQLite connections on one file, and whether an
// idle one may serve again.
//
// A connection also fails to open, and an idle one to serve, while the database file has a
// fault SQLite cannot see (store/sqlite/database_file_watch.h: deleted, read-only, disk full,
// overwritten), and a file that once existed is never created again: a vanished database is a
// fault, not an empty policy to answer from. A connection opened before a fault, or before the
// file was replaced, is closed instead of reused: it may hold another file or stale pages.
//
//   ConnectionPool pool(SqliteSource("/var/lib/verdict.db", ConnectionOptions{}), {.size = 4});
#ifndef VERDICT_STORE_SQLITE_SQLITE_SOURCE_H_
#define VERDICT_STORE_SQLITE_SQLITE_SOURCE_H_

#include <memory>
#include <string>

#include "store/connection_pool.h"
#include "store/sqlite/sqlite_connection.h"

namespace verdict {

// Every source on one path shares the path's file watch (SharedDatabaseFileWatch).
std::unique_ptr<ConnectionSource> SqliteSource(std::string path, ConnectionOptions options);

}  // namespace verdict

#endif  // VERDICT_STORE_SQLITE_SQLITE_SOURCE_H_
