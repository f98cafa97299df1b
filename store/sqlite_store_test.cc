// The SQLite store as the decision path sees it: snapshots, write transactions, freshness and
// faults (decision/policy_view.h and decision/policy_store.h are the contracts).
#include "store/sqlite_store.h"

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "crypto/sha256.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/test_support.h"

namespace verdict {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Optional;

MATCHER_P(HasId, id, "") { return arg.id == id; }
MATCHER_P(HasAgentId, id, "") { return arg.has_value() && (*arg).id == id; }

class SqliteStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = FreshDatabasePath();
    store_ = OpenTestStore(path_, clock_);
    ASSERT_NE(store_, nullptr);
  }

  // An active agent; its token is kept in tokens_[id].
  std::string NewAgent(const std::string& id) {
    absl::StatusOr<CreatedAgent> created =
        store_->CreateAgent({.owner = "alice", .name = id, .id = id});
    EXPECT_TRUE(created.ok()) << created.status();
    tokens_[id] = created->token;
    return id;
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

  std::string OpenApprovalFor(const std::string& agent_id, const std::string& hash,
                              absl::Duration ttl = absl::Hours(1)) {
    std::unique_ptr<WriteTransaction> write = Write();
    absl::StatusOr<std::string> id = write->OpenApproval({.agent_id = agent_id,
                                                          .action = "pay",
                                                          .resource = "invoices:1",
                                                          .arguments_hash = hash,
                                                          .quorum = 1,
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

  ManualClock clock_;
  std::string path_;
  std::unique_ptr<SqliteStore> store_;
  std::map<std::string, std::string> tokens_;
};

TEST_F(SqliteStoreTest, FindAgentReturnsTheStoredAgent) {
  absl::StatusOr<CreatedAgent> created =
      store_->CreateAgent({.owner = "alice",
                           .name = "reader",
                           .kind = AgentKind::kService,
                           .expires_at = clock_.Now() + absl::Hours(24)});
  ASSERT_TRUE(created.ok()) << created.status();

  absl::StatusOr<std::optional<Agent>> found = Read()->FindAgent(created->agent.id);
  ASSERT_TRUE(found.ok()) << found.status();
  ASSERT_TRUE(found->has_value());
  const Agent& agent = **found;
  EXPECT_EQ(agent.id, created->agent.id);
  EXPECT_EQ(agent.owner, "alice");
  EXPECT_EQ(agent.name, "reader");
  EXPECT_EQ(agent.kind, AgentKind::kService);
  EXPECT_EQ(agent.status, AgentStatus::kActive);
  EXPECT_EQ(agent.expires_at, clock_.Now() + absl::Hours(24));
  EXPECT_EQ(agent.token_prefix, created->token.substr(0, 12));
  EXPECT_EQ(agent.created_at, clock_.Now());
}

TEST_F(SqliteStoreTest, UnknownAgentIsNotAnError) {
  absl::StatusOr<std::optional<Agent>> found = Read()->FindAgent("agt_nobody");
  ASSERT_TRUE(found.ok());
  EXPECT_FALSE(found->has_value());
}

TEST_F(SqliteStoreTest, AgentIsFoundByTheHashOfItsToken) {
  NewAgent("agt_a");
  NewAgent("agt_b");
  auto snapshot = Read();
  EXPECT_THAT(*snapshot->FindAgentByTokenHash(Sha256(tokens_["agt_b"]), clock_.Now()),
              HasAgentId("agt_b"));
  EXPECT_EQ(*snapshot->FindAgentByTokenHash(Sha256("vdt_not_a_token"), clock_.Now()), std::nullopt);
}

TEST_F(SqliteStoreTest, PreviousTokenWorksOnlyDuringItsGrace) {
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

TEST_F(SqliteStoreTest, RotationWithoutGraceEndsTheOldTokenAtOnce) {
  NewAgent("agt_a");
  const std::string old_hash = Sha256(tokens_["agt_a"]);
  absl::StatusOr<RotatedToken> rotated = store_->RotateToken("agt_a", absl::ZeroDuration());
  ASSERT_TRUE(rotated.ok()) << rotated.status();
  EXPECT_EQ(rotated->previous_token_expires_at, clock_.Now());
  EXPECT_EQ(*Read()->FindAgentByTokenHash(old_hash, clock_.Now()), std::nullopt);
  EXPECT_THAT(*Read()->FindAgentByTokenHash(Sha256(rotated->token), clock_.Now()),
              HasAgentId("agt_a"));
}

TEST_F(SqliteStoreTest, SecondRotationEndsTheFirstGraceAtOnce) {
  NewAgent("agt_a");
  const std::string first_hash = Sha256(tokens_["agt_a"]);
  absl::StatusOr<RotatedToken> second = store_->RotateToken("agt_a", absl::Hours(1));
  ASSERT_TRUE(second.ok());
  absl::StatusOr<RotatedToken> third = store_->RotateToken("agt_a", absl::Hours(1));
  ASSERT_TRUE(third.ok());
  auto snapshot = Read();
  EXPECT_EQ(*snapshot->FindAgentByTokenHash(first_hash, clock_.Now()), std::nullopt);
  EXPECT_THAT(*snapshot->FindAgentByTokenHash(Sha256(second->token), clock_.Now()),
              HasAgentId("agt_a"));
}

TEST_F(SqliteStoreTest, PermissionsComeInCreationOrderWithCanonicalConstraints) {
  NewAgent("agt_a");
  NewAgent("agt_other");
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
                                     .effect = Effect::kDeny,
                                     .constraints_json = R"({ "rate_limit" : {"window_seconds":60,
                                                              "max_calls": 5} })",
                                     .id = "perm_a"})
                  .ok());

  absl::StatusOr<std::vector<Permission>> permissions = Read()->PermissionsOf("agt_a");
  ASSERT_TRUE(permissions.ok()) << permissions.status();
  ASSERT_THAT(*permissions, ElementsAre(HasId("perm_z"), HasId("perm_a")));
  EXPECT_EQ((*permissions)[0].resource, "docs:*");
  EXPECT_THAT((*permissions)[0].actions, ElementsAre("write", "read"));
  EXPECT_EQ((*permissions)[0].effect, Effect::kAllow);
  EXPECT_EQ((*permissions)[0].constraints_json, "{}");
  EXPECT_EQ((*permissions)[1].effect, Effect::kDeny);
  EXPECT_EQ((*permissions)[1].constraints_json,
            R"({"rate_limit":{"max_calls":5,"window_seconds":60}})");
  EXPECT_EQ((*permissions)[1].agent_id, "agt_a");
}

