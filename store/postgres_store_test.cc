// What only the PostgreSQL store has: its schema beside SQLite's, migrations racing across
// processes, index use on the decision path, and a server that goes away. The rules both stores
// keep are in store/store_contract_test.cc. Skipped without VERDICT_TEST_POSTGRES_URL.
#include "store/postgres_store.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "crypto/sha256.h"
#include "decision/type_names.h"
#include "decision/types.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/lookups.h"
#include "store/migrations.h"
#include "store/policy_encoding.h"
#include "store/postgres/postgres_connection.h"
#include "store/postgres/postgres_libpq.h"
#include "store/postgres/postgres_schema.h"
#include "store/postgres/postgres_test_support.h"
#include "store/sqlite/schema.h"
#include "store/statements.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

using Columns = std::map<std::string, std::set<std::string>>;  // table -> column names

// Clears the agent's descriptive columns (decision/types.h's VERDICT_AGENT_TEXT_COLUMNS): no
// decision reads them, so a decision record leaves them out, and an agent read from the tables
// is compared with one read from its record without them.
void ClearAgentText(Agent& agent) {
  for (const AgentTextColumn<Agent>& text : kAgentTextColumns<Agent>) (agent.*text.member).clear();
}

// A TCP relay between the store and the test's server that can stop relaying while it keeps
// every connection open: what a server frozen on a machine that still acknowledges (a process
// stopped, stuck in the kernel) looks like from the store's side.
class FreezableRelay {
 public:
  explicit FreezableRelay(int server_port) : server_port_(server_port) {
    listener_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (bind(listener_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
        listen(listener_, 16) != 0 ||
        getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      ADD_FAILURE() << "the relay cannot listen";
      return;
    }
    port_ = ntohs(address.sin_port);
    threads_.emplace_back([this] { AcceptLoop(); });
  }

  ~FreezableRelay() {
    stopping_ = true;
    for (std::thread& thread : threads_) thread.join();
    for (int open : sockets_) close(open);
    close(listener_);
  }

  int port() const { return port_; }
  // Returns once no pump is still relaying what it read before.
  void Freeze() {
    frozen_ = true;
    absl::SleepFor(absl::Milliseconds(200));
  }
  void Thaw() { frozen_ = false; }

  // Whether the relay's latest client has sent bytes that a frozen relay holds back.
  bool ClientBytesHeldBack() {
    absl::MutexLock lock(&sockets_mu_);
    int pending = 0;
    return !clients_.empty() && ioctl(clients_.back(), FIONREAD, &pending) == 0 && pending > 0;
  }

 private:
  // Waits up to 50 ms for `fd` to be readable; false when it is not or the relay is stopping.
  bool Readable(int fd) {
    pollfd ready{fd, POLLIN, 0};
    return !stopping_ && poll(&ready, 1, 50) > 0;
  }

  void AcceptLoop() {
    while (!stopping_) {
      if (!Readable(listener_)) continue;
      const int client = accept(listener_, nullptr, nullptr);
      const int server = socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in address{};
      address.sin_family = AF_INET;
      address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      address.sin_port = htons(server_port_);
      if (client < 0 || connect(server, reinterpret_cast<sockaddr*>(&address), sizeof(address))) {
        continue;
      }
      sockets_.push_back(client);
      sockets_.push_back(server);
      {
        absl::MutexLock lock(&sockets_mu_);
        clients_.push_back(client);
      }
      threads_.emplace_back([this, client, server] { Pump(client, server); });
      threads_.emplace_back([this, client, server] { Pump(server, client); });
    }
  }

  // Copies what `from` sends to `to` until the relay stops; copies nothing once frozen.
  void Pump(int from, int to) {
    char buffer[16384];
    while (!stopping_) {
      if (frozen_) {
        usleep(20'000);
        continue;
      }
      if (!Readable(from) || frozen_) continue;
      const ssize_t got = read(from, buffer, sizeof(buffer));
      if (got <= 0) {
        shutdown(to, SHUT_WR);  // the other side sees the end too
        return;
      }
      // MSG_NOSIGNAL: the other side may have gone (a terminated server), which is no SIGPIPE.
      if (send(to, buffer, got, MSG_NOSIGNAL) != got) return;
    }
  }

  const int server_port_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> frozen_{false};
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> threads_;  // the accept loop adds pumps; joined once it has stopped
  std::vector<int> sockets_;
  absl::Mutex sockets_mu_;
  std::vector<int> clients_ ABSL_GUARDED_BY(sockets_mu_);
};

class PostgresStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (TestPostgresUrl().empty()) GTEST_SKIP() << kNoPostgresMessage;
    absl::StatusOr<PostgresTestSchema> schema = PostgresTestSchema::Create();
    ASSERT_TRUE(schema.ok()) << schema.status();
    schema_ = std::make_unique<PostgresTestSchema>(*std::move(schema));
  }

