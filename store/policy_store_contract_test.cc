// The PolicyStore contract (decision/policy_view.h, decision/policy_store.h): what the decision
// path reads and writes, one suite run on every store that implements it: SQLite always,
// PostgreSQL when VERDICT_TEST_POSTGRES_URL names a server (scripts/test.d/postgres.sh), and the
// in-memory store of tests and benchmarks (testing/memory_store.h). Each case states a rule
// every store must keep, so none can drift from the others. The rows a case reads are put in
// through each store's own way of writing them (PolicySeeder); what only the SQL stores have
// (the admin plane's rules, bounded tables, pools) is in store/store_contract_test.cc.
#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "app/admin_input.h"
#include "crypto/sha256.h"
#include "crypto/token.h"
#include "decision/access_token_test_support.h"
#include "decision/resource_match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/postgres/postgres_test_support.h"
#include "store/postgres_store.h"
#include "store/signing_keys.h"
#include "store/sqlite_store.h"
#include "store/store.h"
#include "store/test_support.h"
#include "testing/memory_store.h"

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

// One empty store for one test, and the way rows are put into it. The SQL stores take them
// through their admin plane; the in-memory store, which has none, takes the rows the admin
// plane would write (app/admin_input.h prepares them) through its setters.
class PolicySeeder {
 public:
  virtual ~PolicySeeder() = default;
  virtual PolicyStore& store() = 0;
  // Another store on the same data with `connections` connections, as another process would
  // open it; the in-memory store, which lives in one process, answers itself.
  virtual PolicyStore* Another(int connections) = 0;

  virtual absl::StatusOr<CreatedAgent> CreateAgent(const NewAgent& agent) = 0;
  virtual absl::Status SetAgentStatus(const std::string& agent_id, AgentStatus status) = 0;
  virtual absl::StatusOr<RotatedToken> RotateToken(const std::string& agent_id,
                                                   absl::Duration grace) = 0;
  virtual absl::StatusOr<Permission> GrantPermission(const NewPermission& permission) = 0;
  virtual absl::StatusOr<Delegation> CreateDelegation(const NewDelegation& delegation) = 0;
  virtual absl::Status RevokeDelegation(const std::string& delegation_id) = 0;
  virtual absl::StatusOr<ApprovalRequest> VoteOnApproval(const std::string& approval_id,
                                                         const std::string& approver, bool approve,
                                                         absl::Time now) = 0;
  virtual absl::StatusOr<ApprovalRequest> GetApproval(const std::string& approval_id) = 0;
  virtual absl::StatusOr<SigningKey> AddSigningKey(const NewSigningKey& key) = 0;
  virtual absl::Status RevokeTokenId(const std::string& jti, absl::Time expires_at) = 0;
};

// A SQL store seeded through its admin plane: every seeding call is one admin call.
class AdminPlaneSeeder final : public PolicySeeder {
 public:
  // `open` opens one more store on the test's database with that many connections.
  explicit AdminPlaneSeeder(std::function<std::unique_ptr<Store>(int connections)> open)
      : open_(std::move(open)), store_(open_(2)) {}

  bool ok() const { return store_ != nullptr; }
  PolicyStore& store() override { return *store_; }
  PolicyStore* Another(int connections) override {
    others_.push_back(open_(connections));
    return others_.back().get();
  }

  absl::StatusOr<CreatedAgent> CreateAgent(const NewAgent& agent) override {
    return store_->admin().CreateAgent(agent);
  }
  absl::Status SetAgentStatus(const std::string& agent_id, AgentStatus status) override {
    return store_->admin().SetAgentStatus(agent_id, status).status();
  }
  absl::StatusOr<RotatedToken> RotateToken(const std::string& agent_id,
                                           absl::Duration grace) override {
    return store_->admin().RotateToken(agent_id, grace);
  }
  absl::StatusOr<Permission> GrantPermission(const NewPermission& permission) override {
    return store_->admin().GrantPermission(permission);
  }
  absl::StatusOr<Delegation> CreateDelegation(const NewDelegation& delegation) override {
    return store_->admin().CreateDelegation(delegation);
  }
  absl::Status RevokeDelegation(const std::string& delegation_id) override {
    return store_->admin().RevokeDelegation(delegation_id);
  }
  absl::StatusOr<ApprovalRequest> VoteOnApproval(const std::string& approval_id,
                                                 const std::string& approver, bool approve,
                                                 absl::Time now) override {
    return store_->admin().VoteOnApproval(approval_id, approver, approve, now);
  }
  absl::StatusOr<ApprovalRequest> GetApproval(const std::string& approval_id) override {
    return store_->admin().GetApproval(approval_id);
  }
  absl::StatusOr<SigningKey> AddSigningKey(const NewSigningKey& key) override {
    return store_->admin().AddSigningKey(key);
  }
  absl::Status RevokeTokenId(const std::string& jti, absl::Time expires_at) override {
    return store_->admin().RevokeTokenId(jti, expires_at);
  }

