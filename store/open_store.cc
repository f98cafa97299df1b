#include "store/open_store.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "store/admin_credentials.h"
#include "store/admin_sessions.h"
#include "store/decision_log.h"
#include "store/postgres/postgres_source.h"
#include "store/postgres_store.h"
#include "store/sqlite_store.h"

namespace verdict {
namespace {

constexpr absl::string_view kSchemeSeparator = "://";
constexpr absl::string_view kSqliteScheme = "sqlite://";

bool IsPostgresUrl(absl::string_view db) {
  return absl::StartsWith(db, "postgresql://") || absl::StartsWith(db, "postgres://");
}

// A relative path, made absolute against the working directory once, when the location is read:
// every connection then names the file the process was started with, even if that directory is
// moved away later (the watch of store/sqlite/database_file_watch.h then sees the database vanish).
std::string AbsolutePath(absl::string_view path) {
  if (absl::StartsWith(path, "/")) return std::string(path);
  char directory[PATH_MAX];
  if (getcwd(directory, sizeof directory) == nullptr) return std::string(path);
  absl::string_view relative = path;
  while (absl::ConsumePrefix(&relative, "./")) {
  }
  return absl::StrCat(directory, "/", relative);
}

}  // namespace

absl::StatusOr<StoreLocation> ParseStoreLocation(absl::string_view db) {
  if (db.empty()) return absl::InvalidArgumentError("the store location is empty");
  if (IsPostgresUrl(db)) return StoreLocation{StoreKind::kPostgres, std::string(db)};
  if (absl::ConsumePrefix(&db, kSqliteScheme)) {
    if (db.empty()) return absl::InvalidArgumentError("sqlite:// names no file");
    return StoreLocation{StoreKind::kSqlite, AbsolutePath(db)};
  }
  if (const size_t scheme_end = db.find(kSchemeSeparator);
      scheme_end != absl::string_view::npos &&
      db.substr(0, scheme_end).find('/') == absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown store scheme \"", db.substr(0, scheme_end),
                     "://\": use a file path, sqlite:///path or postgresql://..."));
  }
  // "sqlite:/x.db", "postgresql:/verdict", "file:d.db": a scheme without its "//", which would
  // otherwise name a relative file of that odd name. A file whose name has a colon is written
  // with a directory ("./a:b.db").
  if (const size_t colon = db.find(':'); colon != absl::string_view::npos && colon > 0 &&
                                         std::all_of(db.begin(), db.begin() + colon, [](char c) {
                                           return absl::ascii_isalnum(c) || c == '+' || c == '-' ||
                                                  c == '.';
                                         })) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", db.substr(0, colon + 1),
                     "\" looks like a URL scheme without \"//\": use a file path "
                     "(./",
                     db, " for a file of that name), sqlite:///path or postgresql://..."));
  }
  return StoreLocation{StoreKind::kSqlite, AbsolutePath(db)};
}

// "password=..." and "sslpassword=..." in a URL's query string (libpq takes any parameter
// there) with their values masked.
std::string MaskQueryPasswords(absl::string_view query) {
  std::vector<std::string> parameters;
  for (absl::string_view parameter : absl::StrSplit(query, '&')) {
    const absl::string_view key = parameter.substr(0, parameter.find('='));
    if (key == "password" || key == "sslpassword") {
      parameters.push_back(absl::StrCat(key, "=***"));
    } else {
      parameters.emplace_back(parameter);
    }
  }
  return absl::StrJoin(parameters, "&");
}

std::string DescribeStoreLocation(absl::string_view db) {
  if (!IsPostgresUrl(db)) return std::string(db);
  const size_t query_start = db.find('?');
  std::string query;
  if (query_start != absl::string_view::npos) {
    query = absl::StrCat("?", MaskQueryPasswords(db.substr(query_start + 1)));
    db = db.substr(0, query_start);
  }
  // postgresql://user:password@host/...: the password sits between the first ':' after the
  // scheme and the last '@' of the authority.
  const size_t authority = db.find(kSchemeSeparator) + kSchemeSeparator.size();
  const size_t authority_end = db.find('/', authority);
  const absl::string_view userinfo_and_host = db.substr(authority, authority_end - authority);
  const size_t at = userinfo_and_host.rfind('@');
  const size_t colon =
      at == absl::string_view::npos ? at : userinfo_and_host.substr(0, at).find(':');
  if (colon == absl::string_view::npos) return absl::StrCat(db, query);
  return absl::StrCat(db.substr(0, authority + colon + 1), "***", db.substr(authority + at), query);
}