  std::unique_ptr<PostgresStore> Open(int connections = 2) {
    PostgresOptions options;
    options.connections = connections;
    absl::StatusOr<std::unique_ptr<PostgresStore>> store =
        PostgresStore::Open(schema_->conninfo(), options);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  std::unique_ptr<PostgresConnection> Connect() {
    absl::StatusOr<const LibPq*> pq = LoadLibPq();
    EXPECT_TRUE(pq.ok()) << pq.status();
    absl::StatusOr<std::unique_ptr<PostgresConnection>> connection =
        PostgresConnection::Open(**pq, schema_->conninfo(), {});
    EXPECT_TRUE(connection.ok()) << connection.status();
    return connection.ok() ? *std::move(connection) : nullptr;
  }

  std::vector<std::vector<std::string>> Query(const std::string& sql) {
    absl::StatusOr<std::vector<std::vector<std::string>>> rows = schema_->Query(sql);
    EXPECT_TRUE(rows.ok()) << rows.status();
    return rows.ok() ? *std::move(rows) : std::vector<std::vector<std::string>>();
  }

  std::unique_ptr<PostgresTestSchema> schema_;
};

// SQLite's decision_records came with its migrations 4 and 5 (store/decision_record.h);
// PostgreSQL's with migration 17, which keeps them with a table of its own, the agents whose rows
// a write transaction rewrites at its commit.
constexpr int kSqliteOnlyVersions[] = {4, 5};
constexpr char kPostgresOnlyTable[] = "decision_records_stale";

// SQLite's tables, columns and named indexes, from its own migrations.
void ReadSqliteSchema(Columns& columns, std::set<std::string>& indexes) {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  ASSERT_TRUE(MigrateSchema(db, absl::Seconds(1)).ok());
  SQLite::Statement tables(db,
                           "SELECT name FROM sqlite_master WHERE type = 'table'"
                           " AND name NOT LIKE 'sqlite_%'");
  while (tables.executeStep()) {
    const std::string table = tables.getColumn(0).getString();
    SQLite::Statement info(db, absl::StrCat("PRAGMA table_info(", table, ")"));
    while (info.executeStep()) columns[table].insert(info.getColumn(1).getString());
  }
  SQLite::Statement named(db,
                          "SELECT name FROM sqlite_master WHERE type = 'index'"
                          " AND name NOT LIKE 'sqlite_autoindex%'");
  while (named.executeStep()) {
    indexes.insert(named.getColumn(0).getString());
  }
}

TEST_F(PostgresStoreTest, SchemaHasSqlitesTablesColumnsAndIndexes) {
  ASSERT_NE(Open(), nullptr);
  Columns sqlite_columns;
  std::set<std::string> sqlite_indexes;
  ReadSqliteSchema(sqlite_columns, sqlite_indexes);

  Columns postgres_columns;
  for (const std::vector<std::string>& row : Query(absl::StrCat(
           "SELECT table_name::text, column_name::text FROM information_schema.columns"
           " WHERE table_schema = current_schema() AND table_name <> 'verdict_schema_version'"
           " AND table_name <> '",
           kPostgresOnlyTable, "'"))) {
    // SQLite's implicit rowid is an explicit column here (store/migrations.cc).
    if (row[1] != "rowid") postgres_columns[row[0]].insert(row[1]);
  }
  EXPECT_EQ(postgres_columns, sqlite_columns);

  std::set<std::string> postgres_indexes;
  for (const std::vector<std::string>& row :
       Query("SELECT indexname::text FROM pg_indexes WHERE schemaname = current_schema()"
             " AND indexname NOT LIKE '%_pkey' AND indexname NOT LIKE '%_key'")) {
    postgres_indexes.insert(row[0]);
  }
  EXPECT_EQ(postgres_indexes, sqlite_indexes);
}

TEST_F(PostgresStoreTest, MigrationsAreNumberedAsSqlites) {
  std::vector<int> sqlite_versions;
  for (const Migration& migration : Migrations()) {
    if (absl::c_linear_search(kSqliteOnlyVersions, migration.version)) continue;
    sqlite_versions.push_back(migration.version);
  }
  std::vector<int> postgres_versions;
  for (const Migration& migration : Migrations(Dialect::kPostgres)) {
    postgres_versions.push_back(migration.version);
  }
  EXPECT_EQ(postgres_versions, sqlite_versions);
}

// As SQLite's (store/sqlite/schema_test.cc): counts kept from before per-agent rate counters go to
// the agent whose permission they counted.
TEST_F(PostgresStoreTest, RateCountsFromBeforePerAgentCountersGoToTheirPermissionsAgent) {
  std::unique_ptr<PostgresConnection> connection = Connect();
  ASSERT_NE(connection, nullptr);
  ASSERT_TRUE(
      MigratePostgresSchema(*connection, Migrations(Dialect::kPostgres).subspan(0, 3)).ok());
  ASSERT_TRUE(
      connection
          ->ExecuteScript(
              "INSERT INTO agents (id, owner, name, kind, status, token_hash, token_prefix,"
              " created_at, updated_at) VALUES ('agt_a', 'o', 'A', 'autonomous', 'active',"
              " '\\x01', 'vdt_a', 1, 1), ('agt_b', 'o', 'B', 'delegated', 'active', '\\x02',"
              " 'vdt_b', 1, 1);"
              "INSERT INTO permissions (id, agent_id, resource, actions, effect, constraints,"
              " created_at) VALUES ('p1', 'agt_a', 'docs:*', 'read', 'allow', '{}', 1);"
              "INSERT INTO delegations (id, from_agent_id, to_agent_id, permissions, max_depth,"
              " status, created_at) VALUES ('d1', 'agt_a', 'agt_b', '[]', 1, 'active', 1);"
              "INSERT INTO rate_counters (permission_id, window_start, count) VALUES"
              " ('p1', 60, 3), ('d1#0', 60, 2), ('p_gone', 60, 9)")
          .ok());
  ASSERT_TRUE(MigratePostgresSchema(*connection, Migrations(Dialect::kPostgres)).ok());
  EXPECT_THAT(Query("SELECT agent_id || ' ' || permission_id || ' ' || window_start || ' ' ||"
                    " count FROM rate_counters ORDER BY agent_id, permission_id"),
              ::testing::ElementsAre(::testing::ElementsAre("agt_a p1 60 3"),
                                     ::testing::ElementsAre("agt_b d1#0 60 2")));
}

// As SQLite's (store/admin_credentials_test.cc): the one admin credential of schema 10 becomes
// the principal "admin" with the role admin and the same hash (README, Upgrading).
TEST_F(PostgresStoreTest, TheCredentialOfSchema10BecomesThePrincipalAdmin) {
  std::unique_ptr<PostgresConnection> connection = Connect();
  ASSERT_NE(connection, nullptr);
  absl::Span<const Migration> all = Migrations(Dialect::kPostgres);
  const size_t up_to_10 = absl::c_count_if(all, [](const Migration& m) { return m.version <= 10; });
  ASSERT_TRUE(MigratePostgresSchema(*connection, all.subspan(0, up_to_10)).ok());
  ASSERT_TRUE(connection
                  ->ExecuteScript("INSERT INTO admin_credentials (id, secret_hash, created_at)"
                                  " VALUES (1, '$argon2id$old', 1700000000000000)")
                  .ok());
  ASSERT_TRUE(MigratePostgresSchema(*connection, all).ok());
  EXPECT_THAT(Query("SELECT name || ' ' || secret_hash || ' ' || roles || ' ' || enabled || ' ' ||"
                    " created_at FROM admin_principals"),
              ::testing::ElementsAre(
                  ::testing::ElementsAre("admin $argon2id$old admin 1 1700000000000000")));
  EXPECT_THAT(Query("SELECT count(*)::text FROM information_schema.tables"
                    " WHERE table_name = 'admin_credentials' AND table_schema = current_schema()"),
              ::testing::ElementsAre(::testing::ElementsAre("0")));
}

TEST_F(PostgresStoreTest, ProcessesOpeningANewDatabaseAtOnceMigrateItOnce) {
  constexpr int kOpeners = 8;
  std::vector<std::thread> openers;
  std::vector<absl::Status> results(kOpeners);
  for (int i = 0; i < kOpeners; ++i) {
    openers.emplace_back([this, i, &results] {
      // Each its own store and connections, as separate processes would be.
      results[i] = PostgresStore::Open(schema_->conninfo(), {.connections = 1}).status();
    });
  }
  for (std::thread& opener : openers) opener.join();
  for (const absl::Status& result : results) EXPECT_TRUE(result.ok()) << result;
  EXPECT_THAT(Query("SELECT version::text FROM verdict_schema_version"),
              ::testing::ElementsAre(::testing::ElementsAre(
                  absl::StrCat(Migrations(Dialect::kPostgres).back().version))));
}

TEST_F(PostgresStoreTest, SchemaWrittenByANewerVerdictIsRefused) {
  ASSERT_NE(Open(), nullptr);
  ASSERT_TRUE(Query("UPDATE verdict_schema_version SET version = 999 RETURNING 1").size() == 1);
  absl::StatusOr<std::unique_ptr<PostgresStore>> store = PostgresStore::Open(schema_->conninfo());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(), HasSubstr("upgrade verdict"));
}

