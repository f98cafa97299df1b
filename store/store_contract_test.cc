// The store contract (decision/policy_view.h, decision/policy_store.h, store/policy_admin.h),
// one suite run on every backend: SQLite always, PostgreSQL when VERDICT_TEST_POSTGRES_URL names
// a server (scripts/test.d/postgres.sh). Each case states a rule both stores must keep, so the
// two cannot drift apart; what only one backend has (files, query plans, a server's faults)
// is tested beside that backend.
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
        store_->CreateAgent({.owner = "alice", .name = id, .id = id});
    EXPECT_TRUE(created.ok()) << created.status();
    if (created.ok()) tokens_[id] = created->token;
    return id;
  }

  void Grant(const std::string& agent, const std::string& resource,
             std::vector<std::string> actions, Effect effect = Effect::kAllow) {
    ASSERT_TRUE(
        store_
            ->GrantPermission(
                {.agent_id = agent, .resource = resource, .actions = actions, .effect = effect})
            .ok());
  }

  absl::StatusOr<Delegation> Delegate(const std::string& from, const std::string& to,
                                      const std::string& resource, int max_depth = 8) {
    return store_->CreateDelegation({.from_agent_id = from,
                                     .to_agent_id = to,
                                     .permissions = {{.resource = resource, .actions = {"read"}}},
                                     .max_depth = max_depth});
  }

  std::unique_ptr<ReadSnapshot> Read() {
    absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store_->BeginRead();
    EXPECT_TRUE(snapshot.ok()) << snapshot.status();
    return snapshot.ok() ? *std::move(snapshot) : nullptr;
  }

  std::unique_ptr<WriteTransaction> Write() {
    absl::StatusOr<std::unique_ptr<WriteTransaction>> transaction = store_->BeginWrite();
    EXPECT_TRUE(transaction.ok()) << transaction.status();
    return transaction.ok() ? *std::move(transaction) : nullptr;
  }

  std::string OpenApproval(const std::string& agent_id, const std::string& hash, int quorum = 1,
                           absl::Duration ttl = absl::Hours(1)) {
    std::unique_ptr<WriteTransaction> write = Write();
    absl::StatusOr<std::string> id = write->OpenApproval({.agent_id = agent_id,
                                                          .action = "pay",
                                                          .resource = "invoices:1",
                                                          .arguments_hash = hash,
                                                          .quorum = quorum,
                                                          .expires_at = clock_.Now() + ttl},
                                                         clock_.Now());
    EXPECT_TRUE(id.ok()) << id.status();
    EXPECT_TRUE(write->Commit().ok());
    return id.ok() ? *id : "";
  }

  std::optional<ApprovalRequest> OpenApprovalSeen(const std::string& agent_id,
                                                  const std::string& hash) {
    absl::StatusOr<std::optional<ApprovalRequest>> found =
        Read()->FindOpenApproval(agent_id, "pay", "invoices:1", hash, clock_.Now());
    EXPECT_TRUE(found.ok()) << found.status();
    return found.ok() ? *found : std::nullopt;
  }

  absl::StatusOr<ApprovalRequest> Vote(const std::string& id, const std::string& approver,
                                       bool approve) {
    return store_->VoteOnApproval(id, approver, approve, clock_.Now());
  }

  ManualClock clock_;
  std::unique_ptr<TestDatabase> database_;
  std::unique_ptr<Store> store_;
  std::map<std::string, std::string> tokens_;
};

INSTANTIATE_TEST_SUITE_P(Backends, StoreContractTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres), BackendName);

// --- The decision path: lookups ---

TEST_P(StoreContractTest, FindAgentReturnsTheStoredAgent) {
  absl::StatusOr<CreatedAgent> created =
      store_->CreateAgent({.owner = "alice",
                           .name = "reader",
                           .kind = AgentKind::kService,
                           .expires_at = clock_.Now() + absl::Hours(24)});
  ASSERT_TRUE(created.ok()) << created.status();

  absl::StatusOr<std::optional<Agent>> found = Read()->FindAgent(created->agent.id);
  ASSERT_TRUE(found.ok()) << found.status();
  ASSERT_TRUE(found->has_value());
  EXPECT_THAT(**found, EqualsAgent(created->agent));
  EXPECT_EQ((*found)->owner, "alice");
  EXPECT_EQ((*found)->name, "reader");
  EXPECT_EQ((*found)->kind, AgentKind::kService);
  EXPECT_EQ((*found)->status, AgentStatus::kActive);
  EXPECT_EQ((*found)->expires_at, clock_.Now() + absl::Hours(24));
  EXPECT_EQ((*found)->created_at, clock_.Now());
  EXPECT_EQ((*found)->token_prefix, created->token.substr(0, 12));
}

TEST_P(StoreContractTest, UnknownAgentIsNotAnError) {
  absl::StatusOr<std::optional<Agent>> found = Read()->FindAgent("agt_nobody");
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_FALSE(found->has_value());
}

TEST_P(StoreContractTest, AgentIsFoundByTheHashOfItsToken) {
  NewAgent("agt_a");
  NewAgent("agt_b");
  auto snapshot = Read();
  EXPECT_THAT(*snapshot->FindAgentByTokenHash(Sha256(tokens_["agt_b"]), clock_.Now()),
              HasAgentId("agt_b"));
  EXPECT_EQ(*snapshot->FindAgentByTokenHash(Sha256("vdt_not_a_token"), clock_.Now()), std::nullopt);
}

TEST_P(StoreContractTest, PreviousTokenWorksOnlyDuringItsGrace) {
  NewAgent("agt_a");
  const std::string old_hash = Sha256(tokens_["agt_a"]);
  absl::StatusOr<RotatedToken> rotated = store_->RotateToken("agt_a", absl::Minutes(5));
  ASSERT_TRUE(rotated.ok()) << rotated.status();
  EXPECT_EQ(rotated->previous_token_expires_at, clock_.Now() + absl::Minutes(5));

  auto snapshot = Read();
  const absl::Time in_grace = clock_.Now() + absl::Minutes(5) - absl::Microseconds(1);
  const absl::Time after_grace = clock_.Now() + absl::Minutes(5);
  EXPECT_THAT(*snapshot->FindAgentByTokenHash(old_hash, in_grace), HasAgentId("agt_a"));
  EXPECT_EQ(*snapshot->FindAgentByTokenHash(old_hash, after_grace), std::nullopt);
  EXPECT_THAT(*snapshot->FindAgentByTokenHash(Sha256(rotated->token), after_grace),
              HasAgentId("agt_a"));
}

TEST_P(StoreContractTest, RotationWithoutGraceEndsTheOldTokenAtOnce) {
  NewAgent("agt_a");
  const std::string old_hash = Sha256(tokens_["agt_a"]);
  absl::StatusOr<RotatedToken> rotated = store_->RotateToken("agt_a", absl::ZeroDuration());
  ASSERT_TRUE(rotated.ok()) << rotated.status();
  EXPECT_EQ(rotated->previous_token_expires_at, clock_.Now());
  EXPECT_EQ(*Read()->FindAgentByTokenHash(old_hash, clock_.Now()), std::nullopt);
  EXPECT_THAT(*Read()->FindAgentByTokenHash(Sha256(rotated->token), clock_.Now()),
              HasAgentId("agt_a"));
}

TEST_P(StoreContractTest, SecondRotationEndsTheFirstGraceAtOnce) {
  NewAgent("agt_a");
  const std::string first_hash = Sha256(tokens_["agt_a"]);
  absl::StatusOr<RotatedToken> second = store_->RotateToken("agt_a", absl::Hours(1));
  ASSERT_TRUE(second.ok()) << second.status();
  absl::StatusOr<RotatedToken> third = store_->RotateToken("agt_a", absl::Hours(1));
  ASSERT_TRUE(third.ok()) << third.status();
  auto snapshot = Read();
  EXPECT_EQ(*snapshot->FindAgentByTokenHash(first_hash, clock_.Now()), std::nullopt);
  EXPECT_THAT(*snapshot->FindAgentByTokenHash(Sha256(second->token), clock_.Now()),
              HasAgentId("agt_a"));
}

