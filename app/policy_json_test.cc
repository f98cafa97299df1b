#include "app/policy_json.h"

#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_replace.h"
#include "common/json.h"
#include "crypto/sha256.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/sqlite_store.h"
#include "store/test_support.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

// A demo token: "vdt_" and 43 base64url characters.
constexpr char kToken[] = "vdt_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

// Every field, in the form export writes.
constexpr char kFullPolicy[] = R"json({
  "version": 1,
  "agents": [
    {"id": "agt_owner", "owner": "alice", "name": "planner", "kind": "autonomous",
     "status": "active", "expires_at": "2030-01-02T03:04:05.123456Z",
     "token_sha256": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
     "token_prefix": "vdt_AbCd-_9z",
     "previous_token_sha256": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
     "previous_token_expires_at": "2030-01-01T00:00:00Z"},
    {"id": "agt_helper", "owner": "alice", "name": "helper", "kind": "delegated",
     "status": "suspended",
     "token_sha256": "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"},
    {"id": "agt_gone", "owner": "bob", "name": "old", "kind": "service", "status": "revoked",
     "expires_at": "0999-06-01T12:00:00Z",
     "token_sha256": "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"}
  ],
  "permissions": [
    {"id": "perm_read", "agent_id": "agt_owner", "resource": "docs:*", "actions": ["read", "list"],
     "effect": "allow", "constraints": {"rate_limit": {"max_calls": 10, "window_seconds": 60}}},
    {"id": "perm_secret", "agent_id": "agt_owner", "resource": "docs:secret:*", "actions": ["*"],
     "effect": "deny", "constraints": {}}
  ],
  "delegations": [
    {"id": "dlg_1", "from_agent_id": "agt_owner", "to_agent_id": "agt_helper",
     "permissions": [{"resource": "docs:public:*", "actions": ["read"],
                      "constraints": {"ip_allowlist": ["10.0.0.0/8"]}}],
     "max_depth": 2, "status": "active", "expires_at": "2031-01-01T00:00:00Z"},
    {"id": "dlg_2", "from_agent_id": "agt_owner", "to_agent_id": "agt_gone",
     "permissions": [{"resource": "docs:1", "actions": ["read"], "constraints": {}}],
     "max_depth": 1, "status": "revoked"}
  ],
  "revoked_token_ids": [
    {"jti": "b6f1c2e4-3f4a-4d7e-9a55-1c2d3e4f5a6b", "expires_at": "2030-01-01T00:00:00Z"}
  ]
})json";

class PolicyJsonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenTestStore(FreshDatabasePath(), clock_);
    ASSERT_NE(store_, nullptr);
  }

  static JsonValue Parsed(absl::string_view json) {
    absl::StatusOr<JsonValue> value = ParseJson(json);
    EXPECT_TRUE(value.ok()) << value.status();
    return value.ok() ? *value : JsonValue();
  }

  std::string Export(SqliteStore& store) {
    absl::StatusOr<std::string> json = ExportPolicyJson(store.admin());
    EXPECT_TRUE(json.ok()) << json.status();
    return json.ok() ? *json : "";
  }

  ManualClock clock_;
  std::unique_ptr<SqliteStore> store_;
};

TEST_F(PolicyJsonTest, ExportOfAnImportIsTheSameDocument) {
  absl::StatusOr<ImportCounts> counts = ImportPolicyJson(store_->admin(), kFullPolicy);
  ASSERT_TRUE(counts.ok()) << counts.status();
  EXPECT_EQ(counts->agents, 3);
  EXPECT_EQ(counts->permissions, 2);
  EXPECT_EQ(counts->delegations, 2);
  EXPECT_EQ(counts->revoked_token_ids, 1);
  EXPECT_EQ(Parsed(Export(*store_)), Parsed(kFullPolicy));
}

