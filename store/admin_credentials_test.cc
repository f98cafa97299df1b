#include "store/admin_credentials.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "store/test_support.h"

namespace verdict {
namespace {

TEST(AdminCredentialsTest, ANewDatabaseHasNoCredential) {
  AdminCredentials credentials(FreshDatabasePath("none"));
  absl::StatusOr<std::optional<std::string>> hash = credentials.SecretHash();
  ASSERT_TRUE(hash.ok()) << hash.status();
  EXPECT_FALSE(hash->has_value());
}

TEST(AdminCredentialsTest, TheFirstCredentialIsNeverOverwritten) {
  const std::string path = FreshDatabasePath("first");
  AdminCredentials credentials(path);
  absl::StatusOr<bool> first = credentials.SetIfAbsent("$argon2id$first", absl::Now());
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_TRUE(*first);
  absl::StatusOr<bool> second = credentials.SetIfAbsent("$argon2id$second", absl::Now());
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_FALSE(*second);

  // Another connection (another process) reads what was committed.
  absl::StatusOr<std::optional<std::string>> hash = AdminCredentials(path).SecretHash();
  ASSERT_TRUE(hash.ok()) << hash.status();
  EXPECT_EQ(hash->value_or(""), "$argon2id$first");
}

TEST(AdminCredentialsTest, AnUnreachableDatabaseIsUnavailable) {
  AdminCredentials credentials("/nonexistent-dir/verdict.db");
  EXPECT_EQ(credentials.SecretHash().status().code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace verdict