TEST_P(StoreContractTest, PermissionsComeInCreationOrderWithCanonicalConstraints) {
  NewAgent("agt_a");
  NewAgent("agt_other");
  // Ids chosen against their creation order: the order must not come from the ids.
  ASSERT_TRUE(store_
                  ->GrantPermission({.agent_id = "agt_a",
                                     .resource = "docs:*",
                                     .actions = {"write", "read"},
                                     .id = "perm_z"})
                  .ok());
  ASSERT_TRUE(store_
                  ->GrantPermission({.agent_id = "agt_other",
                                     .resource = "docs:*",
                                     .actions = {"read"},
                                     .id = "perm_other"})
                  .ok());
  ASSERT_TRUE(store_
                  ->GrantPermission({.agent_id = "agt_a",
                                     .resource = "docs:secret:*",
                                     .actions = {"*"},
                                     .constraints_json = R"({ "rate_limit" : {"window_seconds":60,
                                                              "max_calls": 5} })",
                                     .id = "perm_a"})
                  .ok());
  ASSERT_TRUE(store_
                  ->GrantPermission({.agent_id = "agt_a",
                                     .resource = "docs:secret:keys",
                                     .actions = {"*"},
                                     .effect = Effect::kDeny,
                                     .id = "perm_b"})
                  .ok());

  absl::StatusOr<std::vector<Permission>> permissions = Read()->PermissionsOf("agt_a");
  ASSERT_TRUE(permissions.ok()) << permissions.status();
  ASSERT_THAT(*permissions, ElementsAre(HasId("perm_z"), HasId("perm_a"), HasId("perm_b")));
  EXPECT_EQ((*permissions)[0].resource, "docs:*");
  EXPECT_THAT((*permissions)[0].actions, ElementsAre("write", "read"));
  EXPECT_EQ((*permissions)[0].effect, Effect::kAllow);
  EXPECT_EQ((*permissions)[0].constraints_json, "{}");
  EXPECT_EQ((*permissions)[1].constraints_json,
            R"({"rate_limit":{"max_calls":5,"window_seconds":60}})");
  EXPECT_EQ((*permissions)[1].agent_id, "agt_a");
  EXPECT_EQ((*permissions)[2].effect, Effect::kDeny);
  EXPECT_EQ((*permissions)[2].constraints_json, "{}");
}

TEST_P(StoreContractTest, OnlyActiveUnexpiredDelegationsLeadIntoAnAgent) {
  NewAgent("agt_from");
  NewAgent("agt_to");
  Grant("agt_from", "docs:*", {"read", "write"});
  const std::vector<LentPermission> lent = {
      {.resource = "docs:public:*", .actions = {"read"}, .constraints_json = ""}};
  for (const char* id : {"dlg_kept", "dlg_revoked", "dlg_expiring"}) {
    NewDelegation delegation{.from_agent_id = "agt_from",
                             .to_agent_id = "agt_to",
                             .permissions = lent,
                             .max_depth = 2,
                             .id = id};
    if (std::string(id) == "dlg_expiring") delegation.expires_at = clock_.Now() + absl::Hours(1);
    ASSERT_TRUE(store_->CreateDelegation(delegation).ok()) << id;
  }
  ASSERT_TRUE(store_->RevokeDelegation("dlg_revoked").ok());

  auto snapshot = Read();
  absl::StatusOr<std::vector<Delegation>> before =
      snapshot->ActiveDelegationsInto("agt_to", clock_.Now());
  ASSERT_TRUE(before.ok()) << before.status();
  EXPECT_THAT(*before, ElementsAre(HasId("dlg_kept"), HasId("dlg_expiring")));
  const Delegation& kept = (*before)[0];
  EXPECT_EQ(kept.from_agent_id, "agt_from");
  EXPECT_EQ(kept.to_agent_id, "agt_to");
  EXPECT_EQ(kept.max_depth, 2);
  EXPECT_EQ(kept.status, DelegationStatus::kActive);
  ASSERT_EQ(kept.permissions.size(), 1u);
  EXPECT_EQ(kept.permissions[0].resource, "docs:public:*");
  EXPECT_THAT(kept.permissions[0].actions, ElementsAre("read"));
  EXPECT_EQ(kept.permissions[0].constraints_json, "{}");

  EXPECT_THAT(*snapshot->ActiveDelegationsInto("agt_to", clock_.Now() + absl::Hours(1)),
              ElementsAre(HasId("dlg_kept")));
  EXPECT_THAT(*snapshot->ActiveDelegationsInto("agt_from", clock_.Now()), IsEmpty());
}

// What the engine reads: the agent by reference and the rows as spans, kept by the snapshot,
// answer exactly what the copies answer, and stay put while the snapshot reads more.
TEST_P(StoreContractTest, ReferencesAndSpansAnswerAsTheCopiesDo) {
  NewAgent("agt_from");
  NewAgent("agt_to");
  Grant("agt_from", "docs:*", {"read", "write"});
  Grant("agt_to", "/api/**", {"GET"});
  ASSERT_TRUE(store_
                  ->CreateDelegation({.from_agent_id = "agt_from",
                                      .to_agent_id = "agt_to",
                                      .permissions = {{.resource = "docs:public:*",
                                                       .actions = {"read"},
                                                       .constraints_json = ""}},
                                      .max_depth = 2,
                                      .id = "dlg_1"})
                  .ok());
  auto snapshot = Read();
  absl::StatusOr<const Agent*> to = snapshot->FindAgentRef("agt_to");
  ASSERT_TRUE(to.ok()) << to.status();
  ASSERT_NE(*to, nullptr);
  absl::StatusOr<absl::Span<const Permission>> to_permissions = snapshot->PermissionsSpan("agt_to");
  absl::StatusOr<absl::Span<const Delegation>> into =
      snapshot->ActiveDelegationsIntoSpan("agt_to", clock_.Now());
  absl::StatusOr<const Agent*> from = snapshot->FindAgentRef("agt_from");
  absl::StatusOr<absl::Span<const Permission>> from_permissions =
      snapshot->PermissionsSpan("agt_from");
  ASSERT_TRUE(to_permissions.ok() && into.ok() && from.ok() && from_permissions.ok());

  EXPECT_THAT(**to, EqualsAgent(**snapshot->FindAgent("agt_to")));
  EXPECT_THAT(**from, EqualsAgent(**snapshot->FindAgent("agt_from")));
  EXPECT_THAT(*to_permissions, ElementsAre(HasId((*snapshot->PermissionsOf("agt_to"))[0].id)));
  EXPECT_EQ((*to_permissions)[0].resource, "/api/**");
  EXPECT_THAT(*from_permissions, ElementsAre(HasId((*snapshot->PermissionsOf("agt_from"))[0].id)));
  EXPECT_EQ((*from_permissions)[0].resource, "docs:*");
  ASSERT_THAT(*into, ElementsAre(HasId("dlg_1")));
  EXPECT_EQ((*into)[0].permissions[0].resource, "docs:public:*");
  EXPECT_EQ((*to)->id, "agt_to");  // still in place after the reads that followed it
  EXPECT_EQ(*snapshot->FindAgentRef("agt_nobody"), nullptr);
}

// A connection reuses what it decoded in earlier transactions; an agent that does not exist
// must still answer empty, never another agent's rows.
TEST_P(StoreContractTest, AnAgentThatDoesNotExistHoldsNothing) {
  NewAgent("agt_from");
  NewAgent("agt_to");
  Grant("agt_from", "docs:*", {"read"});
  Grant("agt_to", "docs:*", {"read"});
  ASSERT_TRUE(Delegate("agt_from", "agt_to", "docs:*").ok());
  std::unique_ptr<Store> one_connection = database_->Open(clock_, 1);
  ASSERT_NE(one_connection, nullptr);
  for (const char* agent : {"agt_to", "agt_nobody"}) {
    SCOPED_TRACE(agent);
    absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = one_connection->BeginRead();
    ASSERT_TRUE(snapshot.ok()) << snapshot.status();
    absl::StatusOr<absl::Span<const Permission>> permissions = (*snapshot)->PermissionsSpan(agent);
    absl::StatusOr<absl::Span<const Delegation>> into =
        (*snapshot)->ActiveDelegationsIntoSpan(agent, clock_.Now());
    absl::StatusOr<bool> holds_allow = (*snapshot)->HoldsAllowPermission(agent);
    ASSERT_TRUE(permissions.ok() && into.ok() && holds_allow.ok());
    const bool exists = std::string(agent) == "agt_to";
    EXPECT_EQ(permissions->size(), exists ? 1u : 0u);
    EXPECT_EQ(into->size(), exists ? 1u : 0u);
    EXPECT_EQ(*holds_allow, exists);
    EXPECT_EQ((*snapshot)->PermissionsOf(agent)->size(), exists ? 1u : 0u);
  }
}