// A backup that forgot the revoked token ids would make a restore accept a revoked access token
// again (review h39): they travel with the policy, and are refused from the restored store.
TEST_F(PolicyJsonTest, RevokedTokenIdsAreCarriedByAnExport) {
  ASSERT_TRUE(store_->admin().RevokeTokenId("jti-1", clock_.Now() + absl::Hours(1)).ok());
  const std::string exported = Export(*store_);
  EXPECT_THAT(exported, HasSubstr("\"revoked_token_ids\":[{\"expires_at\""));
  std::unique_ptr<SqliteStore> restored = OpenTestStore(FreshDatabasePath("restored"), clock_);
  absl::StatusOr<ImportCounts> counts = ImportPolicyJson(restored->admin(), exported);
  ASSERT_TRUE(counts.ok()) << counts.status();
  EXPECT_EQ(counts->revoked_token_ids, 1);
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = restored->BeginRead();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  absl::StatusOr<bool> revoked = (*snapshot)->IsTokenIdRevoked("jti-1");
  ASSERT_TRUE(revoked.ok()) << revoked.status();
  EXPECT_TRUE(*revoked);
}

TEST_F(PolicyJsonTest, ExportImportsIntoAnotherStoreUnchanged) {
  ASSERT_TRUE(ImportPolicyJson(store_->admin(), kFullPolicy).ok());
  ASSERT_TRUE(
      store_->admin().CreateAgent({.owner = "carol", .name = "late", .id = "agt_late"}).ok());
  const std::string first = Export(*store_);
  std::unique_ptr<SqliteStore> other = OpenTestStore(FreshDatabasePath("other"), clock_);
  ASSERT_TRUE(ImportPolicyJson(other->admin(), first).ok());
  EXPECT_EQ(Export(*other), first);
}

// An agent's description (for operators) is written when it has one, read back on import, and
// left out, as empty, when it has none.
TEST_F(PolicyJsonTest, AnAgentsDescriptionTravelsInThePolicyDocument) {
  ASSERT_TRUE(store_->admin()
                  .CreateAgent({.owner = "carol",
                                .name = "reporter",
                                .id = "agt_described",
                                .description = "files the weekly report"})
                  .ok());
  ASSERT_TRUE(
      store_->admin().CreateAgent({.owner = "carol", .name = "plain", .id = "agt_plain"}).ok());
  const std::string exported = Export(*store_);
  EXPECT_THAT(exported, HasSubstr("\"description\":\"files the weekly report\""));
  std::unique_ptr<SqliteStore> other = OpenTestStore(FreshDatabasePath("described"), clock_);
  ASSERT_TRUE(ImportPolicyJson(other->admin(), exported).ok());
  EXPECT_EQ(other->admin().GetAgent("agt_described")->description, "files the weekly report");
  EXPECT_EQ(other->admin().GetAgent("agt_plain")->description, "");
  EXPECT_EQ(Export(*other), exported);
}

// So is its contact (agents.contact, migration 10); a contact that is not a string is refused.
TEST_F(PolicyJsonTest, AnAgentsContactTravelsInThePolicyDocument) {
  ASSERT_TRUE(store_->admin()
                  .CreateAgent({.owner = "carol",
                                .name = "reporter",
                                .id = "agt_contacted",
                                .contact = "reports@example.com"})
                  .ok());
  ASSERT_TRUE(
      store_->admin().CreateAgent({.owner = "carol", .name = "plain", .id = "agt_plain"}).ok());
  const std::string exported = Export(*store_);
  EXPECT_THAT(exported, HasSubstr("\"contact\":\"reports@example.com\""));
  std::unique_ptr<SqliteStore> other = OpenTestStore(FreshDatabasePath("contacted"), clock_);
  ASSERT_TRUE(ImportPolicyJson(other->admin(), exported).ok());
  EXPECT_EQ(other->admin().GetAgent("agt_contacted")->contact, "reports@example.com");
  EXPECT_EQ(other->admin().GetAgent("agt_plain")->contact, "");
  EXPECT_EQ(Export(*other), exported);

  std::string not_text = exported;
  absl::StrReplaceAll({{"\"contact\":\"reports@example.com\"", "\"contact\":7"}}, &not_text);
  std::unique_ptr<SqliteStore> third = OpenTestStore(FreshDatabasePath("not-text"), clock_);
  absl::StatusOr<ImportCounts> refused = ImportPolicyJson(third->admin(), not_text);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("contact"));
}

