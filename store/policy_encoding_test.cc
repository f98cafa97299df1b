#include "store/policy_encoding.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(PolicyEncodingTest, EveryEnumValueRoundTripsThroughItsName) {
  for (AgentKind kind : {AgentKind::kAutonomous, AgentKind::kDelegated, AgentKind::kService}) {
    EXPECT_EQ(*ParseAgentKind(AgentKindName(kind)), kind);
  }
  for (AgentStatus status :
       {AgentStatus::kActive, AgentStatus::kSuspended, AgentStatus::kRevoked}) {
    EXPECT_EQ(*ParseAgentStatus(AgentStatusName(status)), status);
  }
  for (Effect effect : {Effect::kAllow, Effect::kDeny}) {
    EXPECT_EQ(*ParseEffect(EffectName(effect)), effect);
  }
  for (DelegationStatus status : {DelegationStatus::kActive, DelegationStatus::kRevoked}) {
    EXPECT_EQ(*ParseDelegationStatus(DelegationStatusName(status)), status);
  }
  for (ApprovalStatus status :
       {ApprovalStatus::kPending, ApprovalStatus::kApproved, ApprovalStatus::kDenied,
        ApprovalStatus::kExpired, ApprovalStatus::kUsed}) {
    EXPECT_EQ(*ParseApprovalStatus(ApprovalStatusName(status)), status);
  }
  EXPECT_EQ(AgentStatusName(AgentStatus::kSuspended), "suspended");
  EXPECT_EQ(EffectName(Effect::kDeny), "deny");
}