// What makes a delegator the origin of a chain: one allow of its own, whatever else it holds.
TEST_P(StoreContractTest, AnAgentHoldsAnAllowPermissionWhenAnyOfItsOwnAllows) {
  NewAgent("agt_allows");
  NewAgent("agt_denies");
  NewAgent("agt_empty");
  Grant("agt_allows", "docs:secret:*", {"read"}, Effect::kDeny);
  Grant("agt_allows", "docs:*", {"read"});
  Grant("agt_denies", "docs:*", {"read"}, Effect::kDeny);

  auto snapshot = Read();
  for (const auto& [agent, holds] :
       std::vector<std::pair<std::string, bool>>{{"agt_allows", true},
                                                 {"agt_denies", false},
                                                 {"agt_empty", false},
                                                 {"agt_nobody", false}}) {
    absl::StatusOr<bool> answer = snapshot->HoldsAllowPermission(agent);
    ASSERT_TRUE(answer.ok()) << agent << ": " << answer.status();
    EXPECT_EQ(*answer, holds) << agent;
  }
}

// --- The decision path: approvals and rate limits ---

TEST_P(StoreContractTest, OpenedApprovalIsFoundForExactlyTheSameCall) {
  NewAgent("agt_a");
  const std::string id = OpenApproval("agt_a", "hash1");
  EXPECT_THAT(id, MatchesRegex("apr_[0-9a-f]{16}"));

  std::optional<ApprovalRequest> found = OpenApprovalSeen("agt_a", "hash1");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->id, id);
  EXPECT_EQ(found->status, ApprovalStatus::kPending);
  EXPECT_EQ(found->quorum, 1);
  EXPECT_EQ(found->approvals, 0);
  EXPECT_EQ(found->action, "pay");
  EXPECT_EQ(found->resource, "invoices:1");
  EXPECT_EQ(found->expires_at, clock_.Now() + absl::Hours(1));
  EXPECT_EQ(OpenApprovalSeen("agt_a", "hash2"), std::nullopt);
}

TEST_P(StoreContractTest, FindOpenApprovalReturnsTheNewestPendingApprovedOrDenied) {
  NewAgent("agt_a");
  OpenApproval("agt_a", "h");
  clock_.Advance(absl::Seconds(1));
  const std::string second = OpenApproval("agt_a", "h");
  EXPECT_EQ(OpenApprovalSeen("agt_a", "h")->id, second);

  ASSERT_TRUE(Vote(second, "bob", /*approve=*/false).ok());
  std::optional<ApprovalRequest> denied = OpenApprovalSeen("agt_a", "h");
  ASSERT_TRUE(denied.has_value());
  EXPECT_EQ(denied->id, second);
  EXPECT_EQ(denied->status, ApprovalStatus::kDenied);

  clock_.Advance(absl::Seconds(1));
  const std::string third = OpenApproval("agt_a", "h");
  ASSERT_TRUE(Vote(third, "bob", /*approve=*/true).ok());
  std::optional<ApprovalRequest> approved = OpenApprovalSeen("agt_a", "h");
  ASSERT_TRUE(approved.has_value());
  EXPECT_EQ(approved->id, third);
  EXPECT_EQ(approved->status, ApprovalStatus::kApproved);
  EXPECT_EQ(approved->approvals, 1);
}

TEST_P(StoreContractTest, OfTwoRequestsOpenedAtOneInstantTheLaterIsNewest) {
  NewAgent("agt_a");
  OpenApproval("agt_a", "h");
  const std::string later = OpenApproval("agt_a", "h");
  EXPECT_EQ(OpenApprovalSeen("agt_a", "h")->id, later);
}

TEST_P(StoreContractTest, ExpiredOrUsedApprovalIsNotOpen) {
  NewAgent("agt_a");
  OpenApproval("agt_a", "expiring", 1, absl::Minutes(1));
  const std::string used = OpenApproval("agt_a", "used");
  ASSERT_TRUE(Vote(used, "bob", true).ok());
  std::unique_ptr<WriteTransaction> write = Write();
  ASSERT_TRUE(write->UseApproval(used, clock_.Now()).ok());
  ASSERT_TRUE(write->Commit().ok());

  EXPECT_EQ(OpenApprovalSeen("agt_a", "used"), std::nullopt);
  clock_.Advance(absl::Minutes(1));
  EXPECT_EQ(OpenApprovalSeen("agt_a", "expiring"), std::nullopt);
}