 private:
  std::function<std::unique_ptr<Store>(int connections)> open_;
  std::unique_ptr<Store> store_;
  std::vector<std::unique_ptr<Store>> others_;
};

// The in-memory store, given the rows the admin plane prepares for the same calls.
class MemorySeeder final : public PolicySeeder {
 public:
  explicit MemorySeeder(ManualClock& clock) : clock_(clock) {}

  PolicyStore& store() override { return store_; }
  PolicyStore* Another(int) override { return &store_; }

  absl::StatusOr<CreatedAgent> CreateAgent(const NewAgent& request) override {
    absl::StatusOr<AgentToCreate> row = PrepareNewAgent(request, clock_.Now());
    if (!row.ok()) return row.status();
    if (absl::Status s = store_.AddAgent(row->agent); !s.ok()) return s;
    if (absl::Status s = store_.SetAgentToken(row->agent.id, row->token_sha256); !s.ok()) return s;
    return CreatedAgent{.agent = row->agent, .token = row->token};
  }
  absl::Status SetAgentStatus(const std::string& agent_id, AgentStatus status) override {
    return store_.SetAgentStatus(agent_id, status);
  }
  absl::StatusOr<RotatedToken> RotateToken(const std::string& agent_id,
                                           absl::Duration grace) override {
    RotatedToken rotated;
    rotated.token = NewAgentToken();
    rotated.previous_token_expires_at = clock_.Now() + grace;
    absl::Status s =
        store_.SetAgentToken(agent_id, Sha256(rotated.token), rotated.previous_token_expires_at);
    if (!s.ok()) return s;
    return rotated;
  }
  absl::StatusOr<Permission> GrantPermission(const NewPermission& request) override {
    absl::StatusOr<Permission> row = PrepareNewPermission(request, clock_.Now());
    if (!row.ok()) return row.status();
    absl::StatusOr<std::string> id = store_.AddPermission(*row);
    if (!id.ok()) return id.status();
    return row;
  }
  absl::StatusOr<Delegation> CreateDelegation(const NewDelegation& request) override {
    absl::StatusOr<DelegationToCreate> row = PrepareNewDelegation(request, clock_.Now());
    if (!row.ok()) return row.status();
    absl::StatusOr<std::string> id = store_.AddDelegation(row->delegation);
    if (!id.ok()) return id.status();
    return row->delegation;
  }
  absl::Status RevokeDelegation(const std::string& delegation_id) override {
    return store_.RevokeDelegation(delegation_id);
  }
  absl::StatusOr<ApprovalRequest> VoteOnApproval(const std::string& approval_id,
                                                 const std::string& approver, bool approve,
                                                 absl::Time now) override {
    return store_.VoteOnApproval(approval_id, approver, approve, now);
  }
  absl::StatusOr<ApprovalRequest> GetApproval(const std::string& approval_id) override {
    for (ApprovalRequest& request : store_.ApprovalRequests()) {
      if (request.id == approval_id) return request;
    }
    return absl::NotFoundError(approval_id);
  }
  absl::StatusOr<SigningKey> AddSigningKey(const NewSigningKey& key) override {
    absl::StatusOr<SigningKey> row = PrepareSigningKey(key, clock_.Now());
    if (!row.ok()) return row.status();
    if (absl::Status s = store_.PutSigningKey(*row); !s.ok()) return s;
    return row;
  }
  // The memory store keeps a revoked id for good: it never prunes.
  absl::Status RevokeTokenId(const std::string& jti, absl::Time) override {
    return store_.RevokeTokenId(jti);
  }