// Rules a new grant must pass (decision/new_grant_rules.h) came after some policies were stored:
// such a policy still imports, and exports the same, so an upgrade or a restore never fails.
TEST_F(PolicyJsonTest, APolicyStoredBeforeTheNewGrantRulesStillImports) {
  constexpr char kOlderPolicy[] = R"json({
    "version": 1,
    "agents": [{"id": "agt_a", "owner": "o", "name": "n", "kind": "autonomous",
                "status": "active",
                "token_sha256": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}],
    "permissions": [
      {"id": "perm_stars", "agent_id": "agt_a", "resource": "docs:secret:**", "actions": ["*"],
       "effect": "deny", "constraints": {}},
      {"id": "perm_timed_deny", "agent_id": "agt_a", "resource": "docs:*", "actions": ["write"],
       "effect": "deny", "constraints": {"ip_allowlist": ["10.0.0.0/8"]}},
      {"id": "perm_escaped", "agent_id": "agt_a", "resource": "/docs/caf%C3%A9/*",
       "actions": ["GET"], "effect": "allow", "constraints": {}}
    ],
    "delegations": []
  })json";
  absl::StatusOr<ImportCounts> imported = ImportPolicyJson(store_->admin(), kOlderPolicy);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->permissions, 3);
  EXPECT_EQ(Parsed(Export(*store_)), Parsed(kOlderPolicy));
}

// The admin plane refuses the link that would close a cycle, but a policy stored before that
// rule may hold one: it imports (so an export always restores), and the engine never follows
// a cycle (decision/engine.cc walks each agent once per path).
TEST_F(PolicyJsonTest, ACycleStoredEarlierStillImports) {
  constexpr char kPolicy[] = R"({"version": 1, "agents": [
      {"id": "agt_a", "owner": "o", "name": "n"}, {"id": "agt_b", "owner": "o", "name": "n"}],
      "permissions": [{"id": "perm_a", "agent_id": "agt_a", "resource": "r", "actions": ["a"]}],
      "delegations": [
      {"id": "dlg_ab", "from_agent_id": "agt_a", "to_agent_id": "agt_b",
       "permissions": [{"resource": "r", "actions": ["a"]}]},
      {"id": "dlg_ba", "from_agent_id": "agt_b", "to_agent_id": "agt_a",
       "permissions": [{"resource": "r", "actions": ["a"]}]}]})";
  absl::StatusOr<ImportCounts> imported = ImportPolicyJson(store_->admin(), kPolicy);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->delegations, 2);
}

TEST_F(PolicyJsonTest, ImportedAgentIsLiveForTheDecisionPath) {
  ASSERT_TRUE(ImportPolicyJson(store_->admin(), kFullPolicy).ok());
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store_->BeginRead();
  ASSERT_TRUE(snapshot.ok());
  std::optional<Agent> owner = *(*snapshot)->FindAgent("agt_owner");
  ASSERT_TRUE(owner.has_value());
  EXPECT_EQ(owner->expires_at, absl::FromUnixMicros(1893553445123456));
  EXPECT_EQ((*(*snapshot)->PermissionsOf("agt_owner")).size(), 2u);
  EXPECT_EQ((*(*snapshot)->ActiveDelegationsInto("agt_helper", clock_.Now())).size(), 1u);
  EXPECT_TRUE((*(*snapshot)->ActiveDelegationsInto("agt_gone", clock_.Now())).empty());
}