// Advisory locks belong to the whole database, not to a schema. Each verdict store (a schema of
// its own) has its own migration, writer and decision-log locks: a transaction holding one in
// one schema never holds up another schema's, while every connection to the same schema still
// waits its turn.
TEST_F(PostgresStoreTest, EachSchemaHasItsOwnAdvisoryLocks) {
  ASSERT_NE(Open(), nullptr);
  absl::StatusOr<PostgresTestSchema> other = PostgresTestSchema::Create();
  ASSERT_TRUE(other.ok()) << other.status();
  absl::StatusOr<const LibPq*> pq = LoadLibPq();
  ASSERT_TRUE(pq.ok()) << pq.status();
  const PostgresConnectionOptions impatient{.lock_timeout = absl::Milliseconds(300)};
  for (PgLock lock : {PgLock::kMigration, PgLock::kWriter, PgLock::kDecisionLog}) {
    SCOPED_TRACE(static_cast<int>(lock));
    const std::string take = absl::StrCat("BEGIN; ", PgAdvisoryLockSql(lock));
    absl::StatusOr<std::unique_ptr<PostgresConnection>> holder =
        PostgresConnection::Open(**pq, schema_->conninfo(), {});
    ASSERT_TRUE(holder.ok()) << holder.status();
    ASSERT_TRUE((*holder)->ExecuteScript(take.c_str()).ok());

    absl::StatusOr<std::unique_ptr<PostgresConnection>> elsewhere =
        PostgresConnection::Open(**pq, other->conninfo(), impatient);
    ASSERT_TRUE(elsewhere.ok()) << elsewhere.status();
    EXPECT_TRUE((*elsewhere)->ExecuteScript(take.c_str()).ok());
    absl::StatusOr<std::unique_ptr<PostgresConnection>> same_schema =
        PostgresConnection::Open(**pq, schema_->conninfo(), impatient);
    ASSERT_TRUE(same_schema.ok()) << same_schema.status();
    const absl::Status waited = (*same_schema)->ExecuteScript(take.c_str());
    EXPECT_EQ(waited.code(), absl::StatusCode::kUnavailable) << waited;
    EXPECT_THAT(waited.message(), HasSubstr("lock timeout"));
  }
}

