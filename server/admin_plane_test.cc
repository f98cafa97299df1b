#include "server/admin_plane.h"

#include "absl/flags/flag.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

// Restores the admin flags after each test.
class AdminPlaneOptionsTest : public testing::Test {
 protected:
  void TearDown() override {
    absl::SetFlag(&FLAGS_admin_listen, "");
    absl::SetFlag(&FLAGS_test_only_weak_admin_hash, false);
  }
};

TEST_F(AdminPlaneOptionsTest, ByDefaultAdminListensOnASocketNextToTheDatabase) {
  absl::StatusOr<AdminPlaneOptions> options =
      AdminPlaneOptionsFromFlags("/var/lib/verdict/verdict.db", "127.0.0.1:50051");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->listen, "unix:/var/lib/verdict/verdict.db.admin.sock");
  EXPECT_FALSE(options->listen_required);
  EXPECT_EQ(options->hash_params.memory_kib, SecretHashParams().memory_kib);
  EXPECT_EQ(options->hash_params.time_cost, SecretHashParams().time_cost);
}

TEST_F(AdminPlaneOptionsTest, AnAddressTheOperatorChoseIsRequired) {
  absl::SetFlag(&FLAGS_admin_listen, "127.0.0.1:50052");
  absl::StatusOr<AdminPlaneOptions> options = AdminPlaneOptionsFromFlags("v.db", "127.0.0.1:50051");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->listen, "127.0.0.1:50052");
  EXPECT_TRUE(options->listen_required);
}

TEST_F(AdminPlaneOptionsTest, OffMeansNoAdminListener) {
  absl::SetFlag(&FLAGS_admin_listen, "off");
  absl::StatusOr<AdminPlaneOptions> options = AdminPlaneOptionsFromFlags("v.db", "127.0.0.1:1");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->listen, "");
}

TEST_F(AdminPlaneOptionsTest, TheDecisionPortNeverServesTheAdminService) {
  absl::SetFlag(&FLAGS_admin_listen, "127.0.0.1:50051");
  absl::StatusOr<AdminPlaneOptions> options = AdminPlaneOptionsFromFlags("v.db", "127.0.0.1:50051");
  EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(options.status().message(), HasSubstr("--admin_listen"));
}

TEST_F(AdminPlaneOptionsTest, WeakHashingIsForTestsThatAskForIt) {
  absl::SetFlag(&FLAGS_test_only_weak_admin_hash, true);
  absl::StatusOr<AdminPlaneOptions> options = AdminPlaneOptionsFromFlags("v.db", "127.0.0.1:1");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_LT(options->hash_params.memory_kib, SecretHashParams().memory_kib);
}

}  // namespace
}  // namespace verdict
