// What a new row holds: the agent, permission and delegation rows an admin call creates and the
// rows ImportPolicy writes, with their defaults, derived fields and checks.
#include "decision/admin/new_rows.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "crypto/sha256.h"
#include "crypto/token.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

const absl::Time kNow = absl::FromUnixSeconds(1767225600);
const std::string kDrawnToken = "vdt_" + std::string(43, 'A');

// Hands out fixed values in place of the CSPRNG, and counts them.
class FixedRandomness : public RowRandomness {
 public:
  std::string NewId(absl::string_view prefix) override {
    return absl::StrCat(prefix, "drawn", ++ids_drawn);
  }
  std::string NewAgentToken() override {
    ++tokens_drawn;
    return kDrawnToken;
  }
  std::string RandomBytes(size_t n) override {
    return std::string(n, static_cast<char>('a' + bytes_drawn++));
  }
  int ids_drawn = 0;
  int tokens_drawn = 0;
  int bytes_drawn = 0;
};

NewAgent Reader() { return {.owner = "ops", .name = "reader"}; }

NewPermission ReadDocs(std::string agent_id) {
  return {.agent_id = std::move(agent_id), .resource = "docs:*", .actions = {"read"}};
}

NewDelegation LendDocs(std::string from, std::string to) {
  return {.from_agent_id = std::move(from),
          .to_agent_id = std::move(to),
          .permissions = {{.resource = "docs:*", .actions = {"read"}}}};
}

StoredAgent Stored(std::string id, std::string token_sha256) {
  StoredAgent stored;
  stored.agent = {.id = std::move(id), .owner = "ops", .name = "reader"};
  stored.token_sha256 = std::move(token_sha256);
  return stored;
}

const std::string kHash1(kTokenHashBytes, '1');
const std::string kHash2(kTokenHashBytes, '2');

TEST(NewRows, ANewAgentIsActiveWithANewTokenOfWhichItKeepsOnlyThePrefixAndTheHash) {
  FixedRandomness randomness;
  absl::StatusOr<AgentToCreate> created = NewAgentRow(Reader(), kNow, randomness);
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(created->token, kDrawnToken);
  EXPECT_EQ(created->token_sha256, Sha256(kDrawnToken));
  EXPECT_EQ(created->agent.token_prefix, TokenDisplayPrefix(kDrawnToken));
  EXPECT_EQ(created->agent.status, AgentStatus::kActive);
  EXPECT_EQ(created->agent.owner, "ops");
  EXPECT_EQ(created->agent.name, "reader");
  EXPECT_EQ(created->agent.expires_at, absl::InfiniteFuture());
}

TEST(NewRows, ANewRowIsCreatedAndUpdatedNow) {
  FixedRandomness randomness;
  absl::StatusOr<AgentToCreate> agent = NewAgentRow(Reader(), kNow, randomness);
  ASSERT_TRUE(agent.ok()) << agent.status();
  EXPECT_EQ(agent->agent.created_at, kNow);
  EXPECT_EQ(agent->agent.updated_at, kNow);
  absl::StatusOr<Permission> permission = NewPermissionRow(ReadDocs("agt_1"), kNow, randomness);
  ASSERT_TRUE(permission.ok()) << permission.status();
  EXPECT_EQ(permission->created_at, kNow);
  absl::StatusOr<Delegation> delegation =
      NewDelegationRow(LendDocs("agt_1", "agt_2"), kNow, randomness);
  ASSERT_TRUE(delegation.ok()) << delegation.status();
  EXPECT_EQ(delegation->created_at, kNow);
}

TEST(NewRows, ANewRowTakesTheIdItsCallerChoseOrARandomOneOfItsKind) {
  FixedRandomness randomness;
  NewAgent chosen = Reader();
  chosen.id = "agt_mine";
  EXPECT_EQ(NewAgentRow(chosen, kNow, randomness)->agent.id, "agt_mine");
  EXPECT_EQ(randomness.ids_drawn, 0);
  EXPECT_EQ(NewAgentRow(Reader(), kNow, randomness)->agent.id, "agt_drawn1");
  EXPECT_EQ(NewPermissionRow(ReadDocs("agt_1"), kNow, randomness)->id, "perm_drawn2");
  EXPECT_EQ(NewDelegationRow(LendDocs("agt_1", "agt_2"), kNow, randomness)->id, "dlg_drawn3");
}