TEST(PolicyEncodingTest, UnknownNameIsRefusedNamingTheAcceptedOnes) {
  absl::StatusOr<Effect> effect = ParseEffect("Allow");
  EXPECT_EQ(effect.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(effect.status().message(), HasSubstr("not one of allow, deny"));
}

TEST(PolicyEncodingTest, ActionsAreCommaJoined) {
  EXPECT_EQ(JoinActions({"read", "write"}), "read,write");
  EXPECT_THAT(SplitActions("read,write"), ElementsAre("read", "write"));
  EXPECT_THAT(SplitActions("*"), ElementsAre("*"));
  EXPECT_THAT(SplitActions(""), ElementsAre());
  // An empty action is kept, for the readers to refuse (store/row_readers.h).
  EXPECT_THAT(SplitActions("read,,write,"), ElementsAre("read", "", "write", ""));
}

TEST(PolicyEncodingTest, SplittingIntoAListOverwritesWhatItHeld) {
  std::vector<std::string> actions = {"an_earlier_long_action", "x", "y"};
  SplitActionsInto("read,write", actions);
  EXPECT_THAT(actions, ElementsAre("read", "write"));
  SplitActionsInto("a,b,c,d", actions);
  EXPECT_THAT(actions, ElementsAre("a", "b", "c", "d"));
  SplitActionsInto("", actions);
  EXPECT_THAT(actions, ElementsAre());
}

TEST(PolicyEncodingTest, ConstraintsAreStoredAsCanonicalObjects) {
  EXPECT_EQ(*CanonicalConstraintsJson(""), "{}");
  EXPECT_EQ(*CanonicalConstraintsJson(R"({ "b": 1, "a": [ 2 ] })"), R"({"a":[2],"b":1})");
  EXPECT_EQ(CanonicalConstraintsJson("[]").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CanonicalConstraintsJson("{").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(PolicyEncodingTest, LentPermissionsRoundTrip) {
  const std::vector<LentPermission> lent = {
      {.resource = "docs:*", .actions = {"read", "list"}, .constraints_json = ""},
      {.resource = "/api/**", .actions = {"*"}, .constraints_json = R"({"x": 1})"}};
  absl::StatusOr<std::string> encoded = EncodeLentPermissions(lent);
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  EXPECT_EQ(*encoded, R"([{"actions":["read","list"],"constraints":{},"resource":"docs:*"},)"
                      R"({"actions":["*"],"constraints":{"x":1},"resource":"/api/**"}])");
  absl::StatusOr<std::vector<LentPermission>> decoded = DecodeLentPermissions(*encoded);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_EQ(decoded->size(), 2u);
  EXPECT_EQ((*decoded)[0].resource, "docs:*");
  EXPECT_THAT((*decoded)[0].actions, ElementsAre("read", "list"));
  EXPECT_EQ((*decoded)[0].constraints_json, "{}");
  EXPECT_EQ((*decoded)[1].constraints_json, R"({"x":1})");
}

TEST(PolicyEncodingTest, MalformedLentPermissionsAreRefused) {
  for (const char* json : {R"({})", R"([1])", R"([{"actions": ["a"]}])", R"([{"resource": "r"}])",
                           R"([{"resource": "r", "actions": [1]}])",
                           R"([{"resource": "r", "actions": ["a"], "constraints": []}])",
                           R"([{"resource": "r", "actions": ["a"], "effect": "deny"}])"}) {
    EXPECT_EQ(DecodeLentPermissions(json).status().code(), absl::StatusCode::kInvalidArgument)
        << json;
  }
}

// Stored lent permissions in their usual spelling are read without the general JSON parser;
// every text must still read exactly as the general parser reads it, or be refused alike.
TEST(PolicyEncodingTest, LentPermissionsReadAlikeHoweverTheyAreSpelled) {
  const char* texts[] = {
      R"([])",
      R"([{"actions":["read"],"constraints":{},"resource":"docs:*"}])",
      R"([{"actions":["read","list"],"constraints":{},"resource":"docs:*"},)"
      R"({"actions":["*"],"constraints":{},"resource":"/api/**"}])",
      R"([{"actions":[],"constraints":{},"resource":"docs:*"}])",
      R"([{"actions":["read"],"constraints":{"x":1},"resource":"docs:*"}])",
      R"([{"actions":["read"],"constraints":{ },"resource":"docs:*"}])",
      R"([{"actions":["read"],"resource":"docs:*","constraints":{}}])",
      R"([{"actions":["read"],"constraints":{},"resource":"docs:*"}])",
      R"([{"actions":["r"d"],"constraints":{},"resource":"docs:*"}])",
      "[{\"actions\":[\"read\"],\"constraints\":{},\"resource\":\"d\xc3\xa9\"}]",
      "[{\"actions\":[\"read\"],\"constraints\":{},\"resource\":\"d\xff\"}]",
      R"([{"actions":["read"],"constraints":{},"resource":"docs:*"},])",
      R"([{"actions":["read"],"constraints":{},"resource":"docs:*"}] )",
      R"([{"actions":["read"],"constraints":{},"resource":"docs:*","effect":"deny"}])",
      R"([{"actions":["read"],"constraints":{},"resource":"docs:*"})",
      R"( [{"actions":["read"],"constraints":{},"resource":"docs:*"}])",
  };
  for (const char* text : texts) {
    SCOPED_TRACE(text);
    absl::StatusOr<std::vector<LentPermission>> read = DecodeLentPermissions(text);
    absl::StatusOr<JsonValue> parsed = ParseJson(text);
    absl::StatusOr<std::vector<LentPermission>> general =
        parsed.ok() ? LentPermissionsFromJson(*parsed)
                    : absl::StatusOr<std::vector<LentPermission>>(parsed.status());
    ASSERT_EQ(read.ok(), general.ok()) << read.status() << " / " << general.status();
    if (!read.ok()) {
      EXPECT_EQ(read.status(), general.status());
      continue;
    }
    ASSERT_EQ(read->size(), general->size());
    for (size_t i = 0; i < read->size(); ++i) {
      EXPECT_EQ((*read)[i].resource, (*general)[i].resource);
      EXPECT_EQ((*read)[i].actions, (*general)[i].actions);
      EXPECT_EQ((*read)[i].constraints_json, (*general)[i].constraints_json);
    }
  }
}

TEST(PolicyEncodingTest, NeverIsStoredAsNull) {
  EXPECT_EQ(TimeToMicros(absl::InfiniteFuture()), std::nullopt);
  EXPECT_EQ(TimeFromMicros(std::nullopt), absl::InfiniteFuture());
  EXPECT_EQ(TimeToMicros(absl::FromUnixMicros(42)), 42);
  EXPECT_EQ(TimeFromMicros(42), absl::FromUnixMicros(42));
}

}  // namespace
}  // namespace verdict
