// The rule of row ids.
#include "decision/admin/row_ids.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(RowIds, AnIdIsItsKindsPrefixAndOneToSixtyFourIdCharacters) {
  EXPECT_TRUE(CheckId("id", "agt_demo_reader", kAgentIdPrefix).ok());
  EXPECT_TRUE(CheckId("id", "perm_A-z.0_9", kPermissionIdPrefix).ok());
  EXPECT_TRUE(CheckId("id", "dlg_" + std::string(64, 'x'), kDelegationIdPrefix).ok());
  EXPECT_EQ(CheckId("id", "dlg_" + std::string(65, 'x'), kDelegationIdPrefix).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckId("id", "agt_", kAgentIdPrefix).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckId("id", "agt_a b", kAgentIdPrefix).code(), absl::StatusCode::kInvalidArgument);
}

TEST(RowIds, AnIdOfAnotherKindIsRefusedNamingTheField) {
  absl::Status refused = CheckId("approval_id", "agt_1", kApprovalIdPrefix);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr("approval_id: \"agt_1\" must start with \"apr_\""));
}

TEST(RowIds, ATokenPastedAsAnIdIsRefusedWithoutBeingRepeated) {
  const std::string token = "vdt_" + std::string(43, 'A');
  absl::Status refused = CheckId("id", "agt_" + token, kAgentIdPrefix);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), Not(HasSubstr(token)));
  // A shorter run after "vdt_" is not a token: such ids stay usable.
  EXPECT_TRUE(CheckId("id", "agt_vdt_migration", kAgentIdPrefix).ok());
}

}  // namespace
}  // namespace verdict
