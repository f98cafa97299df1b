// The store contract (decision/policy_view.h, decision/policy_store.h, app/policy_admin.h),
// one suite run on every backend: SQLite always, PostgreSQL when VERDICT_TEST_POSTGRES_URL names
// a server (scripts/test.d/postgres.sh). Each case states a rule both stores must keep, so the
// two cannot drift apart; what only one backend has (files, query plans, a server's faults)
// is tested beside that backend. What the decision path alone reads and writes (PolicyStore) is
// store/policy_store_contract_test.cc's, run on the in-memory store as well.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <atomic>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/json.h"
#include "crypto/sha256.h"
#include "crypto/token.h"
#include "decision/access_token_test_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/postgres/postgres_test_support.h"
#include "store/postgres_store.h"
#include "store/sqlite_store.h"
#include "store/store.h"
#include "store/test_support.h"

namespace verdict {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::MatchesRegex;

MATCHER_P(HasId, id, "") { return arg.id == id; }
MATCHER_P(HasAgentId, id, "") { return arg.has_value() && (*arg).id == id; }
MATCHER_P(EqualsAgent, expected, "") {
  auto fields = [](const verdict::Agent& a) {
    return std::tie(a.id, a.owner, a.name, a.kind, a.status, a.expires_at, a.token_prefix,
                    a.created_at, a.updated_at);
  };
  return fields(arg) == fields(expected);
}
MATCHER_P(EqualsApproval, expected, "") {
  auto fields = [](const ApprovalRequest& a) {
    return std::tie(a.id, a.agent_id, a.action, a.resource, a.arguments_hash, a.quorum, a.approvals,
                    a.status, a.expires_at, a.created_at);
  };
  return fields(arg) == fields(expected);
}

using Rows = std::vector<std::vector<std::string>>;

// One empty database for one test, on one backend.
class TestDatabase {
 public:
  virtual ~TestDatabase() = default;
  // A store on the database. Each store has its own connections, as another process would.
  virtual std::unique_ptr<Store> Open(ManualClock& clock, int connections) = 0;
  // The rows of `sql` read behind the stores' back, each column's raw bytes.
  virtual Rows Query(const std::string& sql) = 0;
};

class SqliteDatabase final : public TestDatabase {
 public:
  // A second database in one test names itself apart from the first.
  explicit SqliteDatabase(const std::string& suffix = "") : path_(FreshDatabasePath(suffix)) {}

  std::unique_ptr<Store> Open(ManualClock& clock, int connections) override {
    return OpenTestStore(path_, clock, connections);
  }
  Rows Query(const std::string& sql) override {
    SQLite::Database db(path_, SQLite::OPEN_READONLY);
    SQLite::Statement statement(db, sql);
    Rows rows;
    while (statement.executeStep()) {
      std::vector<std::string>& row = rows.emplace_back();
      for (int column = 0; column < statement.getColumnCount(); ++column) {
        row.push_back(statement.getColumn(column).getString());
      }
    }
    return rows;
  }

 private:
  const std::string path_;
};

class PostgresDatabase final : public TestDatabase {
 public:
  explicit PostgresDatabase(PostgresTestSchema schema) : schema_(std::move(schema)) {}

  std::unique_ptr<Store> Open(ManualClock& clock, int connections) override {
    PostgresOptions options;
    options.connections = connections;
    options.clock = clock.AsFunction();
    absl::StatusOr<std::unique_ptr<PostgresStore>> store =
        PostgresStore::Open(schema_.conninfo(), options);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }
  Rows Query(const std::string& sql) override {
    absl::StatusOr<Rows> rows = schema_.Query(sql);
    EXPECT_TRUE(rows.ok()) << rows.status();
    return rows.ok() ? *std::move(rows) : Rows();
  }

 private:
  PostgresTestSchema schema_;
};

enum class Backend { kSqlite, kPostgres };

std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::kSqlite ? "Sqlite" : "Postgres";
}

class StoreContractTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::kSqlite) {
      database_ = std::make_unique<SqliteDatabase>();
    } else {
      if (TestPostgresUrl().empty()) GTEST_SKIP() << kNoPostgresMessage;
      absl::StatusOr<PostgresTestSchema> schema = PostgresTestSchema::Create();
      ASSERT_TRUE(schema.ok()) << schema.status();
      database_ = std::make_unique<PostgresDatabase>(*std::move(schema));
    }
    store_ = database_->Open(clock_, 2);
    ASSERT_NE(store_, nullptr);
  }

  void TearDown() override { store_.reset(); }

  // An active agent; its token is kept in tokens_[id].
  std::string NewAgent(const std::string& id) {
    absl::StatusOr<CreatedAgent> created =
        store_->admin().CreateAgent({.owner = "alice", .name = id, .id = id});
    EXPECT_TRUE(created.ok()) << created.status();
    if (created.ok()) tokens_[id] = created->token;
    return id;
  }

  void Grant(const std::string& agent, const std::string& resource,
             std::vector<std::string> actions, Effect effect = Effect::kAllow) {
    ASSERT_TRUE(
        store_->admin()
            .GrantPermission(
                {.agent_id = agent, .resource = resource, .actions = actions, .effect = effect})
            .ok());
  }

  absl::StatusOr<Delegation> Delegate(const std::string& from, const std::string& to,
                                      const std::string& resource, int max_depth = 8) {
    return store_->admin().CreateDelegation(
        {.from_agent_id = from,
         .to_agent_id = to,
         .permissions = {{.resource = resource, .actions = {"read"}}},
         .max_depth = max_depth});
  }

  std::unique_ptr<ReadSnapshot> Read() { return BeginTestRead(*store_); }
  std::unique_ptr<WriteTransaction> Write() { return BeginTestWrite(*store_); }
  std::string OpenApproval(const std::string& agent_id, const std::string& hash, int quorum = 1,
                           absl::Duration ttl = absl::Hours(1)) {
    return OpenTestApproval(*store_, clock_.Now(), agent_id, hash, quorum, ttl);
  }
  std::optional<ApprovalRequest> OpenApprovalSeen(const std::string& agent_id,
                                                  const std::string& hash) {
    return OpenTestApprovalSeen(*store_, clock_.Now(), agent_id, hash);
  }

  absl::StatusOr<ApprovalRequest> Vote(const std::string& id, const std::string& approver,
                                       bool approve) {
    return store_->admin().VoteOnApproval(id, approver, approve, clock_.Now());
  }

  ManualClock clock_;
  std::unique_ptr<TestDatabase> database_;
  std::unique_ptr<Store> store_;
  std::map<std::string, std::string> tokens_;
};

INSTANTIATE_TEST_SUITE_P(Backends, StoreContractTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres), BackendName);

// The decision path's lookups, approvals, rate counts and transactions: the PolicyStore
// contract, which the in-memory store keeps too, is store/policy_store_contract_test.cc's.

// --- Bounded storage (design section 8) ---

class StoreBoundsTest : public StoreContractTest {
 protected:
  void Spend(const std::string& agent, const std::string& permission, int64_t window_start,
             int64_t window_seconds = 60) {
    std::unique_ptr<WriteTransaction> write = Write();
    ASSERT_TRUE(write
                    ->SpendRate({.agent_id = agent,
                                 .permission_id = permission,
                                 .window_start_unix = window_start,
                                 .limit = 10,
                                 .window_seconds = window_seconds})
                    .ok());
    ASSERT_TRUE(write->Commit().ok());
  }

  // Every row of rate_counters as "agent/permission/window".
  std::vector<std::string> Counters() {
    std::vector<std::string> keys;
    for (const std::vector<std::string>& row : database_->Query(
             "SELECT agent_id, permission_id, CAST(window_start AS TEXT) FROM rate_counters"
             " ORDER BY agent_id, permission_id, window_start")) {
      keys.push_back(absl::StrCat(row[0], "/", row[1], "/", row[2]));
    }
    return keys;
  }

  int64_t RowCount(const std::string& table) {
    verdict::Rows rows =
        database_->Query(absl::StrCat("SELECT CAST(count(*) AS TEXT) FROM ", table));
    return rows.empty() ? -1 : std::stoll(rows[0][0]);
  }

  PrunedRows Prune(int64_t max_rows = 1000, absl::Duration retention = absl::Hours(1)) {
    absl::StatusOr<PrunedRows> pruned = store_->PruneDeadRows(
        {.max_rows = max_rows, .approval_retention = retention}, clock_.Now());
    EXPECT_TRUE(pruned.ok()) << pruned.status();
    return pruned.value_or(PrunedRows());
  }

  int64_t Now() const { return absl::ToUnixSeconds(clock_.Now()); }
};

INSTANTIATE_TEST_SUITE_P(Backends, StoreBoundsTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres), BackendName);