// What that means for two stores: an admin write held open in one (a long import, a client
// frozen mid-transaction) does not time out the admin writes of another store in the database.
TEST_F(PostgresStoreTest, AWriteHeldOpenInOneStoreDoesNotHoldUpAnotherStoresWrites) {
  absl::StatusOr<std::unique_ptr<PostgresStore>> busy =
      PostgresStore::Open(schema_->conninfo(), {.connections = 1});
  ASSERT_TRUE(busy.ok()) << busy.status();
  absl::StatusOr<PostgresTestSchema> other_schema = PostgresTestSchema::Create();
  ASSERT_TRUE(other_schema.ok()) << other_schema.status();
  const PostgresOptions impatient{.lock_timeout = absl::Milliseconds(300)};
  absl::StatusOr<std::unique_ptr<PostgresStore>> other =
      PostgresStore::Open(other_schema->conninfo(), impatient);
  ASSERT_TRUE(other.ok()) << other.status();
  absl::StatusOr<std::unique_ptr<PostgresStore>> same =
      PostgresStore::Open(schema_->conninfo(), impatient);
  ASSERT_TRUE(same.ok()) << same.status();

  absl::StatusOr<std::unique_ptr<WriteTransaction>> held = (*busy)->BeginWrite();
  ASSERT_TRUE(held.ok()) << held.status();
  EXPECT_TRUE((*other)->admin().CreateAgent({.owner = "o", .name = "n", .id = "agt_a"}).ok());
  EXPECT_EQ(
      (*same)->admin().CreateAgent({.owner = "o", .name = "n", .id = "agt_a"}).status().code(),
      absl::StatusCode::kUnavailable);
  held->reset();
  EXPECT_TRUE((*same)->admin().CreateAgent({.owner = "o", .name = "n", .id = "agt_a"}).ok());
}

// With sequential scans priced out, a statement that still scans a table has no index to use.
TEST_F(PostgresStoreTest, EveryDecisionPathStatementSearchesAnIndex) {
  ASSERT_NE(Open(), nullptr);
  std::unique_ptr<PostgresConnection> connection = Connect();
  ASSERT_NE(connection, nullptr);
  ASSERT_TRUE(connection->ExecuteScript("SET enable_seqscan = off").ok());
  for (Statement statement : DecisionPathStatements(Dialect::kPostgres)) {
    const StatementSql sql = GetStatementSql(statement, Dialect::kPostgres);
    SCOPED_TRACE(sql.name);
    ASSERT_TRUE(connection->ExecuteScript(absl::StrCat("PREPARE probe AS ", sql.sql).c_str()).ok());
    absl::StatusOr<ResultRows> types = connection->Query(
        "SELECT array_to_string(parameter_types::text[], ',') FROM pg_prepared_statements"
        " WHERE name = 'probe'");
    ASSERT_TRUE(types.ok()) << types.status();
    std::vector<std::string> arguments;
    for (absl::string_view type : absl::StrSplit(types->row(0).Text(0), ',')) {
      arguments.push_back(type == "bytea" ? "'\\x00'" : type == "bigint" ? "0" : "'x'");
    }
    absl::StatusOr<ResultRows> plan = connection->Query(
        absl::StrCat("EXPLAIN EXECUTE probe(", absl::StrJoin(arguments, ", "), ")").c_str());
    ASSERT_TRUE(plan.ok()) << plan.status();
    std::string text;
    for (int i = 0; i < plan->size(); ++i) absl::StrAppend(&text, plan->row(i).Text(0), "\n");
    EXPECT_THAT(text, ::testing::Not(HasSubstr("Seq Scan"))) << text;
    ASSERT_TRUE(connection->ExecuteScript("DEALLOCATE probe").ok());
  }
}

// `verdict policy apply` reads what its file manages through the manager indexes (migration 16;
// their second column is the creation order, which the planner may still choose to sort by).
TEST_F(PostgresStoreTest, AnApplyReadsWhatItsFileManagesThroughTheManagerIndexes) {
  ASSERT_NE(Open(), nullptr);
  std::unique_ptr<PostgresConnection> connection = Connect();
  ASSERT_NE(connection, nullptr);
  ASSERT_TRUE(connection->ExecuteScript("SET enable_seqscan = off").ok());
  for (const auto& [statement, index] : std::vector<std::pair<Statement, std::string>>{
           {Statement::kManagedAgents, "agents_by_manager"},
           {Statement::kManagedPermissions, "permissions_by_manager"},
           {Statement::kManagedDelegations, "delegations_by_manager"}}) {
    const StatementSql sql = GetStatementSql(statement, Dialect::kPostgres);
    SCOPED_TRACE(sql.name);
    ASSERT_TRUE(connection->ExecuteScript(absl::StrCat("PREPARE probe AS ", sql.sql).c_str()).ok());
    absl::StatusOr<ResultRows> plan = connection->Query("EXPLAIN EXECUTE probe('team-docs')");
    ASSERT_TRUE(plan.ok()) << plan.status();
    std::string text;
    for (int i = 0; i < plan->size(); ++i) absl::StrAppend(&text, plan->row(i).Text(0), "\n");
    EXPECT_THAT(text, HasSubstr(index)) << text;
    EXPECT_THAT(text, ::testing::Not(HasSubstr("Seq Scan"))) << text;
    ASSERT_TRUE(connection->ExecuteScript("DEALLOCATE probe").ok());
  }
}