 private:
  ManualClock& clock_;
  MemoryPolicyStore store_;
};

enum class Backend { kSqlite, kPostgres, kMemory };

std::string StoreName(Backend backend) {
  switch (backend) {
    case Backend::kSqlite:
      return "Sqlite";
    case Backend::kPostgres:
      return "Postgres";
    case Backend::kMemory:
      return "Memory";
  }
  return "Unknown";
}

// Failures name the store, not its enum's bytes.
void PrintTo(Backend backend, std::ostream* out) { *out << StoreName(backend); }

class PolicyStoreContractTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    switch (GetParam()) {
      case Backend::kSqlite: {
        const std::string path = FreshDatabasePath();
        auto seeder = std::make_unique<AdminPlaneSeeder>([this, path](int connections) {
          return std::unique_ptr<Store>(OpenTestStore(path, clock_, connections));
        });
        ASSERT_TRUE(seeder->ok());
        seeder_ = std::move(seeder);
        break;
      }
      case Backend::kPostgres: {
        if (TestPostgresUrl().empty()) GTEST_SKIP() << kNoPostgresMessage;
        absl::StatusOr<PostgresTestSchema> schema = PostgresTestSchema::Create();
        ASSERT_TRUE(schema.ok()) << schema.status();
        schema_ = std::make_unique<PostgresTestSchema>(*std::move(schema));
        auto seeder = std::make_unique<AdminPlaneSeeder>([this](int connections) {
          PostgresOptions options;
          options.connections = connections;
          options.clock = clock_.AsFunction();
          absl::StatusOr<std::unique_ptr<PostgresStore>> store =
              PostgresStore::Open(schema_->conninfo(), options);
          EXPECT_TRUE(store.ok()) << store.status();
          return store.ok() ? std::unique_ptr<Store>(*std::move(store)) : nullptr;
        });
        ASSERT_TRUE(seeder->ok());
        seeder_ = std::move(seeder);
        break;
      }
      case Backend::kMemory:
        seeder_ = std::make_unique<MemorySeeder>(clock_);
        break;
    }
  }

  // The stores close before the PostgreSQL schema they use is dropped.
  void TearDown() override { seeder_.reset(); }

  PolicyStore& store() { return seeder_->store(); }

  // An active agent; its token is kept in tokens_[id].
  std::string NewAgent(const std::string& id) {
    absl::StatusOr<CreatedAgent> created =
        seeder_->CreateAgent({.owner = "alice", .name = id, .id = id});
    EXPECT_TRUE(created.ok()) << created.status();
    if (created.ok()) tokens_[id] = created->token;
    return id;
  }

  void Grant(const std::string& agent, const std::string& resource,
             std::vector<std::string> actions, Effect effect = Effect::kAllow) {
    ASSERT_TRUE(
        seeder_
            ->GrantPermission(
                {.agent_id = agent, .resource = resource, .actions = actions, .effect = effect})
            .ok());
  }

  absl::StatusOr<Delegation> Delegate(const std::string& from, const std::string& to,
                                      const std::string& resource, int max_depth = 8) {
    return seeder_->CreateDelegation({.from_agent_id = from,
                                      .to_agent_id = to,
                                      .permissions = {{.resource = resource, .actions = {"read"}}},
                                      .max_depth = max_depth});
  }

  std::unique_ptr<ReadSnapshot> Read() { return BeginTestRead(store()); }
  std::unique_ptr<WriteTransaction> Write() { return BeginTestWrite(store()); }
  std::string OpenApproval(const std::string& agent_id, const std::string& hash, int quorum = 1,
                           absl::Duration ttl = absl::Hours(1)) {
    return OpenTestApproval(store(), clock_.Now(), agent_id, hash, quorum, ttl);
  }
  std::optional<ApprovalRequest> OpenApprovalSeen(const std::string& agent_id,
                                                  const std::string& hash) {
    return OpenTestApprovalSeen(store(), clock_.Now(), agent_id, hash);
  }

  absl::StatusOr<ApprovalRequest> Vote(const std::string& id, const std::string& approver,
                                       bool approve) {
    return seeder_->VoteOnApproval(id, approver, approve, clock_.Now());
  }

  ManualClock clock_;
  std::unique_ptr<PostgresTestSchema> schema_;
  std::unique_ptr<PolicySeeder> seeder_;
  std::map<std::string, std::string> tokens_;
};