TEST_P(StoreContractTest, OnlyAnApprovedRequestCanBeUsed) {
  NewAgent("agt_a");
  const std::string pending = OpenApproval("agt_a", "h");
  std::unique_ptr<WriteTransaction> write = Write();
  absl::Status not_approved = write->UseApproval(pending, clock_.Now());
  EXPECT_EQ(not_approved.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(not_approved.message(), HasSubstr("pending"));
  EXPECT_EQ(write->UseApproval("apr_missing", clock_.Now()).code(), absl::StatusCode::kNotFound);
}

TEST_P(StoreContractTest, ApprovedRequestIsUsedOnce) {
  NewAgent("agt_a");
  const std::string id = OpenApproval("agt_a", "h");
  ASSERT_TRUE(Vote(id, "bob", true).ok());
  {
    std::unique_ptr<WriteTransaction> write = Write();
    ASSERT_TRUE(write->UseApproval(id, clock_.Now()).ok());
    ASSERT_TRUE(write->Commit().ok());
  }
  std::unique_ptr<WriteTransaction> again = Write();
  EXPECT_EQ(again->UseApproval(id, clock_.Now()).code(), absl::StatusCode::kFailedPrecondition);
  again.reset();
  EXPECT_EQ(store_->GetApproval(id)->status, ApprovalStatus::kUsed);
}

TEST_P(StoreContractTest, SpendRateCountsPerAgentPermissionAndWindow) {
  for (int i = 0; i < 3; ++i) {
    std::unique_ptr<WriteTransaction> write = Write();
    ASSERT_TRUE(
        write->SpendRate({.agent_id = "agt_a", .permission_id = "perm_a", .window_start_unix = 60})
            .ok());
    ASSERT_TRUE(write->Commit().ok());
  }
  std::unique_ptr<WriteTransaction> write = Write();
  ASSERT_TRUE(
      write->SpendRate({.agent_id = "agt_a", .permission_id = "perm_a", .window_start_unix = 120})
          .ok());
  EXPECT_EQ(*write->RateCount("agt_a", "perm_a", 120), 1);  // it reads its own writes
  ASSERT_TRUE(
      write->SpendRate({.agent_id = "agt_b", .permission_id = "perm_a", .window_start_unix = 60})
          .ok());
  ASSERT_TRUE(write->Commit().ok());

  auto snapshot = Read();
  EXPECT_EQ(*snapshot->RateCount("agt_a", "perm_a", 60), 3);
  EXPECT_EQ(*snapshot->RateCount("agt_a", "perm_a", 120), 1);
  EXPECT_EQ(*snapshot->RateCount("agt_a", "perm_b", 60), 0);
  EXPECT_EQ(*snapshot->RateCount("agt_b", "perm_a", 60), 1);  // another agent's own count
}

// Only the current window is ever read; the previous one is kept for sidecars whose clocks
// differ by less than a window. Older ones would only make the table grow.
TEST_P(StoreContractTest, SpendingForgetsTheWindowsBeforeThePreviousOne) {
  auto spend = [&](const std::string& agent, const std::string& permission, int64_t window_start) {
    std::unique_ptr<WriteTransaction> write = Write();
    ASSERT_TRUE(write
                    ->SpendRate({.agent_id = agent,
                                 .permission_id = permission,
                                 .window_start_unix = window_start,
                                 .limit = 10,
                                 .window_seconds = 60})
                    .ok());
    ASSERT_TRUE(write->Commit().ok());
  };
  spend("agt_a", "perm_a", 0);
  spend("agt_a", "perm_a", 0);
  spend("agt_a", "perm_b", 0);
  spend("agt_b", "perm_a", 0);
  spend("agt_a", "perm_a", 60);
  EXPECT_EQ(*Read()->RateCount("agt_a", "perm_a", 0), 2);  // the previous window stays

  spend("agt_a", "perm_a", 120);
  auto snapshot = Read();
  EXPECT_EQ(*snapshot->RateCount("agt_a", "perm_a", 0), 0);
  EXPECT_EQ(*snapshot->RateCount("agt_a", "perm_a", 60), 1);
  EXPECT_EQ(*snapshot->RateCount("agt_a", "perm_a", 120), 1);
  // Another permission's and another agent's windows stay.
  EXPECT_EQ(*snapshot->RateCount("agt_a", "perm_b", 0), 1);
  EXPECT_EQ(*snapshot->RateCount("agt_b", "perm_a", 0), 1);
}

// --- Bounded storage (design section 8) ---

// What caps an agent's pending requests (decision/pending_approvals.h): its own requests that
// are pending and unexpired, counted no further than asked.
TEST_P(StoreContractTest, PendingApprovalsAreCountedPerAgentUpToTheCap) {
  NewAgent("agt_a");
  NewAgent("agt_b");
  OpenApproval("agt_a", "h1");
  OpenApproval("agt_a", "h2");
  OpenApproval("agt_a", "h3", 1, absl::Minutes(1));
  const std::string approved = OpenApproval("agt_a", "h4");
  OpenApproval("agt_b", "h1");
  ASSERT_TRUE(Vote(approved, "alice", true).ok());

  auto pending = [&](const std::string& agent, int64_t up_to) {
    absl::StatusOr<int64_t> count = Read()->CountPendingApprovals(agent, clock_.Now(), up_to);
    EXPECT_TRUE(count.ok()) << count.status();
    return count.value_or(-1);
  };
  EXPECT_EQ(pending("agt_a", 100), 3);
  EXPECT_EQ(pending("agt_a", 2), 2);
  EXPECT_EQ(pending("agt_b", 100), 1);
  EXPECT_EQ(pending("agt_c", 100), 0);
  clock_.Advance(absl::Minutes(1));  // h3 expires
  EXPECT_EQ(pending("agt_a", 100), 2);
  // A write transaction counts what it has opened itself.
  std::unique_ptr<WriteTransaction> write = Write();
  ASSERT_TRUE(write
                  ->OpenApproval({.agent_id = "agt_a",
                                  .action = "pay",
                                  .resource = "invoices:2",
                                  .arguments_hash = "h5",
                                  .expires_at = clock_.Now() + absl::Hours(1)},
                                 clock_.Now())
                  .ok());
  EXPECT_EQ(*write->CountPendingApprovals("agt_a", clock_.Now(), 100), 3);
}

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
  absl::StatusOr<Permission> revoked =
      store_->GrantPermission({.agent_id = "agt_a", .resource = "docs:*", .actions = {"read"}});
  absl::StatusOr<Permission> kept =
      store_->GrantPermission({.agent_id = "agt_a", .resource = "docs:*", .actions = {"write"}});
  ASSERT_TRUE(revoked.ok() && kept.ok());
  Spend("agt_a", revoked->id, Now());
  Spend("agt_b", revoked->id, Now());  // a borrower counts under the owner's permission
  Spend("agt_a", kept->id, Now());

  ASSERT_TRUE(store_->RevokePermission(revoked->id).ok());
  EXPECT_THAT(Counters(), ElementsAre(absl::StrCat("agt_a/", kept->id, "/", Now())));
}

TEST_P(StoreBoundsTest, RevokingADelegationDeletesItsLentPermissionsCountsOnly) {
  NewAgent("agt_a");
  NewAgent("agt_b");
  Grant("agt_a", "docs:*", {"read"});
  absl::StatusOr<Delegation> revoked =
      store_->CreateDelegation({.from_agent_id = "agt_a",
                                .to_agent_id = "agt_b",
                                .permissions = {{.resource = "docs:*", .actions = {"read"}}},
                                .max_depth = 2,
                                .id = "dlg_x"});
  ASSERT_TRUE(revoked.ok()) << revoked.status();
  Spend("agt_b", "dlg_x#0", Now());
  Spend("agt_c", "dlg_x#1", Now());
  Spend("agt_b", "dlg_xy#0", Now());  // another delegation whose id starts alike
  Spend("agt_b", "dlg_x", Now());

  ASSERT_TRUE(store_->RevokeDelegation("dlg_x").ok());
  EXPECT_THAT(Counters(), ElementsAre(absl::StrCat("agt_b/dlg_x/", Now()),
                                      absl::StrCat("agt_b/dlg_xy#0/", Now())));
}

