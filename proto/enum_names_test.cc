#include "proto/enum_names.h"

#include "gtest/gtest.h"
#include "verdict/v1/admin.pb.h"
#include "verdict/v1/decision.pb.h"

namespace verdict {
namespace {

TEST(EnumNames, PrefixIsTheTypeNameInUpperSnakeCase) {
  EXPECT_EQ(EnumValuePrefix(*v1::Verdict_descriptor()), "VERDICT_");
  EXPECT_EQ(EnumValuePrefix(*v1::ReasonCode_descriptor()), "REASON_CODE_");
  EXPECT_EQ(EnumValuePrefix(*v1::SigningKeyStatus_descriptor()), "SIGNING_KEY_STATUS_");
}

TEST(EnumNames, ShortNameDropsThePrefix) {
  EXPECT_EQ(ShortEnumName(v1::VERDICT_ALLOW), "ALLOW");
  EXPECT_EQ(ShortEnumName(v1::VERDICT_NEEDS_APPROVAL), "NEEDS_APPROVAL");
  EXPECT_EQ(ShortEnumName(v1::REASON_CODE_DENIED_BY_POLICY), "DENIED_BY_POLICY");
  EXPECT_EQ(ShortEnumName(v1::AGENT_KIND_SERVICE), "SERVICE");
  EXPECT_EQ(ShortEnumName(v1::AGENT_STATUS_REVOKED), "REVOKED");
  EXPECT_EQ(ShortEnumName(v1::SIGNING_KEY_STATUS_RETIRED), "RETIRED");
  EXPECT_EQ(ShortEnumName(v1::REASON_CODE_UNSPECIFIED), "UNSPECIFIED");
}

TEST(EnumNames, AValueUnknownToThisBuildIsItsNumber) {
  EXPECT_EQ(ShortEnumName(static_cast<v1::ReasonCode>(99)), "99");
}

TEST(EnumNames, EveryValueOfEveryTypeRoundTrips) {
  for (const google::protobuf::EnumDescriptor* type :
       {v1::Verdict_descriptor(), v1::ReasonCode_descriptor(), v1::Effect_descriptor(),
        v1::AgentKind_descriptor(), v1::AgentStatus_descriptor(), v1::DelegationStatus_descriptor(),
        v1::ApprovalStatus_descriptor(), v1::SigningKeyStatus_descriptor()}) {
    for (int i = 0; i < type->value_count(); ++i) {
      const int number = type->value(i)->number();
      const std::string name = ShortEnumName(*type, number);
      int parsed = -1;
      EXPECT_TRUE(ParseShortEnumName(*type, name, &parsed)) << type->name() << " " << name;
      EXPECT_EQ(parsed, number) << type->name() << " " << name;
    }
  }
}

TEST(EnumNames, ParseTakesOnlyTheShortUpperCaseName) {
  v1::Verdict verdict = v1::VERDICT_UNSPECIFIED;
  EXPECT_TRUE(ParseShortEnumName("DENY", &verdict));
  EXPECT_EQ(verdict, v1::VERDICT_DENY);
  EXPECT_FALSE(ParseShortEnumName("VERDICT_DENY", &verdict));
  EXPECT_FALSE(ParseShortEnumName("deny", &verdict));
  EXPECT_FALSE(ParseShortEnumName("", &verdict));
  EXPECT_FALSE(ParseShortEnumName("MAYBE", &verdict));
}

}  // namespace
}  // namespace verdict