INSTANTIATE_TEST_SUITE_P(Stores, PolicyStoreContractTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres, Backend::kMemory),
                         [](const auto& info) { return StoreName(info.param); });

// --- The decision path: lookups ---

TEST_P(PolicyStoreContractTest, FindAgentReturnsTheStoredAgent) {
  absl::StatusOr<CreatedAgent> created =
      seeder_->CreateAgent({.owner = "alice",
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

TEST_P(PolicyStoreContractTest, UnknownAgentIsNotAnError) {
  absl::StatusOr<std::optional<Agent>> found = Read()->FindAgent("agt_nobody");
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_FALSE(found->has_value());
}

TEST_P(PolicyStoreContractTest, AgentIsFoundByTheHashOfItsToken) {
  NewAgent("agt_a");
  NewAgent("agt_b");
  auto snapshot = Read();
  EXPECT_THAT(*snapshot->FindAgentByTokenHash(Sha256(tokens_["agt_b"]), clock_.Now()),
              HasAgentId("agt_b"));
  EXPECT_EQ(*snapshot->FindAgentByTokenHash(Sha256("vdt_not_a_token"), clock_.Now()), std::nullopt);
}

// A store may keep what one token call read for the next one's memory (SQLite keeps the row it
// reads before it knows the agent): each call still answers with its own agent and rows only.
TEST_P(PolicyStoreContractTest, EachTokenCallFindsItsOwnAgentWhateverAnEarlierCallRead) {
  NewAgent("agt_a");
  NewAgent("agt_b");
  ASSERT_TRUE(
      seeder_->GrantPermission({.agent_id = "agt_a", .resource = "docs:*", .actions = {"read"}})
          .ok());
  ASSERT_TRUE(seeder_
                  ->GrantPermission(
                      {.agent_id = "agt_b", .resource = "mail:*", .actions = {"send", "read"}})
                  .ok());
  auto resources_by_token = [&](const std::string& agent) -> std::string {
    auto snapshot = Read();
    absl::StatusOr<std::optional<Agent>> found =
        snapshot->FindAgentByTokenHash(Sha256(tokens_[agent]), clock_.Now());
    if (!found.ok() || !found->has_value()) return "none";
    absl::StatusOr<std::vector<Permission>> own = snapshot->PermissionsOf((*found)->id);
    if (!own.ok()) return own.status().ToString();
    std::string described = (*found)->id;
    for (const Permission& p : *own) absl::StrAppend(&described, " ", p.resource);
    return described;
  };
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(resources_by_token("agt_a"), "agt_a docs:*");
    EXPECT_EQ(resources_by_token("agt_b"), "agt_b mail:*");
    EXPECT_EQ(*Read()->FindAgentByTokenHash(Sha256("vdt_not_a_token"), clock_.Now()), std::nullopt);
  }
  // Within one snapshot too: the agent an id found first, then another by its token.
  auto snapshot = Read();
  ASSERT_THAT(*snapshot->FindAgent("agt_a"), HasAgentId("agt_a"));
  EXPECT_THAT(*snapshot->FindAgentByTokenHash(Sha256(tokens_["agt_b"]), clock_.Now()),
              HasAgentId("agt_b"));
  absl::StatusOr<std::vector<Permission>> a = snapshot->PermissionsOf("agt_a");
  absl::StatusOr<std::vector<Permission>> b = snapshot->PermissionsOf("agt_b");
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), 1u);
  ASSERT_EQ(b->size(), 1u);
  EXPECT_EQ((*a)[0].resource, "docs:*");
  EXPECT_EQ((*b)[0].resource, "mail:*");
}