TEST_F(PolicyJsonTest, PlaintextTokenIsHashedOnImport) {
  ASSERT_TRUE(ImportPolicyJson(store_->admin(), absl::StrCat(R"({"version": 1, "agents": [
      {"id": "agt_demo", "owner": "demo", "name": "demo", "token": ")",
                                                             kToken, R"("}]})"))
                  .ok());
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store_->BeginRead();
  std::optional<Agent> agent = *(*snapshot)->FindAgentByTokenHash(Sha256(kToken), clock_.Now());
  ASSERT_TRUE(agent.has_value());
  EXPECT_EQ(agent->id, "agt_demo");
  EXPECT_EQ(agent->token_prefix, "vdt_AAAAAAAA");
  snapshot->reset();
  const JsonValue exported = Parsed(Export(*store_));
  EXPECT_EQ(exported.Find("agents")->as_array()[0].Find("token_sha256")->as_string(),
            HexEncode(Sha256(kToken)));
  EXPECT_EQ(exported.Find("agents")->as_array()[0].Find("token"), nullptr);
}

TEST_F(PolicyJsonTest, OmittedFieldsTakeTheirDefaults) {
  ASSERT_TRUE(ImportPolicyJson(store_->admin(), R"({"version": 1,
      "agents": [{"id": "agt_a", "owner": "o", "name": "a"},
                 {"id": "agt_b", "owner": "o", "name": "b"}],
      "permissions": [{"id": "perm_1", "agent_id": "agt_a", "resource": "x", "actions": ["y"]}],
      "delegations": [{"id": "dlg_1", "from_agent_id": "agt_a", "to_agent_id": "agt_b",
                       "permissions": [{"resource": "x", "actions": ["y"]}]}]})")
                  .ok());
  const JsonValue exported = Parsed(Export(*store_));
  const JsonValue& agent = exported.Find("agents")->as_array()[0];
  EXPECT_EQ(agent.Find("kind")->as_string(), "autonomous");
  EXPECT_EQ(agent.Find("status")->as_string(), "active");
  EXPECT_EQ(agent.Find("expires_at"), nullptr);
  const JsonValue& permission = exported.Find("permissions")->as_array()[0];
  EXPECT_EQ(permission.Find("effect")->as_string(), "allow");
  EXPECT_EQ(CanonicalJson(*permission.Find("constraints")), "{}");
  const JsonValue& delegation = exported.Find("delegations")->as_array()[0];
  EXPECT_EQ(delegation.Find("max_depth")->as_number(), 1);
  EXPECT_EQ(delegation.Find("status")->as_string(), "active");
}

struct RefusalCase {
  const char* what;
  const char* json;
  const char* message;
};

