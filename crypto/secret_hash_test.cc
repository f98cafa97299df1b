#include "crypto/secret_hash.h"

#include <algorithm>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

// Small enough to keep the tests fast; the production parameters get one test of their own.
SecretHashParams FastParams() {
  SecretHashParams params;
  params.time_cost = 1;
  params.memory_kib = 256;
  params.parallelism = 1;
  return params;
}

TEST(SecretHashTest, VerifyAcceptsTheHashedSecret) {
  absl::StatusOr<std::string> encoded = HashSecret("correct horse", FastParams());
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  EXPECT_TRUE(VerifySecret(*encoded, "correct horse"));
}

TEST(SecretHashTest, VerifyRejectsEveryOtherSecret) {
  absl::StatusOr<std::string> encoded = HashSecret("correct horse", FastParams());
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  const std::string kWrongSecrets[] = {
      "", "Correct horse", "correct hors", "correct horse ", std::string("correct horse\0", 14),
  };
  for (const std::string& wrong : kWrongSecrets) {
    EXPECT_FALSE(VerifySecret(*encoded, wrong)) << wrong;
  }
}

TEST(SecretHashTest, SecretsMayContainAnyByte) {
  const std::string secret("\0\xff\n", 3);
  absl::StatusOr<std::string> encoded = HashSecret(secret, FastParams());
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  EXPECT_TRUE(VerifySecret(*encoded, secret));
  EXPECT_FALSE(VerifySecret(*encoded, std::string("\0\xff", 2)));
}

TEST(SecretHashTest, EachHashHasItsOwnSalt) {
  absl::StatusOr<std::string> first = HashSecret("same", FastParams());
  absl::StatusOr<std::string> second = HashSecret("same", FastParams());
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_NE(*first, *second);
  EXPECT_TRUE(VerifySecret(*first, "same"));
  EXPECT_TRUE(VerifySecret(*second, "same"));
}

TEST(SecretHashTest, EncodedFormCarriesItsParameters) {
  absl::StatusOr<std::string> encoded = HashSecret("s", FastParams());
  ASSERT_TRUE(encoded.ok());
  EXPECT_TRUE(absl::StartsWith(*encoded, "$argon2id$v=19$m=256,t=1,p=1$")) << *encoded;
}

TEST(SecretHashTest, MalformedEncodedHashesNeverVerify) {
  absl::StatusOr<std::string> encoded = HashSecret("s", FastParams());
  ASSERT_TRUE(encoded.ok());
  std::string argon2i = *encoded;
  argon2i.replace(0, 9, "$argon2i");  // same hash, but another variant's name
  const std::string kMalformed[] = {
      "",
      "s",
      "$argon2id$",
      encoded->substr(0, encoded->size() - 5),
      argon2i,
      *encoded + std::string("\0", 1),
      std::string(*encoded).insert(10, 1, '\0'),
  };
  for (const std::string& malformed : kMalformed) {
    EXPECT_FALSE(VerifySecret(malformed, "s")) << malformed;
  }
}

TEST(SecretHashTest, ParametersArgon2RefusesAreInvalidArgument) {
  SecretHashParams no_passes = FastParams();
  no_passes.time_cost = 0;
  SecretHashParams too_little_memory = FastParams();
  too_little_memory.memory_kib = 1;
  SecretHashParams no_lanes = FastParams();
  no_lanes.parallelism = 0;
  for (const SecretHashParams& params : {no_passes, too_little_memory, no_lanes}) {
    absl::StatusOr<std::string> encoded = HashSecret("s", params);
    ASSERT_FALSE(encoded.ok());
    EXPECT_EQ(encoded.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

TEST(SecretHashTest, ProductionParametersHashAndVerify) {
  absl::StatusOr<std::string> encoded = HashSecret("admin secret");
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  EXPECT_TRUE(absl::StartsWith(*encoded, "$argon2id$v=19$m=65536,t=3,p=1$")) << *encoded;
  // 16 bytes of salt and 32 of hash, in unpadded base64: 22 and 43 characters.
  const size_t salt_start = encoded->find('$', 30) + 1;
  const size_t hash_start = encoded->find('$', salt_start) + 1;
  EXPECT_EQ(hash_start - salt_start - 1, 22u) << *encoded;
  EXPECT_EQ(encoded->size() - hash_start, 43u) << *encoded;
  EXPECT_TRUE(VerifySecret(*encoded, "admin secret"));
  EXPECT_FALSE(VerifySecret(*encoded, "admin secreT"));
}

absl::Duration FastestOfThree(const std::function<void()>& work) {
  absl::Duration fastest = absl::InfiniteDuration();
  for (int i = 0; i < 3; ++i) {
    const absl::Time start = absl::Now();
    work();
    fastest = std::min(fastest, absl::Now() - start);
  }
  return fastest;
}

TEST(SecretHashTest, BurningTakesAboutAsLongAsAVerification) {
  SecretHashParams params;
  params.time_cost = 1;
  params.memory_kib = 8 * 1024;  // long enough to measure, short enough for a unit test
  absl::StatusOr<std::string> encoded = HashSecret("s", params);
  ASSERT_TRUE(encoded.ok());
  BurnVerificationTime(params);  // computes the dummy hash once
  const absl::Duration verify = FastestOfThree([&] { VerifySecret(*encoded, "x"); });
  const absl::Duration burn = FastestOfThree([&] { BurnVerificationTime(params); });
  // The fastest of three runs shrugs off a busy machine; the bound only needs to catch a burn
  // that does no Argon2 work at all.
  EXPECT_GT(burn, verify / 3) << "burn " << burn << ", verify " << verify;
}

}  // namespace
}  // namespace verdict