// Issue 16: revoked permissions' and delegations' counters were never deleted.
TEST_P(StoreBoundsTest, RevokingAPermissionDeletesEveryAgentsCountsOfIt) {
  NewAgent("agt_a");
  absl::StatusOr<Permission> revoked = store_->admin().GrantPermission(
      {.agent_id = "agt_a", .resource = "docs:*", .actions = {"read"}});
  absl::StatusOr<Permission> kept = store_->admin().GrantPermission(
      {.agent_id = "agt_a", .resource = "docs:*", .actions = {"write"}});
  ASSERT_TRUE(revoked.ok() && kept.ok());
  Spend("agt_a", revoked->id, Now());
  Spend("agt_b", revoked->id, Now());  // a borrower counts under the owner's permission
  Spend("agt_a", kept->id, Now());

  ASSERT_TRUE(store_->admin().RevokePermission(revoked->id).ok());
  EXPECT_THAT(Counters(), ElementsAre(absl::StrCat("agt_a/", kept->id, "/", Now())));
}

TEST_P(StoreBoundsTest, RevokingADelegationDeletesItsLentPermissionsCountsOnly) {
  NewAgent("agt_a");
  NewAgent("agt_b");
  Grant("agt_a", "docs:*", {"read"});
  absl::StatusOr<Delegation> revoked = store_->admin().CreateDelegation(
      {.from_agent_id = "agt_a",
       .to_agent_id = "agt_b",
       .permissions = {{.resource = "docs:*", .actions = {"read"}}},
       .max_depth = 2,
       .id = "dlg_x"});
  ASSERT_TRUE(revoked.ok()) << revoked.status();
  Spend("agt_b", "dlg_x#0", Now());
  Spend("agt_c", "dlg_x#1", Now());
  Spend("agt_b", "dlg_xy#0", Now());  // another delegation whose id starts alike
  Spend("agt_b", "dlg_x", Now());

  ASSERT_TRUE(store_->admin().RevokeDelegation("dlg_x").ok());
  EXPECT_THAT(Counters(), ElementsAre(absl::StrCat("agt_b/dlg_x/", Now()),
                                      absl::StrCat("agt_b/dlg_xy#0/", Now())));
}

TEST_P(StoreBoundsTest, RevokingAnAgentDeletesItsCountsAndThoseOfItsPermissions) {
  NewAgent("agt_a");
  NewAgent("agt_b");
  absl::StatusOr<Permission> owned = store_->admin().GrantPermission(
      {.agent_id = "agt_a", .resource = "docs:*", .actions = {"read"}});
  ASSERT_TRUE(owned.ok());
  Spend("agt_a", "perm_elsewhere", Now());
  Spend("agt_c", owned->id, Now());
  Spend("agt_b", "perm_b", Now());

  ASSERT_TRUE(store_->admin().SetAgentStatus("agt_a", AgentStatus::kSuspended).ok());
  EXPECT_EQ(Counters().size(), 3u);  // a suspension may end: its counts stay
  ASSERT_TRUE(store_->admin().SetAgentStatus("agt_a", AgentStatus::kRevoked).ok());
  EXPECT_THAT(Counters(), ElementsAre(absl::StrCat("agt_b/perm_b/", Now())));
}

TEST_P(StoreBoundsTest, PruningDeletesCountsOnlyOnceTheirWindowAndTheNextHaveEnded) {
  const int64_t minute = Now() / 60 * 60;
  Spend("agt_a", "perm_1", minute - 120);  // two windows back: no decision reads it
  Spend("agt_a", "perm_1", minute - 60);   // the previous window: kept for skewed clocks
  Spend("agt_a", "perm_2", minute);
  Spend("agt_a", "perm_3", minute - 3600, 3600);  // the previous hour

  clock_.Advance(absl::Seconds(minute - Now()));  // at the window's start exactly
  EXPECT_EQ(Prune().rate_counters, 1);
  EXPECT_THAT(Counters(), ElementsAre(absl::StrCat("agt_a/perm_1/", minute - 60),
                                      absl::StrCat("agt_a/perm_2/", minute),
                                      absl::StrCat("agt_a/perm_3/", minute - 3600)));
  clock_.Advance(absl::Minutes(2));
  EXPECT_EQ(Prune().rate_counters, 2);
  EXPECT_THAT(Counters(), ElementsAre(absl::StrCat("agt_a/perm_3/", minute - 3600)));
}

// SQLite's database is a file of this host: the pruning job cuts by the store's clock (here the
// test's manual clock), like every other time the store reads.
TEST_P(StoreBoundsTest, OnSqliteThePruningJobCutsByTheStoresClock) {
  if (GetParam() != Backend::kSqlite) GTEST_SKIP() << "PostgreSQL has a clock of its own";
  const int64_t minute = Now() / 60 * 60;
  Spend("agt_a", "perm_1", minute - 120);
  Spend("agt_a", "perm_2", minute - 60);
  clock_.Advance(absl::Seconds(minute - Now()));
  absl::StatusOr<PrunedRows> pruned = store_->PruneDeadRowsByDatabaseClock({});
  ASSERT_TRUE(pruned.ok()) << pruned.status();
  EXPECT_EQ(pruned->rate_counters, 1);
  EXPECT_THAT(Counters(), ElementsAre(absl::StrCat("agt_a/perm_2/", minute - 60)));
}

// Several verdictd nodes share one PostgreSQL database, and their clocks need not agree. The
// pruning job cuts by the database server's clock, so a node whose clock is ahead does not
// delete a window the others still count in, nor does one whose clock is behind keep dead ones.
// Hour windows, with the rows hours away from the database's time, so that the test never
// straddles a window's end.
TEST_P(StoreBoundsTest, OnPostgresThePruningJobCutsByTheDatabasesClockNotTheNodes) {
  if (GetParam() != Backend::kPostgres) GTEST_SKIP() << "SQLite's clock is the store's";
  const Rows database_now =
      database_->Query("SELECT CAST(CAST(floor(extract(epoch FROM now())) AS bigint) AS TEXT)");
  ASSERT_EQ(database_now.size(), 1u);
  const int64_t hour = std::stoll(database_now[0][0]) / 3600 * 3600;
  Spend("agt_a", "perm_dead", hour - 3 * 3600, 3600);  // kept until an hour ago
  Spend("agt_a", "perm_live", hour, 3600);             // counted in now

  // A node whose clock is ahead (the fixture's manual clock, days ahead): by its own clock, both
  // windows have ended.
  ASSERT_GT(clock_.Now(), absl::FromUnixSeconds(hour + 3 * 3600));
  // A node whose clock is three hours behind: by its own clock, neither has.
  ManualClock behind(absl::FromUnixSeconds(hour - 3 * 3600));
  std::unique_ptr<Store> lagging = database_->Open(behind, 1);
  ASSERT_NE(lagging, nullptr);

  absl::StatusOr<PrunedRows> by_lagging = lagging->PruneDeadRowsByDatabaseClock({});
  ASSERT_TRUE(by_lagging.ok()) << by_lagging.status();
  EXPECT_EQ(by_lagging->rate_counters, 1);
  absl::StatusOr<PrunedRows> by_leading = store_->PruneDeadRowsByDatabaseClock({});
  ASSERT_TRUE(by_leading.ok()) << by_leading.status();
  EXPECT_EQ(by_leading->rate_counters, 0);
  EXPECT_THAT(Counters(), ElementsAre(absl::StrCat("agt_a/perm_live/", hour)));
}

TEST_P(StoreBoundsTest, PruningDeletesApprovalsExpiredOrUsedLongerAgoThanTheRetention) {
  NewAgent("agt_a");
  const std::string expired = OpenApproval("agt_a", "expired", 1, absl::Minutes(1));
  const std::string used = OpenApproval("agt_a", "used");
  const std::string denied = OpenApproval("agt_a", "denied");
  const std::string pending = OpenApproval("agt_a", "pending", 1, absl::Hours(24));
  ASSERT_TRUE(Vote(expired, "alice", true).ok());
  ASSERT_TRUE(Vote(used, "alice", true).ok());
  ASSERT_TRUE(Vote(denied, "alice", false).ok());
  {
    std::unique_ptr<WriteTransaction> write = Write();
    ASSERT_TRUE(write->UseApproval(used, clock_.Now()).ok());
    ASSERT_TRUE(write->Commit().ok());
  }
  EXPECT_EQ(Prune().approvals, 0);  // nothing has been dead for the retention yet

  clock_.Advance(absl::Minutes(60));  // used 60 minutes ago; expired 59 minutes ago
  EXPECT_EQ(Prune().approvals, 1);
  EXPECT_FALSE(store_->admin().GetApproval(used).ok());
  EXPECT_TRUE(store_->admin().GetApproval(expired).ok());
  clock_.Advance(absl::Minutes(1));
  EXPECT_EQ(Prune().approvals, 1);
  EXPECT_FALSE(store_->admin().GetApproval(expired).ok());
  // A denied request blocks identical calls until it expires: it goes only after.
  EXPECT_TRUE(store_->admin().GetApproval(denied).ok());
  clock_.Advance(absl::Hours(1));
  EXPECT_EQ(Prune().approvals, 1);
  EXPECT_FALSE(store_->admin().GetApproval(denied).ok());
  EXPECT_TRUE(store_->admin().GetApproval(pending).ok());
  EXPECT_EQ(RowCount("approval_votes"), 0);  // the votes went with their requests
}

