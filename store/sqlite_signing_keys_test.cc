// The SQLite store's JWT signing keys and revoked token ids: the admin calls, and what the
// decision path's snapshots read back (a fresh read each time).
#include <memory>
#include <string>
#include <vector>

#include "common/json.h"
#include "decision/access_token_test_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/sqlite_store.h"
#include "store/test_support.h"

namespace verdict {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class SqliteSigningKeysTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenTestStore(FreshDatabasePath(), clock_);
    ASSERT_NE(store_, nullptr);
  }

  std::optional<SigningKey> ActiveKeyInSnapshot(absl::string_view kid) {
    absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store_->BeginRead();
    EXPECT_TRUE(snapshot.ok()) << snapshot.status();
    absl::StatusOr<std::optional<SigningKey>> key = (*snapshot)->FindActiveSigningKey(kid);
    EXPECT_TRUE(key.ok()) << key.status();
    return key.ok() ? *key : std::nullopt;
  }

  bool RevokedInSnapshot(absl::string_view jti) {
    absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store_->BeginRead();
    EXPECT_TRUE(snapshot.ok()) << snapshot.status();
    absl::StatusOr<bool> revoked = (*snapshot)->IsTokenIdRevoked(jti);
    EXPECT_TRUE(revoked.ok()) << revoked.status();
    return revoked.ok() && *revoked;
  }

  ManualClock clock_;
  std::unique_ptr<SqliteStore> store_;
  const TestSigningKey key_ = TestSigningKey::NewEd25519("k1");
};

TEST_F(SqliteSigningKeysTest, AnAddedKeyIsActiveAndFoundByItsKid) {
  absl::StatusOr<SigningKey> added = store_->AddSigningKey({key_.public_jwk_json, {"EdDSA"}});
  ASSERT_TRUE(added.ok()) << added.status();
  EXPECT_EQ(added->kid, "k1");
  EXPECT_EQ(added->created_at, clock_.Now());

  std::optional<SigningKey> found = ActiveKeyInSnapshot("k1");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->jwk_json, added->jwk_json);
  EXPECT_THAT(found->allowed_algorithms, ElementsAre("EdDSA"));
  EXPECT_EQ(found->status, SigningKeyStatus::kActive);
  EXPECT_EQ(found->created_at, added->created_at);
  EXPECT_EQ(found->retired_at, absl::InfiniteFuture());
  EXPECT_FALSE(ActiveKeyInSnapshot("k2").has_value());
}

TEST_F(SqliteSigningKeysTest, AKidIsNeverTakenTwiceNotEvenAfterRetirement) {
  ASSERT_TRUE(store_->AddSigningKey({key_.public_jwk_json, {"EdDSA"}}).ok());
  EXPECT_EQ(store_->AddSigningKey({key_.public_jwk_json, {"EdDSA"}}).status().code(),
            absl::StatusCode::kAlreadyExists);
  ASSERT_TRUE(store_->RetireSigningKey("k1").ok());
  const TestSigningKey again = TestSigningKey::NewEd25519("k1");
  EXPECT_EQ(store_->AddSigningKey({again.public_jwk_json, {"EdDSA"}}).status().code(),
            absl::StatusCode::kAlreadyExists);
}

TEST_F(SqliteSigningKeysTest, InvalidKeysAreRefusedBeforeAnythingIsWritten) {
  EXPECT_EQ(store_->AddSigningKey({key_.private_jwk_json, {"EdDSA"}}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->AddSigningKey({key_.public_jwk_json, {"HS256"}}).status().code(),
            absl::StatusCode::kInvalidArgument);
  absl::StatusOr<std::vector<SigningKey>> keys = store_->ListSigningKeys();
  ASSERT_TRUE(keys.ok()) << keys.status();
  EXPECT_TRUE(keys->empty());
}

TEST_F(SqliteSigningKeysTest, ARotationInPlaceReplacesTheContentUnderTheSameKid) {
  ASSERT_TRUE(store_->AddSigningKey({key_.public_jwk_json, {"EdDSA"}}).ok());
  const absl::Time added_at = clock_.Now();
  clock_.Advance(absl::Minutes(1));
  const TestSigningKey replacement = TestSigningKey::NewEd25519("k1");
  absl::StatusOr<SigningKey> rotated =
      store_->RotateSigningKey({replacement.public_jwk_json, {"EdDSA"}});
  ASSERT_TRUE(rotated.ok()) << rotated.status();
  EXPECT_EQ(rotated->created_at, added_at);
  EXPECT_EQ(rotated->updated_at, clock_.Now());

  std::optional<SigningKey> found = ActiveKeyInSnapshot("k1");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->jwk_json, rotated->jwk_json);
  EXPECT_EQ(found->updated_at, clock_.Now());
  EXPECT_THAT(found->jwk_json,
              HasSubstr(ParseJson(replacement.public_jwk_json)->Find("x")->as_string()));
}