TEST(NewRows, AChosenIdMustCarryItsKindsPrefix) {
  FixedRandomness randomness;
  NewAgent agent = Reader();
  agent.id = "perm_1";
  EXPECT_EQ(NewAgentRow(agent, kNow, randomness).status().code(),
            absl::StatusCode::kInvalidArgument);
  NewPermission permission = ReadDocs("agt_1");
  permission.id = "agt_1";
  EXPECT_EQ(NewPermissionRow(permission, kNow, randomness).status().code(),
            absl::StatusCode::kInvalidArgument);
  NewDelegation delegation = LendDocs("agt_1", "agt_2");
  delegation.id = "agt_1";
  EXPECT_EQ(NewDelegationRow(delegation, kNow, randomness).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(NewRows, ANewAgentNeedsAnOwnerAndANameOfDisplayText) {
  FixedRandomness randomness;
  NewAgent agent = Reader();
  agent.owner = "";
  absl::Status refused = NewAgentRow(agent, kNow, randomness).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr("owner"));
  agent = Reader();
  agent.name = "tab\there";
  refused = NewAgentRow(agent, kNow, randomness).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr("name"));
}

TEST(NewRows, ANewAgentOrDelegationExpiresAfterNow) {
  FixedRandomness randomness;
  NewAgent agent = Reader();
  agent.expires_at = kNow + absl::Seconds(1);
  EXPECT_TRUE(NewAgentRow(agent, kNow, randomness).ok());
  agent.expires_at = kNow;
  absl::Status refused = NewAgentRow(agent, kNow, randomness).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.message(), "expires_at: is in the past");
  NewDelegation delegation = LendDocs("agt_1", "agt_2");
  delegation.expires_at = kNow - absl::Hours(1);
  refused = NewDelegationRow(delegation, kNow, randomness).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.message(), "expires_at: is in the past");
}

TEST(NewRows, ANewGrantMustMeanWhatItReads) {
  FixedRandomness randomness;
  NewPermission permission = ReadDocs("agt_1");
  permission.resource = "docs:secret:**";
  EXPECT_EQ(NewPermissionRow(permission, kNow, randomness).status().code(),
            absl::StatusCode::kInvalidArgument);
  NewDelegation delegation = LendDocs("agt_1", "agt_2");
  delegation.permissions.push_back({.resource = "docs:secret:**", .actions = {"read"}});
  absl::Status refused = NewDelegationRow(delegation, kNow, randomness).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr("permissions[1]."));
}

TEST(NewRows, ANewDelegationIsActiveAndLendsToAnotherAgent) {
  FixedRandomness randomness;
  absl::StatusOr<Delegation> delegation =
      NewDelegationRow(LendDocs("agt_1", "agt_2"), kNow, randomness);
  ASSERT_TRUE(delegation.ok()) << delegation.status();
  EXPECT_EQ(delegation->status, DelegationStatus::kActive);
  EXPECT_EQ(delegation->max_depth, 1);
  absl::Status refused = NewDelegationRow(LendDocs("agt_1", "agt_1"), kNow, randomness).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr("cannot delegate to itself"));
}

