#include "bench/workload.h"

#include "gtest/gtest.h"

namespace verdict::bench {
namespace {

TEST(ParseMix, AcceptsWeightsAndSkipsZeroes) {
  absl::StatusOr<Mix> mix = ParseMix("direct:50, delegated:0,denied:25,token:5");
  ASSERT_TRUE(mix.ok()) << mix.status();
  EXPECT_EQ(mix->total, 80);
  ASSERT_EQ(mix->weights.size(), 3u);
  EXPECT_EQ(mix->weights[0].first, CallKind::kDirect);
  EXPECT_EQ(mix->weights[2].first, CallKind::kToken);
}

TEST(ParseMix, RejectsWhatCannotBeRun) {
  for (const char* bad :
       {"", "direct:0", "direct", "direct:-1", "direct:x", "write:5", "direct:5,bogus:1"}) {
    EXPECT_EQ(ParseMix(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

TEST(PlanCall, FollowsTheMixKinds) {
  const Mix mix = *ParseMix("delegated:1");
  PlannedCall call;
  for (uint64_t random = 0; random < 1000; random += 37) {
    PlanCall(mix, 1200, random * 0x9e3779b97f4a7c15ULL, &call);
    EXPECT_EQ(call.kind, CallKind::kDelegated);
    EXPECT_EQ(call.expected.verdict, "ALLOW");
    EXPECT_EQ(call.expected.delegation_ids.size(), 3u);
    EXPECT_EQ(call.authorize.action(), "read");
  }
}

TEST(PlanCall, TokenCallsExpectTheTokensAgent) {
  const Mix mix = *ParseMix("token:1");
  PlannedCall call;
  PlanCall(mix, 1000, uint64_t{777} << 16, &call);
  EXPECT_EQ(call.kind, CallKind::kToken);
  EXPECT_EQ(call.validate.token(), AgentToken(777));
  EXPECT_EQ(call.expected_agent_id, AgentId(777));
}

TEST(PlanCall, DeniedCallsNeverExpectAnAllow) {
  const Mix mix = *ParseMix("denied:1");
  PlannedCall call;
  for (uint64_t random = 1; random < 300; ++random) {
    PlanCall(mix, 1000, random * 0x9e3779b97f4a7c15ULL, &call);
    EXPECT_EQ(call.expected.verdict, "DENY");
  }
}

v1::AuthorizeResponse ThreeHopAllow() {
  v1::AuthorizeResponse answer;
  answer.set_verdict(v1::VERDICT_ALLOW);
  answer.set_reason(v1::REASON_CODE_ALLOWED);
  answer.mutable_matched_grant()->set_permission_id("perm_a");
  for (const char* id : {"dlg_1", "dlg_2", "dlg_3"}) {
    answer.add_delegation_path()->set_delegation_id(id);
  }
  return answer;
}

const Outcome kThreeHopAllow = {"ALLOW", "ALLOWED", "perm_a", {"dlg_1", "dlg_2", "dlg_3"}};

TEST(CheckAuthorize, TheExpectedAnswerPasses) {
  EXPECT_EQ(CheckAuthorize(kThreeHopAllow, ThreeHopAllow()), "");
}

TEST(CheckAuthorize, EveryDifferingFieldIsAWrongAnswer) {
  struct Case {
    const char* name;
    void (*spoil)(v1::AuthorizeResponse*);
    const char* mentions;
  };
  const Case cases[] = {
      {"verdict", [](v1::AuthorizeResponse* a) { a->set_verdict(v1::VERDICT_DENY); }, "verdict"},
      {"reason", [](v1::AuthorizeResponse* a) { a->set_reason(v1::REASON_CODE_DENIED_BY_POLICY); },
       "reason"},
      {"grant", [](v1::AuthorizeResponse* a) { a->clear_matched_grant(); }, "matched permission"},
      {"path order",
       [](v1::AuthorizeResponse* a) { a->mutable_delegation_path()->SwapElements(0, 2); },
       "delegation path"},
      {"path length", [](v1::AuthorizeResponse* a) { a->mutable_delegation_path()->RemoveLast(); },
       "delegation path"},
  };
  for (const Case& c : cases) {
    v1::AuthorizeResponse answer = ThreeHopAllow();
    c.spoil(&answer);
    const std::string wrong = CheckAuthorize(kThreeHopAllow, answer);
    EXPECT_NE(wrong.find(c.mentions), std::string::npos) << c.name << ": " << wrong;
  }
}

TEST(CheckAuthorize, AnEmptyAnswerIsWrongForADenialToo) {
  // A server that answers nothing (all defaults) must not pass as a denial.
  const Outcome denial = {"DENY", "NO_MATCHING_PERMISSION", "", {}};
  EXPECT_NE(CheckAuthorize(denial, v1::AuthorizeResponse()), "");
}

TEST(CheckValidateToken, InvalidOrOtherAgentIsWrong) {
  v1::ValidateTokenResponse answer;
  answer.set_valid(true);
  answer.set_reason(v1::REASON_CODE_ALLOWED);
  answer.mutable_agent()->set_id("agt_1");
  EXPECT_EQ(CheckValidateToken("agt_1", {}, answer), "");
  EXPECT_NE(CheckValidateToken("agt_2", {}, answer), "");
  answer.set_valid(false);
  EXPECT_NE(CheckValidateToken("agt_1", {}, answer), "");
}

// The answer lists the agent's effective permissions: a list the data does not imply is wrong,
// however valid the token.
TEST(CheckValidateToken, EffectivePermissionsMustBeTheOnesTheDataImplies) {
  constexpr int64_t kAgents = 100;
  const int64_t chain_end = 3;  // a3 of chain 0, whose links are all live
  const std::vector<std::string> expected = EffectivePermissionLines(chain_end, kAgents);
  ASSERT_EQ(expected.size(), 5u);  // four of its own, one lent by a2
  EXPECT_EQ(expected[4], "dlg_bench_0000000_2#0 allow docs:0:shared:* read");
  EXPECT_EQ(EffectivePermissionLines(6, kAgents).size(), 4u);  // chain 1 lost a1 -> a2

  v1::ValidateTokenResponse answer;
  answer.set_valid(true);
  answer.mutable_agent()->set_id(AgentId(chain_end));
  for (const Permission& own : PermissionsOf(chain_end)) {
    v1::Grant* grant = answer.add_permissions()->mutable_grant();
    grant->set_permission_id(own.id);
    grant->set_resource(own.resource);
    grant->set_effect(own.effect == Effect::kAllow ? v1::EFFECT_ALLOW : v1::EFFECT_DENY);
    for (const std::string& action : own.actions) grant->add_actions(action);
  }
  EXPECT_NE(CheckValidateToken(AgentId(chain_end), expected, answer), "");  // the lent one missing
  v1::Grant* lent = answer.add_permissions()->mutable_grant();
  lent->set_permission_id("dlg_bench_0000000_2#0");
  lent->set_resource("docs:0:shared:*");
  lent->set_effect(v1::EFFECT_ALLOW);
  lent->add_actions("read");
  EXPECT_EQ(CheckValidateToken(AgentId(chain_end), expected, answer), "");
  lent->set_resource("*");
  EXPECT_NE(CheckValidateToken(AgentId(chain_end), expected, answer), "");
}

TEST(ParseMix, RefusesAnEntryThatIsNotKindColonWeight) {
  EXPECT_FALSE(ParseMix("direct:50:junk,token:1").ok());
  EXPECT_FALSE(ParseMix("direct").ok());
  EXPECT_TRUE(ParseMix("direct:50, token:1").ok());
}

}  // namespace
}  // namespace verdict::bench