// What the engine resolves a subject to is the view's own agent, not a copy: it stays that agent
// for as long as the snapshot, whatever the snapshot reads after it, by token or by id.
TEST_P(PolicyStoreContractTest, AnAgentFoundByReferenceStaysItselfForTheWholeSnapshot) {
  NewAgent("agt_a");
  NewAgent("agt_b");
  NewAgent("agt_c");
  auto snapshot = Read();
  absl::StatusOr<const Agent*> a =
      snapshot->FindAgentRefByTokenHash(Sha256(tokens_["agt_a"]), clock_.Now());
  absl::StatusOr<const Agent*> b = snapshot->FindAgentRef("agt_b");
  absl::StatusOr<const Agent*> c =
      snapshot->FindAgentRefByTokenHash(Sha256(tokens_["agt_c"]), clock_.Now());
  absl::StatusOr<const Agent*> a_again =
      snapshot->FindAgentRefByTokenHash(Sha256(tokens_["agt_a"]), clock_.Now());
  absl::StatusOr<const Agent*> b_by_token =
      snapshot->FindAgentRefByTokenHash(Sha256(tokens_["agt_b"]), clock_.Now());
  absl::StatusOr<const Agent*> none =
      snapshot->FindAgentRefByTokenHash(Sha256("vdt_not_a_token"), clock_.Now());
  ASSERT_TRUE(a.ok() && b.ok() && c.ok() && a_again.ok() && b_by_token.ok() && none.ok());
  ASSERT_TRUE(*a != nullptr && *b != nullptr && *c != nullptr && *a_again != nullptr &&
              *b_by_token != nullptr);
  EXPECT_EQ((*a)->id, "agt_a");
  EXPECT_EQ((*b)->id, "agt_b");
  EXPECT_EQ((*c)->id, "agt_c");
  EXPECT_EQ((*a_again)->id, "agt_a");
  EXPECT_EQ((*b_by_token)->id, "agt_b");
  EXPECT_EQ(*none, nullptr);
}

