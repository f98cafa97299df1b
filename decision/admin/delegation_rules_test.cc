#include "decision/admin/delegation_rules.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

struct CoverCase {
  const char* held;
  const char* lent;
  bool covers;
};

class ResourcePatternCoversTest : public ::testing::TestWithParam<CoverCase> {};

TEST_P(ResourcePatternCoversTest, HeldPatternCoversLentPatternOrNot) {
  const CoverCase& c = GetParam();
  EXPECT_EQ(ResourcePatternCovers(c.held, c.lent), c.covers)
      << "held " << c.held << " lent " << c.lent;
}

INSTANTIATE_TEST_SUITE_P(
    Patterns, ResourcePatternCoversTest,
    ::testing::Values(CoverCase{"docs:1", "docs:1", true},          // the same pattern
                      CoverCase{"*", "/api/**", true},              // "*" covers everything
                      CoverCase{"*", "docs:*", true},               //
                      CoverCase{"docs:*", "docs:public:*", true},   // trailing * covers the rest
                      CoverCase{"docs:*", "docs:1", true},          //
                      CoverCase{"docs:*:1", "docs:*:1", true},      //
                      CoverCase{"docs:*:1", "docs:read:1", true},   //
                      CoverCase{"docs:public:*", "docs:*", false},  // narrower never covers
                      CoverCase{"docs:1", "docs:*", false},         //
                      CoverCase{"docs:*:1", "docs:*", false},       //
                      CoverCase{"other:*", "docs:1", false},        //
                      CoverCase{"/api/**", "/api/v1/**", true},     //
                      CoverCase{"/api/**", "/api/v1/users", true},  //
                      CoverCase{"/api/*", "/api/users", true},      //
                      CoverCase{"/api/*", "/api/**", false},        // only ** spans segments
                      CoverCase{"/api/v1/*", "/api/**", false},     //
                      CoverCase{"/api/users", "/api/*", false},     //
                      CoverCase{"docs:*", "/docs/1", false}));      // colon never covers a path

struct ActionsCase {
  std::vector<std::string> held;
  std::vector<std::string> lent;
  bool covers;
};

class ActionsCoverTest : public ::testing::TestWithParam<ActionsCase> {};

TEST_P(ActionsCoverTest, HeldActionsAreASupersetOrAStar) {
  const ActionsCase& c = GetParam();
  EXPECT_EQ(ActionsCover(c.held, c.lent), c.covers);
}

INSTANTIATE_TEST_SUITE_P(Actions, ActionsCoverTest,
                         ::testing::Values(ActionsCase{{"read", "write"}, {"read"}, true},
                                           ActionsCase{{"read", "write"}, {"write", "read"}, true},
                                           ActionsCase{{"*"}, {"delete"}, true},
                                           ActionsCase{{"*"}, {"*"}, true},
                                           ActionsCase{{"read"}, {"read", "write"}, false},
                                           ActionsCase{{"read", "write"}, {"*"}, false}));

// A policy held in memory, as the rules read it.
const absl::Time kNow = absl::FromUnixSeconds(1767225600);

class FakeGraph : public DelegationGraph {
 public:
  void Grant(const std::string& agent, const std::string& resource,
             std::vector<std::string> actions, Effect effect = Effect::kAllow) {
    permissions_[agent].push_back({.id = "perm",
                                   .agent_id = agent,
                                   .resource = resource,
                                   .actions = actions,
                                   .effect = effect});
  }
  void Delegate(const std::string& from, const std::string& to, const std::string& resource,
                std::vector<std::string> actions, int max_depth = 8) {
    delegations_.push_back({.id = "dlg_" + from + "_" + to,
                            .from_agent_id = from,
                            .to_agent_id = to,
                            .permissions = {{.resource = resource, .actions = actions}},
                            .max_depth = max_depth});
  }