TEST_F(SqliteSigningKeysTest, OnlyAnActiveKeyCanBeRotated) {
  EXPECT_EQ(store_->RotateSigningKey({key_.public_jwk_json, {"EdDSA"}}).status().code(),
            absl::StatusCode::kNotFound);
  ASSERT_TRUE(store_->AddSigningKey({key_.public_jwk_json, {"EdDSA"}}).ok());
  ASSERT_TRUE(store_->RetireSigningKey("k1").ok());
  const absl::Status status = store_->RotateSigningKey({key_.public_jwk_json, {"EdDSA"}}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), HasSubstr("retired"));
}

TEST_F(SqliteSigningKeysTest, ARetiredKeyIsNoLongerFoundForDecisionsButStaysListed) {
  ASSERT_TRUE(store_->AddSigningKey({key_.public_jwk_json, {"EdDSA"}}).ok());
  const TestSigningKey other = TestSigningKey::NewHs256("k2");
  ASSERT_TRUE(store_->AddSigningKey({other.public_jwk_json, {"HS256"}}).ok());
  clock_.Advance(absl::Minutes(1));
  absl::StatusOr<SigningKey> retired = store_->RetireSigningKey("k1");
  ASSERT_TRUE(retired.ok()) << retired.status();
  EXPECT_EQ(retired->status, SigningKeyStatus::kRetired);
  EXPECT_EQ(retired->retired_at, clock_.Now());
  EXPECT_FALSE(ActiveKeyInSnapshot("k1").has_value());
  EXPECT_TRUE(ActiveKeyInSnapshot("k2").has_value());

  // Retiring again changes nothing.
  clock_.Advance(absl::Minutes(1));
  absl::StatusOr<SigningKey> again = store_->RetireSigningKey("k1");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->retired_at, retired->retired_at);
  EXPECT_EQ(store_->RetireSigningKey("k3").status().code(), absl::StatusCode::kNotFound);

  absl::StatusOr<std::vector<SigningKey>> keys = store_->ListSigningKeys();
  ASSERT_TRUE(keys.ok()) << keys.status();
  ASSERT_EQ(keys->size(), 2u);
  EXPECT_EQ((*keys)[0].kid, "k1");
  EXPECT_EQ((*keys)[0].status, SigningKeyStatus::kRetired);
  EXPECT_EQ((*keys)[1].kid, "k2");
  EXPECT_EQ((*keys)[1].status, SigningKeyStatus::kActive);
}

TEST_F(SqliteSigningKeysTest, ARevokedTokenIdIsSeenByTheNextSnapshot) {
  EXPECT_FALSE(RevokedInSnapshot("jti-1"));
  ASSERT_TRUE(store_->RevokeTokenId("jti-1", clock_.Now() + absl::Minutes(5)).ok());
  EXPECT_TRUE(RevokedInSnapshot("jti-1"));
  EXPECT_FALSE(RevokedInSnapshot("jti-2"));
  // Revoking again is harmless.
  EXPECT_TRUE(store_->RevokeTokenId("jti-1", clock_.Now() + absl::Minutes(1)).ok());
  EXPECT_TRUE(RevokedInSnapshot("jti-1"));
}

TEST_F(SqliteSigningKeysTest, RevokedTokenIdsAreDroppedOnlyLongAfterTheirTokensExpire) {
  ASSERT_TRUE(store_->RevokeTokenId("old", clock_.Now() + absl::Minutes(5)).ok());
  ASSERT_TRUE(store_->RevokeTokenId("extended", clock_.Now() + absl::Minutes(5)).ok());
  ASSERT_TRUE(store_->RevokeTokenId("extended", clock_.Now() + absl::Hours(48)).ok());
  // An hour past its expiry the entry still protects against a skewed clock.
  clock_.Advance(absl::Hours(1));
  ASSERT_TRUE(store_->RevokeTokenId("new", clock_.Now() + absl::Minutes(5)).ok());
  EXPECT_TRUE(RevokedInSnapshot("old"));
  // A day later, the next revocation drops it; the later expiry kept "extended".
  clock_.Advance(absl::Hours(24));
  ASSERT_TRUE(store_->RevokeTokenId("newer", clock_.Now() + absl::Minutes(5)).ok());
  EXPECT_FALSE(RevokedInSnapshot("old"));
  EXPECT_TRUE(RevokedInSnapshot("extended"));
  EXPECT_TRUE(RevokedInSnapshot("new"));
}

TEST_F(SqliteSigningKeysTest, ATokenIdMustBeWellFormedAndCarryItsExpiry) {
  EXPECT_EQ(store_->RevokeTokenId("", clock_.Now()).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->RevokeTokenId("jti", absl::InfiniteFuture()).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace verdict
