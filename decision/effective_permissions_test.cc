// What ValidateToken lists (EffectivePermissions) is exactly what Authorize allows (issue 15):
// a lent right holds only as far as its lender holds it now, up the live chain, minus the
// lender's denies, within every depth limit.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "decision/engine.h"
#include "decision/resource_match.h"
#include "gtest/gtest.h"
#include "testing/memory_store.h"
#include "testing/random_corpus.h"

namespace verdict {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1'700'000'000);

bool GrantCovers(const Grant& grant, const std::string& action, const std::string& resource) {
  return ActionMatches(grant.actions, action) && ResourceMatches(grant.resource, resource);
}

// A listed permission covers a call when its grant and every grant it is `within` do, and none
// of the denies it is `excluded_by` does.
bool Covers(const EffectivePermission& listed, const std::string& action,
            const std::string& resource) {
  if (!GrantCovers(listed.grant, action, resource)) return false;
  for (const Grant& within : listed.within) {
    if (!GrantCovers(within, action, resource)) return false;
  }
  for (const Grant& deny : listed.excluded_by) {
    if (GrantCovers(deny, action, resource)) return false;
  }
  return true;
}

// What the listing says of a call: some allow covers it and no deny does.
bool ListingAllows(const std::vector<EffectivePermission>& listing, const std::string& action,
                   const std::string& resource) {
  bool allowed = false;
  for (const EffectivePermission& listed : listing) {
    if (!Covers(listed, action, resource)) continue;
    if (listed.grant.effect == Effect::kDeny) return false;
    allowed = true;
  }
  return allowed;
}

class EffectivePermissionsTest : public ::testing::Test {
 protected:
  void AddAgent(const std::string& id) {
    Agent agent;
    agent.id = id;
    ASSERT_TRUE(store_.AddAgent(agent).ok());
  }

  std::string Add(const std::string& agent_id, Effect effect, const std::string& resource,
                  std::vector<std::string> actions) {
    Permission permission;
    permission.agent_id = agent_id;
    permission.effect = effect;
    permission.resource = resource;
    permission.actions = std::move(actions);
    absl::StatusOr<std::string> id = store_.AddPermission(permission);
    EXPECT_TRUE(id.ok()) << id.status();
    return id.value_or("");
  }

  std::string Lend(const std::string& from, const std::string& to, const std::string& resource,
                   std::vector<std::string> actions, int max_depth = kMaxDelegationDepth) {
    Delegation delegation;
    delegation.from_agent_id = from;
    delegation.to_agent_id = to;
    delegation.max_depth = max_depth;
    delegation.permissions.push_back({resource, std::move(actions), ""});
    absl::StatusOr<std::string> id = store_.AddDelegation(delegation);
    EXPECT_TRUE(id.ok()) << id.status();
    return id.value_or("");
  }

  std::vector<EffectivePermission> Listing(const std::string& agent_id) {
    std::unique_ptr<ReadSnapshot> snapshot = *store_.BeginRead();
    absl::StatusOr<std::optional<Agent>> agent = snapshot->FindAgent(agent_id);
    EXPECT_TRUE(agent.ok() && agent->has_value());
    absl::StatusOr<std::vector<EffectivePermission>> listing =
        EffectivePermissions(**agent, *snapshot, kNow);
    EXPECT_TRUE(listing.ok()) << listing.status();
    return listing.value_or(std::vector<EffectivePermission>());
  }

  bool Authorized(const std::string& agent_id, const std::string& action,
                  const std::string& resource) {
    std::unique_ptr<ReadSnapshot> snapshot = *store_.BeginRead();
    Request request;
    request.subject.agent_id = agent_id;
    request.action = action;
    request.resource = resource;
    absl::StatusOr<Decision> decision = Decide(request, *snapshot, kNow, nullptr);
    EXPECT_TRUE(decision.ok()) << decision.status();
    return decision.ok() && decision->verdict == Verdict::kAllow;
  }

