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
#include "bench/dataset.h"
#include "crypto/sha256.h"
#include "store/migrations.h"
#include "store/policy_encoding.h"
#include "store/sqlite_store.h"

namespace verdict::bench {
namespace {

// Bump when the dataset's contents change, so stale cached files are not reused.
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

// Drops the index before any row goes in, so the rows are the same as in the healthy file.
void DropIndex(SQLite::Database& db, const std::string& index) {
  if (index != "token_hash") {
    SQLite::Statement exists(db, "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?");
    exists.bind(1, index);
    if (!exists.executeStep()) {
      throw std::runtime_error(absl::StrCat("no index named ", index, " in the schema"));
    }
    exists.reset();  // a statement still stepping would lock the schema against the drop
    db.exec(absl::StrCat("DROP INDEX \"", index, "\""));  // a name the schema itself holds
    return;
  }
  // The token hash's uniqueness is a column constraint, whose automatic index cannot be
  // dropped: recreate the (still empty) table without it.
  const std::string create =
      db.execAndGet("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'agents'")
          .getString();
  const std::regex unique_token_hash(R"((token_hash\s+BLOB[^,]*?)\s+UNIQUE)");
  if (!std::regex_search(create, unique_token_hash)) {
    throw std::runtime_error("agents.token_hash is not declared UNIQUE where expected");
  }
  db.exec("DROP TABLE agents");
  db.exec(std::regex_replace(create, unique_token_hash, "$1"));
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
    if (!options.drop_index.empty()) DropIndex(db, options.drop_index);
    SQLite::Transaction transaction(db);
    InsertAgents(db, options.agents);
    InsertPermissions(db, options.agents);
    InsertDelegations(db, options.agents);
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

// The migrations' text, hashed: a file made under an edited migration is not reused, even when
// the schema version did not change (as happens while a migration is still being written).
std::string SchemaFingerprint() {
  std::string all_sql;
  for (const Migration& migration : Migrations()) absl::StrAppend(&all_sql, migration.sql, ";");
  return HexEncode(Sha256(all_sql)).substr(0, 12);
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
                   SchemaFingerprint(), "-agents", options.agents,
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