  absl::StatusOr<std::vector<Permission>> PermissionsOf(absl::string_view agent_id) override {
    return permissions_[std::string(agent_id)];
  }
  absl::StatusOr<std::vector<Delegation>> ActiveDelegationsInto(absl::string_view agent_id,
                                                                absl::Time) override {
    std::vector<Delegation> into;
    for (const Delegation& d : delegations_) {
      if (d.to_agent_id == agent_id) into.push_back(d);
    }
    return into;
  }
  absl::StatusOr<std::vector<Delegation>> ActiveDelegationsFrom(absl::string_view agent_id,
                                                                absl::Time) override {
    std::vector<Delegation> from;
    for (const Delegation& d : delegations_) {
      if (d.from_agent_id == agent_id) from.push_back(d);
    }
    return from;
  }
  // Every agent is live until Kill (revoked, suspended or expired: the rules see no difference).
  void Kill(const std::string& agent) { dead_.insert(agent); }
  absl::StatusOr<std::optional<Agent>> FindAgent(absl::string_view agent_id) override {
    return Agent{.id = std::string(agent_id),
                 .status = dead_.count(std::string(agent_id)) == 0 ? AgentStatus::kActive
                                                                   : AgentStatus::kSuspended};
  }

 private:
  std::map<std::string, std::vector<Permission>> permissions_;
  std::vector<Delegation> delegations_;
  std::set<std::string> dead_;
};

NewDelegation Lend(const std::string& from, const std::string& to, const std::string& resource,
                   std::vector<std::string> actions, int max_depth = 8) {
  return {.from_agent_id = from,
          .to_agent_id = to,
          .permissions = {{.resource = resource, .actions = actions}},
          .max_depth = max_depth};
}

TEST(CheckNewDelegationTest, DelegatorMayLendPartOfItsOwnPermission) {
  FakeGraph graph;
  graph.Grant("a", "docs:*", {"read", "write"});
  EXPECT_TRUE(CheckNewDelegation(Lend("a", "b", "docs:public:*", {"read"}), graph, kNow).ok());
}

TEST(CheckNewDelegationTest, LendingMoreThanHeldIsRefused) {
  FakeGraph graph;
  graph.Grant("a", "docs:public:*", {"read"});
  for (const NewDelegation& more :
       {Lend("a", "b", "docs:*", {"read"}), Lend("a", "b", "docs:public:*", {"read", "write"}),
        Lend("a", "b", "docs:public:*", {"*"})}) {
    absl::Status status = CheckNewDelegation(more, graph, kNow);
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(status.message(), HasSubstr("a cannot lend"));
  }
}

