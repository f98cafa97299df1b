#include "bench/dataset_db.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <regex>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bench/dataset.h"
#include "crypto/sha256.h"
#include "store/migrations.h"
#include "store/policy_encoding.h"
#include "store/sqlite/schema.h"
#include "store/sqlite_store.h"

namespace verdict::bench {
namespace {

// Bump when the dataset's contents change in a way ContentFingerprint's sample cannot see (past
// its first chains), so stale cached files are not reused.
constexpr int kDatasetVersion = 1;

absl::Status MakeDirectories(const std::string& directory) {
  for (size_t end = directory.find('/', 1);; end = directory.find('/', end + 1)) {
    const std::string prefix = directory.substr(0, end);
    if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      return absl::UnavailableError(
          absl::StrCat("cannot create ", prefix, ": ", std::strerror(errno)));
    }
    if (end == std::string::npos) return absl::OkStatus();
  }
}

bool FileExists(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0;
}

void BindTime(SQLite::Statement& insert, int index, absl::Time time) {
  std::optional<int64_t> micros = TimeToMicros(time);
  if (micros) {
    insert.bind(index, static_cast<int64_t>(*micros));
  } else {
    insert.bind(index);  // NULL: never
  }
}

// Recreates `table` from `create_sql`, keeping its rows (foreign keys are off). The rows pass
// through a temporary table rather than a renamed one: renaming checks every trigger, and the
// triggers name the table while it is gone.
void RecreateTable(SQLite::Database& db, const std::string& table, const std::string& create_sql) {
  db.exec(absl::StrCat("CREATE TEMP TABLE kept_rows AS SELECT * FROM \"", table, "\""));
  db.exec(absl::StrCat("DROP TABLE \"", table, "\""));
  db.exec(create_sql);
  db.exec(absl::StrCat("INSERT INTO \"", table, "\" SELECT * FROM kept_rows"));
  db.exec("DROP TABLE kept_rows");
}

// `table`'s CREATE statement with `pattern` replaced by `replacement`; throws when the pattern
// is not where expected, so a schema change cannot silently leave a control healthy.
std::string EditedCreateStatement(SQLite::Database& db, const std::string& table,
                                  const std::regex& pattern, const char* replacement,
                                  const char* what) {
  SQLite::Statement create(db, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?");
  create.bind(1, table);
  if (!create.executeStep()) throw std::runtime_error(absl::StrCat("no table ", table));
  const std::string sql = create.getColumn(0).getString();
  if (!std::regex_search(sql, pattern)) {
    throw std::runtime_error(absl::StrCat(table, " does not declare ", what, " where expected"));
  }
  return std::regex_replace(sql, pattern, replacement);
}

// Breaks an index on purpose once the rows are in (the triggers that derive decision_records
// need every index while rows go in), so the rows are the same as in the healthy file.
void BreakIndex(SQLite::Database& db, const std::string& index) {
  if (index == "decision_records") {
    // The records' primary key, which a WITHOUT ROWID table cannot drop: the table again as a
    // plain rowid table with no key at all.
    const std::regex key(R"((agent_id\s+TEXT)\s+PRIMARY KEY)");
    std::string create =
        EditedCreateStatement(db, "decision_records", key, "$1", "agent_id PRIMARY KEY");
    create = std::regex_replace(create, std::regex(R"(\s*WITHOUT ROWID\s*$)"), "");
    RecreateTable(db, "decision_records", create);
    return;
  }
  if (index == "token_hash") {
    // Every search by token: the covering index goes with the table, and the token hash's
    // uniqueness, a column constraint whose automatic index cannot be dropped, is left out of
    // the table made again.
    const std::regex unique(R"((token_hash\s+BLOB[^,]*?)\s+UNIQUE)");
    RecreateTable(db, "agents",
                  EditedCreateStatement(db, "agents", unique, "$1", "token_hash UNIQUE"));
    return;
  }
  SQLite::Statement exists(db, "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?");
  exists.bind(1, index);
  if (!exists.executeStep()) {
    throw std::runtime_error(absl::StrCat("no index named ", index, " in the schema"));
  }
  exists.reset();  // a statement still stepping would lock the schema against the drop
  db.exec(absl::StrCat("DROP INDEX \"", index, "\""));  // a name the schema itself holds
}

void InsertAgents(SQLite::Database& db, int64_t agents) {
  SQLite::Statement insert(
      db,
      "INSERT INTO agents (id, owner, name, kind, status, expires_at, token_hash, token_prefix, "
      "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (int64_t index = 0; index < agents; ++index) {
    const Agent agent = AgentRow(index);
    const std::string token_hash = Sha256(AgentToken(index));
    insert.bind(1, agent.id);
    insert.bind(2, agent.owner);
    insert.bind(3, agent.name);
    insert.bind(4, std::string(AgentKindName(agent.kind)));
    insert.bind(5, std::string(AgentStatusName(agent.status)));
    BindTime(insert, 6, agent.expires_at);
    insert.bind(7, token_hash.data(), static_cast<int>(token_hash.size()));
    insert.bind(8, agent.token_prefix);
    BindTime(insert, 9, agent.created_at);
    BindTime(insert, 10, agent.updated_at);
    insert.exec();
    insert.reset();
  }
}

void InsertPermissions(SQLite::Database& db, int64_t agents) {
  SQLite::Statement insert(db,
                           "INSERT INTO permissions (id, agent_id, resource, actions, effect, "
                           "constraints, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)");
  // Every agent has the same few constraint texts: canonicalise each once.
  absl::flat_hash_map<std::string, std::string> canonical_constraints;
  for (int64_t index = 0; index < agents; ++index) {
    for (const Permission& permission : PermissionsOf(index)) {
      auto [entry, added] = canonical_constraints.try_emplace(permission.constraints_json);
      if (added) {
        absl::StatusOr<std::string> canonical =
            CanonicalConstraintsJson(permission.constraints_json);
        if (!canonical.ok()) throw std::runtime_error(canonical.status().ToString());
        entry->second = *canonical;
      }
      insert.bind(1, permission.id);
      insert.bind(2, permission.agent_id);
      insert.bind(3, permission.resource);
      insert.bind(4, JoinActions(permission.actions));
      insert.bind(5, std::string(EffectName(permission.effect)));
      insert.bind(6, entry->second);
      BindTime(insert, 7, permission.created_at);
      insert.exec();
      insert.reset();
    }
  }
}

void InsertDelegations(SQLite::Database& db, int64_t agents) {
  SQLite::Statement insert(db,
                           "INSERT INTO delegations (id, from_agent_id, to_agent_id, "
                           "permissions, max_depth, status, expires_at, created_at) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  for (int64_t chain = 0; chain < ChainCount(agents); ++chain) {
    for (const Delegation& link : ChainLinks(chain)) {
      absl::StatusOr<std::string> lent = EncodeLentPermissions(link.permissions);
      if (!lent.ok()) throw std::runtime_error(lent.status().ToString());
      insert.bind(1, link.id);
      insert.bind(2, link.from_agent_id);
      insert.bind(3, link.to_agent_id);
      insert.bind(4, *lent);
      insert.bind(5, link.max_depth);
      insert.bind(6, std::string(DelegationStatusName(link.status)));
      BindTime(insert, 7, link.expires_at);
      BindTime(insert, 8, link.created_at);
      insert.exec();
      insert.reset();
    }
  }
}

absl::Status Generate(const DatasetDbOptions& options, const std::string& path) {
  {
    absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(path);
    if (!store.ok()) return store.status();
  }
  try {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    // A file that is thrown away if generation fails needs no durability while it is written.
    db.exec("PRAGMA synchronous = OFF");
    db.exec("PRAGMA cache_size = -262144");
    // Checked once at the end instead of row by row (and needed to recreate a table).
    db.exec("PRAGMA foreign_keys = OFF");
    SQLite::Transaction transaction(db);
    InsertAgents(db, options.agents);
    InsertPermissions(db, options.agents);
    InsertDelegations(db, options.agents);
    if (!options.drop_index.empty()) BreakIndex(db, options.drop_index);
    transaction.commit();
    // Foreign keys were not enforced row by row (too slow): check them all once.
    SQLite::Statement broken_references(db, "PRAGMA foreign_key_check");
    if (broken_references.executeStep()) {
      return absl::InternalError("the generated rows break a foreign key");
    }
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } catch (const std::exception& error) {
    return absl::InternalError(absl::StrCat("generating ", path, ": ", error.what()));
  }
  return absl::OkStatus();
}

// The migrations' text and the page size, hashed: a file made under an edited migration, or
// with pages of another size, is not reused, even when the schema version did not change (as
// happens while a migration is still being written).
std::string SchemaFingerprint() {
  std::string all_sql = absl::StrCat("PRAGMA page_size = ", kNewDatabasePageBytes, ";");
  for (const Migration& migration : Migrations()) absl::StrAppend(&all_sql, migration.sql, ";");
  return HexEncode(Sha256(all_sql)).substr(0, 12);
}

// What the generator writes for the first six chains' agents and links: a change to the rows of
// bench/dataset.cc changes the file's name, so a cached file of older contents is never reused.
std::string ContentFingerprint() {
  constexpr int64_t kChains = 6;
  std::string rows;
  for (int64_t agent = 0; agent < kChains * kAgentsPerChain; ++agent) {
    const Agent row = AgentRow(agent);
    absl::StrAppend(&rows, row.id, "|", row.owner, "|", row.name, "|", static_cast<int>(row.kind),
                    "|", static_cast<int>(row.status), "|", absl::FormatTime(row.expires_at), "|",
                    AgentToken(agent), "\n");
    for (const Permission& permission : PermissionsOf(agent)) {
      absl::StrAppend(&rows,
                      GrantLine(permission.id, permission.effect == Effect::kAllow,
                                permission.resource, permission.actions),
                      "|", permission.constraints_json, "\n");
    }
  }
  for (int64_t chain = 0; chain < kChains; ++chain) {
    for (const Delegation& link : ChainLinks(chain)) {
      absl::StrAppend(&rows, link.id, "|", link.from_agent_id, "|", link.to_agent_id, "|",
                      link.max_depth, "|", static_cast<int>(link.status), "\n");
      for (const LentPermission& lent : link.permissions) {
        absl::StrAppend(&rows, lent.resource, "|", absl::StrJoin(lent.actions, ","), "|",
                        lent.constraints_json, "\n");
      }
    }
  }
  return HexEncode(Sha256(rows)).substr(0, 12);
}

void RemoveDatabaseFiles(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
}

}  // namespace

std::string DefaultDatasetDir() {
  const char* directory = std::getenv("VERDICT_BENCH_DIR");
  return directory != nullptr && *directory != '\0' ? directory : "/tmp/verdict-bench";
}

absl::StatusOr<std::string> EnsureDatasetDb(const DatasetDbOptions& options) {
  if (options.agents < 1) return absl::InvalidArgumentError("agents must be positive");
  const std::string directory = options.directory.empty() ? DefaultDatasetDir() : options.directory;
  const std::string path =
      absl::StrCat(directory, "/dataset-v", kDatasetVersion, "-schema", LatestSchemaVersion(), "-",
                   SchemaFingerprint(), "-rows", ContentFingerprint(), "-agents", options.agents,
                   options.drop_index.empty() ? "" : "-without-", options.drop_index, ".db");
  if (FileExists(path)) return path;
  if (absl::Status made = MakeDirectories(directory); !made.ok()) return made;
  // Written under a private name and renamed when complete: a reader never sees half a file.
  const std::string partial = absl::StrCat(path, ".partial-", getpid());
  RemoveDatabaseFiles(partial);
  absl::Status generated = Generate(options, partial);
  if (generated.ok() && std::rename(partial.c_str(), path.c_str()) != 0) {
    generated = absl::UnavailableError(
        absl::StrCat("cannot rename ", partial, " to ", path, ": ", std::strerror(errno)));
  }
  RemoveDatabaseFiles(partial);
  if (!generated.ok()) return generated;
  return path;
}

}  // namespace verdict::bench
