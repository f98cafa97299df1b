// The rules of JWT signing keys and revoked token ids.
#include "decision/admin/signing_key_rules.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

const absl::Time kNow = absl::FromUnixSeconds(1767225600);

TEST(SigningKeyRules, ARetiredKeyIsNeverRotated) {
  SigningKey key{.kid = "k1", .status = SigningKeyStatus::kActive};
  EXPECT_TRUE(CheckSigningKeyRotatable(key).ok());
  key.status = SigningKeyStatus::kRetired;
  EXPECT_EQ(CheckSigningKeyRotatable(key).code(), absl::StatusCode::kFailedPrecondition);
}

TEST(SigningKeyRules, AKidOfTheJwksFileIsNotTheStoresToChange) {
  const absl::flat_hash_set<std::string> file_kids = {"from-file"};
  EXPECT_TRUE(CheckKidNotFromFile("in-store", file_kids).ok());
  absl::Status refused = CheckKidNotFromFile("from-file", file_kids);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(), HasSubstr("--jwks_file"));
}

TEST(SigningKeyRules, ARevokedTokenIdCarriesItsTokensExpiryNotLongPast) {
  EXPECT_TRUE(CheckRevokedTokenExpiry(kNow + absl::Hours(1), kNow).ok());
  EXPECT_TRUE(CheckRevokedTokenExpiry(kNow - kPastExpiryAccepted, kNow).ok());
  EXPECT_EQ(CheckRevokedTokenExpiry(absl::InfiniteFuture(), kNow).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckRevokedTokenExpiry(kNow - kPastExpiryAccepted - absl::Seconds(1), kNow).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace verdict
