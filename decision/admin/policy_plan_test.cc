// What applying a policy file changes: the declared objects against the managed ones.
#include "decision/admin/policy_plan.h"

#include "crypto/sha256.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

StoredAgent AgentRow(const std::string& id) {
  StoredAgent stored;
  stored.agent = {.id = id, .owner = "alice", .name = "bot"};
  return stored;
}

Permission PermissionRow(const std::string& id, std::vector<std::string> actions = {"read"}) {
  return {.id = id, .agent_id = "agt_a", .resource = "docs:*", .actions = std::move(actions)};
}

Delegation DelegationRow(const std::string& id, int max_depth = 1) {
  return {.id = id,
          .from_agent_id = "agt_a",
          .to_agent_id = "agt_b",
          .permissions = {{.resource = "docs:1", .actions = {"read"}, .constraints_json = "{}"}},
          .max_depth = max_depth};
}

// A policy of agents agt_a and agt_b, permission perm_a and delegation dlg_a.
PolicyContents Policy() {
  PolicyContents policy;
  policy.agents = {AgentRow("agt_a"), AgentRow("agt_b")};
  policy.permissions = {PermissionRow("perm_a")};
  policy.delegations = {DelegationRow("dlg_a")};
  return policy;
}

std::string Plan(const PolicyContents& declared, const PolicyContents& managed) {
  absl::StatusOr<std::vector<PlanStep>> steps = PlanPolicy(declared, managed);
  EXPECT_TRUE(steps.ok()) << steps.status();
  return steps.ok() ? PlanText(*steps) : "";
}

TEST(PolicyPlan, WhatTheStoreAlreadyHoldsIsNoChange) {
  EXPECT_THAT(*PlanPolicy(Policy(), Policy()), IsEmpty());
  EXPECT_EQ(Plan(Policy(), Policy()), "no changes\n");
}

TEST(PolicyPlan, EveryDeclaredObjectTheStoreLacksIsCreatedAgentsFirst) {
  EXPECT_EQ(Plan(Policy(), PolicyContents()),
            "+ create agent agt_a\n"
            "+ create agent agt_b\n"
            "+ create permission perm_a\n"
            "+ create delegation dlg_a\n");
}

TEST(PolicyPlan, EveryManagedObjectTheFileNoLongerDeclaresIsDeletedAgentsLast) {
  EXPECT_EQ(Plan(PolicyContents(), Policy()),
            "- delete delegation dlg_a\n"
            "- delete permission perm_a\n"
            "- delete agent agt_a\n"
            "- delete agent agt_b\n");
}

TEST(PolicyPlan, AnAgentChangesInPlaceFieldByField) {
  PolicyContents declared = Policy();
  declared.agents[0].agent.status = AgentStatus::kSuspended;
  declared.agents[0].agent.owner = "bob";
  declared.agents[0].agent.contact = "#oncall";
  declared.agents[0].agent.expires_at = absl::FromUnixSeconds(1893456000);
  EXPECT_EQ(Plan(declared, Policy()),
            "~ change agent agt_a: owner alice -> bob, status active -> suspended, expires_at "
            "never -> 2030-01-01T00:00:00Z, contact \"\" -> #oncall\n");
}

TEST(PolicyPlan, AnAgentsTokenChangesOnlyWhenTheFileGivesItsHash) {
  PolicyContents managed = Policy();
  managed.agents[0].token_sha256 = Sha256("old token");
  PolicyContents declared = Policy();  // no token_sha256: the token is left alone
  EXPECT_EQ(Plan(declared, managed), "no changes\n");
  declared.agents[0].token_sha256 = Sha256("new token");
  absl::StatusOr<std::vector<PlanStep>> steps = PlanPolicy(declared, managed);
  ASSERT_TRUE(steps.ok());
  ASSERT_EQ(steps->size(), 1u);
  EXPECT_EQ((*steps)[0].action, PlanAction::kChange);
  EXPECT_EQ((*steps)[0].changes[0].field, "token_sha256");
  declared.agents[0].token_sha256 = managed.agents[0].token_sha256;
  EXPECT_EQ(Plan(declared, managed), "no changes\n");
}

TEST(PolicyPlan, ARevokedAgentStaysRevoked) {
  PolicyContents managed = Policy();
  managed.agents[0].agent.status = AgentStatus::kRevoked;
  absl::StatusOr<std::vector<PlanStep>> steps = PlanPolicy(Policy(), managed);
  EXPECT_EQ(steps.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(steps.status().message(), HasSubstr("revocation is final"));
}

TEST(PolicyPlan, APermissionChangesInPlaceKeepingItsId) {
  PolicyContents declared = Policy();
  declared.permissions[0].actions = {"read", "write"};
  declared.permissions[0].constraints_json = R"({"rate_limit":{"max_calls":5,"window_seconds":1}})";
  EXPECT_EQ(Plan(declared, Policy()),
            "~ change permission perm_a: actions [read] -> [read, write], constraints {} -> "
            "{\"rate_limit\":{\"max_calls\":5,\"window_seconds\":1}}\n");
}

TEST(PolicyPlan, NoConstraintsAndEmptyConstraintsAreTheSame) {
  PolicyContents declared = Policy();
  declared.permissions[0].constraints_json = "{}";
  EXPECT_EQ(Plan(declared, Policy()), "no changes\n");
}

TEST(PolicyPlan, ADelegationIsReplacedNeverChangedInPlace) {
  PolicyContents declared = Policy();
  declared.delegations[0].max_depth = 2;
  declared.delegations[0].permissions[0].actions = {"read", "list"};
  absl::StatusOr<std::vector<PlanStep>> steps = PlanPolicy(declared, Policy());
  ASSERT_TRUE(steps.ok());
  ASSERT_EQ(steps->size(), 1u);
  EXPECT_EQ((*steps)[0].action, PlanAction::kReplace);
  EXPECT_EQ(PlanText(*steps),
            "-/+ replace delegation dlg_a: permissions [docs:1 [read]] -> [docs:1 [read, list]], "
            "max_depth 1 -> 2\n");
}

TEST(PolicyPlan, StepsRunDeletionsOfLinksFirstThenAgentsPermissionsDelegationsThenAgentDeletions) {
  PolicyContents managed = Policy();
  managed.agents.push_back(AgentRow("agt_old"));
  managed.permissions.push_back(PermissionRow("perm_old"));
  managed.delegations.push_back(DelegationRow("dlg_old"));
  PolicyContents declared = Policy();
  declared.agents.push_back(AgentRow("agt_new"));
  declared.permissions.push_back(PermissionRow("perm_new"));
  declared.delegations.push_back(DelegationRow("dlg_new"));
  absl::StatusOr<std::vector<PlanStep>> steps = PlanPolicy(declared, managed);
  ASSERT_TRUE(steps.ok());
  std::vector<std::string> ids;
  for (const PlanStep& step : *steps) ids.push_back(step.id);
  EXPECT_THAT(ids, ElementsAre("dlg_old", "perm_old", "agt_new", "perm_new", "dlg_new", "agt_old"));
}

}  // namespace
}  // namespace verdict
