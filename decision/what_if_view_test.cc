#include "decision/what_if_view.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "testing/memory_store.h"

namespace verdict {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1'700'000'000);

class WhatIfViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* id : {"agt_a", "agt_b", "agt_c"}) {
      Agent agent;
      agent.id = id;
      ASSERT_TRUE(store_.AddAgent(agent).ok());
    }
    Permission permission;
    permission.id = "perm_real";
    permission.agent_id = "agt_a";
    permission.resource = "docs:*";
    permission.actions = {"read"};
    ASSERT_TRUE(store_.AddPermission(permission).ok());
    real_delegation_ = *store_.AddDelegation(Link("", "agt_b", "agt_a"));
    absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store_.BeginRead();
    ASSERT_TRUE(snapshot.ok());
    snapshot_ = *std::move(snapshot);
  }

  static Delegation Link(const std::string& id, const std::string& from, const std::string& to) {
    Delegation delegation;
    delegation.id = id;
    delegation.from_agent_id = from;
    delegation.to_agent_id = to;
    return delegation;
  }

  static std::vector<std::string> IdsOf(const std::vector<Delegation>& delegations) {
    std::vector<std::string> ids;
    for (const Delegation& delegation : delegations) ids.push_back(delegation.id);
    return ids;
  }

  MemoryPolicyStore store_;
  std::string real_delegation_;
  std::unique_ptr<ReadSnapshot> snapshot_;
};

TEST_F(WhatIfViewTest, ExtraPermissionsFollowTheSubjectsOwnWithWhatIfIds) {
  WhatIf what_if;
  Permission extra;
  extra.resource = "mail:*";
  extra.actions = {"send"};
  what_if.extra_permissions = {extra, extra};
  what_if.extra_permissions[1].id = "perm_mine";
  WhatIfView view(*snapshot_, what_if, "agt_a", absl::Now());

  std::vector<Permission> permissions = *view.PermissionsOf("agt_a");
  ASSERT_EQ(permissions.size(), 3u);
  EXPECT_EQ(permissions[0].id, "perm_real");
  EXPECT_EQ(permissions[1].id, "whatif:perm:0");
  EXPECT_EQ(permissions[1].agent_id, "agt_a");
  EXPECT_EQ(permissions[2].id, "perm_mine");
  EXPECT_TRUE(view.PermissionsOf("agt_b")->empty());
}

TEST_F(WhatIfViewTest, AnExtraPermissionNamingAnotherAgentIsThatAgents) {
  WhatIf what_if;
  Permission extra;
  extra.agent_id = "agt_b";
  extra.resource = "docs:*";
  extra.actions = {"read"};
  what_if.extra_permissions = {extra};
  WhatIfView view(*snapshot_, what_if, "agt_a", absl::Now());
  EXPECT_EQ(view.PermissionsOf("agt_a")->size(), 1u);
  ASSERT_EQ(view.PermissionsOf("agt_b")->size(), 1u);
  EXPECT_EQ(view.PermissionsOf("agt_b")->at(0).id, "whatif:perm:0");
}

TEST_F(WhatIfViewTest, ExtraDelegationsJoinUnderTheStoresRules) {
  WhatIf what_if;
  Delegation expired = Link("", "agt_c", "agt_a");
  expired.expires_at = kNow;
  Delegation revoked = Link("dlg_revoked", "agt_c", "agt_a");
  revoked.status = DelegationStatus::kRevoked;
  what_if.extra_delegations = {Link("", "agt_c", "agt_a"), expired, revoked,
                               Link("dlg_named", "agt_c", "agt_a"), Link("", "agt_a", "agt_b")};
  WhatIfView view(*snapshot_, what_if, "agt_a", absl::Now());
  EXPECT_EQ(IdsOf(*view.ActiveDelegationsInto("agt_a", kNow)),
            (std::vector<std::string>{real_delegation_, "whatif:dlg:0", "dlg_named"}));
  EXPECT_EQ(IdsOf(*view.ActiveDelegationsInto("agt_b", kNow)),
            (std::vector<std::string>{"whatif:dlg:4"}));
}

TEST_F(WhatIfViewTest, RemovedDelegationsDisappearRealOrExtra) {
  WhatIf what_if;
  what_if.extra_delegations = {Link("dlg_extra", "agt_c", "agt_a")};
  what_if.removed_delegation_ids = {real_delegation_, "dlg_extra"};
  WhatIfView view(*snapshot_, what_if, "agt_a", absl::Now());
  EXPECT_TRUE(view.ActiveDelegationsInto("agt_a", kNow)->empty());
}

TEST_F(WhatIfViewTest, AnEmptyWhatIfChangesNothing) {
  WhatIfView view(*snapshot_, WhatIf(), "agt_a", absl::Now());
  EXPECT_EQ(view.PermissionsOf("agt_a")->size(), 1u);
  EXPECT_EQ(IdsOf(*view.ActiveDelegationsInto("agt_a", kNow)),
            (std::vector<std::string>{real_delegation_}));
  EXPECT_EQ((*view.FindAgent("agt_b"))->id, "agt_b");
  EXPECT_FALSE(*view.FindAgent("agt_x"));
  EXPECT_EQ(*view.RateCount("agt_a", "perm_real", 0), 0);
}

}  // namespace
}  // namespace verdict