absl::StatusOr<std::unique_ptr<Store>> OpenStore(absl::string_view db, StoreOptions options) {
  absl::StatusOr<StoreLocation> location = ParseStoreLocation(db);
  if (!location.ok()) return location.status();
  if (!options.read_endpoints.empty() && location->kind != StoreKind::kPostgres) {
    return absl::InvalidArgumentError(
        "read endpoints (--db_read) need a PostgreSQL primary (--db=postgresql://...)");
  }
  for (const std::string& read : options.read_endpoints) {
    if (!IsPostgresUrl(read)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "read endpoint \"", DescribeStoreLocation(read), "\" is not a postgresql:// URL"));
    }
  }
  if (location->kind == StoreKind::kPostgres) {
    PostgresOptions postgres;
    for (const std::string& read : options.read_endpoints) {
      postgres.read_names.push_back(DescribeStoreLocation(read));
    }
    postgres.read_conninfos = std::move(options.read_endpoints);
    postgres.read_counters = options.read_counters;
    postgres.on_read_route_change = std::move(options.on_read_route_change);
    postgres.connections = options.connections;
    postgres.defer_open_errors = options.defer_open_errors;
    postgres.clock = std::move(options.clock);
    absl::StatusOr<std::unique_ptr<PostgresStore>> store =
        PostgresStore::Open(std::move(location->location), std::move(postgres));
    if (!store.ok()) return store.status();
    return std::unique_ptr<Store>(*std::move(store));
  }
  // A directory is never a database that is not there yet: a configuration error, at once.
  if (struct stat status;
      stat(location->location.c_str(), &status) == 0 && S_ISDIR(status.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat(location->location, " is a directory; name the database file in it"));
  }
  SqliteOptions sqlite;
  sqlite.connections = options.connections;
  sqlite.defer_open_errors = options.defer_open_errors;
  sqlite.mmap_bytes = options.sqlite_mmap_bytes;
  sqlite.keep_read_lock = options.sqlite_keep_read_lock;
  sqlite.on_advice = std::move(options.sqlite_on_advice);
  sqlite.clock = std::move(options.clock);
  absl::StatusOr<std::unique_ptr<SqliteStore>> store =
      SqliteStore::Open(std::move(location->location), std::move(sqlite));
  if (!store.ok()) return store.status();
  return std::unique_ptr<Store>(*std::move(store));
}

namespace {

// A database with one connection of its own, for the admin plane's tables.
absl::StatusOr<std::unique_ptr<Database>> OpenAdminDatabase(absl::string_view db) {
  absl::StatusOr<StoreLocation> location = ParseStoreLocation(db);
  if (!location.ok()) return location.status();
  if (location->kind == StoreKind::kSqlite) {
    return std::make_unique<ConnectionPool>(
        SqliteSource(std::move(location->location), ConnectionOptions{}), PoolOptions{.size = 1});
  }
  absl::StatusOr<const LibPq*> pq = LoadLibPq();
  if (!pq.ok()) return pq.status();
  return std::make_unique<ConnectionPool>(
      PostgresSource(**pq, std::move(location->location), PostgresConnectionOptions{}),
      PostgresPoolOptions(PostgresConnectionOptions{}, /*size=*/1));
}

}  // namespace

absl::StatusOr<std::unique_ptr<AdminCredentialStore>> OpenAdminCredentialStore(
    absl::string_view db) {
  absl::StatusOr<std::unique_ptr<Database>> database = OpenAdminDatabase(db);
  if (!database.ok()) return database.status();
  return std::make_unique<AdminCredentials>(*std::move(database));
}

absl::StatusOr<std::unique_ptr<DecisionLogStore>> OpenDecisionLogStore(absl::string_view db) {
  absl::StatusOr<std::unique_ptr<Database>> database = OpenAdminDatabase(db);
  if (!database.ok()) return database.status();
  return std::make_unique<DecisionLog>(*std::move(database));
}

absl::StatusOr<std::unique_ptr<AdminAuditLog>> OpenAdminAuditLog(absl::string_view db) {
  absl::StatusOr<std::unique_ptr<Database>> database = OpenAdminDatabase(db);
  if (!database.ok()) return database.status();
  return std::make_unique<AdminAuditLog>(*std::move(database));
}

absl::StatusOr<std::unique_ptr<AdminSessionStore>> OpenAdminSessionStore(absl::string_view db) {
  absl::StatusOr<std::unique_ptr<Database>> database = OpenAdminDatabase(db);
  if (!database.ok()) return database.status();
  return std::make_unique<AdminSessions>(*std::move(database));
}

}  // namespace verdict
