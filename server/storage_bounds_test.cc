#include "server/storage_bounds.h"

#include "absl/flags/flag.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

TEST(StorageBoundsTest, TheDefaultsAreValid) {
  absl::StatusOr<StorageBounds> bounds = StorageBoundsFromFlags();
  ASSERT_TRUE(bounds.ok()) << bounds.status();
  EXPECT_EQ(bounds->max_pending_approvals, kDefaultMaxPendingApprovals);
  EXPECT_EQ(bounds->prune_interval, absl::Seconds(10));
  EXPECT_EQ(bounds->prune_limits.max_rows, 1000);
  EXPECT_EQ(bounds->prune_limits.approval_retention, absl::Hours(1));
  EXPECT_EQ(bounds->admin_audit_retention.max_age, absl::Hours(24 * 400));
  EXPECT_EQ(bounds->admin_audit_retention.max_rows, 10'000'000);
  EXPECT_EQ(bounds->admin_audit_retention.batch, 1000);
}

TEST(StorageBoundsTest, EachBoundOutOfRangeIsRefusedByItsFlagsName) {
  struct Case {
    void (*change)(StorageBounds&);
    const char* flag;
  };
  const Case cases[] = {
      {[](StorageBounds& b) { b.max_pending_approvals = 0; }, "--max_pending_approvals"},
      {[](StorageBounds& b) { b.max_pending_approvals = 1'000'001; }, "--max_pending_approvals"},
      {[](StorageBounds& b) { b.prune_interval = absl::ZeroDuration(); }, "--prune_interval"},
      {[](StorageBounds& b) { b.prune_interval = absl::Hours(25); }, "--prune_interval"},
      {[](StorageBounds& b) { b.prune_limits.max_rows = 0; }, "--prune_batch"},
      {[](StorageBounds& b) { b.prune_limits.max_rows = 100'001; }, "--prune_batch"},
      {[](StorageBounds& b) { b.prune_limits.approval_retention = -absl::Seconds(1); },
       "--approval_retention"},
      {[](StorageBounds& b) { b.prune_limits.approval_retention = absl::InfiniteDuration(); },
       "--approval_retention"},
      {[](StorageBounds& b) { b.admin_audit_retention.max_age = absl::ZeroDuration(); },
       "--admin_audit_retention"},
      {[](StorageBounds& b) { b.admin_audit_retention.max_age = absl::InfiniteDuration(); },
       "--admin_audit_retention"},
      {[](StorageBounds& b) { b.admin_audit_retention.max_rows = 0; }, "--admin_audit_max_rows"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.flag);
    StorageBounds bounds;
    c.change(bounds);
    absl::Status status = ValidateStorageBounds(bounds);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(status.message().find(c.flag), 0u) << status.message();
  }
}

TEST(StorageBoundsTest, FlagsAreReadIntoTheBounds) {
  absl::SetFlag(&FLAGS_max_pending_approvals, 7);
  absl::SetFlag(&FLAGS_prune_interval, absl::Seconds(3));
  absl::SetFlag(&FLAGS_prune_batch, 50);
  absl::SetFlag(&FLAGS_approval_retention, absl::Minutes(5));
  absl::StatusOr<StorageBounds> bounds = StorageBoundsFromFlags();
  ASSERT_TRUE(bounds.ok()) << bounds.status();
  EXPECT_EQ(bounds->max_pending_approvals, 7);
  EXPECT_EQ(bounds->prune_interval, absl::Seconds(3));
  EXPECT_EQ(bounds->prune_limits.max_rows, 50);
  EXPECT_EQ(bounds->prune_limits.approval_retention, absl::Minutes(5));
  absl::SetFlag(&FLAGS_prune_batch, 0);
  EXPECT_EQ(StorageBoundsFromFlags().status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace verdict