TEST_P(StoreBoundsTest, APruningRunDeletesAtMostItsBatchOfEachKind) {
  NewAgent("agt_a");
  for (int i = 0; i < 5; ++i) {
    OpenApproval("agt_a", absl::StrCat("h", i), 1, absl::Minutes(1));
    Spend("agt_a", absl::StrCat("perm_", i), Now() - 600);
  }
  clock_.Advance(absl::Minutes(2));
  PrunedRows first = Prune(/*max_rows=*/2, /*retention=*/absl::ZeroDuration());
  EXPECT_EQ(first.approvals, 2);
  EXPECT_EQ(first.rate_counters, 2);
  EXPECT_EQ(RowCount("approval_requests"), 3);
  EXPECT_EQ(RowCount("rate_counters"), 3);
  Prune(2, absl::ZeroDuration());
  PrunedRows last = Prune(2, absl::ZeroDuration());
  EXPECT_EQ(last.approvals, 1);
  EXPECT_EQ(last.rate_counters, 1);
  EXPECT_EQ(RowCount("approval_requests"), 0);
  EXPECT_EQ(RowCount("rate_counters"), 0);
  EXPECT_EQ(store_->PruneDeadRows({.max_rows = 0}, clock_.Now()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// Issue 16: seeding an agent with 10,000 permissions took 520 s, its decision record rewritten
// for every permission. Figures: tests/reliability/RELIABILITY.md.
TEST_P(StoreBoundsTest, AnAgentWithTenThousandPermissionsImportsInSeconds) {
  constexpr int kPermissions = 10'000;
  PolicyContents policy;
  policy.agents.push_back({.agent = {.id = "agt_big", .owner = "o", .name = "n"}});
  policy.agents.push_back({.agent = {.id = "agt_peer", .owner = "o", .name = "p"}});
  for (int i = 0; i < kPermissions; ++i) {
    Permission permission;
    permission.id = absl::StrCat("perm_", i);
    permission.agent_id = "agt_big";
    permission.resource = absl::StrCat("docs:team", i, ":*");
    permission.actions = {"read", "write"};
    permission.created_at = clock_.Now();
    policy.permissions.push_back(std::move(permission));
  }
  Delegation delegation;
  delegation.id = "dlg_in";
  delegation.from_agent_id = "agt_peer";
  delegation.to_agent_id = "agt_big";
  delegation.permissions = {{.resource = "x:*", .actions = {"read"}}};
  delegation.created_at = clock_.Now();
  policy.delegations.push_back(delegation);

  const absl::Time start = absl::Now();
  ASSERT_TRUE(store_->admin().ImportPolicy(policy).ok());
  const absl::Duration took = absl::Now() - start;
  EXPECT_LT(took, absl::Seconds(30));
  std::cerr << "imported " << kPermissions << " permissions of one agent in "
            << absl::FormatDuration(took) << "\n";

  // What a decision reads holds every row, in creation order.
  std::unique_ptr<ReadSnapshot> snapshot = Read();
  absl::StatusOr<absl::Span<const Permission>> permissions = snapshot->PermissionsSpan("agt_big");
  ASSERT_TRUE(permissions.ok()) << permissions.status();
  ASSERT_EQ(permissions->size(), static_cast<size_t>(kPermissions));
  EXPECT_EQ((*permissions)[0].id, "perm_0");
  EXPECT_EQ((*permissions)[kPermissions - 1].id, absl::StrCat("perm_", kPermissions - 1));
  absl::StatusOr<std::vector<Delegation>> into =
      snapshot->ActiveDelegationsInto("agt_big", clock_.Now());
  ASSERT_TRUE(into.ok()) << into.status();
  EXPECT_THAT(*into, ElementsAre(HasId("dlg_in")));
}

// Issue 16's churn: many windows, many approvals, many revokes. Once the pruning job keeps up,
// the tables hold as many rows after a hundred rounds as after ten.
TEST_P(StoreBoundsTest, UnderChurnTheRowCountsStayFlat) {
  NewAgent("agt_a");
  NewAgent("agt_b");
  Grant("agt_a", "docs:*", {"read"});
  std::map<std::string, std::vector<int64_t>> rows_after_round;
  // Not delegations: a revoked one is kept for the record (an operator's write, not traffic).
  const std::vector<std::string> tables = {"rate_counters", "approval_requests", "approval_votes",
                                           "permissions"};
  for (int round = 1; round <= 100; ++round) {
    // A permission and a delegation that live for one round, each spent in its window.
    absl::StatusOr<Permission> permission = store_->admin().GrantPermission(
        {.agent_id = "agt_a", .resource = absl::StrCat("docs:", round), .actions = {"read"}});
    ASSERT_TRUE(permission.ok()) << permission.status();
    absl::StatusOr<Delegation> delegation = Delegate("agt_a", "agt_b", "docs:*");
    ASSERT_TRUE(delegation.ok()) << delegation.status();
    const int64_t window = Now() / 10 * 10;
    for (const char* agent : {"agt_a", "agt_b", "agt_c"}) {
      Spend(agent, permission->id, window, 10);
      Spend(agent, absl::StrCat(delegation->id, "#0"), window, 10);
      Spend(agent, "perm_long_lived", window, 10);
    }
    // Approvals: some approved and used, some left to expire.
    for (int i = 0; i < 5; ++i) {
      const std::string id =
          OpenApproval("agt_a", absl::StrCat(round, "/", i), 1, absl::Seconds(30));
      if (i % 2 == 0) {
        ASSERT_TRUE(Vote(id, "alice", true).ok());
        std::unique_ptr<WriteTransaction> write = Write();
        ASSERT_TRUE(write->UseApproval(id, clock_.Now()).ok());
        ASSERT_TRUE(write->Commit().ok());
      }
    }
    ASSERT_TRUE(store_->admin().RevokePermission(permission->id).ok());
    ASSERT_TRUE(store_->admin().RevokeDelegation(delegation->id).ok());
    clock_.Advance(absl::Seconds(10));
    Prune(1000, absl::Seconds(30));
    if (round == 10 || round == 100) {
      for (const std::string& table : tables) rows_after_round[table].push_back(RowCount(table));
    }
  }
  for (const std::string& table : tables) {
    SCOPED_TRACE(table);
    ASSERT_EQ(rows_after_round[table].size(), 2u);
    EXPECT_EQ(rows_after_round[table][1], rows_after_round[table][0]);
  }
  // What is left: the long-lived permission's current window, for each of the three agents;
  // and the requests of the last rounds, until their retention ends.
  EXPECT_EQ(RowCount("rate_counters"), 3);
  EXPECT_LE(RowCount("approval_requests"), 5 * 7);
}

// --- Freshness (design section 3) ---

TEST_P(StoreContractTest, NextSnapshotSeesAWriteCommittedByAnotherProcess) {
  NewAgent("agt_a");
  // A second store on the same database stands for another process: its own connections.
  std::unique_ptr<Store> other = database_->Open(clock_, 2);
  ASSERT_NE(other, nullptr);
  ASSERT_EQ((*Read()->FindAgent("agt_a"))->status, AgentStatus::kActive);

  ASSERT_TRUE(other->admin().SetAgentStatus("agt_a", AgentStatus::kRevoked).ok());
  EXPECT_EQ((*Read()->FindAgent("agt_a"))->status, AgentStatus::kRevoked);

  // This process's write path sees it too: a revoked agent is granted nothing.
  EXPECT_EQ(store_->admin()
                .GrantPermission({.agent_id = "agt_a", .resource = "x", .actions = {"y"}})
                .status()
                .code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_P(StoreContractTest, CheckoutWaitsWhileEveryConnectionIsInUse) {
  std::unique_ptr<Store> single = database_->Open(clock_, 1);
  ASSERT_NE(single, nullptr);
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> held = single->BeginRead();
  ASSERT_TRUE(held.ok()) << held.status();

  absl::Notification second_began;
  std::thread waiter([&] {
    absl::StatusOr<std::unique_ptr<ReadSnapshot>> second = single->BeginRead();
    EXPECT_TRUE(second.ok()) << second.status();
    second_began.Notify();
  });
  EXPECT_FALSE(second_began.WaitForNotificationWithTimeout(absl::Milliseconds(100)));
  held->reset();
  EXPECT_TRUE(second_began.WaitForNotificationWithTimeout(absl::Seconds(10)));
  waiter.join();
}

// Health asks CheckAvailable whether the database answers; a pool that every call is using
// (a busy sidecar, admin writes queued on the writers' lock) must not read as a database that
// stopped answering, or verdictd would turn a busy moment into an outage.
TEST_P(StoreContractTest, CheckAvailableAnswersWhileEveryConnectionIsInUse) {
  std::unique_ptr<Store> single = database_->Open(clock_, 1);
  ASSERT_NE(single, nullptr);
  absl::StatusOr<std::unique_ptr<WriteTransaction>> held = single->BeginWrite();
  ASSERT_TRUE(held.ok()) << held.status();

  absl::Notification answered;
  std::thread probe([&] {
    EXPECT_TRUE(single->CheckAvailable().ok());
    answered.Notify();
  });
  const bool in_time = answered.WaitForNotificationWithTimeout(absl::Seconds(20));
  held->reset();  // frees the probe if it waited for the pool
  probe.join();
  EXPECT_TRUE(in_time) << "CheckAvailable waited for a connection of the decisions' pool";
}

// --- The admin plane: agents ---

TEST_P(StoreContractTest, CreatedAgentGetsATokenOfWhichOnlyTheHashIsStored) {
  absl::StatusOr<CreatedAgent> created =
      store_->admin().CreateAgent({.owner = "alice", .name = "bot", .kind = AgentKind::kDelegated});
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_THAT(created->agent.id, MatchesRegex("agt_[0-9a-f]{16}"));
  EXPECT_TRUE(CheckAgentTokenShape(created->token).ok());
  EXPECT_EQ(created->agent.token_prefix, TokenDisplayPrefix(created->token));

  const Rows rows = database_->Query("SELECT * FROM agents");
  ASSERT_EQ(rows.size(), 1u);
  bool hash_stored = false;
  for (const std::string& value : rows[0]) {
    EXPECT_EQ(value.find(created->token), std::string::npos);
    hash_stored |= value == Sha256(created->token);
  }
  EXPECT_TRUE(hash_stored);
  EXPECT_THAT(*store_->admin().GetAgent(created->agent.id), EqualsAgent(created->agent));
}

// The agents' descriptive columns, declared once in decision/types.h (agents.description,
// migration 9; agents.contact, migration 10): the operators' notes on an agent, set at creation,
// shown by GetAgent and ListAgents, kept by export and import, and never part of what a decision
// reads.
TEST_P(StoreContractTest, AnAgentsDescriptiveColumnsAreKeptShownExportedAndImported) {
  verdict::NewAgent described{.owner = "alice", .name = "bot", .id = "agt_d"};
  for (const AgentTextColumn<verdict::NewAgent>& column : kAgentTextColumns<verdict::NewAgent>) {
    described.*column.member = absl::StrCat("the ", column.name, " of agt_d");
  }
  absl::StatusOr<CreatedAgent> created = store_->admin().CreateAgent(described);
  ASSERT_TRUE(created.ok()) << created.status();
  NewAgent("agt_plain");
  absl::StatusOr<AgentPage> page = store_->admin().ListAgents({});
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->agents.size(), 2u);
  absl::StatusOr<std::optional<Agent>> decided = Read()->FindAgent("agt_d");
  ASSERT_TRUE(decided.ok()) << decided.status();
  ASSERT_TRUE(decided->has_value());
  EXPECT_EQ((*decided)->name, "bot");
  absl::StatusOr<PolicyContents> exported = store_->admin().ExportPolicy();
  ASSERT_TRUE(exported.ok()) << exported.status();
  ASSERT_EQ(exported->agents.size(), 2u);
  ManualClock other_clock;
  std::unique_ptr<TestDatabase> empty;
  if (GetParam() == Backend::kSqlite) {
    empty = std::make_unique<SqliteDatabase>("-described");
  } else {
    absl::StatusOr<PostgresTestSchema> schema = PostgresTestSchema::Create();
    ASSERT_TRUE(schema.ok()) << schema.status();
    empty = std::make_unique<PostgresDatabase>(*std::move(schema));
  }
  std::unique_ptr<Store> imported_into = empty->Open(other_clock, 1);
  ASSERT_NE(imported_into, nullptr);
  ASSERT_TRUE(imported_into->admin().ImportPolicy(*exported).ok());

  for (const AgentTextColumn<Agent>& column : kAgentTextColumns<Agent>) {
    SCOPED_TRACE(column.name);
    const std::string expected = absl::StrCat("the ", column.name, " of agt_d");
    EXPECT_EQ(created->agent.*column.member, expected);
    EXPECT_EQ((*store_->admin().GetAgent("agt_d")).*column.member, expected);
    EXPECT_EQ((*store_->admin().GetAgent("agt_plain")).*column.member, "");
    EXPECT_EQ(page->agents[0].*column.member, expected);  // listed by id: agt_d first
    EXPECT_EQ((**decided).*column.member, "");
    EXPECT_EQ(exported->agents[0].agent.*column.member, expected);
    EXPECT_EQ((*imported_into->admin().GetAgent("agt_d")).*column.member, expected);
    EXPECT_EQ((*imported_into->admin().GetAgent("agt_plain")).*column.member, "");
  }
}

TEST_P(StoreContractTest, ADescriptionWithAControlCharacterIsRefusedAndNothingIsCreated) {
  absl::StatusOr<CreatedAgent> created = store_->admin().CreateAgent(
      {.owner = "alice", .name = "bot", .id = "agt_d", .description = "two\nlines"});
  EXPECT_EQ(created.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(created.status().message(), HasSubstr("description"));
  EXPECT_EQ(store_->admin().GetAgent("agt_d").status().code(), absl::StatusCode::kNotFound);
}

TEST_P(StoreContractTest, AContactWithAControlCharacterOrTooLongIsRefusedAndNothingIsCreated) {
  absl::StatusOr<CreatedAgent> control = store_->admin().CreateAgent(
      {.owner = "alice", .name = "bot", .id = "agt_c", .contact = "page\tme"});
  EXPECT_EQ(control.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(control.status().message(), HasSubstr("contact"));
  absl::StatusOr<CreatedAgent> long_one = store_->admin().CreateAgent(
      {.owner = "alice", .name = "bot", .id = "agt_c", .contact = std::string(100000, 'c')});
  EXPECT_EQ(long_one.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(long_one.status().message(), HasSubstr("contact"));
  EXPECT_EQ(store_->admin().GetAgent("agt_c").status().code(), absl::StatusCode::kNotFound);
}

TEST_P(StoreContractTest, AgentIdInUseIsAlreadyExists) {
  NewAgent("agt_a");
  absl::StatusOr<CreatedAgent> again =
      store_->admin().CreateAgent({.owner = "o", .name = "n", .id = "agt_a"});
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(again.status().message(), HasSubstr("agt_a"));
}

struct BadAgentCase {
  const char* what;
  NewAgent agent;
  const char* message;
};

TEST_P(StoreContractTest, MalformedAgentsAreInvalidArguments) {
  const std::vector<BadAgentCase> cases = {
      {"empty owner", {.owner = "", .name = "n"}, "owner"},
      {"control character", {.owner = "o", .name = "a\nb"}, "name: contains a control"},
      {"invalid UTF-8", {.owner = "\xff", .name = "n"}, "owner: is not valid UTF-8"},
      {"wrong id prefix", {.owner = "o", .name = "n", .id = "usr_1"}, "must start with \"agt_\""},
      {"bad id character", {.owner = "o", .name = "n", .id = "agt_a b"}, "byte 5"},
      {"expired already", {.owner = "o", .name = "n", .expires_at = absl::UnixEpoch()}, "past"},
      {"unknown kind", {.owner = "o", .name = "n", .kind = static_cast<AgentKind>(42)}, "kind"},
  };
  for (const BadAgentCase& c : cases) {
    absl::StatusOr<CreatedAgent> created = store_->admin().CreateAgent(c.agent);
    EXPECT_EQ(created.status().code(), absl::StatusCode::kInvalidArgument) << c.what;
    EXPECT_THAT(created.status().message(), HasSubstr(c.message)) << c.what;
  }
  EXPECT_TRUE(*store_->admin().IsEmpty());
}

TEST_P(StoreContractTest, UnknownAgentIsNotFound) {
  EXPECT_EQ(store_->admin().GetAgent("agt_x").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->admin().SetAgentStatus("agt_x", AgentStatus::kSuspended).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->admin().RotateToken("agt_x", absl::ZeroDuration()).status().code(),
            absl::StatusCode::kNotFound);
}

// An id no row can have is the caller's mistake, answered alike by every backend (PostgreSQL
// cannot even compare text holding a NUL byte).
TEST_P(StoreContractTest, AnIdNoRowCanHaveIsAnInvalidArgument) {
  for (const std::string& id : {std::string("agt_a\0x", 7), std::string("nobody"),
                                std::string("agt_"), std::string(300, 'x')}) {
    SCOPED_TRACE(absl::CHexEscape(id));
    EXPECT_EQ(store_->admin().GetAgent(id).status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(store_->admin().SetAgentStatus(id, AgentStatus::kSuspended).status().code(),
              absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(store_->admin().RotateToken(id, absl::ZeroDuration()).status().code(),
              absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(store_->admin().RevokePermission(id).code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(store_->admin().RevokeDelegation(id).code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(store_->admin().GetApproval(id).status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(store_->admin().VoteOnApproval(id, "alice", true, clock_.Now()).status().code(),
              absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(store_->admin().ListAgents({.page_token = id}).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
}

TEST_P(StoreContractTest, AgentsAreListedByIdBytewiseOnePageAtATime) {
  // "agt_B" sorts before "agt_a" bytewise, whatever the database's collation would say.
  for (const char* id : {"agt_d", "agt_b", "agt_B", "agt_a", "agt_c"}) NewAgent(id);
  std::vector<std::string> seen;
  PageRequest page{.page_size = 2};
  int pages = 0;
  do {
    absl::StatusOr<AgentPage> listed = store_->admin().ListAgents(page);
    ASSERT_TRUE(listed.ok()) << listed.status();
    EXPECT_LE(listed->agents.size(), 2u);
    for (const verdict::Agent& agent : listed->agents) seen.push_back(agent.id);
    page.page_token = listed->next_page_token;
    ++pages;
  } while (!page.page_token.empty());
  EXPECT_EQ(pages, 3);
  EXPECT_THAT(seen, ElementsAre("agt_B", "agt_a", "agt_b", "agt_c", "agt_d"));

  EXPECT_EQ(store_->admin().ListAgents({})->agents.size(), 5u);
  EXPECT_EQ(store_->admin().ListAgents({.page_size = -1}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->admin().ListAgents({.page_size = 1001}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_P(StoreContractTest, SuspendedAgentCanBeReactivatedButRevocationIsFinal) {
  NewAgent("agt_a");
  clock_.Advance(absl::Seconds(1));
  absl::StatusOr<verdict::Agent> suspended =
      store_->admin().SetAgentStatus("agt_a", AgentStatus::kSuspended);
  ASSERT_TRUE(suspended.ok()) << suspended.status();
  EXPECT_EQ(suspended->status, AgentStatus::kSuspended);
  EXPECT_EQ(suspended->updated_at, clock_.Now());
  EXPECT_THAT(*store_->admin().GetAgent("agt_a"), EqualsAgent(*suspended));
  EXPECT_EQ(store_->admin().SetAgentStatus("agt_a", AgentStatus::kActive)->status,
            AgentStatus::kActive);

  ASSERT_TRUE(store_->admin().SetAgentStatus("agt_a", AgentStatus::kRevoked).ok());
  EXPECT_TRUE(store_->admin().SetAgentStatus("agt_a", AgentStatus::kRevoked).ok());  // no change
  for (AgentStatus back : {AgentStatus::kActive, AgentStatus::kSuspended}) {
    absl::StatusOr<verdict::Agent> undo = store_->admin().SetAgentStatus("agt_a", back);
    EXPECT_EQ(undo.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(undo.status().message(), HasSubstr("revocation is final"));
  }
  EXPECT_EQ(store_->admin().GetAgent("agt_a")->status, AgentStatus::kRevoked);
  EXPECT_EQ(store_->admin().RotateToken("agt_a", absl::ZeroDuration()).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

// A grace must end at a time a store keeps and an answer can carry: an endless one would be
// kept as "never", which for a previous token means it is already gone, and one ending after
// the year 9999 cannot be told to the caller (who would lose the new token with the answer).
TEST_P(StoreContractTest, NegativeOrEndlessGraceIsRefused) {
  NewAgent("agt_a");
  for (const absl::Duration grace :
       {absl::Seconds(-1), absl::InfiniteDuration(), absl::Hours(24 * 365 * 10000)}) {
    EXPECT_EQ(store_->admin().RotateToken("agt_a", grace).status().code(),
              absl::StatusCode::kInvalidArgument)
        << grace;
  }
  // The agent's token is still the one it was created with.
  EXPECT_THAT(*Read()->FindAgentByTokenHash(Sha256(tokens_["agt_a"]), clock_.Now()),
              HasAgentId("agt_a"));
}

// The admin service's caller may give up while a write runs: the write then commits nothing.
TEST_P(StoreContractTest, AWriteWhoseCallerGaveUpCommitsNothing) {
  std::unique_ptr<PolicyAdmin> gave_up = store_->admin().WithCancel(
      CancelToken([] { return absl::CancelledError("the caller gave up"); }));
  absl::StatusOr<CreatedAgent> created = gave_up->CreateAgent({.owner = "o", .name = "n"});
  EXPECT_EQ(created.status().code(), absl::StatusCode::kCancelled);
  absl::StatusOr<bool> empty = gave_up->IsEmpty();  // reads are answered
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_TRUE(*empty);

  std::unique_ptr<PolicyAdmin> awaited =
      store_->admin().WithCancel(CancelToken([] { return absl::OkStatus(); }));
  EXPECT_TRUE(awaited->CreateAgent({.owner = "o", .name = "n"}).ok());
  EXPECT_FALSE(*store_->admin().IsEmpty());
}

// --- The admin plane: permissions ---

TEST_P(StoreContractTest, GrantedPermissionIsReturnedAsStored) {
  NewAgent("agt_a");
  absl::StatusOr<Permission> granted =
      store_->admin().GrantPermission({.agent_id = "agt_a",
                                       .resource = "/api/**",
                                       .actions = {"GET", "POST"},
                                       .constraints_json = R"({"ip_allowlist": ["10.0.0.0/8"]})"});
  ASSERT_TRUE(granted.ok()) << granted.status();
  EXPECT_THAT(granted->id, MatchesRegex("perm_[0-9a-f]{16}"));
  EXPECT_EQ(granted->constraints_json, R"({"ip_allowlist":["10.0.0.0/8"]})");
  absl::StatusOr<std::vector<Permission>> stored = Read()->PermissionsOf("agt_a");
  ASSERT_TRUE(stored.ok()) << stored.status();
  ASSERT_THAT(*stored, ElementsAre(HasId(granted->id)));
  EXPECT_EQ((*stored)[0].resource, granted->resource);
  EXPECT_EQ((*stored)[0].actions, granted->actions);
  EXPECT_EQ((*stored)[0].effect, granted->effect);
  EXPECT_EQ((*stored)[0].constraints_json, granted->constraints_json);
  EXPECT_EQ((*stored)[0].created_at, granted->created_at);
}

struct BadPermissionCase {
  const char* what;
  NewPermission permission;
  absl::StatusCode code;
  const char* message;
};

TEST_P(StoreContractTest, MalformedOrMisplacedPermissionsAreRefused) {
  NewAgent("agt_a");
  NewAgent("agt_revoked");
  ASSERT_TRUE(store_->admin().SetAgentStatus("agt_revoked", AgentStatus::kRevoked).ok());
  ASSERT_TRUE(
      store_->admin()
          .GrantPermission({.agent_id = "agt_a", .resource = "x", .actions = {"y"}, .id = "perm_1"})
          .ok());
  const absl::StatusCode invalid = absl::StatusCode::kInvalidArgument;
  const std::vector<BadPermissionCase> cases = {
      {"empty resource",
       {.agent_id = "agt_a", .resource = "", .actions = {"r"}},
       invalid,
       "resource"},
      {"control character",
       {.agent_id = "agt_a", .resource = "a\x01", .actions = {"r"}},
       invalid,
       "resource"},
      {"NUL byte",
       {.agent_id = "agt_a", .resource = std::string("a\0b", 3), .actions = {"r"}},
       invalid,
       "resource"},
      {"no actions", {.agent_id = "agt_a", .resource = "docs:*"}, invalid, "actions"},
      {"comma in action",
       {.agent_id = "agt_a", .resource = "docs:*", .actions = {"a,b"}},
       invalid,
       "action"},
      {"unknown constraint",
       {.agent_id = "agt_a", .resource = "d", .actions = {"r"}, .constraints_json = R"({"x":1})"},
       invalid,
       "constraints"},
      {"constraints not JSON",
       {.agent_id = "agt_a", .resource = "d", .actions = {"r"}, .constraints_json = "{"},
       invalid,
       "constraints"},
      {"bad effect",
       {.agent_id = "agt_a", .resource = "d", .actions = {"r"}, .effect = static_cast<Effect>(9)},
       invalid,
       "effect"},
      {"a deny with constraints, which would never be read",
       {.agent_id = "agt_a",
        .resource = "d",
        .actions = {"r"},
        .effect = Effect::kDeny,
        .constraints_json = R"({"ip_allowlist":["10.0.0.0/8"]})"},
       invalid,
       "a deny permission takes none"},
      {"stars alone in a colon segment, which would match only themselves",
       {.agent_id = "agt_a",
        .resource = "docs:secret:**",
        .actions = {"r"},
        .effect = Effect::kDeny},
       invalid,
       "literal text"},
      {"unknown agent",
       {.agent_id = "agt_x", .resource = "d", .actions = {"r"}},
       absl::StatusCode::kNotFound,
       "agt_x"},
      {"revoked agent",
       {.agent_id = "agt_revoked", .resource = "d", .actions = {"r"}},
       absl::StatusCode::kFailedPrecondition,
       "revoked"},
      {"id in use",
       {.agent_id = "agt_a", .resource = "d", .actions = {"r"}, .id = "perm_1"},
       absl::StatusCode::kAlreadyExists,
       "perm_1"},
  };
  for (const BadPermissionCase& c : cases) {
    absl::StatusOr<Permission> granted = store_->admin().GrantPermission(c.permission);
    EXPECT_EQ(granted.status().code(), c.code) << c.what << ": " << granted.status();
    EXPECT_THAT(granted.status().message(), HasSubstr(c.message)) << c.what;
  }
  EXPECT_THAT(*Read()->PermissionsOf("agt_a"), ElementsAre(HasId("perm_1")));
}

TEST_P(StoreContractTest, RevokedPermissionIsGone) {
  NewAgent("agt_a");
  absl::StatusOr<Permission> granted =
      store_->admin().GrantPermission({.agent_id = "agt_a", .resource = "d", .actions = {"r"}});
  ASSERT_TRUE(granted.ok()) << granted.status();
  ASSERT_TRUE(store_->admin().RevokePermission(granted->id).ok());
  EXPECT_THAT(*Read()->PermissionsOf("agt_a"), IsEmpty());
  EXPECT_EQ(store_->admin().RevokePermission(granted->id).code(), absl::StatusCode::kNotFound);
}

// --- The admin plane: delegations ---

TEST_P(StoreContractTest, DelegationIsStoredWithCanonicalLentConstraints) {
  NewAgent("agt_a");
  NewAgent("agt_b");
  Grant("agt_a", "docs:*", {"read"});
  absl::StatusOr<Delegation> created = store_->admin().CreateDelegation(
      {.from_agent_id = "agt_a",
       .to_agent_id = "agt_b",
       .permissions = {{.resource = "docs:1",
                        .actions = {"read"},
                        .constraints_json = R"({ "rate_limit": {"window_seconds": 1,
                                                 "max_calls": 2} })"}},
       .max_depth = 2,
       .expires_at = clock_.Now() + absl::Hours(1)});
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_THAT(created->id, MatchesRegex("dlg_[0-9a-f]{16}"));
  EXPECT_EQ(created->permissions[0].constraints_json,
            R"({"rate_limit":{"max_calls":2,"window_seconds":1}})");
  absl::StatusOr<std::vector<Delegation>> into =
      Read()->ActiveDelegationsInto("agt_b", clock_.Now());
  ASSERT_TRUE(into.ok()) << into.status();
  ASSERT_THAT(*into, ElementsAre(HasId(created->id)));
  EXPECT_EQ((*into)[0].permissions[0].constraints_json, created->permissions[0].constraints_json);
  EXPECT_EQ((*into)[0].expires_at, created->expires_at);
  EXPECT_EQ((*into)[0].created_at, created->created_at);
}

TEST_P(StoreContractTest, DelegationRulesAreEnforcedOnTheStoredGraph) {
  for (const char* id : {"agt_a", "agt_b", "agt_c", "agt_d"}) NewAgent(id);
  Grant("agt_a", "docs:*", {"read"});
  ASSERT_TRUE(Delegate("agt_a", "agt_b", "docs:*", /*max_depth=*/2).ok());

  absl::StatusOr<Delegation> more = Delegate("agt_b", "agt_c", "files:*");
  EXPECT_EQ(more.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(more.status().message(), HasSubstr("cannot lend"));

  ASSERT_TRUE(Delegate("agt_b", "agt_c", "docs:1").ok());
  absl::StatusOr<Delegation> too_deep = Delegate("agt_c", "agt_d", "docs:1");
  EXPECT_EQ(too_deep.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(too_deep.status().message(), HasSubstr("max_depth"));

  Grant("agt_c", "docs:*", {"read"});
  absl::StatusOr<Delegation> cycle = Delegate("agt_c", "agt_a", "docs:1");
  EXPECT_EQ(cycle.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(cycle.status().message(), HasSubstr("cycle"));
}

TEST_P(StoreContractTest, RevokedDelegationNoLongerCarriesRightsToNewDelegations) {
  for (const char* id : {"agt_a", "agt_b", "agt_c"}) NewAgent(id);
  Grant("agt_a", "docs:*", {"read"});
  absl::StatusOr<Delegation> link = Delegate("agt_a", "agt_b", "docs:*");
  ASSERT_TRUE(link.ok()) << link.status();
  ASSERT_TRUE(store_->admin().RevokeDelegation(link->id).ok());
  EXPECT_TRUE(store_->admin().RevokeDelegation(link->id).ok());  // revoking again changes nothing
  EXPECT_THAT(*Read()->ActiveDelegationsInto("agt_b", clock_.Now()), IsEmpty());
  EXPECT_EQ(Delegate("agt_b", "agt_c", "docs:1").status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(store_->admin().RevokeDelegation("dlg_x").code(), absl::StatusCode::kNotFound);
}

TEST_P(StoreContractTest, MalformedOrImpossibleDelegationsAreRefused) {
  for (const char* id : {"agt_a", "agt_b", "agt_suspended"}) NewAgent(id);
  Grant("agt_a", "docs:*", {"read"});
  Grant("agt_suspended", "docs:*", {"read"});
  ASSERT_TRUE(store_->admin().SetAgentStatus("agt_suspended", AgentStatus::kSuspended).ok());

  EXPECT_EQ(Delegate("agt_a", "agt_a", "docs:1").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Delegate("agt_a", "agt_b", "docs:1", /*max_depth=*/0).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Delegate("agt_a", "agt_b", "docs:1", /*max_depth=*/9).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->admin()
                .CreateDelegation({.from_agent_id = "agt_a", .to_agent_id = "agt_b"})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);  // lends nothing
  EXPECT_EQ(Delegate("agt_a", "agt_x", "docs:1").status().code(), absl::StatusCode::kNotFound);
  absl::StatusOr<Delegation> from_suspended = Delegate("agt_suspended", "agt_b", "docs:1");
  EXPECT_EQ(from_suspended.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(from_suspended.status().message(), HasSubstr("suspended"));
  EXPECT_EQ(store_->admin()
                .CreateDelegation({.from_agent_id = "agt_a",
                                   .to_agent_id = "agt_b",
                                   .permissions = {{.resource = "docs:1", .actions = {"read"}}},
                                   .expires_at = clock_.Now()})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

// --- The admin plane: approvals ---

TEST_P(StoreContractTest, QuorumOfDistinctApproversApproves) {
  NewAgent("agt_a");
  const std::string id = OpenApproval("agt_a", "h", /*quorum=*/2);
  absl::StatusOr<ApprovalRequest> first = Vote(id, "bob", true);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->status, ApprovalStatus::kPending);
  EXPECT_EQ(first->approvals, 1);

  absl::StatusOr<ApprovalRequest> twice = Vote(id, "bob", true);
  EXPECT_EQ(twice.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(twice.status().message(), HasSubstr("bob has already voted"));

  absl::StatusOr<ApprovalRequest> second = Vote(id, "carol", true);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->status, ApprovalStatus::kApproved);
  EXPECT_EQ(second->approvals, 2);
  EXPECT_THAT(*store_->admin().GetApproval(id), EqualsApproval(*second));

  absl::StatusOr<ApprovalRequest> late = Vote(id, "dave", false);
  EXPECT_EQ(late.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(late.status().message(), HasSubstr("approved: voting is closed"));
}

TEST_P(StoreContractTest, OneDenyVoteDenies) {
  NewAgent("agt_a");
  const std::string id = OpenApproval("agt_a", "h", /*quorum=*/2);
  ASSERT_TRUE(Vote(id, "bob", true).ok());
  absl::StatusOr<ApprovalRequest> denied = Vote(id, "carol", false);
  ASSERT_TRUE(denied.ok()) << denied.status();
  EXPECT_EQ(denied->status, ApprovalStatus::kDenied);
  EXPECT_EQ(Vote(id, "dave", true).status().code(), absl::StatusCode::kFailedPrecondition);
}

// The listings name the principals who voted (issue 18), in the order they voted.
TEST_P(StoreContractTest, TheVotesOnARequestNameTheirPrincipalsInOrder) {
  NewAgent("agt_a");
  const std::string id = OpenApproval("agt_a", "h", /*quorum=*/3);
  absl::StatusOr<std::vector<ApprovalVoteCast>> none = store_->admin().ApprovalVotes(id);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());
  ASSERT_TRUE(Vote(id, "zoe", true).ok());
  clock_.Advance(absl::Seconds(1));
  ASSERT_TRUE(Vote(id, "bob", true).ok());
  clock_.Advance(absl::Seconds(1));
  ASSERT_TRUE(Vote(id, "carol", false).ok());
  absl::StatusOr<std::vector<ApprovalVoteCast>> votes = store_->admin().ApprovalVotes(id);
  ASSERT_TRUE(votes.ok()) << votes.status();
  ASSERT_EQ(votes->size(), 3u);
  EXPECT_EQ((*votes)[0].approver, "zoe");
  EXPECT_TRUE((*votes)[0].approve);
  EXPECT_EQ((*votes)[1].approver, "bob");
  EXPECT_EQ((*votes)[2].approver, "carol");
  EXPECT_FALSE((*votes)[2].approve);
  EXPECT_EQ(store_->admin().ApprovalVotes("apr_nothing").status().code(),
            absl::StatusCode::kNotFound);
}

TEST_P(StoreContractTest, VotingOnAnExpiredRequestIsRefusedAndMarksItExpired) {
  NewAgent("agt_a");
  const std::string id = OpenApproval("agt_a", "h", /*quorum=*/1, absl::Minutes(10));
  clock_.Advance(absl::Minutes(10));
  absl::StatusOr<ApprovalRequest> vote = Vote(id, "bob", true);
  EXPECT_EQ(vote.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(vote.status().message(), HasSubstr("expired"));
  EXPECT_EQ(store_->admin().GetApproval(id)->status, ApprovalStatus::kExpired);
  EXPECT_THAT(database_->Query("SELECT status FROM approval_requests"),
              ElementsAre(ElementsAre("expired")));
}

TEST_P(StoreContractTest, MalformedVotesAndUnknownRequestsAreRefused) {
  NewAgent("agt_a");
  const std::string id = OpenApproval("agt_a", "h");
  EXPECT_EQ(Vote(id, "", true).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Vote("apr_x", "bob", true).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->admin().GetApproval("apr_x").status().code(), absl::StatusCode::kNotFound);
}

TEST_P(StoreContractTest, ApprovalsAreListedOldestFirstByStatusAPageAtATime) {
  NewAgent("agt_a");
  std::vector<std::string> pending;
  for (int i = 0; i < 3; ++i) {
    pending.push_back(OpenApproval("agt_a", absl::StrCat("h", i)));
    clock_.Advance(absl::Seconds(1));
  }
  const std::string approved = OpenApproval("agt_a", "approved");
  ASSERT_TRUE(Vote(approved, "bob", true).ok());
  const std::string expiring = OpenApproval("agt_a", "expiring", 1, absl::Seconds(1));
  clock_.Advance(absl::Seconds(1));

  std::vector<std::string> listed;
  PageRequest page{.page_size = 2};
  do {
    absl::StatusOr<ApprovalPage> result =
        store_->admin().ListApprovals(ApprovalStatus::kPending, page);
    ASSERT_TRUE(result.ok()) << result.status();
    for (const ApprovalRequest& approval : result->approvals) listed.push_back(approval.id);
    page.page_token = result->next_page_token;
  } while (!page.page_token.empty());
  EXPECT_EQ(listed, pending);

  EXPECT_THAT(store_->admin().ListApprovals(ApprovalStatus::kApproved, {})->approvals,
              ElementsAre(HasId(approved)));
  EXPECT_THAT(store_->admin().ListApprovals(ApprovalStatus::kExpired, {})->approvals,
              ElementsAre(HasId(expiring)));
  EXPECT_EQ(store_->admin().ListApprovals(std::nullopt, {})->approvals.size(), 5u);
  EXPECT_EQ(store_->admin().ListApprovals(std::nullopt, {.page_token = "garbage"}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// --- Whole-policy export and import ---

TEST_P(StoreContractTest, StoreIsEmptyUntilAnAgentExists) {
  EXPECT_TRUE(*store_->admin().IsEmpty());
  NewAgent("agt_a");
  EXPECT_FALSE(*store_->admin().IsEmpty());
}

TEST_P(StoreContractTest, ExportedPolicyImportsIntoAnEmptyStoreUnchanged) {
  for (const char* id : {"agt_b", "agt_a"}) NewAgent(id);
  Grant("agt_b", "docs:*", {"read", "write"});
  Grant("agt_a", "/api/**", {"GET"});
  ASSERT_TRUE(Delegate("agt_b", "agt_a", "docs:1").ok());
  // agt_b's token was rotated: its previous token keeps working for an hour, after a restore too.
  absl::StatusOr<RotatedToken> rotated = store_->admin().RotateToken("agt_b", absl::Hours(1));
  ASSERT_TRUE(rotated.ok()) << rotated.status();
  // A revoked access token stays revoked after a restore.
  ASSERT_TRUE(store_->admin().RevokeTokenId("jti-revoked", clock_.Now() + absl::Hours(2)).ok());
  absl::StatusOr<PolicyContents> exported = store_->admin().ExportPolicy();
  ASSERT_TRUE(exported.ok()) << exported.status();
  ASSERT_EQ(exported->agents.size(), 2u);
  EXPECT_EQ(exported->agents[0].agent.id, "agt_b");  // creation order
  EXPECT_EQ(exported->agents[0].token_sha256, Sha256(rotated->token));
  EXPECT_EQ(exported->agents[0].previous_token_sha256, Sha256(tokens_["agt_b"]));
  EXPECT_TRUE(exported->agents[1].previous_token_sha256.empty());

  EXPECT_EQ(store_->admin().ImportPolicy(*exported).code(), absl::StatusCode::kFailedPrecondition);

  ManualClock other_clock;
  std::unique_ptr<TestDatabase> empty;
  if (GetParam() == Backend::kSqlite) {
    empty = std::make_unique<SqliteDatabase>("-empty");
  } else {
    absl::StatusOr<PostgresTestSchema> schema = PostgresTestSchema::Create();
    ASSERT_TRUE(schema.ok()) << schema.status();
    empty = std::make_unique<PostgresDatabase>(*std::move(schema));
  }
  std::unique_ptr<Store> imported_into = empty->Open(other_clock, 1);
  ASSERT_NE(imported_into, nullptr);
  ASSERT_TRUE(imported_into->admin().ImportPolicy(*exported).ok());
  absl::StatusOr<PolicyContents> again = imported_into->admin().ExportPolicy();
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_EQ(again->agents.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(again->agents[i].agent.id, exported->agents[i].agent.id);
    EXPECT_EQ(again->agents[i].token_sha256, exported->agents[i].token_sha256);
  }
  ASSERT_EQ(again->permissions.size(), 2u);
  EXPECT_EQ(again->permissions[0].id, exported->permissions[0].id);
  EXPECT_EQ(again->permissions[1].actions, exported->permissions[1].actions);
  ASSERT_EQ(again->delegations.size(), 1u);
  EXPECT_EQ(again->delegations[0].id, exported->delegations[0].id);
  EXPECT_EQ(again->delegations[0].permissions[0].resource, "docs:1");
  ASSERT_EQ(again->revoked_token_ids.size(), 1u);
  EXPECT_EQ(again->revoked_token_ids[0].jti, "jti-revoked");
  EXPECT_EQ(again->revoked_token_ids[0].expires_at, exported->revoked_token_ids[0].expires_at);
  // The imported token still finds its agent.
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = imported_into->BeginRead();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  EXPECT_THAT(*(*snapshot)->FindAgentByTokenHash(Sha256(tokens_["agt_a"]), other_clock.Now()),
              HasAgentId("agt_a"));
  // So do both of agt_b's, the previous one until its grace ends.
  EXPECT_THAT(*(*snapshot)->FindAgentByTokenHash(Sha256(rotated->token), clock_.Now()),
              HasAgentId("agt_b"));
  EXPECT_THAT(*(*snapshot)->FindAgentByTokenHash(Sha256(tokens_["agt_b"]), clock_.Now()),
              HasAgentId("agt_b"));
  EXPECT_EQ(
      *(*snapshot)->FindAgentByTokenHash(Sha256(tokens_["agt_b"]), clock_.Now() + absl::Hours(2)),
      std::nullopt);
}

TEST_P(StoreContractTest, ImportRefusesATokenPrefixNoTokenHas) {
  PolicyContents policy;
  policy.agents.push_back(
      {.agent = {.id = "agt_a", .owner = "o", .name = "n", .token_prefix = "vdt_\x01\xff"}});
  absl::Status imported = store_->admin().ImportPolicy(policy);
  EXPECT_EQ(imported.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(imported.message(), HasSubstr("agents[0].token_prefix"));
  EXPECT_TRUE(*store_->admin().IsEmpty());
}

TEST_P(StoreContractTest, ImportIsAllOrNothing) {
  PolicyContents policy;
  policy.agents.push_back({.agent = {.id = "agt_ok", .owner = "o", .name = "n"}});
  policy.permissions.push_back(
      {.id = "perm_ok", .agent_id = "agt_ok", .resource = "docs:*", .actions = {"read"}});
  policy.permissions.push_back(
      {.id = "perm_orphan", .agent_id = "agt_missing", .resource = "x", .actions = {"y"}});
  absl::Status imported = store_->admin().ImportPolicy(policy);
  EXPECT_EQ(imported.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(imported.message(), HasSubstr("permissions[1].agent_id"));
  EXPECT_TRUE(*store_->admin().IsEmpty());
}

// --- JWT signing keys and revoked token ids ---

class StoreSigningKeysTest : public StoreContractTest {
 protected:
  const TestSigningKey key_ = TestSigningKey::NewEd25519("k1");
};

INSTANTIATE_TEST_SUITE_P(Backends, StoreSigningKeysTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres), BackendName);

TEST_P(StoreSigningKeysTest, AKidIsNeverTakenTwiceNotEvenAfterRetirement) {
  ASSERT_TRUE(store_->admin().AddSigningKey({key_.public_jwk_json, {"EdDSA"}}).ok());
  EXPECT_EQ(store_->admin().AddSigningKey({key_.public_jwk_json, {"EdDSA"}}).status().code(),
            absl::StatusCode::kAlreadyExists);
  ASSERT_TRUE(store_->admin().RetireSigningKey("k1").ok());
  const TestSigningKey again = TestSigningKey::NewEd25519("k1");
  EXPECT_EQ(store_->admin().AddSigningKey({again.public_jwk_json, {"EdDSA"}}).status().code(),
            absl::StatusCode::kAlreadyExists);
}

TEST_P(StoreSigningKeysTest, InvalidKeysAreRefusedBeforeAnythingIsWritten) {
  EXPECT_EQ(store_->admin().AddSigningKey({key_.private_jwk_json, {"EdDSA"}}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->admin().AddSigningKey({key_.public_jwk_json, {"HS256"}}).status().code(),
            absl::StatusCode::kInvalidArgument);
  absl::StatusOr<std::vector<SigningKey>> keys = store_->admin().ListSigningKeys();
  ASSERT_TRUE(keys.ok()) << keys.status();
  EXPECT_TRUE(keys->empty());
}

TEST_P(StoreSigningKeysTest, ARotationInPlaceReplacesTheContentUnderTheSameKid) {
  ASSERT_TRUE(store_->admin().AddSigningKey({key_.public_jwk_json, {"EdDSA"}}).ok());
  const absl::Time added_at = clock_.Now();
  clock_.Advance(absl::Minutes(1));
  const TestSigningKey replacement = TestSigningKey::NewEd25519("k1");
  absl::StatusOr<SigningKey> rotated =
      store_->admin().RotateSigningKey({replacement.public_jwk_json, {"EdDSA"}});
  ASSERT_TRUE(rotated.ok()) << rotated.status();
  EXPECT_EQ(rotated->created_at, added_at);
  EXPECT_EQ(rotated->updated_at, clock_.Now());

  std::optional<SigningKey> found = ActiveSigningKeyIn(*Read(), "k1");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->jwk_json, rotated->jwk_json);
  EXPECT_EQ(found->updated_at, clock_.Now());
  EXPECT_THAT(found->jwk_json,
              HasSubstr(ParseJson(replacement.public_jwk_json)->Find("x")->as_string()));
}

TEST_P(StoreSigningKeysTest, OnlyAnActiveKeyCanBeRotated) {
  EXPECT_EQ(store_->admin().RotateSigningKey({key_.public_jwk_json, {"EdDSA"}}).status().code(),
            absl::StatusCode::kNotFound);
  ASSERT_TRUE(store_->admin().AddSigningKey({key_.public_jwk_json, {"EdDSA"}}).ok());
  ASSERT_TRUE(store_->admin().RetireSigningKey("k1").ok());
  const absl::Status status =
      store_->admin().RotateSigningKey({key_.public_jwk_json, {"EdDSA"}}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), HasSubstr("retired"));
}

TEST_P(StoreSigningKeysTest, ARetiredKeyIsNoLongerFoundForDecisionsButStaysListed) {
  // Kids chosen against their creation order: the list's order must not come from the kids.
  const TestSigningKey first = TestSigningKey::NewEd25519("k9");
  ASSERT_TRUE(store_->admin().AddSigningKey({first.public_jwk_json, {"EdDSA"}}).ok());
  const TestSigningKey other = TestSigningKey::NewHs256("k2");
  ASSERT_TRUE(store_->admin().AddSigningKey({other.public_jwk_json, {"HS256"}}).ok());
  clock_.Advance(absl::Minutes(1));
  absl::StatusOr<SigningKey> retired = store_->admin().RetireSigningKey("k9");
  ASSERT_TRUE(retired.ok()) << retired.status();
  EXPECT_EQ(retired->status, SigningKeyStatus::kRetired);
  EXPECT_EQ(retired->retired_at, clock_.Now());
  EXPECT_FALSE(ActiveSigningKeyIn(*Read(), "k9").has_value());
  EXPECT_TRUE(ActiveSigningKeyIn(*Read(), "k2").has_value());

  // Retiring again changes nothing.
  clock_.Advance(absl::Minutes(1));
  absl::StatusOr<SigningKey> again = store_->admin().RetireSigningKey("k9");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->retired_at, retired->retired_at);
  EXPECT_EQ(store_->admin().RetireSigningKey("k3").status().code(), absl::StatusCode::kNotFound);

  absl::StatusOr<std::vector<SigningKey>> keys = store_->admin().ListSigningKeys();
  ASSERT_TRUE(keys.ok()) << keys.status();
  ASSERT_EQ(keys->size(), 2u);
  EXPECT_EQ((*keys)[0].kid, "k9");
  EXPECT_EQ((*keys)[0].status, SigningKeyStatus::kRetired);
  EXPECT_EQ((*keys)[1].kid, "k2");
  EXPECT_EQ((*keys)[1].status, SigningKeyStatus::kActive);
}

TEST_P(StoreSigningKeysTest, RevokedTokenIdsAreDroppedOnlyLongAfterTheirTokensExpire) {
  ASSERT_TRUE(store_->admin().RevokeTokenId("old", clock_.Now() + absl::Minutes(5)).ok());
  ASSERT_TRUE(store_->admin().RevokeTokenId("extended", clock_.Now() + absl::Minutes(5)).ok());
  ASSERT_TRUE(store_->admin().RevokeTokenId("extended", clock_.Now() + absl::Hours(48)).ok());
  // An hour past its expiry the entry still protects against a skewed clock.
  clock_.Advance(absl::Hours(1));
  ASSERT_TRUE(store_->admin().RevokeTokenId("new", clock_.Now() + absl::Minutes(5)).ok());
  EXPECT_TRUE(TokenIdRevokedIn(*Read(), "old"));
  // A day later, the next revocation drops it; the later expiry kept "extended".
  clock_.Advance(absl::Hours(24));
  ASSERT_TRUE(store_->admin().RevokeTokenId("newer", clock_.Now() + absl::Minutes(5)).ok());
  EXPECT_FALSE(TokenIdRevokedIn(*Read(), "old"));
  EXPECT_TRUE(TokenIdRevokedIn(*Read(), "extended"));
  EXPECT_TRUE(TokenIdRevokedIn(*Read(), "new"));
}

TEST_P(StoreSigningKeysTest, ATokenIdMustBeWellFormedAndCarryItsExpiry) {
  EXPECT_EQ(store_->admin().RevokeTokenId("", clock_.Now()).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->admin().RevokeTokenId("jti", absl::InfiniteFuture()).code(),
            absl::StatusCode::kInvalidArgument);
}

// An expiry given wrong, long past, would have the revocation reported done, then dropped by the
// next revocation's pruning while the token is still accepted (review h38).
TEST_P(StoreSigningKeysTest, ARevocationWhoseExpiryIsLongPastIsRefused) {
  const absl::Status past = store_->admin().RevokeTokenId("jti", clock_.Now() - absl::Hours(2));
  EXPECT_EQ(past.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(past.message()), HasSubstr("is more than an hour past"));
  EXPECT_FALSE(TokenIdRevokedIn(*Read(), "jti"));
  // 30 minutes ago is fine: with --jwt_leeway=30m or more such a token still passes (h40).
  EXPECT_TRUE(store_->admin().RevokeTokenId("jti", clock_.Now() - absl::Minutes(30)).ok());
  EXPECT_TRUE(TokenIdRevokedIn(*Read(), "jti"));
}

}  // namespace
}  // namespace verdict