TEST_F(PolicyJsonTest, MalformedDocumentsAreRefusedAndChangeNothing) {
  const std::vector<RefusalCase> cases = {
      {"not JSON", "{", "policy"},
      {"no version", R"({"agents": []})", "version"},
      {"future version", R"({"version": 2})", "version: must be 1"},
      {"unknown top-level key", R"({"version": 1, "roles": []})", "unknown key \"roles\""},
      {"revoked token id without its expiry",
       R"({"version": 1, "revoked_token_ids": [{"jti": "j1"}]})",
       "revoked_token_ids[0].expires_at"},
      {"revoked token id twice", R"({"version": 1, "revoked_token_ids": [
         {"jti": "j1", "expires_at": "2030-01-01T00:00:00Z"},
         {"jti": "j1", "expires_at": "2030-01-01T00:00:00Z"}]})",
       "revoked_token_ids[1].jti: j1 appears twice"},
      {"revoked token id unprintable", R"({"version": 1, "revoked_token_ids": [
         {"jti": "caf\u00e9", "expires_at": "2030-01-01T00:00:00Z"}]})",
       "revoked_token_ids[0].jti"},
      {"agents not an array", R"({"version": 1, "agents": {}})", "agents: must be an array"},
      {"agent without owner", R"({"version": 1, "agents": [{"id": "agt_a", "name": "n"}]})",
       "agents[0].owner: is required"},
      {"typo in an agent", R"({"version": 1, "agents": [{"id": "agt_a", "owner": "o",
         "name": "n", "stauts": "active"}]})",
       "unknown key \"stauts\""},
      {"bad kind", R"({"version": 1, "agents": [{"id": "agt_a", "owner": "o", "name": "n",
         "kind": "robot"}]})",
       "agents[0].kind"},
      {"bad time", R"({"version": 1, "agents": [{"id": "agt_a", "owner": "o", "name": "n",
         "expires_at": "tomorrow"}]})",
       "agents[0].expires_at: not an RFC 3339 time"},
      {"token and hash", R"({"version": 1, "agents": [{"id": "agt_a", "owner": "o", "name": "n",
         "token": "vdt_x", "token_sha256": "00"}]})",
       "not both"},
      {"malformed token", R"({"version": 1, "agents": [{"id": "agt_a", "owner": "o", "name": "n",
         "token": "secret"}]})",
       "agents[0].token"},
      {"short hash", R"({"version": 1, "agents": [{"id": "agt_a", "owner": "o", "name": "n",
         "token_sha256": "abcd"}]})",
       "64 hex"},
      {"previous token without its expiry", R"({"version": 1, "agents": [{"id": "agt_a",
         "owner": "o", "name": "n",
         "previous_token_sha256": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}]})",
       "go together"},
      {"previous token equal to the current one", R"({"version": 1, "agents": [{"id": "agt_a",
         "owner": "o", "name": "n",
         "token_sha256": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
         "previous_token_sha256": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
         "previous_token_expires_at": "2030-01-01T00:00:00Z"}]})",
       "its previous token"},
      {"bad agent id", R"({"version": 1, "agents": [{"id": "a", "owner": "o", "name": "n"}]})",
       "agents[0].id"},
      // Times an export would not write back the same.
      {"infinite time", R"({"version": 1, "agents": [{"id": "agt_a", "owner": "o", "name": "n",
         "expires_at": "infinite-future"}]})",
       "agents[0].expires_at: must be a time of the years 0001 to 9999"},
      {"infinitely past", R"({"version": 1, "agents": [{"id": "agt_a", "owner": "o", "name": "n",
         "expires_at": "infinite-past"}]})",
       "agents[0].expires_at: must be a time"},
      {"year 300000", R"({"version": 1, "agents": [{"id": "agt_a", "owner": "o", "name": "n",
         "expires_at": "300000-01-01T00:00:00Z"}]})",
       "agents[0].expires_at: must be a time"},
      {"below a microsecond", R"({"version": 1, "agents": [{"id": "agt_a", "owner": "o",
         "name": "n", "expires_at": "2030-01-01T00:00:00.0000005Z"}]})",
       "whole microseconds"},
      {"malformed token prefix", R"({"version": 1, "agents": [{"id": "agt_a", "owner": "o",
         "name": "n", "token_sha256":
         "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
         "token_prefix": "vdt_!!!!!!!!"}]})",
       "agents[0].token_prefix"},
      {"token prefix beside a token", R"({"version": 1, "agents": [{"id": "agt_a", "owner": "o",
         "name": "n", "token": "vdt_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
         "token_prefix": "vdt_AAAAAAAA"}]})",
       "agents[0].token_prefix: goes with token_sha256"},
      {"duplicate agent", R"({"version": 1, "agents": [{"id": "agt_a", "owner": "o", "name": "n"},
         {"id": "agt_a", "owner": "o", "name": "n"}]})",
       "appears twice"},
      {"permission of nobody", R"({"version": 1, "permissions": [{"id": "perm_1",
         "agent_id": "agt_x", "resource": "r", "actions": ["a"]}]})",
       "no agent agt_x"},
      {"bad action", R"({"version": 1, "agents": [{"id": "agt_a", "owner": "o", "name": "n"}],
         "permissions": [{"id": "perm_1", "agent_id": "agt_a", "resource": "r",
         "actions": ["a b"]}]})",
       "permissions[0].action"},
      {"bad constraints", R"({"version": 1, "agents": [{"id": "agt_a", "owner": "o", "name": "n"}],
         "permissions": [{"id": "perm_1", "agent_id": "agt_a", "resource": "r", "actions": ["a"],
         "constraints": {"rate_limit": {"max_calls": 0, "window_seconds": 1}}}]})",
       "permissions[0].constraints"},
      {"delegation to nobody", R"({"version": 1, "agents": [{"id": "agt_a", "owner": "o",
         "name": "n"}], "delegations": [{"id": "dlg_1", "from_agent_id": "agt_a",
         "to_agent_id": "agt_x", "permissions": [{"resource": "r", "actions": ["a"]}]}]})",
       "no agent agt_x"},
      {"fractional depth", R"({"version": 1, "delegations": [{"id": "dlg_1",
         "from_agent_id": "agt_a", "to_agent_id": "agt_b", "max_depth": 1.5,
         "permissions": [{"resource": "r", "actions": ["a"]}]}]})",
       "max_depth: must be an integer"},
      {"zero depth", R"({"version": 1, "agents": [{"id": "agt_a", "owner": "o", "name": "n"},
         {"id": "agt_b", "owner": "o", "name": "n"}], "delegations": [{"id": "dlg_1",
         "from_agent_id": "agt_a", "to_agent_id": "agt_b", "max_depth": 0,
         "permissions": [{"resource": "r", "actions": ["a"]}]}]})",
       "delegations[0].max_depth"},
  };
  for (const RefusalCase& c : cases) {
    absl::StatusOr<ImportCounts> imported = ImportPolicyJson(store_->admin(), c.json);
    EXPECT_EQ(imported.status().code(), absl::StatusCode::kInvalidArgument) << c.what;
    EXPECT_THAT(imported.status().message(), HasSubstr(c.message)) << c.what;
    EXPECT_TRUE(*store_->admin().IsEmpty()) << c.what;
  }
}

