#include "server/store_pruner.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "decision/types.h"
#include "gtest/gtest.h"
#include "store/admin_sessions.h"
#include "store/open_store.h"
#include "store/sqlite_store.h"
#include "store/test_support.h"

namespace verdict {
namespace {

class StorePrunerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenTestStore(path_, clock_);
    ASSERT_NE(store_, nullptr);
  }

  void Spend(const std::string& permission, int64_t window_start) {
    absl::StatusOr<std::unique_ptr<WriteTransaction>> write = store_->BeginWrite();
    ASSERT_TRUE(write.ok()) << write.status();
    ASSERT_TRUE((*write)
                    ->SpendRate({.agent_id = "agt_a",
                                 .permission_id = permission,
                                 .window_start_unix = window_start,
                                 .limit = 10,
                                 .window_seconds = 60})
                    .ok());
    ASSERT_TRUE((*write)->Commit().ok());
  }

  int64_t Count(const std::string& permission, int64_t window_start) {
    absl::StatusOr<std::unique_ptr<ReadSnapshot>> read = store_->BeginRead();
    EXPECT_TRUE(read.ok()) << read.status();
    return read.ok() ? (*read)->RateCount("agt_a", permission, window_start).value_or(-1) : -1;
  }

  ManualClock clock_;
  const std::string path_ = FreshDatabasePath();
  std::unique_ptr<SqliteStore> store_;
};

TEST_F(StorePrunerTest, RunsInBatchesUntilNothingIsLeftAndCountsWhatItDeleted) {
  const int64_t now = absl::ToUnixSeconds(clock_.Now());
  for (int i = 0; i < 5; ++i) Spend(absl::StrCat("perm_", i), now - 600);
  Spend("perm_current", now);
  {
    // An hour between runs: only full batches are followed at once by another.
    StorePruner pruner(*store_, {.max_rows = 2}, absl::Hours(1));
    pruner.AwaitRuns(3);
    const StorePruner::Counters counters = pruner.counters();
    EXPECT_EQ(counters.rate_counters, 5u);
    EXPECT_EQ(counters.approvals, 0u);
    EXPECT_EQ(counters.failed, 0u);
  }  // stops without waiting for the hour
  EXPECT_EQ(Count("perm_0", now - 600), 0);
  EXPECT_EQ(Count("perm_current", now), 1);
}

TEST_F(StorePrunerTest, ExpiredAdminSessionsArePrunedAndLiveOnesKept) {
  const std::string path = FreshDatabasePath("sessions");
  AdminSessions sessions(path);
  const absl::Time now = absl::Now();  // the job prunes sessions by the process's clock
  for (int i = 0; i < 3; ++i) {
    const AdminSession session{.id = absl::StrCat("ses_", i),
                               .principal = absl::StrCat("operator", i),
                               .created_at = now - absl::Hours(2),
                               .expires_at = now - absl::Hours(1) + absl::Seconds(i)};
    ASSERT_TRUE(sessions.Insert(session, absl::StrCat("expired-", i), 100).ok());
  }
  const AdminSession live{.id = "ses_live",
                          .principal = "alice",
                          .created_at = now,
                          .expires_at = now + absl::Hours(1)};
  ASSERT_TRUE(sessions.Insert(live, "live", 100).ok());
  {
    StorePruner pruner(*store_, {.max_rows = 2}, absl::Hours(1), /*admin_audit=*/{}, &sessions);
    pruner.AwaitRuns(2);
    EXPECT_EQ(pruner.counters().admin_sessions, 3u);
    EXPECT_EQ(pruner.counters().failed, 0u);
  }
  EXPECT_FALSE(sessions.FindByTokenHash("expired-0")->has_value());
  EXPECT_TRUE(sessions.FindByTokenHash("live")->has_value());
}

TEST_F(StorePrunerTest, AFailedRunIsCountedAndTheJobGoesOn) {
  // Limits the store refuses stand for a database that refuses the batch.
  StorePruner pruner(*store_, {.max_rows = 0}, absl::Milliseconds(1));
  pruner.AwaitRuns(2);
  EXPECT_GE(pruner.counters().failed, 2u);
}

TEST_F(StorePrunerTest, TheAdminAuditLogKeepsItsRetentionAndItsChainStillVerifies) {
  absl::StatusOr<std::unique_ptr<AdminAuditLog>> audit = OpenAdminAuditLog(path_);
  ASSERT_TRUE(audit.ok()) << audit.status();
  // Five rows a day apart, the last recorded now.
  for (int days_ago = 4; days_ago >= 0; --days_ago) {
    AdminAuditRow row{
        .recorded_at_us = absl::ToUnixMicros(clock_.Now() - absl::Hours(24) * days_ago),
        .principal = "admin",
        .auth_method = "secret",
        .call = "RevokeAgent",
        .objects = {absl::StrCat("agt_", days_ago)},
        .arguments_json = "{}",
        .result_code = "OK"};
    ASSERT_TRUE((*audit)->Append(row).ok());
  }
  {
    // Kept for 2.5 days, at most 2 rows per batch: rows 4 and 3 days old go in one full batch,
    // the next finds nothing more.
    StorePruner pruner(*store_, {.max_rows = 2}, absl::Hours(1),
                       {.log = audit->get(),
                        .retention = {.max_age = absl::Hours(60), .batch = 2},
                        .clock = clock_.AsFunction()});
    pruner.AwaitRuns(2);
    EXPECT_EQ(pruner.counters().admin_audit_rows, 2u);
    EXPECT_EQ(pruner.counters().failed, 0u);
  }
  absl::StatusOr<AdminAuditPage> kept = (*audit)->Query({}, 0, "");
  ASSERT_TRUE(kept.ok()) << kept.status();
  ASSERT_EQ(kept->rows.size(), 3u);
  EXPECT_EQ(kept->rows.front().seq, 3);
  absl::StatusOr<AdminAuditVerification> verification = (*audit)->Verify();
  ASSERT_TRUE(verification.ok()) << verification.status();
  EXPECT_TRUE(verification->intact) << verification->problem;
  EXPECT_EQ(verification->pruned_through_seq, 2);
}

}  // namespace
}  // namespace verdict