TEST_F(PostgresStoreTest, StoreRecoversWhenTheServerDropsItsConnections) {
  std::unique_ptr<PostgresStore> store = Open(/*connections=*/1);
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->admin().CreateAgent({.owner = "o", .name = "n", .id = "agt_a"}).ok());
  // What a server restart or a failover does to every open connection.
  ASSERT_FALSE(Query(absl::StrCat("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                                  " WHERE application_name = '",
                                  schema_->name(), "' AND pid <> pg_backend_pid()"))
                   .empty());

  // Once the server has ended them, the pool finds its idle connection dead and opens another:
  // the next call succeeds, rather than failing on what the server ended while nobody used it.
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (Query(absl::StrCat("SELECT 1 FROM pg_stat_activity WHERE application_name = '",
                            schema_->name(), "' AND pid <> pg_backend_pid()"))
                 .size() > 0 &&
         absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  absl::StatusOr<Agent> next = store->admin().GetAgent("agt_a");
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(next->id, "agt_a");
}

// Issue 16.3: a server that ended a pooled connection (a restart, a failover,
// pg_terminate_backend) while it sat idle, so late that the pool could not see it before lending
// the connection (here the relay holds the server's goodbye back until the call is sent): the
// call is sent once more on a fresh connection instead of failing.
TEST_F(PostgresStoreTest,
       APooledConnectionTheServerEndedUnseenIsReplacedOnceWithoutFailingTheCall) {
  // postgresql://user@127.0.0.1:PORT/database...
  const std::string url = TestPostgresUrl();
  const std::vector<std::string> host_and_port =
      absl::StrSplit(url.substr(url.rfind('@') + 1), absl::ByAnyChar(":/"));
  ASSERT_GE(host_and_port.size(), 2u) << url;
  int server_port = 0;
  ASSERT_TRUE(absl::SimpleAtoi(host_and_port[1], &server_port)) << url;
  FreezableRelay relay(server_port);
  const std::string through_relay = absl::StrReplaceAll(
      schema_->conninfo(),
      {{absl::StrCat(":", server_port, "/"), absl::StrCat(":", relay.port(), "/")}});
  PostgresOptions options;
  options.connections = 1;
  absl::StatusOr<std::unique_ptr<PostgresStore>> store =
      PostgresStore::Open(through_relay, options);
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->admin().CreateAgent({.owner = "o", .name = "n", .id = "agt_a"}).ok());

  relay.Freeze();
  ASSERT_FALSE(Query(absl::StrCat("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                                  " WHERE application_name = '",
                                  schema_->name(), "' AND pid <> pg_backend_pid()"))
                   .empty());
  for (const bool snapshot : {false, true}) {
    SCOPED_TRACE(snapshot ? "a read snapshot, as a decision takes one" : "an admin read");
    absl::StatusOr<std::string> found = absl::UnknownError("not run");
    std::thread call([&] {
      if (!snapshot) {
        absl::StatusOr<Agent> agent = (*store)->admin().GetAgent("agt_a");
        found = agent.ok() ? absl::StatusOr<std::string>(agent->id) : agent.status();
        return;
      }
      absl::StatusOr<std::unique_ptr<ReadSnapshot>> read = (*store)->BeginRead();
      if (!read.ok()) {
        found = read.status();
        return;
      }
      absl::StatusOr<std::optional<Agent>> agent = (*read)->FindAgent("agt_a");
      if (!agent.ok()) {
        found = agent.status();
      } else {
        found = agent->has_value() ? (*agent)->id : "none";
      }
    });
    // The call went out on the pooled connection; the relay lets the server's answer (its
    // FATAL "terminating connection" and the end of the connection) through now.
    while (!relay.ClientBytesHeldBack()) std::this_thread::yield();
    relay.Thaw();
    call.join();
    ASSERT_TRUE(found.ok()) << found.status();
    EXPECT_EQ(*found, "agt_a");
    if (!snapshot) {
      // The same again, for a read snapshot on the connection now pooled, once a write has
      // settled the read's COMMIT, which the relay would hold back too.
      ASSERT_TRUE((*store)->admin().CreateAgent({.owner = "o", .name = "m", .id = "agt_b"}).ok());
      relay.Freeze();
      ASSERT_FALSE(Query(absl::StrCat("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                                      " WHERE application_name = '",
                                      schema_->name(), "' AND pid <> pg_backend_pid()"))
                       .empty());
    }
  }
}