TEST_F(PolicyJsonTest, ImportIntoAStoreThatHoldsAPolicyIsRefused) {
  ASSERT_TRUE(store_->admin().CreateAgent({.owner = "o", .name = "n", .id = "agt_existing"}).ok());
  absl::StatusOr<ImportCounts> imported = ImportPolicyJson(store_->admin(), kFullPolicy);
  EXPECT_EQ(imported.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(imported.status().message(), HasSubstr("empty"));
  EXPECT_EQ(store_->admin().GetAgent("agt_owner").status().code(), absl::StatusCode::kNotFound);
}

// What a policy file (`verdict policy apply`) declares: an agent, its permission, and a delegation
// to a second agent.
constexpr char kManagedPolicy[] = R"json({"version": 1,
  "agents": [{"id": "agt_docs", "owner": "ops", "name": "docs"},
             {"id": "agt_docs_helper", "owner": "ops", "name": "helper"}],
  "permissions": [{"id": "perm_docs", "agent_id": "agt_docs", "resource": "docs:*",
                   "actions": ["read"]}],
  "delegations": [{"id": "dlg_docs", "from_agent_id": "agt_docs", "to_agent_id": "agt_docs_helper",
                   "permissions": [{"resource": "docs:1", "actions": ["read"]}]}]})json";

