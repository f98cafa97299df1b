// Decisions for an agent whose permission list is long enough to be indexed
// (store/wide_permissions.h), through the Authorizer over SQLite as the server makes them: the
// answers are those of a scan of every permission, and a change to the list is seen by the very
// next call (design section 3), however many calls the connection served from its index.
#include "store/wide_permissions.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "decision/authorizer.h"
#include "gtest/gtest.h"
#include "store/test_support.h"

namespace verdict {
namespace {

constexpr int kPermissions = 1000;  // about 60 KB of record, past WidePermissions::kMinBytes

class WideAgentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenTestStore(FreshDatabasePath(), clock_, /*connections=*/1);
    ASSERT_NE(store_, nullptr);
    PolicyContents policy;
    policy.agents.push_back(
        {Agent{.id = "agt_wide", .owner = "test", .name = "wide"}, std::string(32, 'h')});
    for (int i = 0; i < kPermissions; ++i) {
      policy.permissions.push_back({.id = absl::StrCat("perm_", i),
                                    .agent_id = "agt_wide",
                                    .resource = absl::StrCat("docs:", i, ":*"),
                                    .actions = {"read"}});
    }
    absl::Status imported = store_->admin().ImportPolicy(policy);
    ASSERT_TRUE(imported.ok()) << imported;
    authorizer_ = std::make_unique<Authorizer>(*store_, clock_.AsFunction());
  }

  Decision Authorize(const std::string& action, const std::string& resource) {
    Request request;
    request.subject.agent_id = "agt_wide";
    request.action = action;
    request.resource = resource;
    absl::StatusOr<Decision> decision = authorizer_->Authorize(request);
    EXPECT_TRUE(decision.ok()) << decision.status();
    return decision.ok() ? *decision : Decision{};
  }

  ManualClock clock_;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<Authorizer> authorizer_;
};

TEST_F(WideAgentTest, AllowsByTheOnePermissionThatMatchesAndRefusesTheRest) {
  Decision last = Authorize("read", absl::StrCat("docs:", kPermissions - 1, ":page"));
  EXPECT_EQ(last.verdict, Verdict::kAllow);
  ASSERT_TRUE(last.matched_grant.has_value());
  EXPECT_EQ(last.matched_grant->permission_id, absl::StrCat("perm_", kPermissions - 1));
  EXPECT_EQ(Authorize("read", "docs:0:page").verdict, Verdict::kAllow);
  EXPECT_EQ(Authorize("write", "docs:0:page").reason, ReasonCode::kNoMatchingPermission);
  EXPECT_EQ(Authorize("read", absl::StrCat("docs:", kPermissions, ":page")).reason,
            ReasonCode::kNoMatchingPermission);
}

TEST_F(WideAgentTest, ADenyGrantedAfterTheIndexWasBuiltWinsOnTheNextCall) {
  ASSERT_EQ(Authorize("read", "docs:7:secret").verdict, Verdict::kAllow);  // builds the index
  ASSERT_TRUE(store_->admin()
                  .GrantPermission({.agent_id = "agt_wide",
                                    .resource = "docs:7:secret",
                                    .actions = {"read"},
                                    .effect = Effect::kDeny,
                                    .id = "perm_deny"})
                  .ok());
  const Decision denied = Authorize("read", "docs:7:secret");
  EXPECT_EQ(denied.reason, ReasonCode::kDeniedByPolicy);
  EXPECT_EQ(Authorize("read", "docs:7:page").verdict, Verdict::kAllow);
}

TEST_F(WideAgentTest, ARevokedPermissionStopsAllowingOnTheNextCall) {
  ASSERT_EQ(Authorize("read", "docs:500:page").verdict, Verdict::kAllow);
  ASSERT_TRUE(store_->admin().RevokePermission("perm_500").ok());
  EXPECT_EQ(Authorize("read", "docs:500:page").reason, ReasonCode::kNoMatchingPermission);
  EXPECT_EQ(Authorize("read", "docs:501:page").verdict, Verdict::kAllow);
}

TEST_F(WideAgentTest, ASimulationStillTracesEveryPermission) {
  Request request;
  request.subject.agent_id = "agt_wide";
  request.action = "read";
  request.resource = "docs:3:page";
  absl::StatusOr<Simulation> simulation = authorizer_->Simulate(request, WhatIf{});
  ASSERT_TRUE(simulation.ok()) << simulation.status();
  EXPECT_EQ(simulation->decision.verdict, Verdict::kAllow);
  // The first three were tried and turned down, the fourth allowed: the trace lists all four.
  EXPECT_GE(simulation->trace.grants.size(), 4u);
}

}  // namespace
}  // namespace verdict