TEST(CheckNewDelegationTest, DenyPermissionsLendNothing) {
  FakeGraph graph;
  graph.Grant("a", "docs:*", {"read"}, Effect::kDeny);
  EXPECT_EQ(CheckNewDelegation(Lend("a", "b", "docs:1", {"read"}), graph, kNow).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(CheckNewDelegationTest, RightsLentToTheDelegatorMayBeLentOn) {
  FakeGraph graph;
  graph.Grant("a", "docs:*", {"read"});
  graph.Delegate("a", "b", "docs:public:*", {"read"});
  EXPECT_TRUE(CheckNewDelegation(Lend("b", "c", "docs:public:1", {"read"}), graph, kNow).ok());
  EXPECT_EQ(CheckNewDelegation(Lend("b", "c", "docs:private:1", {"read"}), graph, kNow).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(CheckNewDelegationTest, RightsLentByAnAgentThatLostThemCannotBeLentOn) {
  FakeGraph graph;
  graph.Delegate("a", "b", "docs:*", {"read"});  // a holds nothing (any more)
  EXPECT_EQ(CheckNewDelegation(Lend("b", "c", "docs:1", {"read"}), graph, kNow).code(),
            absl::StatusCode::kFailedPrecondition);
}

// As the engine walks a chain, a dead agent or an agent's own deny over all that is lent passes
// nothing on: lending through either could never work.
TEST(CheckNewDelegationTest, RightsHeldThroughADeadUpstreamAgentCannotBeLentOn) {
  FakeGraph graph;
  graph.Grant("a", "docs:*", {"read"});
  graph.Delegate("a", "b", "docs:*", {"read"});
  ASSERT_TRUE(CheckNewDelegation(Lend("b", "c", "docs:1", {"read"}), graph, kNow).ok());
  graph.Kill("a");
  EXPECT_EQ(CheckNewDelegation(Lend("b", "c", "docs:1", {"read"}), graph, kNow).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(CheckNewDelegationTest, WhatTheDelegatorsOwnDenyCoversCannotBeLent) {
  FakeGraph graph;
  graph.Grant("b", "docs:*", {"read"});
  graph.Grant("b", "docs:secret:*", {"read"}, Effect::kDeny);
  EXPECT_EQ(CheckNewDelegation(Lend("b", "c", "docs:secret:1", {"read"}), graph, kNow).code(),
            absl::StatusCode::kFailedPrecondition);
  // A deny over part of what is lent leaves the rest to lend; the engine applies it per call.
  EXPECT_TRUE(CheckNewDelegation(Lend("b", "c", "docs:*", {"read"}), graph, kNow).ok());
}

TEST(CheckNewDelegationTest, AnUpstreamDenyOverAllThatIsLentBlocksTheChain) {
  FakeGraph graph;
  graph.Grant("a", "docs:*", {"read"});
  graph.Grant("a", "docs:secret:*", {"*"}, Effect::kDeny);
  graph.Delegate("a", "b", "docs:*", {"read"});
  EXPECT_EQ(CheckNewDelegation(Lend("b", "c", "docs:secret:1", {"read"}), graph, kNow).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(CheckNewDelegation(Lend("b", "c", "docs:public:1", {"read"}), graph, kNow).ok());
}

TEST(CheckNewDelegationTest, PathLongerThanAnUpstreamMaxDepthIsRefused) {
  FakeGraph graph;
  graph.Grant("a", "docs:*", {"read"});
  graph.Delegate("a", "b", "docs:*", {"read"}, /*max_depth=*/1);
  absl::Status status = CheckNewDelegation(Lend("b", "c", "docs:1", {"read"}), graph, kNow);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("path of 2 links"));
  EXPECT_THAT(status.message(), HasSubstr("max_depth"));
}

TEST(CheckNewDelegationTest, PathLongerThanTheNewLinksMaxDepthIsRefused) {
  FakeGraph graph;
  graph.Grant("a", "docs:*", {"read"});
  graph.Delegate("a", "b", "docs:*", {"read"}, /*max_depth=*/3);
  EXPECT_EQ(
      CheckNewDelegation(Lend("b", "c", "docs:1", {"read"}, /*max_depth=*/1), graph, kNow).code(),
      absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(
      CheckNewDelegation(Lend("b", "c", "docs:1", {"read"}, /*max_depth=*/2), graph, kNow).ok());
}

TEST(CheckNewDelegationTest, OwnPermissionNeedsNoPathEvenWhenALentOneWouldBeTooDeep) {
  FakeGraph graph;
  graph.Grant("a", "docs:*", {"read"});
  graph.Delegate("a", "b", "docs:*", {"read"}, /*max_depth=*/1);
  graph.Grant("b", "docs:*", {"read"});
  EXPECT_TRUE(CheckNewDelegation(Lend("b", "c", "docs:1", {"read"}, 1), graph, kNow).ok());
}

TEST(CheckNewDelegationTest, ThreeHopChainWithinEveryMaxDepthIsAccepted) {
  FakeGraph graph;
  graph.Grant("a", "docs:*", {"read"});
  graph.Delegate("a", "b", "docs:*", {"read"}, 3);
  graph.Delegate("b", "c", "docs:*", {"read"}, 3);
  EXPECT_TRUE(CheckNewDelegation(Lend("c", "d", "docs:1", {"read"}, 3), graph, kNow).ok());
  EXPECT_EQ(CheckNewDelegation(Lend("c", "d", "docs:1", {"read"}, 2), graph, kNow).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(CheckNewDelegationTest, ClosingACycleIsRefused) {
  FakeGraph graph;
  graph.Grant("a", "docs:*", {"read"});
  graph.Grant("c", "docs:*", {"read"});
  graph.Delegate("a", "b", "docs:*", {"read"});
  graph.Delegate("b", "c", "docs:*", {"read"});
  absl::Status status = CheckNewDelegation(Lend("c", "a", "docs:1", {"read"}), graph, kNow);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("cycle"));
  EXPECT_THAT(status.message(), HasSubstr("a -> b -> c"));
}

TEST(CheckNewDelegationTest, ASecondPathBetweenTheSameAgentsIsNoCycle) {
  FakeGraph graph;
  graph.Grant("a", "docs:*", {"read"});
  graph.Delegate("a", "b", "docs:*", {"read"});
  EXPECT_TRUE(CheckNewDelegation(Lend("a", "b", "docs:1", {"read"}), graph, kNow).ok());
}

}  // namespace
}  // namespace verdict