// The server's statement_timeout cannot fire when its process is frozen: the store gives up on
// an answer itself, a little after the statement timeout, and fails closed.
TEST_F(PostgresStoreTest, AServerThatStopsAnsweringFailsTheCallInsteadOfHoldingIt) {
  // postgresql://user@127.0.0.1:PORT/database...
  const std::string url = TestPostgresUrl();
  const std::vector<std::string> host_and_port =
      absl::StrSplit(url.substr(url.rfind('@') + 1), absl::ByAnyChar(":/"));
  ASSERT_GE(host_and_port.size(), 2u) << url;
  int server_port = 0;
  ASSERT_TRUE(absl::SimpleAtoi(host_and_port[1], &server_port)) << url;
  FreezableRelay relay(server_port);
  const std::string through_relay = absl::StrReplaceAll(
      schema_->conninfo(),
      {{absl::StrCat(":", server_port, "/"), absl::StrCat(":", relay.port(), "/")}});
  ASSERT_NE(through_relay, schema_->conninfo());
  PostgresOptions options;
  options.connections = 1;
  options.statement_timeout = absl::Seconds(1);
  options.connect_timeout = absl::Seconds(1);
  absl::StatusOr<std::unique_ptr<PostgresStore>> store =
      PostgresStore::Open(through_relay, options);
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->admin().CreateAgent({.owner = "o", .name = "n", .id = "agt_a"}).ok());

  relay.Freeze();
  const absl::Time start = absl::Now();
  absl::StatusOr<Agent> frozen = (*store)->admin().GetAgent("agt_a");
  EXPECT_EQ(frozen.status().code(), absl::StatusCode::kUnavailable) << frozen.status();
  EXPECT_THAT(frozen.status().message(), HasSubstr("no answer from the server"));
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  // A read snapshot, as a decision takes one, fails closed the same way.
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = (*store)->BeginRead();
  if (snapshot.ok()) {
    EXPECT_EQ((*snapshot)->FindAgent("agt_a").status().code(), absl::StatusCode::kUnavailable);
  } else {
    EXPECT_EQ(snapshot.status().code(), absl::StatusCode::kUnavailable);
  }
  EXPECT_LT(absl::Now() - start, absl::Seconds(20));
}

// What a decision reads of an agent, spelled out: from its decision record (a read snapshot of
// the store) or from the tables themselves (the lookups on a plain connection).
std::string Spelled(const std::optional<Agent>& agent, const std::vector<Permission>& permissions,
                    const std::vector<Delegation>& into) {
  if (!agent.has_value()) return "no agent";
  std::string out =
      absl::StrCat(agent->id, " ", agent->owner, " ", agent->name, " ", AgentKindName(agent->kind),
                   " ", AgentStatusName(agent->status), " ", absl::FormatTime(agent->expires_at),
                   " ", agent->token_prefix, " ", absl::FormatTime(agent->created_at), " ",
                   absl::FormatTime(agent->updated_at), "\n");
  for (const Permission& p : permissions) {
    absl::StrAppend(&out, "permission ", p.id, " of ", p.agent_id, " ", p.resource, " ",
                    JoinActions(p.actions), " ", static_cast<int>(p.effect), " ",
                    p.constraints_json, " ", absl::FormatTime(p.created_at), "\n");
  }
  for (const Delegation& d : into) {
    absl::StrAppend(&out, "delegation ", d.id, " ", d.from_agent_id, "->", d.to_agent_id, " ",
                    d.permissions.size(), " lent, depth ", d.max_depth, " ",
                    absl::FormatTime(d.expires_at), " ", absl::FormatTime(d.created_at), "\n");
  }
  return out;
}