  MemoryPolicyStore store_;
};

// Issue 15, item 1, first case: L's own permission is revoked after it lent it (L still holds
// another right, so it remains a lender).
TEST_F(EffectivePermissionsTest, ARightTheLenderNoLongerHoldsIsNotListed) {
  AddAgent("agt_l");
  AddAgent("agt_b");
  const std::string held = Add("agt_l", Effect::kAllow, "docs:*", {"read"});
  Add("agt_l", Effect::kAllow, "mail:*", {"read"});
  Lend("agt_l", "agt_b", "docs:*", {"read"});
  EXPECT_TRUE(ListingAllows(Listing("agt_b"), "read", "docs:1"));

  ASSERT_TRUE(store_.RemovePermission(held).ok());
  ASSERT_FALSE(Authorized("agt_b", "read", "docs:1"));
  EXPECT_FALSE(ListingAllows(Listing("agt_b"), "read", "docs:1"));
}

// Second case: L lends docs:* read and write while it holds only docs:public:* read.
TEST_F(EffectivePermissionsTest, ALentRightIsListedOnlyAsFarAsTheLenderHoldsIt) {
  AddAgent("agt_l");
  AddAgent("agt_b");
  Add("agt_l", Effect::kAllow, "docs:public:*", {"read"});
  Lend("agt_l", "agt_b", "docs:*", {"read", "write"});
  const std::vector<EffectivePermission> listing = Listing("agt_b");
  for (const auto& [action, resource] :
       std::vector<std::pair<std::string, std::string>>{{"read", "docs:public:1"},
                                                        {"write", "docs:public:1"},
                                                        {"read", "docs:secret:1"},
                                                        {"write", "docs:secret:1"}}) {
    EXPECT_EQ(ListingAllows(listing, action, resource), Authorized("agt_b", action, resource))
        << action << " " << resource;
  }
  EXPECT_TRUE(ListingAllows(listing, "read", "docs:public:1"));
}

// Third case: L's own deny covers part of what it lends.
TEST_F(EffectivePermissionsTest, TheLendersDenyIsListedWithWhatItLends) {
  AddAgent("agt_l");
  AddAgent("agt_b");
  Add("agt_l", Effect::kAllow, "docs:*", {"read"});
  Add("agt_l", Effect::kDeny, "docs:secret:*", {"read"});
  Lend("agt_l", "agt_b", "docs:*", {"read"});
  const std::vector<EffectivePermission> listing = Listing("agt_b");
  ASSERT_FALSE(Authorized("agt_b", "read", "docs:secret:1"));
  EXPECT_FALSE(ListingAllows(listing, "read", "docs:secret:1"));
  EXPECT_TRUE(ListingAllows(listing, "read", "docs:public:1"));
}

// Beyond a link's max_depth nothing is listed, however far the right reaches otherwise.
TEST_F(EffectivePermissionsTest, APathLongerThanALinksMaxDepthListsNothing) {
  for (const char* id : {"agt_a", "agt_b", "agt_c"}) AddAgent(id);
  Add("agt_a", Effect::kAllow, "docs:*", {"read"});
  Lend("agt_a", "agt_b", "docs:*", {"read"}, /*max_depth=*/1);
  Lend("agt_b", "agt_c", "docs:*", {"read"});
  EXPECT_TRUE(ListingAllows(Listing("agt_b"), "read", "docs:1"));
  EXPECT_FALSE(Authorized("agt_c", "read", "docs:1"));
  EXPECT_FALSE(ListingAllows(Listing("agt_c"), "read", "docs:1"));
}

// A right two links lend alike is listed once, by the first link, however many rights the lender
// holds (past 16 held by one agent, repeats are found by hashing what they say).
TEST_F(EffectivePermissionsTest, ARightTwoLinksLendAlikeIsListedOnce) {
  AddAgent("agt_l");
  AddAgent("agt_b");
  constexpr int kHeld = 20;
  for (int i = 0; i < kHeld; ++i) {
    Add("agt_l", Effect::kAllow, absl::StrCat("docs:", i), {"read"});
  }
  const std::string first = Lend("agt_l", "agt_b", "docs:*", {"read"});
  Lend("agt_l", "agt_b", "docs:*", {"read"});
  const std::vector<EffectivePermission> listing = Listing("agt_b");
  ASSERT_EQ(listing.size(), kHeld);
  for (int i = 0; i < kHeld; ++i) {
    EXPECT_EQ(listing[i].grant.permission_id, first + "#0");
    ASSERT_EQ(listing[i].via.size(), 1u);
    EXPECT_EQ(listing[i].via[0].delegation_id, first);
    ASSERT_EQ(listing[i].within.size(), 1u);
    EXPECT_EQ(listing[i].within[0].resource, absl::StrCat("docs:", i));
  }
}

// ---------------------------------------------------------------------------------------------
// The property (a sibling of parity_test.cc): over random constraint-free policies (allows and
// denies, delegations with depth limits and cycles, suspended agents, revoked links and
// permissions) and random calls, Authorize allows exactly when the listing does.

constexpr int kUniverses = 1'000;
constexpr int kAgents = 5;
const std::vector<std::string> kPatterns = {"*",       "*",         "docs:*",   "docs:*",
                                            "docs:1",  "docs:*:x",  "docs:2:*", "mail:*",
                                            "/api/**", "/api/v1/*", "/api/*/b"};
const std::vector<std::string> kResources = {"docs:1",    "docs:2",    "docs:2:x", "mail:1",
                                             "/api/v1/a", "/api/v2/b", "/api/v1/b"};
const std::vector<std::string> kActions = {"read", "read", "write", "delete"};

std::string AgentId(int i) { return absl::StrCat("agt_", i); }

void Populate(RandomCorpus& corpus, MemoryPolicyStore& store) {
  for (int i = 0; i < kAgents; ++i) {
    Agent agent;
    agent.id = AgentId(i);
    if (corpus.Chance(8)) agent.status = AgentStatus::kSuspended;
    ASSERT_TRUE(store.AddAgent(agent).ok());
    for (int p = corpus.Uniform(4); p > 0; --p) {
      Permission permission;
      permission.agent_id = agent.id;
      permission.resource = corpus.Pick(kPatterns);
      permission.actions = corpus.Actions(kActions, /*any_percent=*/30);
      permission.effect = corpus.Chance(20) ? Effect::kDeny : Effect::kAllow;
      absl::StatusOr<std::string> id = store.AddPermission(permission);
      ASSERT_TRUE(id.ok());
      if (corpus.Chance(10)) {
        ASSERT_TRUE(store.RemovePermission(*id).ok());
      }
    }
  }
  for (int d = corpus.Uniform(10); d > 0; --d) {
    Delegation delegation;
    delegation.from_agent_id = AgentId(corpus.Uniform(kAgents));
    delegation.to_agent_id = AgentId(corpus.Uniform(kAgents));
    delegation.max_depth = 1 + corpus.Uniform(4);
    for (int l = 1 + corpus.Uniform(2); l > 0; --l) {
      delegation.permissions.push_back(
          {corpus.Pick(kPatterns), corpus.Actions(kActions, /*any_percent=*/30), ""});
    }
    absl::StatusOr<std::string> id = store.AddDelegation(delegation);
    ASSERT_TRUE(id.ok());
    if (corpus.Chance(10)) {
      ASSERT_TRUE(store.RevokeDelegation(*id).ok());
    }
  }
}

std::string ListingText(const std::vector<EffectivePermission>& listing) {
  return absl::StrJoin(listing, "\n", [](std::string* out, const EffectivePermission& listed) {
    absl::StrAppend(out, listed.grant.effect == Effect::kDeny ? "deny " : "allow ",
                    listed.grant.resource, " [", absl::StrJoin(listed.grant.actions, ","), "]");
  });
}

TEST(EffectivePermissionsProperty, AuthorizeAllowsExactlyWhatTheListingAllows) {
  RandomCorpus corpus(20261201);
  int allowed = 0;
  int delegated_allows = 0;
  // Refusals where a lent grant alone covers the call: a listing without `within` and
  // `excluded_by` would have allowed them.
  int attenuated = 0;
  for (int u = 0; u < kUniverses; ++u) {
    MemoryPolicyStore store;
    Populate(corpus, store);
    for (int i = 0; i < kAgents; ++i) {
      std::unique_ptr<ReadSnapshot> snapshot = *store.BeginRead();
      std::optional<Agent> agent = *snapshot->FindAgent(AgentId(i));
      if (agent->status != AgentStatus::kActive) continue;
      absl::StatusOr<std::vector<EffectivePermission>> listing =
          EffectivePermissions(*agent, *snapshot, kNow);
      ASSERT_TRUE(listing.ok()) << listing.status();
      for (const std::string action : {"read", "write", "delete"}) {
        for (const std::string& resource : kResources) {
          Request request;
          request.subject.agent_id = agent->id;
          request.action = action;
          request.resource = resource;
          absl::StatusOr<Decision> decision = Decide(request, *snapshot, kNow, nullptr);
          ASSERT_TRUE(decision.ok()) << decision.status();
          const bool authorized = decision->verdict == Verdict::kAllow;
          ASSERT_EQ(ListingAllows(*listing, action, resource), authorized)
              << "universe " << u << ": " << agent->id << " " << action << " " << resource << " ("
              << ReasonCodeName(decision->reason) << ")\n"
              << ListingText(*listing);
          allowed += authorized;
          delegated_allows += authorized && !decision->delegation_path.empty();
          if (!authorized) {
            bool lent_grant_covers = false;
            for (const EffectivePermission& listed : *listing) {
              lent_grant_covers =
                  lent_grant_covers ||
                  (!listed.via.empty() && GrantCovers(listed.grant, action, resource));
            }
            attenuated += lent_grant_covers;
          }
        }
      }
    }
  }
  // The corpus is only worth something if it allows through delegations and attenuates often.
  EXPECT_GT(delegated_allows, 1000);
  EXPECT_GT(attenuated, 3000);
}

}  // namespace
}  // namespace verdict
