// What may be changed, by the state a call reads.
#include "decision/admin/change_rules.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

const absl::Time kNow = absl::FromUnixSeconds(1767225600);

Agent AgentWith(AgentStatus status, absl::Time expires_at = absl::InfiniteFuture()) {
  return {.id = "agt_1", .status = status, .expires_at = expires_at};
}

TEST(ChangeRules, RevocationIsFinal) {
  absl::StatusOr<bool> change =
      StatusChangeNeeded(AgentWith(AgentStatus::kRevoked), AgentStatus::kActive);
  EXPECT_EQ(change.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(change.status().message(), HasSubstr("revocation is final"));
}

TEST(ChangeRules, SettingTheStatusAnAgentHasChangesNothing) {
  EXPECT_FALSE(*StatusChangeNeeded(AgentWith(AgentStatus::kRevoked), AgentStatus::kRevoked));
  EXPECT_TRUE(*StatusChangeNeeded(AgentWith(AgentStatus::kActive), AgentStatus::kSuspended));
  EXPECT_TRUE(*StatusChangeNeeded(AgentWith(AgentStatus::kSuspended), AgentStatus::kActive));
}

TEST(ChangeRules, ARevokedAgentKeepsNoTokenAndIsGrantedNothing) {
  EXPECT_TRUE(CheckTokenRotatable(AgentWith(AgentStatus::kSuspended)).ok());
  EXPECT_TRUE(CheckGrantable(AgentWith(AgentStatus::kSuspended)).ok());
  EXPECT_EQ(CheckTokenRotatable(AgentWith(AgentStatus::kRevoked)).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(CheckGrantable(AgentWith(AgentStatus::kRevoked)).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(ChangeRules, OnlyALiveDelegatorLendsAndOnlyToAnAgentNotRevoked) {
  const Agent live = AgentWith(AgentStatus::kActive);
  EXPECT_TRUE(CheckDelegationParties(live, AgentWith(AgentStatus::kSuspended), kNow).ok());
  EXPECT_THAT(CheckDelegationParties(AgentWith(AgentStatus::kSuspended), live, kNow).message(),
              HasSubstr("is suspended"));
  EXPECT_THAT(CheckDelegationParties(AgentWith(AgentStatus::kActive, kNow), live, kNow).message(),
              HasSubstr("is expired"));
  EXPECT_EQ(CheckDelegationParties(live, AgentWith(AgentStatus::kRevoked), kNow).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(ChangeRules, ARotatedTokensGraceEndsWithinTheTimesAStoreKeeps) {
  EXPECT_EQ(*PreviousTokenValidUntil(absl::ZeroDuration(), kNow), std::nullopt);
  EXPECT_EQ(*PreviousTokenValidUntil(absl::Hours(1), kNow), kNow + absl::Hours(1));
  EXPECT_EQ(PreviousTokenValidUntil(-absl::Seconds(1), kNow).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PreviousTokenValidUntil(absl::InfiniteDuration(), kNow).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ChangeRules, APolicyIsImportedOnlyIntoAnEmptyStore) {
  EXPECT_EQ(ImportNeedsEmptyStore().code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace verdict
