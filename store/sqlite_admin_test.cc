// The admin plane's writes and reads on the SQLite store (store/policy_admin.h).
#include <SQLiteCpp/Database.h>

#include <string>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "crypto/sha256.h"
#include "crypto/token.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/sqlite_store.h"
#include "store/test_support.h"

namespace verdict {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::MatchesRegex;

MATCHER_P(HasId, id, "") { return arg.id == id; }
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

class SqliteAdminTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = FreshDatabasePath();
    store_ = OpenTestStore(path_, clock_);
    ASSERT_NE(store_, nullptr);
  }

  void Agent(const std::string& id) {
    ASSERT_TRUE(store_->CreateAgent({.owner = "alice", .name = id, .id = id}).ok()) << id;
  }

  void Grant(const std::string& agent, const std::string& resource,
             std::vector<std::string> actions) {
    ASSERT_TRUE(
        store_->GrantPermission({.agent_id = agent, .resource = resource, .actions = actions})
            .ok());
  }

  absl::StatusOr<Delegation> Delegate(const std::string& from, const std::string& to,
                                      const std::string& resource, int max_depth = 8) {
    return store_->CreateDelegation({.from_agent_id = from,
                                     .to_agent_id = to,
                                     .permissions = {{.resource = resource, .actions = {"read"}}},
                                     .max_depth = max_depth});
  }

  std::string OpenApproval(int quorum, absl::Duration ttl = absl::Hours(1),
                           const std::string& hash = "h") {
    absl::StatusOr<std::unique_ptr<WriteTransaction>> write = store_->BeginWrite();
    EXPECT_TRUE(write.ok());
    absl::StatusOr<std::string> id = (*write)->OpenApproval({.agent_id = "agt_a",
                                                             .action = "pay",
                                                             .resource = "invoices:1",
                                                             .arguments_hash = hash,
                                                             .quorum = quorum,
                                                             .expires_at = clock_.Now() + ttl},
                                                            clock_.Now());
    EXPECT_TRUE(id.ok());
    EXPECT_TRUE((*write)->Commit().ok());
    return *id;
  }

  absl::StatusOr<ApprovalRequest> Vote(const std::string& id, const std::string& approver,
                                       bool approve) {
    return store_->VoteOnApproval(id, approver, approve, clock_.Now());
  }

  ManualClock clock_;
  std::string path_;
  std::unique_ptr<SqliteStore> store_;
};

TEST_F(SqliteAdminTest, CreatedAgentGetsATokenOfWhichOnlyTheHashIsStored) {
  absl::StatusOr<CreatedAgent> created =
      store_->CreateAgent({.owner = "alice", .name = "bot", .kind = AgentKind::kDelegated});
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_THAT(created->agent.id, MatchesRegex("agt_[0-9a-f]{16}"));
  EXPECT_TRUE(CheckAgentTokenShape(created->token).ok());
  EXPECT_EQ(created->agent.token_prefix, TokenDisplayPrefix(created->token));

  SQLite::Database db(path_, SQLite::OPEN_READONLY);
  SQLite::Statement row(db, "SELECT * FROM agents");
  ASSERT_TRUE(row.executeStep());
  bool hash_stored = false;
  for (int column = 0; column < row.getColumnCount(); ++column) {
    const std::string value = row.getColumn(column).getString();
    EXPECT_EQ(value.find(created->token), std::string::npos) << row.getColumnName(column);
    hash_stored |= value == Sha256(created->token);
  }
  EXPECT_TRUE(hash_stored);
  EXPECT_THAT(*store_->GetAgent(created->agent.id), EqualsAgent(created->agent));
}

