// The dataset's predictions must be the engine's decisions: every benchmark and the load
// generator trust them to tell a right answer from a wrong one.
#include "bench/dataset.h"

#include <set>

#include "bench/memory_dataset.h"
#include "crypto/token.h"
#include "decision/authorizer.h"
#include "gtest/gtest.h"
#include "testing/memory_store.h"

namespace verdict::bench {
namespace {

constexpr int64_t kAgents = 122;  // 30 chains (ten of each kind) and two agents outside any

absl::Time Now() { return absl::FromUnixSeconds(kCreatedAtUnixSeconds) + absl::Hours(24 * 30); }

class DatasetTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(LoadDataset(kAgents, store_).ok()); }

  MemoryPolicyStore store_;
  Authorizer authorizer_{store_, [] { return Now(); }};
};

TEST_F(DatasetTest, EveryProbeKindIsDecidedAsPredicted) {
  const ProbeKind kinds[] = {ProbeKind::kDirect,         ProbeKind::kDirectPath,
                             ProbeKind::kDeniedByPolicy, ProbeKind::kThreeHops,
                             ProbeKind::kRevokedChain,   ProbeKind::kNoMatch};
  for (ProbeKind kind : kinds) {
    for (uint64_t pick = 0; pick < 400; ++pick) {
      const Probe probe = MakeProbe(kind, kAgents, pick * 0x9e3779b97f4a7c15ULL);
      absl::StatusOr<Decision> decision = authorizer_.Authorize(probe.request);
      ASSERT_TRUE(decision.ok()) << decision.status();
      EXPECT_EQ(DescribeDifference(probe.expected, OutcomeOf(*decision)), "")
          << "kind " << static_cast<int>(kind) << " " << probe.request.subject.agent_id << " "
          << probe.request.action << " " << probe.request.resource;
    }
  }
}

TEST_F(DatasetTest, EveryTokenValidatesAsItsAgent) {
  for (int64_t agent : {int64_t{0}, int64_t{1}, int64_t{57}, kAgents - 1}) {
    ASSERT_TRUE(CheckAgentTokenShape(AgentToken(agent)).ok());
    absl::StatusOr<TokenValidation> validation = authorizer_.ValidateToken(AgentToken(agent));
    ASSERT_TRUE(validation.ok()) << validation.status();
    EXPECT_TRUE(validation->valid);
    ASSERT_TRUE(validation->agent.has_value());
    EXPECT_EQ(validation->agent->id, AgentId(agent));
  }
}

TEST(Dataset, AThirdOfTheLinksAreRevoked) {
  int64_t links = 0;
  int64_t revoked = 0;
  for (int64_t chain = 0; chain < ChainCount(1200); ++chain) {
    for (const Delegation& link : ChainLinks(chain)) {
      ++links;
      if (link.status == DelegationStatus::kRevoked) ++revoked;
    }
  }
  EXPECT_EQ(links, 900);
  EXPECT_EQ(revoked, 300);
}

TEST(Dataset, ProbesSpreadOverTheAgents) {
  std::set<std::string> subjects;
  for (uint64_t pick = 0; pick < 1000; ++pick) {
    subjects.insert(MakeProbe(ProbeKind::kDirect, 50000, pick * 0x9e3779b97f4a7c15ULL)
                        .request.subject.agent_id);
  }
  EXPECT_GT(subjects.size(), 900u);
}

TEST(Dataset, DescribeDifferenceNamesEachDifferingField) {
  const Outcome expected = {"ALLOW", "ALLOWED", "perm_1", {"dlg_1"}};
  EXPECT_EQ(DescribeDifference(expected, expected), "");
  Outcome actual = expected;
  actual.reason = "DENIED_BY_POLICY";
  actual.delegation_ids.clear();
  const std::string difference = DescribeDifference(expected, actual);
  EXPECT_NE(difference.find("reason"), std::string::npos);
  EXPECT_NE(difference.find("delegation path"), std::string::npos);
  EXPECT_EQ(difference.find("verdict"), std::string::npos);
}

}  // namespace
}  // namespace verdict::bench