TEST_P(PolicyStoreContractTest, PreviousTokenWorksOnlyDuringItsGrace) {
  NewAgent("agt_a");
  const std::string old_hash = Sha256(tokens_["agt_a"]);
  absl::StatusOr<RotatedToken> rotated = seeder_->RotateToken("agt_a", absl::Minutes(5));
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

TEST_P(PolicyStoreContractTest, RotationWithoutGraceEndsTheOldTokenAtOnce) {
  NewAgent("agt_a");
  const std::string old_hash = Sha256(tokens_["agt_a"]);
  absl::StatusOr<RotatedToken> rotated = seeder_->RotateToken("agt_a", absl::ZeroDuration());
  ASSERT_TRUE(rotated.ok()) << rotated.status();
  EXPECT_EQ(rotated->previous_token_expires_at, clock_.Now());
  EXPECT_EQ(*Read()->FindAgentByTokenHash(old_hash, clock_.Now()), std::nullopt);
  EXPECT_THAT(*Read()->FindAgentByTokenHash(Sha256(rotated->token), clock_.Now()),
              HasAgentId("agt_a"));
}

TEST_P(PolicyStoreContractTest, SecondRotationEndsTheFirstGraceAtOnce) {
  NewAgent("agt_a");
  const std::string first_hash = Sha256(tokens_["agt_a"]);
  absl::StatusOr<RotatedToken> second = seeder_->RotateToken("agt_a", absl::Hours(1));
  ASSERT_TRUE(second.ok()) << second.status();
  absl::StatusOr<RotatedToken> third = seeder_->RotateToken("agt_a", absl::Hours(1));
  ASSERT_TRUE(third.ok()) << third.status();
  auto snapshot = Read();
  EXPECT_EQ(*snapshot->FindAgentByTokenHash(first_hash, clock_.Now()), std::nullopt);
  EXPECT_THAT(*snapshot->FindAgentByTokenHash(Sha256(second->token), clock_.Now()),
              HasAgentId("agt_a"));
}

TEST_P(PolicyStoreContractTest, PermissionsComeInCreationOrderWithCanonicalConstraints) {
  NewAgent("agt_a");
  NewAgent("agt_other");
  // Ids chosen against their creation order: the order must not come from the ids.
  ASSERT_TRUE(seeder_
                  ->GrantPermission({.agent_id = "agt_a",
                                     .resource = "docs:*",
                                     .actions = {"write", "read"},
                                     .id = "perm_z"})
                  .ok());
  ASSERT_TRUE(seeder_
                  ->GrantPermission({.agent_id = "agt_other",
                                     .resource = "docs:*",
                                     .actions = {"read"},
                                     .id = "perm_other"})
                  .ok());
  ASSERT_TRUE(seeder_
                  ->GrantPermission({.agent_id = "agt_a",
                                     .resource = "docs:secret:*",
                                     .actions = {"*"},
                                     .constraints_json = R"({ "rate_limit" : {"window_seconds":60,
                                                              "max_calls": 5} })",
                                     .id = "perm_a"})
                  .ok());
  ASSERT_TRUE(seeder_
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

TEST_P(PolicyStoreContractTest, OnlyActiveUnexpiredDelegationsLeadIntoAnAgent) {
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
    ASSERT_TRUE(seeder_->CreateDelegation(delegation).ok()) << id;
  }
  ASSERT_TRUE(seeder_->RevokeDelegation("dlg_revoked").ok());

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
TEST_P(PolicyStoreContractTest, ReferencesAndSpansAnswerAsTheCopiesDo) {
  NewAgent("agt_from");
  NewAgent("agt_to");
  Grant("agt_from", "docs:*", {"read", "write"});
  Grant("agt_to", "/api/**", {"GET"});
  ASSERT_TRUE(seeder_
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
TEST_P(PolicyStoreContractTest, AnAgentThatDoesNotExistHoldsNothing) {
  NewAgent("agt_from");
  NewAgent("agt_to");
  Grant("agt_from", "docs:*", {"read"});
  Grant("agt_to", "docs:*", {"read"});
  ASSERT_TRUE(Delegate("agt_from", "agt_to", "docs:*").ok());
  PolicyStore* one_connection = seeder_->Another(1);
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

// A decision without a trace asks only for the permissions that may match its resource: each
// that matches must be there, in creation order, whatever else is left out.
TEST_P(PolicyStoreContractTest, PermissionsThatMayMatchHoldEveryOneThatMatches) {
  NewAgent("agt_a");
  Grant("agt_a", "docs:*", {"read"});
  Grant("agt_a", "/api/v1/**", {"GET"});
  Grant("agt_a", "docs:secret:*", {"*"}, Effect::kDeny);
  Grant("agt_a", "*", {"write"});
  Grant("agt_a", "tickets:*", {"create"});

  auto snapshot = Read();
  absl::StatusOr<std::vector<Permission>> all = snapshot->PermissionsOf("agt_a");
  ASSERT_TRUE(all.ok()) << all.status();
  for (const char* resource : {"docs:secret:plans", "/api/v1/users", "tickets:9", "logs:1"}) {
    SCOPED_TRACE(resource);
    absl::StatusOr<absl::Span<const Permission>> may_match =
        snapshot->PermissionsThatMayMatch("agt_a", "read", resource);
    ASSERT_TRUE(may_match.ok()) << may_match.status();
    std::vector<std::string> expected;  // every match, in creation order
    for (const Permission& permission : *all) {
      if (ResourceMatches(permission.resource, resource)) expected.push_back(permission.id);
    }
    std::vector<std::string> found;
    for (const Permission& permission : *may_match) {
      if (ResourceMatches(permission.resource, resource)) found.push_back(permission.id);
    }
    EXPECT_EQ(found, expected);
    EXPECT_FALSE(expected.empty());
  }
}

// What makes a delegator the origin of a chain: one allow of its own, whatever else it holds.
TEST_P(PolicyStoreContractTest, AnAgentHoldsAnAllowPermissionWhenAnyOfItsOwnAllows) {
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

TEST_P(PolicyStoreContractTest, OpenedApprovalIsFoundForExactlyTheSameCall) {
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

TEST_P(PolicyStoreContractTest, FindOpenApprovalReturnsTheNewestPendingApprovedOrDenied) {
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

TEST_P(PolicyStoreContractTest, OfTwoRequestsOpenedAtOneInstantTheLaterIsNewest) {
  NewAgent("agt_a");
  OpenApproval("agt_a", "h");
  const std::string later = OpenApproval("agt_a", "h");
  EXPECT_EQ(OpenApprovalSeen("agt_a", "h")->id, later);
}

TEST_P(PolicyStoreContractTest, ExpiredOrUsedApprovalIsNotOpen) {
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

TEST_P(PolicyStoreContractTest, OnlyAnApprovedRequestCanBeUsed) {
  NewAgent("agt_a");
  const std::string pending = OpenApproval("agt_a", "h");
  std::unique_ptr<WriteTransaction> write = Write();
  absl::Status not_approved = write->UseApproval(pending, clock_.Now());
  EXPECT_EQ(not_approved.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(not_approved.message(), HasSubstr("pending"));
  EXPECT_EQ(write->UseApproval("apr_missing", clock_.Now()).code(), absl::StatusCode::kNotFound);
}

TEST_P(PolicyStoreContractTest, ApprovedRequestIsUsedOnce) {
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
  EXPECT_EQ(seeder_->GetApproval(id)->status, ApprovalStatus::kUsed);
}

// The decision that uses a request records who approved it (the decision log's approved_by).
TEST_P(PolicyStoreContractTest, TheApproversOfARequestAreTheDistinctPrincipalsWhoApprovedByName) {
  NewAgent("agt_a");
  const std::string id = OpenApproval("agt_a", "h", /*quorum=*/2);
  ASSERT_TRUE(Vote(id, "dave", true).ok());
  ASSERT_TRUE(Vote(id, "bob", true).ok());
  const std::string unvoted = OpenApproval("agt_a", "other");
  std::unique_ptr<WriteTransaction> write = Write();
  ASSERT_TRUE(write->UseApproval(id, clock_.Now()).ok());
  absl::StatusOr<std::vector<std::string>> approvers = write->ApproversOf(id);
  ASSERT_TRUE(approvers.ok()) << approvers.status();
  EXPECT_THAT(*approvers, ElementsAre("bob", "dave"));

  absl::StatusOr<std::vector<std::string>> none = write->ApproversOf(unvoted);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_THAT(*none, IsEmpty());
}

TEST_P(PolicyStoreContractTest, SpendRateCountsPerAgentPermissionAndWindow) {
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
TEST_P(PolicyStoreContractTest, SpendingForgetsTheWindowsBeforeThePreviousOne) {
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

// A write transaction reads its own spends as they will be committed, forgetting included.
TEST_P(PolicyStoreContractTest, AWriteTransactionSeesTheWindowsItsSpendsForget) {
  const RateSpend old_window{.agent_id = "agt_a",
                             .permission_id = "perm_a",
                             .window_start_unix = 0,
                             .limit = 10,
                             .window_seconds = 60};
  {
    std::unique_ptr<WriteTransaction> write = Write();
    ASSERT_TRUE(write->SpendRate(old_window).ok());
    ASSERT_TRUE(write->Commit().ok());
  }
  std::unique_ptr<WriteTransaction> write = Write();
  RateSpend later = old_window;
  later.window_start_unix = 120;
  ASSERT_TRUE(write->SpendRate(later).ok());
  EXPECT_EQ(*write->RateCount("agt_a", "perm_a", 0), 0);
  EXPECT_EQ(*write->RateCount("agt_a", "perm_a", 120), 1);
  ASSERT_TRUE(write->SpendRate(later).ok());
  EXPECT_EQ(*write->RateCount("agt_a", "perm_a", 120), 2);
  write.reset();  // rolled back: the committed window is still there
  EXPECT_EQ(*Read()->RateCount("agt_a", "perm_a", 0), 1);
}

// What caps an agent's pending requests (decision/pending_approvals.h): its own requests that
// are pending and unexpired, counted no further than asked.
TEST_P(PolicyStoreContractTest, PendingApprovalsAreCountedPerAgentUpToTheCap) {
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

// --- Transactions ---

TEST_P(PolicyStoreContractTest, UncommittedWriteIsRolledBack) {
  {
    std::unique_ptr<WriteTransaction> write = Write();
    ASSERT_TRUE(
        write->SpendRate({.agent_id = "agt_a", .permission_id = "perm_a", .window_start_unix = 0})
            .ok());
  }
  EXPECT_EQ(*Read()->RateCount("agt_a", "perm_a", 0), 0);
}

TEST_P(PolicyStoreContractTest, SecondCommitIsRefused) {
  std::unique_ptr<WriteTransaction> write = Write();
  ASSERT_TRUE(write->Commit().ok());
  EXPECT_EQ(write->Commit().code(), absl::StatusCode::kFailedPrecondition);
}

// Writers serialise, so a count read inside a write transaction stays true until it commits:
// rate limits cannot be overspent by calls racing on other connections or processes.
TEST_P(PolicyStoreContractTest, WriteTransactionsSerialiseSoCountsReadInsideThemStayExact) {
  PolicyStore* other = seeder_->Another(4);
  ASSERT_NE(other, nullptr);
  constexpr int kThreads = 4;
  constexpr int kSpendsEach = 10;
  std::vector<std::thread> threads;
  std::atomic<int> lost{0};
  for (int t = 0; t < kThreads; ++t) {
    PolicyStore& store = t % 2 == 0 ? this->store() : *other;
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

TEST_P(PolicyStoreContractTest, SnapshotKeepsSeeingOneStateWhileOthersWrite) {
  NewAgent("agt_a");
  std::unique_ptr<ReadSnapshot> snapshot = Read();
  ASSERT_EQ((*snapshot->FindAgent("agt_a"))->status, AgentStatus::kActive);

  ASSERT_TRUE(seeder_->SetAgentStatus("agt_a", AgentStatus::kSuspended).ok());
  EXPECT_EQ((*snapshot->FindAgent("agt_a"))->status, AgentStatus::kActive);
  EXPECT_THAT(*snapshot->PermissionsOf("agt_a"), IsEmpty());
  snapshot.reset();
  EXPECT_EQ((*Read()->FindAgent("agt_a"))->status, AgentStatus::kSuspended);
}

// A delegation chain's hops are read one after another: each reads the state the first read
// saw, never a write committed in between (a link revoked and a grant added between two hops
// must not combine into an allow that no committed state gave).
TEST_P(PolicyStoreContractTest, ASnapshotReadsEveryAgentAsItWasAtItsFirstRead) {
  NewAgent("agt_a");
  NewAgent("agt_b");
  std::unique_ptr<ReadSnapshot> snapshot = Read();
  ASSERT_EQ((*snapshot->FindAgent("agt_a"))->status, AgentStatus::kActive);

  ASSERT_TRUE(seeder_->SetAgentStatus("agt_b", AgentStatus::kSuspended).ok());
  EXPECT_EQ((*snapshot->FindAgent("agt_b"))->status, AgentStatus::kActive);
  snapshot.reset();
  EXPECT_EQ((*Read()->FindAgent("agt_b"))->status, AgentStatus::kSuspended);
}

// --- JWT signing keys and revoked token ids ---

class PolicyStoreSigningKeysTest : public PolicyStoreContractTest {
 protected:
  const TestSigningKey key_ = TestSigningKey::NewEd25519("k1");
};

INSTANTIATE_TEST_SUITE_P(Stores, PolicyStoreSigningKeysTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres, Backend::kMemory),
                         [](const auto& info) { return StoreName(info.param); });

TEST_P(PolicyStoreSigningKeysTest, AnAddedKeyIsActiveAndFoundByItsKid) {
  absl::StatusOr<SigningKey> added = seeder_->AddSigningKey({key_.public_jwk_json, {"EdDSA"}});
  ASSERT_TRUE(added.ok()) << added.status();
  EXPECT_EQ(added->kid, "k1");
  EXPECT_EQ(added->created_at, clock_.Now());

  std::optional<SigningKey> found = ActiveSigningKeyIn(*Read(), "k1");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->jwk_json, added->jwk_json);
  EXPECT_THAT(found->allowed_algorithms, ElementsAre("EdDSA"));
  EXPECT_EQ(found->status, SigningKeyStatus::kActive);
  EXPECT_EQ(found->created_at, added->created_at);
  EXPECT_EQ(found->retired_at, absl::InfiniteFuture());
  EXPECT_FALSE(ActiveSigningKeyIn(*Read(), "k2").has_value());
}

TEST_P(PolicyStoreSigningKeysTest, ARevokedTokenIdIsSeenByTheNextSnapshot) {
  EXPECT_FALSE(TokenIdRevokedIn(*Read(), "jti-1"));
  ASSERT_TRUE(seeder_->RevokeTokenId("jti-1", clock_.Now() + absl::Minutes(5)).ok());
  EXPECT_TRUE(TokenIdRevokedIn(*Read(), "jti-1"));
  EXPECT_FALSE(TokenIdRevokedIn(*Read(), "jti-2"));
  // Revoking again is harmless.
  EXPECT_TRUE(seeder_->RevokeTokenId("jti-1", clock_.Now() + absl::Minutes(1)).ok());
  EXPECT_TRUE(TokenIdRevokedIn(*Read(), "jti-1"));
}

}  // namespace
}  // namespace verdict