TEST_F(SqliteAdminTest, AgentIdInUseIsAlreadyExists) {
  Agent("agt_a");
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

TEST_F(SqliteAdminTest, MalformedAgentsAreInvalidArguments) {
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

TEST_F(SqliteAdminTest, UnknownAgentIsNotFound) {
  EXPECT_EQ(store_->GetAgent("agt_x").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->SetAgentStatus("agt_x", AgentStatus::kSuspended).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->RotateToken("agt_x", absl::ZeroDuration()).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(SqliteAdminTest, AgentsAreListedByIdOnePageAtATime) {
  for (const char* id : {"agt_d", "agt_b", "agt_e", "agt_a", "agt_c"}) Agent(id);
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
  EXPECT_THAT(seen, ElementsAre("agt_a", "agt_b", "agt_c", "agt_d", "agt_e"));

  EXPECT_EQ(store_->ListAgents({})->agents.size(), 5u);
  EXPECT_EQ(store_->ListAgents({.page_size = -1}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->ListAgents({.page_size = 1001}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(SqliteAdminTest, SuspendedAgentCanBeReactivatedButRevocationIsFinal) {
  Agent("agt_a");
  clock_.Advance(absl::Seconds(1));
  absl::StatusOr<verdict::Agent> suspended =
      store_->SetAgentStatus("agt_a", AgentStatus::kSuspended);
  ASSERT_TRUE(suspended.ok());
  EXPECT_EQ(suspended->status, AgentStatus::kSuspended);
  EXPECT_EQ(suspended->updated_at, clock_.Now());
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

TEST_F(SqliteAdminTest, NegativeGraceIsRefused) {
  Agent("agt_a");
  EXPECT_EQ(store_->RotateToken("agt_a", absl::Seconds(-1)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(SqliteAdminTest, GrantedPermissionIsReturnedAsStored) {
  Agent("agt_a");
  absl::StatusOr<Permission> granted =
      store_->GrantPermission({.agent_id = "agt_a",
                               .resource = "/api/**",
                               .actions = {"GET", "POST"},
                               .effect = Effect::kDeny,
                               .constraints_json = R"({"ip_allowlist": ["10.0.0.0/8"]})"});
  ASSERT_TRUE(granted.ok()) << granted.status();
  EXPECT_THAT(granted->id, MatchesRegex("perm_[0-9a-f]{16}"));
  EXPECT_EQ(granted->constraints_json, R"({"ip_allowlist":["10.0.0.0/8"]})");
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store_->BeginRead();
  absl::StatusOr<std::vector<Permission>> stored = (*snapshot)->PermissionsOf("agt_a");
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

TEST_F(SqliteAdminTest, MalformedOrMisplacedPermissionsAreRefused) {
  Agent("agt_a");
  Agent("agt_revoked");
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
}

TEST_F(SqliteAdminTest, RevokedPermissionIsGone) {
  Agent("agt_a");
  absl::StatusOr<Permission> granted =
      store_->GrantPermission({.agent_id = "agt_a", .resource = "d", .actions = {"r"}});
  ASSERT_TRUE(granted.ok());
  ASSERT_TRUE(store_->RevokePermission(granted->id).ok());
  EXPECT_THAT(*(*store_->BeginRead())->PermissionsOf("agt_a"), IsEmpty());
  EXPECT_EQ(store_->RevokePermission(granted->id).code(), absl::StatusCode::kNotFound);
}

TEST_F(SqliteAdminTest, DelegationIsStoredWithCanonicalLentConstraints) {
  Agent("agt_a");
  Agent("agt_b");
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
      (*store_->BeginRead())->ActiveDelegationsInto("agt_b", clock_.Now());
  ASSERT_THAT(*into, ElementsAre(HasId(created->id)));
  EXPECT_EQ((*into)[0].permissions[0].constraints_json, created->permissions[0].constraints_json);
  EXPECT_EQ((*into)[0].expires_at, created->expires_at);
  EXPECT_EQ((*into)[0].created_at, created->created_at);
}

TEST_F(SqliteAdminTest, DelegationRulesAreEnforcedOnTheStoredGraph) {
  for (const char* id : {"agt_a", "agt_b", "agt_c", "agt_d"}) Agent(id);
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

TEST_F(SqliteAdminTest, RevokedDelegationNoLongerCarriesRightsToNewDelegations) {
  for (const char* id : {"agt_a", "agt_b", "agt_c"}) Agent(id);
  Grant("agt_a", "docs:*", {"read"});
  absl::StatusOr<Delegation> link = Delegate("agt_a", "agt_b", "docs:*");
  ASSERT_TRUE(link.ok());
  ASSERT_TRUE(store_->RevokeDelegation(link->id).ok());
  EXPECT_TRUE(store_->RevokeDelegation(link->id).ok());  // revoking again changes nothing
  EXPECT_THAT(*(*store_->BeginRead())->ActiveDelegationsInto("agt_b", clock_.Now()), IsEmpty());
  EXPECT_EQ(Delegate("agt_b", "agt_c", "docs:1").status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(store_->RevokeDelegation("dlg_x").code(), absl::StatusCode::kNotFound);
}

TEST_F(SqliteAdminTest, MalformedOrImpossibleDelegationsAreRefused) {
  for (const char* id : {"agt_a", "agt_b", "agt_suspended"}) Agent(id);
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

TEST_F(SqliteAdminTest, QuorumOfDistinctApproversApproves) {
  Agent("agt_a");
  const std::string id = OpenApproval(/*quorum=*/2);
  absl::StatusOr<ApprovalRequest> first = Vote(id, "bob", true);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->status, ApprovalStatus::kPending);
  EXPECT_EQ(first->approvals, 1);

  absl::StatusOr<ApprovalRequest> twice = Vote(id, "bob", true);
  EXPECT_EQ(twice.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(twice.status().message(), HasSubstr("bob has already voted"));

  absl::StatusOr<ApprovalRequest> second = Vote(id, "carol", true);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->status, ApprovalStatus::kApproved);
  EXPECT_EQ(second->approvals, 2);
  EXPECT_THAT(*store_->GetApproval(id), EqualsApproval(*second));

  absl::StatusOr<ApprovalRequest> late = Vote(id, "dave", false);
  EXPECT_EQ(late.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(late.status().message(), HasSubstr("approved: voting is closed"));
}

TEST_F(SqliteAdminTest, OneDenyVoteDenies) {
  Agent("agt_a");
  const std::string id = OpenApproval(/*quorum=*/2);
  ASSERT_TRUE(Vote(id, "bob", true).ok());
  absl::StatusOr<ApprovalRequest> denied = Vote(id, "carol", false);
  ASSERT_TRUE(denied.ok());
  EXPECT_EQ(denied->status, ApprovalStatus::kDenied);
  EXPECT_EQ(Vote(id, "dave", true).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(SqliteAdminTest, VotingOnAnExpiredRequestIsRefusedAndMarksItExpired) {
  Agent("agt_a");
  const std::string id = OpenApproval(/*quorum=*/1, absl::Minutes(10));
  clock_.Advance(absl::Minutes(10));
  absl::StatusOr<ApprovalRequest> vote = Vote(id, "bob", true);
  EXPECT_EQ(vote.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(vote.status().message(), HasSubstr("expired"));
  EXPECT_EQ(store_->GetApproval(id)->status, ApprovalStatus::kExpired);

  SQLite::Database db(path_, SQLite::OPEN_READONLY);
  EXPECT_EQ(db.execAndGet("SELECT status FROM approval_requests").getString(), "expired");
}

TEST_F(SqliteAdminTest, MalformedVotesAndUnknownRequestsAreRefused) {
  Agent("agt_a");
  const std::string id = OpenApproval(1);
  EXPECT_EQ(Vote(id, "", true).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Vote("apr_x", "bob", true).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->GetApproval("apr_x").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(SqliteAdminTest, ApprovalsAreListedOldestFirstByStatusAPageAtATime) {
  Agent("agt_a");
  std::vector<std::string> pending;
  for (int i = 0; i < 3; ++i) {
    pending.push_back(OpenApproval(1, absl::Hours(1), absl::StrCat("h", i)));
    clock_.Advance(absl::Seconds(1));
  }
  const std::string approved = OpenApproval(1, absl::Hours(1), "approved");
  ASSERT_TRUE(Vote(approved, "bob", true).ok());
  const std::string expiring = OpenApproval(1, absl::Seconds(1), "expiring");
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

TEST_F(SqliteAdminTest, StoreIsEmptyUntilAnAgentExists) {
  EXPECT_TRUE(*store_->IsEmpty());
  Agent("agt_a");
  EXPECT_FALSE(*store_->IsEmpty());
}

}  // namespace
}  // namespace verdict