// Migration 17's triggers keep each agent's decision record equal to its tables, whoever writes
// and however: several rows in one statement, a row moved to another agent, an upsert, a cascade
// from a deleted agent, a TRUNCATE, many statements in one transaction.
TEST_F(PostgresStoreTest, DecisionRecordsEqualTheirTablesAfterEveryKindOfWrite) {
  std::unique_ptr<PostgresStore> store = Open();
  ASSERT_NE(store, nullptr);
  std::unique_ptr<PostgresConnection> tables = Connect();
  ASSERT_NE(tables, nullptr);
  const absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  auto expect_records_equal_tables = [&](absl::string_view after) {
    for (const char* id : {"agt_a", "agt_b", "agt_c"}) {
      absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store->BeginRead();
      ASSERT_TRUE(snapshot.ok()) << snapshot.status();
      absl::StatusOr<std::optional<Agent>> agent = (*snapshot)->FindAgent(id);
      absl::StatusOr<std::vector<Permission>> permissions = (*snapshot)->PermissionsOf(id);
      absl::StatusOr<std::vector<Delegation>> into = (*snapshot)->ActiveDelegationsInto(id, now);
      ASSERT_TRUE(agent.ok() && permissions.ok() && into.ok()) << after;
      ASSERT_TRUE(tables->Begin(TransactionKind::kRead).ok());
      absl::StatusOr<std::optional<Agent>> table_agent = LookupAgent(*tables, id);
      absl::StatusOr<std::vector<Permission>> table_permissions = LookupPermissionsOf(*tables, id);
      absl::StatusOr<std::vector<Delegation>> table_into =
          LookupActiveDelegationsInto(*tables, id, now);
      ASSERT_TRUE(tables->Commit().ok());
      ASSERT_TRUE(table_agent.ok() && table_permissions.ok() && table_into.ok()) << after;
      if (table_agent->has_value()) ClearAgentText(**table_agent);
      EXPECT_EQ(Spelled(*agent, *permissions, *into),
                Spelled(*table_agent, *table_permissions, *table_into))
          << id << " after " << after;
    }
  };
  auto write = [&](const char* sql) {
    ASSERT_TRUE(tables->ExecuteScript(sql).ok()) << sql;
    expect_records_equal_tables(sql);
  };
  constexpr char kLent[] = R"([{"actions":["read"],"constraints":{},"resource":"docs:*"}])";

  write(
      "INSERT INTO agents (id, owner, name, kind, status, expires_at, token_hash, token_prefix,"
      " created_at, updated_at) VALUES"
      " ('agt_a', 'o', 'A', 'service', 'active', NULL, 'a'::bytea, 'pa', 1, 2),"
      " ('agt_b', 'o', 'B \xc3\xa9', 'delegated', 'active', 9000000000000000, 'b'::bytea, 'pb',"
      " 3, 4), ('agt_c', 'o', 'C', 'autonomous', 'active', NULL, 'c'::bytea, 'pc', 5, 6)");
  write(
      "INSERT INTO permissions (id, agent_id, resource, actions, effect, constraints, created_at)"
      " VALUES ('perm_1', 'agt_a', 'docs:*', 'read,write', 'allow', '{}', 7),"
      " ('perm_2', 'agt_a', 'docs:secret', 'read', 'deny', '{\"max_calls\":1}', 8),"
      " ('perm_3', 'agt_b', 'mail:*', 'send', 'allow', '{}', 9)");
  write(absl::StrCat("INSERT INTO delegations (id, from_agent_id, to_agent_id, permissions,"
                     " max_depth, status, expires_at, created_at) VALUES"
                     " ('dlg_1', 'agt_b', 'agt_a', '",
                     kLent, "', 2, 'active', NULL, 10), ('dlg_2', 'agt_c', 'agt_a', '", kLent,
                     "', 1, 'active', 1700000000000000, 11), ('dlg_3', 'agt_a', 'agt_b', '", kLent,
                     "', 1, 'revoked', NULL, 12)")
            .c_str());
  write("UPDATE delegations SET status = 'revoked' WHERE id = 'dlg_1'");
  write("UPDATE delegations SET status = 'active' WHERE id = 'dlg_3'");
  write("UPDATE permissions SET agent_id = 'agt_c' WHERE id = 'perm_1'");
  write(
      "UPDATE agents SET status = 'suspended', expires_at = 42, updated_at = 13 WHERE id = "
      "'agt_a'");
  write("DELETE FROM permissions WHERE id = 'perm_2'");
  write(
      "INSERT INTO permissions (id, agent_id, resource, actions, effect, constraints, created_at)"
      " VALUES ('perm_3', 'agt_b', 'mail:inbox', 'read', 'allow', '{}', 14)"
      " ON CONFLICT (id) DO UPDATE SET resource = EXCLUDED.resource, actions = EXCLUDED.actions");
  write(
      "BEGIN ISOLATION LEVEL READ COMMITTED;"
      " INSERT INTO permissions (id, agent_id, resource, actions, effect, constraints, created_at)"
      " VALUES ('perm_4', 'agt_c', 'a:*', 'x', 'allow', '{}', 15);"
      " INSERT INTO permissions (id, agent_id, resource, actions, effect, constraints, created_at)"
      " VALUES ('perm_5', 'agt_c', 'b:*', 'y', 'deny', '{}', 16);"
      " UPDATE agents SET name = 'C2' WHERE id = 'agt_c';"
      " DELETE FROM permissions WHERE id = 'perm_4';"
      " COMMIT");
  write("DELETE FROM agents WHERE id = 'agt_b'");  // its permissions and delegations go with it
  write("TRUNCATE delegations");
  write("TRUNCATE permissions");
  write("TRUNCATE agents CASCADE");
  EXPECT_THAT(Query("SELECT agent_id FROM decision_records"), IsEmpty());
  EXPECT_THAT(Query("SELECT agent_id FROM decision_records_stale"), IsEmpty());
}