TEST_P(StoreBoundsTest, RevokingAnAgentDeletesItsCountsAndThoseOfItsPermissions) {
  NewAgent("agt_a");
  NewAgent("agt_b");
  absl::StatusOr<Permission> owned =
      store_->GrantPermission({.agent_id = "agt_a", .resource = "docs:*", .actions = {"read"}});
  ASSERT_TRUE(owned.ok());
  Spend("agt_a", "perm_elsewhere", Now());
  Spend("agt_c", owned->id, Now());
  Spend("agt_b", "perm_b", Now());

  ASSERT_TRUE(store_->SetAgentStatus("agt_a", AgentStatus::kSuspended).ok());
  EXPECT_EQ(Counters().size(), 3u);  // a suspension may end: its counts stay
  ASSERT_TRUE(store_->SetAgentStatus("agt_a", AgentStatus::kRevoked).ok());
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
  EXPECT_FALSE(store_->GetApproval(used).ok());
  EXPECT_TRUE(store_->GetApproval(expired).ok());
  clock_.Advance(absl::Minutes(1));
  EXPECT_EQ(Prune().approvals, 1);
  EXPECT_FALSE(store_->GetApproval(expired).ok());
  // A denied request blocks identical calls until it expires: it goes only after.
  EXPECT_TRUE(store_->GetApproval(denied).ok());
  clock_.Advance(absl::Hours(1));
  EXPECT_EQ(Prune().approvals, 1);
  EXPECT_FALSE(store_->GetApproval(denied).ok());
  EXPECT_TRUE(store_->GetApproval(pending).ok());
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
  ASSERT_TRUE(store_->ImportPolicy(policy).ok());
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
    absl::StatusOr<Permission> permission = store_->GrantPermission(
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
    ASSERT_TRUE(store_->RevokePermission(permission->id).ok());
    ASSERT_TRUE(store_->RevokeDelegation(delegation->id).ok());
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

TEST_P(StoreContractTest, UncommittedWriteIsRolledBack) {
  {
    std::unique_ptr<WriteTransaction> write = Write();
    ASSERT_TRUE(
        write->SpendRate({.agent_id = "agt_a", .permission_id = "perm_a", .window_start_unix = 0})
            .ok());
  }
  EXPECT_EQ(*Read()->RateCount("agt_a", "perm_a", 0), 0);
}

TEST_P(StoreContractTest, SecondCommitIsRefused) {
  std::unique_ptr<WriteTransaction> write = Write();
  ASSERT_TRUE(write->Commit().ok());
  EXPECT_EQ(write->Commit().code(), absl::StatusCode::kFailedPrecondition);
}

// Writers serialise, so a count read inside a write transaction stays true until it commits:
// rate limits cannot be overspent by calls racing on other connections or processes.
TEST_P(StoreContractTest, WriteTransactionsSerialiseSoCountsReadInsideThemStayExact) {
  std::unique_ptr<Store> other = database_->Open(clock_, 4);
  ASSERT_NE(other, nullptr);
  constexpr int kThreads = 4;
  constexpr int kSpendsEach = 10;
  std::vector<std::thread> threads;
  std::atomic<int> lost{0};
  for (int t = 0; t < kThreads; ++t) {
    Store& store = t % 2 == 0 ? *store_ : *other;
    threads.emplace_back([&store, &lost] {
      for (int i = 0; i < kSpendsEach; ++i) {
        absl::StatusOr<std::unique_ptr<WriteTransaction>> write = store.BeginWrite();
        ASSERT_TRUE(write.ok()) << write.status();
        // Read, then write what was read plus one: a lost update shows as a wrong total.
        absl::StatusOr<int64_t> before = (*write)->RateCount("agt_a", "perm_shared", 0);
        ASSERT_TRUE(before.ok()) << before.status();
        ASSERT_TRUE(
            (*write)->SpendRate({.agent_id = "agt_a", .permission_id = "perm_shared"}).ok());
        absl::StatusOr<int64_t> after = (*write)->RateCount("agt_a", "perm_shared", 0);
        if (!after.ok() || *after != *before + 1) ++lost;
        ASSERT_TRUE((*write)->Commit().ok());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(lost.load(), 0);
  EXPECT_EQ(*Read()->RateCount("agt_a", "perm_shared", 0), kThreads * kSpendsEach);
}

// --- Freshness (design section 3) ---

TEST_P(StoreContractTest, NextSnapshotSeesAWriteCommittedByAnotherProcess) {
  NewAgent("agt_a");
  // A second store on the same database stands for another process: its own connections.
  std::unique_ptr<Store> other = database_->Open(clock_, 2);
  ASSERT_NE(other, nullptr);
  ASSERT_EQ((*Read()->FindAgent("agt_a"))->status, AgentStatus::kActive);

  ASSERT_TRUE(other->SetAgentStatus("agt_a", AgentStatus::kRevoked).ok());
  EXPECT_EQ((*Read()->FindAgent("agt_a"))->status, AgentStatus::kRevoked);

  // This process's write path sees it too: a revoked agent is granted nothing.
  EXPECT_EQ(store_->GrantPermission({.agent_id = "agt_a", .resource = "x", .actions = {"y"}})
                .status()
                .code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_P(StoreContractTest, SnapshotKeepsSeeingOneStateWhileOthersWrite) {
  NewAgent("agt_a");
  std::unique_ptr<ReadSnapshot> snapshot = Read();
  ASSERT_EQ((*snapshot->FindAgent("agt_a"))->status, AgentStatus::kActive);

  ASSERT_TRUE(store_->SetAgentStatus("agt_a", AgentStatus::kSuspended).ok());
  EXPECT_EQ((*snapshot->FindAgent("agt_a"))->status, AgentStatus::kActive);
  EXPECT_THAT(*snapshot->PermissionsOf("agt_a"), IsEmpty());
  snapshot.reset();
  EXPECT_EQ((*Read()->FindAgent("agt_a"))->status, AgentStatus::kSuspended);
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

// --- The admin plane: agents ---

TEST_P(StoreContractTest, CreatedAgentGetsATokenOfWhichOnlyTheHashIsStored) {
  absl::StatusOr<CreatedAgent> created =
      store_->CreateAgent({.owner = "alice", .name = "bot", .kind = AgentKind::kDelegated});
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
  EXPECT_THAT(*store_->GetAgent(created->agent.id), EqualsAgent(created->agent));
}

// agents.description (migration 9): the operators' note on an agent, set at creation, shown by
// GetAgent and ListAgents, kept by export and import, and never part of what a decision reads.
TEST_P(StoreContractTest, AnAgentsDescriptionIsKeptShownExportedAndImported) {
  absl::StatusOr<CreatedAgent> created = store_->CreateAgent(
      {.owner = "alice", .name = "bot", .id = "agt_d", .description = "files the weekly report"});
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(created->agent.description, "files the weekly report");
  EXPECT_EQ(store_->GetAgent("agt_d")->description, "files the weekly report");
  absl::StatusOr<AgentPage> page = store_->ListAgents({});
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->agents.size(), 1u);
  EXPECT_EQ(page->agents[0].description, "files the weekly report");
  NewAgent("agt_plain");
  EXPECT_EQ(store_->GetAgent("agt_plain")->description, "");

  absl::StatusOr<std::optional<Agent>> decided = Read()->FindAgent("agt_d");
  ASSERT_TRUE(decided.ok()) << decided.status();
  ASSERT_TRUE(decided->has_value());
  EXPECT_EQ((*decided)->description, "");
  EXPECT_EQ((*decided)->name, "bot");

  absl::StatusOr<PolicyContents> exported = store_->ExportPolicy();
  ASSERT_TRUE(exported.ok()) << exported.status();
  ASSERT_EQ(exported->agents.size(), 2u);
  EXPECT_EQ(exported->agents[0].agent.description, "files the weekly report");
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
  ASSERT_TRUE(imported_into->ImportPolicy(*exported).ok());
  EXPECT_EQ(imported_into->GetAgent("agt_d")->description, "files the weekly report");
  EXPECT_EQ(imported_into->GetAgent("agt_plain")->description, "");
}

TEST_P(StoreContractTest, ADescriptionWithAControlCharacterIsRefusedAndNothingIsCreated) {
  absl::StatusOr<CreatedAgent> created = store_->CreateAgent(
      {.owner = "alice", .name = "bot", .id = "agt_d", .description = "two\nlines"});
  EXPECT_EQ(created.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(created.status().message(), HasSubstr("description"));
  EXPECT_EQ(store_->GetAgent("agt_d").status().code(), absl::StatusCode::kNotFound);
}

// agents.contact (migration 10), one of the descriptive columns declared once in
// decision/types.h: set at creation, shown by GetAgent and ListAgents, kept by export and import,
// never part of what a decision reads.
TEST_P(StoreContractTest, AnAgentsContactIsKeptShownExportedAndImported) {
  absl::StatusOr<CreatedAgent> created = store_->CreateAgent(
      {.owner = "alice", .name = "bot", .id = "agt_c", .contact = "#reports-oncall"});
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(created->agent.contact, "#reports-oncall");
  EXPECT_EQ(store_->GetAgent("agt_c")->contact, "#reports-oncall");
  absl::StatusOr<AgentPage> page = store_->ListAgents({});
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->agents.size(), 1u);
  EXPECT_EQ(page->agents[0].contact, "#reports-oncall");
  NewAgent("agt_plain");
  EXPECT_EQ(store_->GetAgent("agt_plain")->contact, "");

  absl::StatusOr<std::optional<Agent>> decided = Read()->FindAgent("agt_c");
  ASSERT_TRUE(decided.ok()) << decided.status();
  ASSERT_TRUE(decided->has_value());
  EXPECT_EQ((*decided)->contact, "");
  EXPECT_EQ((*decided)->name, "bot");

  absl::StatusOr<PolicyContents> exported = store_->ExportPolicy();
  ASSERT_TRUE(exported.ok()) << exported.status();
  ASSERT_EQ(exported->agents.size(), 2u);
  EXPECT_EQ(exported->agents[0].agent.contact, "#reports-oncall");
  ManualClock other_clock;
  std::unique_ptr<TestDatabase> empty;
  if (GetParam() == Backend::kSqlite) {
    empty = std::make_unique<SqliteDatabase>("-contacted");
  } else {
    absl::StatusOr<PostgresTestSchema> schema = PostgresTestSchema::Create();
    ASSERT_TRUE(schema.ok()) << schema.status();
    empty = std::make_unique<PostgresDatabase>(*std::move(schema));
  }
  std::unique_ptr<Store> imported_into = empty->Open(other_clock, 1);
  ASSERT_NE(imported_into, nullptr);
  ASSERT_TRUE(imported_into->ImportPolicy(*exported).ok());
  EXPECT_EQ(imported_into->GetAgent("agt_c")->contact, "#reports-oncall");
  EXPECT_EQ(imported_into->GetAgent("agt_plain")->contact, "");
}

TEST_P(StoreContractTest, AContactWithAControlCharacterOrTooLongIsRefusedAndNothingIsCreated) {
  absl::StatusOr<CreatedAgent> control =
      store_->CreateAgent({.owner = "alice", .name = "bot", .id = "agt_c", .contact = "page\tme"});
  EXPECT_EQ(control.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(control.status().message(), HasSubstr("contact"));
  absl::StatusOr<CreatedAgent> long_one = store_->CreateAgent(
      {.owner = "alice", .name = "bot", .id = "agt_c", .contact = std::string(100000, 'c')});
  EXPECT_EQ(long_one.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(long_one.status().message(), HasSubstr("contact"));
  EXPECT_EQ(store_->GetAgent("agt_c").status().code(), absl::StatusCode::kNotFound);
}

TEST_P(StoreContractTest, AgentIdInUseIsAlreadyExists) {
  NewAgent("agt_a");
  absl::StatusOr<CreatedAgent> again =
      store_->CreateAgent({.owner = "o", .name = "n", .id = "agt_a"});
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
    absl::StatusOr<CreatedAgent> created = store_->CreateAgent(c.agent);
    EXPECT_EQ(created.status().code(), absl::StatusCode::kInvalidArgument) << c.what;
    EXPECT_THAT(created.status().message(), HasSubstr(c.message)) << c.what;
  }
  EXPECT_TRUE(*store_->IsEmpty());
}

TEST_P(StoreContractTest, UnknownAgentIsNotFound) {
  EXPECT_EQ(store_->GetAgent("agt_x").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->SetAgentStatus("agt_x", AgentStatus::kSuspended).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->RotateToken("agt_x", absl::ZeroDuration()).status().code(),
            absl::StatusCode::kNotFound);
}

// An id no row can have is the caller's mistake, answered alike by every backend (PostgreSQL
// cannot even compare text holding a NUL byte).
TEST_P(StoreContractTest, AnIdNoRowCanHaveIsAnInvalidArgument) {
  for (const std::string& id : {std::string("agt_a\0x", 7), std::string("nobody"),
                                std::string("agt_"), std::string(300, 'x')}) {
    SCOPED_TRACE(absl::CHexEscape(id));
    EXPECT_EQ(store_->GetAgent(id).status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(store_->SetAgentStatus(id, AgentStatus::kSuspended).status().code(),
              absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(store_->RotateToken(id, absl::ZeroDuration()).status().code(),
              absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(store_->RevokePermission(id).code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(store_->RevokeDelegation(id).code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(store_->GetApproval(id).status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(store_->VoteOnApproval(id, "alice", true, clock_.Now()).status().code(),
              absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(store_->ListAgents({.page_token = id}).status().code(),
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
    absl::StatusOr<AgentPage> listed = store_->ListAgents(page);
    ASSERT_TRUE(listed.ok()) << listed.status();
    EXPECT_LE(listed->agents.size(), 2u);
    for (const verdict::Agent& agent : listed->agents) seen.push_back(agent.id);
    page.page_token = listed->next_page_token;
    ++pages;
  } while (!page.page_token.empty());
  EXPECT_EQ(pages, 3);
  EXPECT_THAT(seen, ElementsAre("agt_B", "agt_a", "agt_b", "agt_c", "agt_d"));

  EXPECT_EQ(store_->ListAgents({})->agents.size(), 5u);
  EXPECT_EQ(store_->ListAgents({.page_size = -1}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->ListAgents({.page_size = 1001}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_P(StoreContractTest, SuspendedAgentCanBeReactivatedButRevocationIsFinal) {
  NewAgent("agt_a");
  clock_.Advance(absl::Seconds(1));
  absl::StatusOr<verdict::Agent> suspended =
      store_->SetAgentStatus("agt_a", AgentStatus::kSuspended);
  ASSERT_TRUE(suspended.ok()) << suspended.status();
  EXPECT_EQ(suspended->status, AgentStatus::kSuspended);
  EXPECT_EQ(suspended->updated_at, clock_.Now());
  EXPECT_THAT(*store_->GetAgent("agt_a"), EqualsAgent(*suspended));
  EXPECT_EQ(store_->SetAgentStatus("agt_a", AgentStatus::kActive)->status, AgentStatus::kActive);

  ASSERT_TRUE(store_->SetAgentStatus("agt_a", AgentStatus::kRevoked).ok());
  EXPECT_TRUE(store_->SetAgentStatus("agt_a", AgentStatus::kRevoked).ok());  // no change
  for (AgentStatus back : {AgentStatus::kActive, AgentStatus::kSuspended}) {
    absl::StatusOr<verdict::Agent> undo = store_->SetAgentStatus("agt_a", back);
    EXPECT_EQ(undo.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(undo.status().message(), HasSubstr("revocation is final"));
  }
  EXPECT_EQ(store_->GetAgent("agt_a")->status, AgentStatus::kRevoked);
  EXPECT_EQ(store_->RotateToken("agt_a", absl::ZeroDuration()).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

// A grace must end at a time a store keeps and an answer can carry: an endless one would be
// kept as "never", which for a previous token means it is already gone, and one ending after
// the year 9999 cannot be told to the caller (who would lose the new token with the answer).
TEST_P(StoreContractTest, NegativeOrEndlessGraceIsRefused) {
  NewAgent("agt_a");
  for (const absl::Duration grace :
       {absl::Seconds(-1), absl::InfiniteDuration(), absl::Hours(24 * 365 * 10000)}) {
    EXPECT_EQ(store_->RotateToken("agt_a", grace).status().code(),
              absl::StatusCode::kInvalidArgument)
        << grace;
  }
  // The agent's token is still the one it was created with.
  EXPECT_THAT(*Read()->FindAgentByTokenHash(Sha256(tokens_["agt_a"]), clock_.Now()),
              HasAgentId("agt_a"));
}

// The admin service's caller may give up while a write runs: the write then commits nothing.
TEST_P(StoreContractTest, AWriteWhoseCallerGaveUpCommitsNothing) {
  std::unique_ptr<PolicyAdmin> gave_up =
      store_->WithCancel(CancelToken([] { return absl::CancelledError("the caller gave up"); }));
  absl::StatusOr<CreatedAgent> created = gave_up->CreateAgent({.owner = "o", .name = "n"});
  EXPECT_EQ(created.status().code(), absl::StatusCode::kCancelled);
  absl::StatusOr<bool> empty = gave_up->IsEmpty();  // reads are answered
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_TRUE(*empty);

  std::unique_ptr<PolicyAdmin> awaited =
      store_->WithCancel(CancelToken([] { return absl::OkStatus(); }));
  EXPECT_TRUE(awaited->CreateAgent({.owner = "o", .name = "n"}).ok());
  EXPECT_FALSE(*store_->IsEmpty());
}

// --- The admin plane: permissions ---

TEST_P(StoreContractTest, GrantedPermissionIsReturnedAsStored) {
  NewAgent("agt_a");
  absl::StatusOr<Permission> granted =
      store_->GrantPermission({.agent_id = "agt_a",
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
  ASSERT_TRUE(store_->SetAgentStatus("agt_revoked", AgentStatus::kRevoked).ok());
  ASSERT_TRUE(store_
                  ->GrantPermission(
                      {.agent_id = "agt_a", .resource = "x", .actions = {"y"}, .id = "perm_1"})
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
    absl::StatusOr<Permission> granted = store_->GrantPermission(c.permission);
    EXPECT_EQ(granted.status().code(), c.code) << c.what << ": " << granted.status();
    EXPECT_THAT(granted.status().message(), HasSubstr(c.message)) << c.what;
  }
  EXPECT_THAT(*Read()->PermissionsOf("agt_a"), ElementsAre(HasId("perm_1")));
}

TEST_P(StoreContractTest, RevokedPermissionIsGone) {
  NewAgent("agt_a");
  absl::StatusOr<Permission> granted =
      store_->GrantPermission({.agent_id = "agt_a", .resource = "d", .actions = {"r"}});
  ASSERT_TRUE(granted.ok()) << granted.status();
  ASSERT_TRUE(store_->RevokePermission(granted->id).ok());
  EXPECT_THAT(*Read()->PermissionsOf("agt_a"), IsEmpty());
  EXPECT_EQ(store_->RevokePermission(granted->id).code(), absl::StatusCode::kNotFound);
}

// --- The admin plane: delegations ---

TEST_P(StoreContractTest, DelegationIsStoredWithCanonicalLentConstraints) {
  NewAgent("agt_a");
  NewAgent("agt_b");
  Grant("agt_a", "docs:*", {"read"});
  absl::StatusOr<Delegation> created = store_->CreateDelegation(
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
  ASSERT_TRUE(store_->RevokeDelegation(link->id).ok());
  EXPECT_TRUE(store_->RevokeDelegation(link->id).ok());  // revoking again changes nothing
  EXPECT_THAT(*Read()->ActiveDelegationsInto("agt_b", clock_.Now()), IsEmpty());
  EXPECT_EQ(Delegate("agt_b", "agt_c", "docs:1").status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(store_->RevokeDelegation("dlg_x").code(), absl::StatusCode::kNotFound);
}

TEST_P(StoreContractTest, MalformedOrImpossibleDelegationsAreRefused) {
  for (const char* id : {"agt_a", "agt_b", "agt_suspended"}) NewAgent(id);
  Grant("agt_a", "docs:*", {"read"});
  Grant("agt_suspended", "docs:*", {"read"});
  ASSERT_TRUE(store_->SetAgentStatus("agt_suspended", AgentStatus::kSuspended).ok());

  EXPECT_EQ(Delegate("agt_a", "agt_a", "docs:1").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Delegate("agt_a", "agt_b", "docs:1", /*max_depth=*/0).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Delegate("agt_a", "agt_b", "docs:1", /*max_depth=*/9).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      store_->CreateDelegation({.from_agent_id = "agt_a", .to_agent_id = "agt_b"}).status().code(),
      absl::StatusCode::kInvalidArgument);  // lends nothing
  EXPECT_EQ(Delegate("agt_a", "agt_x", "docs:1").status().code(), absl::StatusCode::kNotFound);
  absl::StatusOr<Delegation> from_suspended = Delegate("agt_suspended", "agt_b", "docs:1");
  EXPECT_EQ(from_suspended.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(from_suspended.status().message(), HasSubstr("suspended"));
  EXPECT_EQ(store_
                ->CreateDelegation({.from_agent_id = "agt_a",
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
  EXPECT_THAT(*store_->GetApproval(id), EqualsApproval(*second));

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

TEST_P(StoreContractTest, VotingOnAnExpiredRequestIsRefusedAndMarksItExpired) {
  NewAgent("agt_a");
  const std::string id = OpenApproval("agt_a", "h", /*quorum=*/1, absl::Minutes(10));
  clock_.Advance(absl::Minutes(10));
  absl::StatusOr<ApprovalRequest> vote = Vote(id, "bob", true);
  EXPECT_EQ(vote.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(vote.status().message(), HasSubstr("expired"));
  EXPECT_EQ(store_->GetApproval(id)->status, ApprovalStatus::kExpired);
  EXPECT_THAT(database_->Query("SELECT status FROM approval_requests"),
              ElementsAre(ElementsAre("expired")));
}

TEST_P(StoreContractTest, MalformedVotesAndUnknownRequestsAreRefused) {
  NewAgent("agt_a");
  const std::string id = OpenApproval("agt_a", "h");
  EXPECT_EQ(Vote(id, "", true).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Vote("apr_x", "bob", true).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->GetApproval("apr_x").status().code(), absl::StatusCode::kNotFound);
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
    absl::StatusOr<ApprovalPage> result = store_->ListApprovals(ApprovalStatus::kPending, page);
    ASSERT_TRUE(result.ok()) << result.status();
    for (const ApprovalRequest& approval : result->approvals) listed.push_back(approval.id);
    page.page_token = result->next_page_token;
  } while (!page.page_token.empty());
  EXPECT_EQ(listed, pending);

  EXPECT_THAT(store_->ListApprovals(ApprovalStatus::kApproved, {})->approvals,
              ElementsAre(HasId(approved)));
  EXPECT_THAT(store_->ListApprovals(ApprovalStatus::kExpired, {})->approvals,
              ElementsAre(HasId(expiring)));
  EXPECT_EQ(store_->ListApprovals(std::nullopt, {})->approvals.size(), 5u);
  EXPECT_EQ(store_->ListApprovals(std::nullopt, {.page_token = "garbage"}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// --- Whole-policy export and import ---

TEST_P(StoreContractTest, StoreIsEmptyUntilAnAgentExists) {
  EXPECT_TRUE(*store_->IsEmpty());
  NewAgent("agt_a");
  EXPECT_FALSE(*store_->IsEmpty());
}

TEST_P(StoreContractTest, ExportedPolicyImportsIntoAnEmptyStoreUnchanged) {
  for (const char* id : {"agt_b", "agt_a"}) NewAgent(id);
  Grant("agt_b", "docs:*", {"read", "write"});
  Grant("agt_a", "/api/**", {"GET"});
  ASSERT_TRUE(Delegate("agt_b", "agt_a", "docs:1").ok());
  // agt_b's token was rotated: its previous token keeps working for an hour, after a restore too.
  absl::StatusOr<RotatedToken> rotated = store_->RotateToken("agt_b", absl::Hours(1));
  ASSERT_TRUE(rotated.ok()) << rotated.status();
  // A revoked access token stays revoked after a restore.
  ASSERT_TRUE(store_->RevokeTokenId("jti-revoked", clock_.Now() + absl::Hours(2)).ok());
  absl::StatusOr<PolicyContents> exported = store_->ExportPolicy();
  ASSERT_TRUE(exported.ok()) << exported.status();
  ASSERT_EQ(exported->agents.size(), 2u);
  EXPECT_EQ(exported->agents[0].agent.id, "agt_b");  // creation order
  EXPECT_EQ(exported->agents[0].token_sha256, Sha256(rotated->token));
  EXPECT_EQ(exported->agents[0].previous_token_sha256, Sha256(tokens_["agt_b"]));
  EXPECT_TRUE(exported->agents[1].previous_token_sha256.empty());

  EXPECT_EQ(store_->ImportPolicy(*exported).code(), absl::StatusCode::kFailedPrecondition);

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
  ASSERT_TRUE(imported_into->ImportPolicy(*exported).ok());
  absl::StatusOr<PolicyContents> again = imported_into->ExportPolicy();
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
  absl::Status imported = store_->ImportPolicy(policy);
  EXPECT_EQ(imported.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(imported.message(), HasSubstr("agents[0].token_prefix"));
  EXPECT_TRUE(*store_->IsEmpty());
}

TEST_P(StoreContractTest, ImportIsAllOrNothing) {
  PolicyContents policy;
  policy.agents.push_back({.agent = {.id = "agt_ok", .owner = "o", .name = "n"}});
  policy.permissions.push_back(
      {.id = "perm_ok", .agent_id = "agt_ok", .resource = "docs:*", .actions = {"read"}});
  policy.permissions.push_back(
      {.id = "perm_orphan", .agent_id = "agt_missing", .resource = "x", .actions = {"y"}});
  absl::Status imported = store_->ImportPolicy(policy);
  EXPECT_EQ(imported.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(imported.message(), HasSubstr("permissions[1].agent_id"));
  EXPECT_TRUE(*store_->IsEmpty());
}

// --- JWT signing keys and revoked token ids ---

class StoreSigningKeysTest : public StoreContractTest {
 protected:
  std::optional<SigningKey> ActiveKeyInSnapshot(absl::string_view kid) {
    absl::StatusOr<std::optional<SigningKey>> key = Read()->FindActiveSigningKey(kid);
    EXPECT_TRUE(key.ok()) << key.status();
    return key.ok() ? *key : std::nullopt;
  }

  bool RevokedInSnapshot(absl::string_view jti) {
    absl::StatusOr<bool> revoked = Read()->IsTokenIdRevoked(jti);
    EXPECT_TRUE(revoked.ok()) << revoked.status();
    return revoked.ok() && *revoked;
  }

  const TestSigningKey key_ = TestSigningKey::NewEd25519("k1");
};

INSTANTIATE_TEST_SUITE_P(Backends, StoreSigningKeysTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres), BackendName);

TEST_P(StoreSigningKeysTest, AnAddedKeyIsActiveAndFoundByItsKid) {
  absl::StatusOr<SigningKey> added = store_->AddSigningKey({key_.public_jwk_json, {"EdDSA"}});
  ASSERT_TRUE(added.ok()) << added.status();
  EXPECT_EQ(added->kid, "k1");
  EXPECT_EQ(added->created_at, clock_.Now());

  std::optional<SigningKey> found = ActiveKeyInSnapshot("k1");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->jwk_json, added->jwk_json);
  EXPECT_THAT(found->allowed_algorithms, ElementsAre("EdDSA"));
  EXPECT_EQ(found->status, SigningKeyStatus::kActive);
  EXPECT_EQ(found->created_at, added->created_at);
  EXPECT_EQ(found->retired_at, absl::InfiniteFuture());
  EXPECT_FALSE(ActiveKeyInSnapshot("k2").has_value());
}

TEST_P(StoreSigningKeysTest, AKidIsNeverTakenTwiceNotEvenAfterRetirement) {
  ASSERT_TRUE(store_->AddSigningKey({key_.public_jwk_json, {"EdDSA"}}).ok());
  EXPECT_EQ(store_->AddSigningKey({key_.public_jwk_json, {"EdDSA"}}).status().code(),
            absl::StatusCode::kAlreadyExists);
  ASSERT_TRUE(store_->RetireSigningKey("k1").ok());
  const TestSigningKey again = TestSigningKey::NewEd25519("k1");
  EXPECT_EQ(store_->AddSigningKey({again.public_jwk_json, {"EdDSA"}}).status().code(),
            absl::StatusCode::kAlreadyExists);
}

TEST_P(StoreSigningKeysTest, InvalidKeysAreRefusedBeforeAnythingIsWritten) {
  EXPECT_EQ(store_->AddSigningKey({key_.private_jwk_json, {"EdDSA"}}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->AddSigningKey({key_.public_jwk_json, {"HS256"}}).status().code(),
            absl::StatusCode::kInvalidArgument);
  absl::StatusOr<std::vector<SigningKey>> keys = store_->ListSigningKeys();
  ASSERT_TRUE(keys.ok()) << keys.status();
  EXPECT_TRUE(keys->empty());
}

TEST_P(StoreSigningKeysTest, ARotationInPlaceReplacesTheContentUnderTheSameKid) {
  ASSERT_TRUE(store_->AddSigningKey({key_.public_jwk_json, {"EdDSA"}}).ok());
  const absl::Time added_at = clock_.Now();
  clock_.Advance(absl::Minutes(1));
  const TestSigningKey replacement = TestSigningKey::NewEd25519("k1");
  absl::StatusOr<SigningKey> rotated =
      store_->RotateSigningKey({replacement.public_jwk_json, {"EdDSA"}});
  ASSERT_TRUE(rotated.ok()) << rotated.status();
  EXPECT_EQ(rotated->created_at, added_at);
  EXPECT_EQ(rotated->updated_at, clock_.Now());

  std::optional<SigningKey> found = ActiveKeyInSnapshot("k1");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->jwk_json, rotated->jwk_json);
  EXPECT_EQ(found->updated_at, clock_.Now());
  EXPECT_THAT(found->jwk_json,
              HasSubstr(ParseJson(replacement.public_jwk_json)->Find("x")->as_string()));
}

TEST_P(StoreSigningKeysTest, OnlyAnActiveKeyCanBeRotated) {
  EXPECT_EQ(store_->RotateSigningKey({key_.public_jwk_json, {"EdDSA"}}).status().code(),
            absl::StatusCode::kNotFound);
  ASSERT_TRUE(store_->AddSigningKey({key_.public_jwk_json, {"EdDSA"}}).ok());
  ASSERT_TRUE(store_->RetireSigningKey("k1").ok());
  const absl::Status status = store_->RotateSigningKey({key_.public_jwk_json, {"EdDSA"}}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), HasSubstr("retired"));
}

TEST_P(StoreSigningKeysTest, ARetiredKeyIsNoLongerFoundForDecisionsButStaysListed) {
  // Kids chosen against their creation order: the list's order must not come from the kids.
  const TestSigningKey first = TestSigningKey::NewEd25519("k9");
  ASSERT_TRUE(store_->AddSigningKey({first.public_jwk_json, {"EdDSA"}}).ok());
  const TestSigningKey other = TestSigningKey::NewHs256("k2");
  ASSERT_TRUE(store_->AddSigningKey({other.public_jwk_json, {"HS256"}}).ok());
  clock_.Advance(absl::Minutes(1));
  absl::StatusOr<SigningKey> retired = store_->RetireSigningKey("k9");
  ASSERT_TRUE(retired.ok()) << retired.status();
  EXPECT_EQ(retired->status, SigningKeyStatus::kRetired);
  EXPECT_EQ(retired->retired_at, clock_.Now());
  EXPECT_FALSE(ActiveKeyInSnapshot("k9").has_value());
  EXPECT_TRUE(ActiveKeyInSnapshot("k2").has_value());

  // Retiring again changes nothing.
  clock_.Advance(absl::Minutes(1));
  absl::StatusOr<SigningKey> again = store_->RetireSigningKey("k9");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->retired_at, retired->retired_at);
  EXPECT_EQ(store_->RetireSigningKey("k3").status().code(), absl::StatusCode::kNotFound);

  absl::StatusOr<std::vector<SigningKey>> keys = store_->ListSigningKeys();
  ASSERT_TRUE(keys.ok()) << keys.status();
  ASSERT_EQ(keys->size(), 2u);
  EXPECT_EQ((*keys)[0].kid, "k9");
  EXPECT_EQ((*keys)[0].status, SigningKeyStatus::kRetired);
  EXPECT_EQ((*keys)[1].kid, "k2");
  EXPECT_EQ((*keys)[1].status, SigningKeyStatus::kActive);
}

TEST_P(StoreSigningKeysTest, ARevokedTokenIdIsSeenByTheNextSnapshot) {
  EXPECT_FALSE(RevokedInSnapshot("jti-1"));
  ASSERT_TRUE(store_->RevokeTokenId("jti-1", clock_.Now() + absl::Minutes(5)).ok());
  EXPECT_TRUE(RevokedInSnapshot("jti-1"));
  EXPECT_FALSE(RevokedInSnapshot("jti-2"));
  // Revoking again is harmless.
  EXPECT_TRUE(store_->RevokeTokenId("jti-1", clock_.Now() + absl::Minutes(1)).ok());
  EXPECT_TRUE(RevokedInSnapshot("jti-1"));
}

TEST_P(StoreSigningKeysTest, RevokedTokenIdsAreDroppedOnlyLongAfterTheirTokensExpire) {
  ASSERT_TRUE(store_->RevokeTokenId("old", clock_.Now() + absl::Minutes(5)).ok());
  ASSERT_TRUE(store_->RevokeTokenId("extended", clock_.Now() + absl::Minutes(5)).ok());
  ASSERT_TRUE(store_->RevokeTokenId("extended", clock_.Now() + absl::Hours(48)).ok());
  // An hour past its expiry the entry still protects against a skewed clock.
  clock_.Advance(absl::Hours(1));
  ASSERT_TRUE(store_->RevokeTokenId("new", clock_.Now() + absl::Minutes(5)).ok());
  EXPECT_TRUE(RevokedInSnapshot("old"));
  // A day later, the next revocation drops it; the later expiry kept "extended".
  clock_.Advance(absl::Hours(24));
  ASSERT_TRUE(store_->RevokeTokenId("newer", clock_.Now() + absl::Minutes(5)).ok());
  EXPECT_FALSE(RevokedInSnapshot("old"));
  EXPECT_TRUE(RevokedInSnapshot("extended"));
  EXPECT_TRUE(RevokedInSnapshot("new"));
}

TEST_P(StoreSigningKeysTest, ATokenIdMustBeWellFormedAndCarryItsExpiry) {
  EXPECT_EQ(store_->RevokeTokenId("", clock_.Now()).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->RevokeTokenId("jti", absl::InfiniteFuture()).code(),
            absl::StatusCode::kInvalidArgument);
}

// An expiry given wrong, long past, would have the revocation reported done, then dropped by the
// next revocation's pruning while the token is still accepted (review h38).
TEST_P(StoreSigningKeysTest, ARevocationWhoseExpiryIsLongPastIsRefused) {
  const absl::Status past = store_->RevokeTokenId("jti", clock_.Now() - absl::Hours(2));
  EXPECT_EQ(past.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(past.message()), HasSubstr("is more than an hour past"));
  EXPECT_FALSE(RevokedInSnapshot("jti"));
  // 30 minutes ago is fine: with --jwt_leeway=30m or more such a token still passes (h40).
  EXPECT_TRUE(store_->RevokeTokenId("jti", clock_.Now() - absl::Minutes(30)).ok());
  EXPECT_TRUE(RevokedInSnapshot("jti"));
}

}  // namespace
}  // namespace verdict