TEST(NewRows, AnEnumValueOutsideItsRangeIsRefused) {
  EXPECT_TRUE(CheckAgentStatus(AgentStatus::kSuspended).ok());
  EXPECT_EQ(CheckAgentStatus(static_cast<AgentStatus>(99)).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(CheckApprovalStatus(ApprovalStatus::kPending).ok());
  EXPECT_EQ(CheckApprovalStatus(static_cast<ApprovalStatus>(99)).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(PolicyRows, EveryImportedRowIsCreatedNow) {
  FixedRandomness randomness;
  PolicyContents policy;
  policy.agents = {Stored("agt_1", kHash1), Stored("agt_2", kHash2)};
  policy.permissions = {
      {.id = "perm_1", .agent_id = "agt_1", .resource = "docs:*", .actions = {"read"}}};
  policy.delegations = {{.id = "dlg_1",
                         .from_agent_id = "agt_1",
                         .to_agent_id = "agt_2",
                         .permissions = {{.resource = "docs:*", .actions = {"read"}}},
                         .max_depth = 1}};
  absl::StatusOr<PolicyRows> rows = NewPolicyRows(policy, kNow, randomness);
  ASSERT_TRUE(rows.ok()) << rows.status();
  for (const StoredAgent& stored : rows->agents) {
    EXPECT_EQ(stored.agent.created_at, kNow);
    EXPECT_EQ(stored.agent.updated_at, kNow);
  }
  EXPECT_EQ(rows->permissions[0].created_at, kNow);
  EXPECT_EQ(rows->delegations[0].created_at, kNow);
}

TEST(PolicyRows, AnImportedAgentWithoutATokenGetsARandomHashNothingCanMatch) {
  FixedRandomness randomness;
  PolicyContents policy;
  policy.agents = {Stored("agt_1", "")};
  absl::StatusOr<PolicyRows> rows = NewPolicyRows(policy, kNow, randomness);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(rows->agents[0].token_sha256, std::string(kTokenHashBytes, 'a'));
  EXPECT_EQ(randomness.bytes_drawn, 1);
}

TEST(PolicyRows, ATokenHashIsThirtyTwoBytesAndNeverShared) {
  FixedRandomness randomness;
  PolicyContents policy;
  policy.agents = {Stored("agt_1", "short")};
  EXPECT_THAT(NewPolicyRows(policy, kNow, randomness).status().message(),
              HasSubstr("agents[0].token_sha256: must be 32 bytes"));
  policy.agents = {Stored("agt_1", kHash1), Stored("agt_2", kHash1)};
  EXPECT_THAT(NewPolicyRows(policy, kNow, randomness).status().message(),
              HasSubstr("agents[1]: has the same token as an earlier agent"));
  policy.agents = {Stored("agt_1", kHash1), Stored("agt_2", kHash2)};
  policy.agents[1].previous_token_sha256 = kHash1;
  policy.agents[1].previous_token_expires_at = kNow + absl::Hours(1);
  EXPECT_THAT(NewPolicyRows(policy, kNow, randomness).status().message(),
              HasSubstr("agents[1]: its previous token is a token of this or an earlier agent"));
}

TEST(PolicyRows, APreviousTokenNeedsAnExpiry) {
  FixedRandomness randomness;
  PolicyContents policy;
  policy.agents = {Stored("agt_1", kHash1)};
  policy.agents[0].previous_token_sha256 = kHash2;
  policy.agents[0].previous_token_expires_at = kNow + absl::Hours(1);
  EXPECT_TRUE(NewPolicyRows(policy, kNow, randomness).ok());
  policy.agents[0].previous_token_expires_at = absl::InfiniteFuture();
  absl::Status refused = NewPolicyRows(policy, kNow, randomness).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr("agents[0].previous_token_expires_at"));
}

TEST(PolicyRows, IdsAreUniqueAndEveryAgentARowNamesIsInThePolicy) {
  FixedRandomness randomness;
  PolicyContents policy;
  policy.agents = {Stored("agt_1", kHash1), Stored("agt_1", kHash2)};
  EXPECT_THAT(NewPolicyRows(policy, kNow, randomness).status().message(),
              HasSubstr("agents[1].id: agt_1 appears twice"));
  policy.agents = {Stored("agt_1", kHash1)};
  policy.permissions = {
      {.id = "perm_1", .agent_id = "agt_9", .resource = "docs:*", .actions = {"read"}}};
  EXPECT_THAT(NewPolicyRows(policy, kNow, randomness).status().message(),
              HasSubstr("permissions[0].agent_id: no agent agt_9 in the policy"));
  policy.permissions.clear();
  policy.delegations = {{.id = "dlg_1",
                         .from_agent_id = "agt_1",
                         .to_agent_id = "agt_9",
                         .permissions = {{.resource = "docs:*", .actions = {"read"}}},
                         .max_depth = 1}};
  EXPECT_THAT(NewPolicyRows(policy, kNow, randomness).status().message(),
              HasSubstr("delegations[0]: no agent agt_9 in the policy"));
}

TEST(PolicyRows, AnImportKeepsAGrantStoredBeforeTheNewGrantRules) {
  FixedRandomness randomness;
  PolicyContents policy;
  policy.agents = {Stored("agt_1", kHash1)};
  policy.permissions = {
      {.id = "perm_1", .agent_id = "agt_1", .resource = "docs:secret:**", .actions = {"read"}}};
  EXPECT_TRUE(NewPolicyRows(policy, kNow, randomness).ok());
}

TEST(PolicyRows, ARevokedTokenIdIsUniqueAndCarriesItsTokensExpiry) {
  FixedRandomness randomness;
  PolicyContents policy;
  policy.revoked_token_ids = {{"jti-1", kNow + absl::Hours(1)}};
  EXPECT_TRUE(NewPolicyRows(policy, kNow, randomness).ok());
  policy.revoked_token_ids = {{"jti-1", kNow}, {"jti-1", kNow}};
  EXPECT_THAT(NewPolicyRows(policy, kNow, randomness).status().message(),
              HasSubstr("revoked_token_ids[1].jti: jti-1 appears twice"));
  policy.revoked_token_ids = {{"jti-1", absl::InfiniteFuture()}};
  EXPECT_THAT(NewPolicyRows(policy, kNow, randomness).status().message(),
              HasSubstr("revoked_token_ids[0].expires_at"));
}

}  // namespace
}  // namespace verdict