// Migration 18 makes the rewrite cheaper, not different: every record it writes is the one
// migration 17's functions wrote, byte for byte. Its three causes are pinned: the field encoder
// is inlined into the statements (it calls no function of its own), the rewrite keeps one
// generic plan per statement instead of planning each call again, and the statement triggers
// run no dynamic SQL (EXECUTE), which would be parsed and planned on every statement.
TEST_F(PostgresStoreTest, Migration18WritesTheSameRecordsAndPlansTheRewriteOnce) {
  std::unique_ptr<PostgresConnection> connection = Connect();
  ASSERT_NE(connection, nullptr);
  absl::Span<const Migration> all = Migrations(Dialect::kPostgres);
  const auto version_18 =
      absl::c_find_if(all, [](const Migration& migration) { return migration.version == 18; });
  ASSERT_NE(version_18, all.end());
  ASSERT_TRUE(MigratePostgresSchema(*connection, all.subspan(0, version_18 - all.begin())).ok());
  ASSERT_TRUE(
      connection
          ->ExecuteScript(
              "INSERT INTO agents (id, owner, name, kind, status, expires_at, token_hash,"
              " token_prefix, created_at, updated_at) VALUES ('agt_a', 'o', 'A \xc3\xa9',"
              " 'service', 'active', NULL, '\\x01', 'pa', 1, 2), ('agt_b', 'o', 'B',"
              " 'delegated', 'active', 9000000000000000, '\\x02', 'pb', 3, 4);"
              "INSERT INTO permissions (id, agent_id, resource, actions, effect, constraints,"
              " created_at) VALUES ('perm_1', 'agt_a', 'docs:*', 'read,write', 'allow', '{}', 7),"
              " ('perm_2', 'agt_a', 'docs:secret', 'read', 'deny', '{\"max_calls\":1}', 8);"
              "INSERT INTO delegations (id, from_agent_id, to_agent_id, permissions, max_depth,"
              " status, expires_at, created_at) VALUES ('dlg_1', 'agt_a', 'agt_b',"
              " '[{\"actions\":[\"read\"],\"resource\":\"docs:*\"}]', 2, 'active', NULL, 10)")
          .ok());
  constexpr char kRecords[] =
      "SELECT agent_id || '|' || agent || '|' || permissions || '|' || delegations_into"
      " FROM decision_records ORDER BY agent_id";
  const std::vector<std::vector<std::string>> by_version_17 = Query(kRecords);
  ASSERT_EQ(by_version_17.size(), 2u);

  ASSERT_TRUE(MigratePostgresSchema(*connection, all).ok());
  ASSERT_TRUE(
      connection
          ->ExecuteScript("DELETE FROM decision_records;"
                          " SELECT verdict_rewrite_decision_records(ARRAY['agt_a', 'agt_b'])")
          .ok());
  EXPECT_EQ(Query(kRecords), by_version_17);

  const std::vector<std::vector<std::string>> plan =
      Query("EXPLAIN VERBOSE SELECT verdict_record_field(id) FROM agents");
  ASSERT_GE(plan.size(), 2u);
  EXPECT_THAT(plan[1][0], HasSubstr("octet_length(id)"));
  EXPECT_THAT(plan[1][0], Not(HasSubstr("verdict_record_field")));
  EXPECT_THAT(Query("SELECT array_to_string(proconfig, ' ') FROM pg_proc"
                    " WHERE proname = 'verdict_rewrite_decision_records'"
                    " AND pronamespace = current_schema()::regnamespace"),
              ::testing::ElementsAre(
                  ::testing::ElementsAre(HasSubstr("plan_cache_mode=force_generic_plan"))));
  EXPECT_THAT(Query("SELECT prosrc FROM pg_proc WHERE proname = 'verdict_decision_records_touched'"
                    " AND pronamespace = current_schema()::regnamespace"),
              ::testing::ElementsAre(::testing::ElementsAre(Not(HasSubstr("EXECUTE")))));
}

// libpq runs OpenSSL 3 for TLS and SCRAM inside a process linked with BoringSSL, which exports
// the same symbol names: loaded as store/postgres/postgres_libpq.h does, each keeps its own.
TEST_F(PostgresStoreTest, TlsAndScramWorkBesideBoringSsl) {
  absl::StatusOr<const LibPq*> pq = LoadLibPq();
  ASSERT_TRUE(pq.ok()) << pq.status();
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<std::unique_ptr<PostgresConnection>> connection =
        PostgresConnection::Open(**pq, TestPostgresTlsScramUrl(), {});
    ASSERT_TRUE(connection.ok()) << connection.status();
    absl::StatusOr<ResultRows> tls =
        (*connection)
            ->Query(
                "SELECT ssl::text || ' ' || current_user::text FROM pg_stat_ssl"
                " WHERE pid = pg_backend_pid()");
    ASSERT_TRUE(tls.ok()) << tls.status();
    EXPECT_EQ(tls->row(0).Text(0), absl::StrCat("true ", kTlsScramUser));
  }
  // verdict's own hashing is still BoringSSL's, and right (FIPS 180-2 "abc").
  EXPECT_EQ(absl::BytesToHexString(Sha256("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_F(PostgresStoreTest, BadOptionsAreRefused) {
  EXPECT_EQ(PostgresStore::Open(schema_->conninfo(), {.connections = 0}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PostgresStore::Open(schema_->conninfo(), {.lock_timeout = absl::ZeroDuration()})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PostgresStore::Open("").status().code(), absl::StatusCode::kInvalidArgument);
}

// A standby stuck since a commit is refused within about two check periods; the writer's wait
// for it must not be cancelled by statement_timeout (which commits locally) before that. Refused
// before any connection is made: no server needed.
TEST(PostgresStoreOptionsTest, StandbyCheckPeriodMustFitTwiceInStatementTimeout) {
  for (absl::Duration period : {absl::Seconds(5), absl::Seconds(6), absl::Seconds(30)}) {
    absl::StatusOr<std::unique_ptr<PostgresStore>> store =
        PostgresStore::Open("host=/nonexistent", {.statement_timeout = absl::Seconds(10),
                                                  .read_conninfos = {"host=/nonexistent"},
                                                  .standby_check_period = period});
    ASSERT_EQ(store.status().code(), absl::StatusCode::kInvalidArgument) << store.status();
    EXPECT_TRUE(absl::StrContains(store.status().message(), "standby check period"))
        << store.status();
    EXPECT_TRUE(absl::StrContains(store.status().message(), "statement_timeout")) << store.status();
  }
}

TEST_F(PostgresStoreTest, UnknownDatabaseIsUnavailable) {
  const std::string url = TestPostgresUrl();
  const std::string elsewhere = url.substr(0, url.rfind('/')) + "/no_such_database";
  absl::StatusOr<std::unique_ptr<PostgresStore>> store = PostgresStore::Open(elsewhere);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(store.status().message(), HasSubstr("no_such_database"));
  EXPECT_THAT(Query("SELECT 1"), ::testing::Not(IsEmpty()));
}

}  // namespace
}  // namespace verdict