// An apply records which file manages each object (schema version 14's managed_by). A backup
// keeps that: after a restore, the file's next apply finds its own objects ("no changes"), and
// what was created at run time stays out of every file's reach.
TEST_F(PolicyJsonTest, WhichPolicyFileManagesAnObjectTravelsThroughExportAndImport) {
  absl::StatusOr<PolicyContents> declared = PolicyFromJson(kManagedPolicy);
  ASSERT_TRUE(declared.ok()) << declared.status();
  const DeclaredPolicy file{"team-docs", *declared, nullptr};
  absl::StatusOr<AppliedPolicy> applied = store_->admin().ApplyPolicy(file, /*dry_run=*/false);
  ASSERT_TRUE(applied.ok()) << applied.status();
  ASSERT_TRUE(store_->admin().CreateAgent({.owner = "o", .name = "n", .id = "agt_minted"}).ok());
  ASSERT_TRUE(store_->admin()
                  .GrantPermission({.agent_id = "agt_docs",
                                    .resource = "docs:run-time",
                                    .actions = {"read"},
                                    .id = "perm_run_time"})
                  .ok());

  const std::string exported = Export(*store_);
  const JsonValue document = Parsed(exported);
  for (const auto& [list, index, manager] : std::vector<std::tuple<std::string, int, std::string>>{
           {"agents", 0, "team-docs"},
           {"agents", 1, "team-docs"},
           {"agents", 2, ""},  // agt_minted
           {"permissions", 0, "team-docs"},
           {"permissions", 1, ""},  // perm_run_time
           {"delegations", 0, "team-docs"}}) {
    const JsonValue& object = document.Find(list)->as_array()[index];
    const JsonValue* managed_by = object.Find("managed_by");
    if (manager.empty()) {
      EXPECT_EQ(managed_by, nullptr) << list << "[" << index << "]: written only when managed";
    } else {
      ASSERT_NE(managed_by, nullptr) << list << "[" << index << "]";
      EXPECT_EQ(managed_by->as_string(), manager) << list << "[" << index << "]";
    }
  }

  std::unique_ptr<SqliteStore> restored = OpenTestStore(FreshDatabasePath("restored"), clock_);
  ASSERT_NE(restored, nullptr);
  absl::StatusOr<ImportCounts> imported = ImportPolicyJson(restored->admin(), exported);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(Export(*restored), exported);
  absl::StatusOr<AppliedPolicy> again = restored->admin().ApplyPolicy(file, /*dry_run=*/false);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->steps.empty());
  // The run-time agent is still no file's to take.
  absl::StatusOr<PolicyContents> taking = PolicyFromJson(
      R"json({"version": 1, "agents": [{"id": "agt_minted", "owner": "o", "name": "n"}]})json");
  ASSERT_TRUE(taking.ok()) << taking.status();
  EXPECT_EQ(restored->admin()
                .ApplyPolicy(DeclaredPolicy{"team-docs", *taking, nullptr}, /*dry_run=*/true)
                .status()
                .code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(PolicyJsonTest, AManagerThatIsNoPolicyNameIsRefused) {
  for (const auto& [json, message] : std::vector<std::pair<std::string, std::string>>{
           {R"json({"version": 1, "agents": [{"id": "agt_a", "owner": "o", "name": "n",
                                               "managed_by": "two words"}]})json",
            "agents[0].managed_by: may hold only"},
           {R"json({"version": 1, "agents": [{"id": "agt_a", "owner": "o", "name": "n",
                                               "managed_by": ""}]})json",
            "agents[0].managed_by: must be 1 to 64 characters"},
           {R"json({"version": 1, "agents": [{"id": "agt_a", "owner": "o", "name": "n"}],
                    "permissions": [{"id": "perm_a", "agent_id": "agt_a", "resource": "r",
                                     "actions": ["read"], "managed_by": 7}]})json",
            "permissions[0].managed_by: must be a string"},
       }) {
    absl::StatusOr<ImportCounts> imported = ImportPolicyJson(store_->admin(), json);
    EXPECT_EQ(imported.status().code(), absl::StatusCode::kInvalidArgument) << json;
    EXPECT_THAT(imported.status().message(), HasSubstr(message)) << json;
    EXPECT_TRUE(*store_->admin().IsEmpty()) << json;
  }
}

}  // namespace
}  // namespace verdict