TEST_F(SqliteStoreTest, OnlyActiveUnexpiredDelegationsLeadIntoAnAgent) {
  NewAgent("agt_from");
  NewAgent("agt_to");
  ASSERT_TRUE(store_
                  ->GrantPermission(
                      {.agent_id = "agt_from", .resource = "docs:*", .actions = {"read", "write"}})
                  .ok());
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
  EXPECT_THAT(*snapshot->ActiveDelegationsInto("agt_from", clock_.Now()), ElementsAre());
}

TEST_F(SqliteStoreTest, OpenedApprovalIsFoundForExactlyTheSameCall) {
  NewAgent("agt_a");
  const std::string id = OpenApprovalFor("agt_a", "hash1");
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

TEST_F(SqliteStoreTest, FindOpenApprovalReturnsTheNewestPendingApprovedOrDenied) {
  NewAgent("agt_a");
  const std::string first = OpenApprovalFor("agt_a", "h");
  clock_.Advance(absl::Seconds(1));
  const std::string second = OpenApprovalFor("agt_a", "h");
  EXPECT_EQ(OpenApprovalSeen("agt_a", "h")->id, second);

  ASSERT_TRUE(store_->VoteOnApproval(second, "bob", /*approve=*/false, clock_.Now()).ok());
  std::optional<ApprovalRequest> denied = OpenApprovalSeen("agt_a", "h");
  ASSERT_TRUE(denied.has_value());
  EXPECT_EQ(denied->id, second);
  EXPECT_EQ(denied->status, ApprovalStatus::kDenied);

  clock_.Advance(absl::Seconds(1));
  const std::string third = OpenApprovalFor("agt_a", "h");
  ASSERT_TRUE(store_->VoteOnApproval(third, "bob", /*approve=*/true, clock_.Now()).ok());
  std::optional<ApprovalRequest> approved = OpenApprovalSeen("agt_a", "h");
  ASSERT_TRUE(approved.has_value());
  EXPECT_EQ(approved->id, third);
  EXPECT_EQ(approved->status, ApprovalStatus::kApproved);
  EXPECT_EQ(approved->approvals, 1);
}

TEST_F(SqliteStoreTest, ExpiredOrUsedApprovalIsNotOpen) {
  NewAgent("agt_a");
  OpenApprovalFor("agt_a", "expiring", absl::Minutes(1));
  const std::string used = OpenApprovalFor("agt_a", "used");
  ASSERT_TRUE(store_->VoteOnApproval(used, "bob", true, clock_.Now()).ok());
  std::unique_ptr<WriteTransaction> write = Write();
  ASSERT_TRUE(write->UseApproval(used, clock_.Now()).ok());
  ASSERT_TRUE(write->Commit().ok());

  EXPECT_EQ(OpenApprovalSeen("agt_a", "used"), std::nullopt);
  clock_.Advance(absl::Minutes(1));
  EXPECT_EQ(OpenApprovalSeen("agt_a", "expiring"), std::nullopt);
}

TEST_F(SqliteStoreTest, OnlyAnApprovedRequestCanBeUsed) {
  NewAgent("agt_a");
  const std::string pending = OpenApprovalFor("agt_a", "h");
  std::unique_ptr<WriteTransaction> write = Write();
  absl::Status not_approved = write->UseApproval(pending, clock_.Now());
  EXPECT_EQ(not_approved.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(not_approved.message(), HasSubstr("pending"));
  EXPECT_EQ(write->UseApproval("apr_missing", clock_.Now()).code(), absl::StatusCode::kNotFound);
}

TEST_F(SqliteStoreTest, ApprovedRequestIsUsedOnce) {
  NewAgent("agt_a");
  const std::string id = OpenApprovalFor("agt_a", "h");
  ASSERT_TRUE(store_->VoteOnApproval(id, "bob", true, clock_.Now()).ok());
  {
    std::unique_ptr<WriteTransaction> write = Write();
    ASSERT_TRUE(write->UseApproval(id, clock_.Now()).ok());
    ASSERT_TRUE(write->Commit().ok());
  }
  std::unique_ptr<WriteTransaction> again = Write();
  EXPECT_EQ(again->UseApproval(id, clock_.Now()).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(store_->GetApproval(id)->status, ApprovalStatus::kUsed);
}

TEST_F(SqliteStoreTest, SpendRateCountsPerPermissionAndWindow) {
  for (int i = 0; i < 3; ++i) {
    std::unique_ptr<WriteTransaction> write = Write();
    ASSERT_TRUE(write->SpendRate({.permission_id = "perm_a", .window_start_unix = 60}).ok());
    ASSERT_TRUE(write->Commit().ok());
  }
  std::unique_ptr<WriteTransaction> write = Write();
  ASSERT_TRUE(write->SpendRate({.permission_id = "perm_a", .window_start_unix = 120}).ok());
  EXPECT_EQ(*write->RateCount("perm_a", 120), 1);  // a write transaction reads its own writes
  ASSERT_TRUE(write->Commit().ok());

  auto snapshot = Read();
  EXPECT_EQ(*snapshot->RateCount("perm_a", 60), 3);
  EXPECT_EQ(*snapshot->RateCount("perm_a", 120), 1);
  EXPECT_EQ(*snapshot->RateCount("perm_b", 60), 0);
}

TEST_F(SqliteStoreTest, UncommittedWriteIsRolledBack) {
  {
    std::unique_ptr<WriteTransaction> write = Write();
    ASSERT_TRUE(write->SpendRate({.permission_id = "perm_a", .window_start_unix = 0}).ok());
  }
  EXPECT_EQ(*Read()->RateCount("perm_a", 0), 0);
}

TEST_F(SqliteStoreTest, NextSnapshotSeesAWriteCommittedByAnotherProcess) {
  NewAgent("agt_a");
  // A second store on the same file stands for another process: its own connections.
  std::unique_ptr<SqliteStore> other = OpenTestStore(path_, clock_);
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

TEST_F(SqliteStoreTest, SnapshotKeepsSeeingOneStateWhileOthersWrite) {
  NewAgent("agt_a");
  std::unique_ptr<ReadSnapshot> snapshot = Read();
  ASSERT_EQ((*snapshot->FindAgent("agt_a"))->status, AgentStatus::kActive);

  ASSERT_TRUE(store_->SetAgentStatus("agt_a", AgentStatus::kSuspended).ok());
  EXPECT_EQ((*snapshot->FindAgent("agt_a"))->status, AgentStatus::kActive);
  snapshot.reset();
  EXPECT_EQ((*Read()->FindAgent("agt_a"))->status, AgentStatus::kSuspended);
}

TEST_F(SqliteStoreTest, CheckoutWaitsWhileEveryConnectionIsInUse) {
  std::unique_ptr<SqliteStore> single = OpenTestStore(FreshDatabasePath("single"), clock_, 1);
  ASSERT_NE(single, nullptr);
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> held = single->BeginRead();
  ASSERT_TRUE(held.ok());

  absl::Notification second_began;
  std::thread waiter([&] {
    absl::StatusOr<std::unique_ptr<ReadSnapshot>> second = single->BeginRead();
    EXPECT_TRUE(second.ok());
    second_began.Notify();
  });
  EXPECT_FALSE(second_began.WaitForNotificationWithTimeout(absl::Milliseconds(100)));
  held->reset();
  EXPECT_TRUE(second_began.WaitForNotificationWithTimeout(absl::Seconds(10)));
  waiter.join();
}

TEST_F(SqliteStoreTest, MissingDirectoryIsUnavailable) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/no/such/dir/verdict.db");
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(path);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(store.status().message(), HasSubstr(path));
}

TEST_F(SqliteStoreTest, StoreRecoversOnceTheDirectoryAppears) {
  const std::string directory = absl::StrCat(std::getenv("TEST_TMPDIR"), "/appears_later");
  const std::string path = directory + "/verdict.db";
  SqliteOptions options;
  options.defer_open_errors = true;
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(path, options);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->BeginRead().status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ((*store)->BeginWrite().status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ((*store)->CheckAvailable().code(), absl::StatusCode::kUnavailable);

  ASSERT_EQ(mkdir(directory.c_str(), 0700), 0);
  EXPECT_TRUE((*store)->CheckAvailable().ok());
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = (*store)->BeginRead();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  EXPECT_EQ(*(*snapshot)->FindAgent("agt_a"), std::nullopt);
}

TEST_F(SqliteStoreTest, PathThroughAFileIsUnavailableUntilItIsADirectory) {
  // Stands for an unreadable directory too, which the root user of a test sandbox could read.
  const std::string directory = absl::StrCat(std::getenv("TEST_TMPDIR"), "/not_a_directory");
  std::ofstream(directory) << "a file where a directory should be";
  SqliteOptions options;
  options.defer_open_errors = true;
  absl::StatusOr<std::unique_ptr<SqliteStore>> store =
      SqliteStore::Open(directory + "/verdict.db", options);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->BeginRead().status().code(), absl::StatusCode::kUnavailable);

  ASSERT_EQ(std::remove(directory.c_str()), 0);
  ASSERT_EQ(mkdir(directory.c_str(), 0700), 0);
  // The store may hold on to the fault it saw for a short while before it looks again.
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  absl::Status available = (*store)->CheckAvailable();
  while (!available.ok() && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));
    available = (*store)->CheckAvailable();
  }
  EXPECT_TRUE(available.ok()) << available;
  EXPECT_TRUE((*store)->BeginWrite().ok());
}

TEST_F(SqliteStoreTest, FileThatIsNotADatabaseIsUnavailable) {
  const std::string path = FreshDatabasePath("garbage");
  std::ofstream(path) << std::string(8192, 'x');
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(path);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kUnavailable) << store.status();
}

TEST_F(SqliteStoreTest, MissingFileIsUnavailableWhenCreationIsNotAllowed) {
  SqliteOptions options;
  options.create_if_missing = false;
  absl::StatusOr<std::unique_ptr<SqliteStore>> store =
      SqliteStore::Open(FreshDatabasePath("absent"), options);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kUnavailable);
}

TEST_F(SqliteStoreTest, BadOptionsAreRefused) {
  SqliteOptions no_connections;
  no_connections.connections = 0;
  EXPECT_EQ(SqliteStore::Open(FreshDatabasePath("x"), no_connections).status().code(),
            absl::StatusCode::kInvalidArgument);
  SqliteOptions negative_timeout;
  negative_timeout.busy_timeout = absl::Seconds(-1);
  EXPECT_EQ(SqliteStore::Open(FreshDatabasePath("y"), negative_timeout).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SqliteStore::Open("").status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace verdict
