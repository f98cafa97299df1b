// Admin sessions (store/admin_session_store.h) behave the same on SQLite and PostgreSQL, opened
// as verdictd opens them (store/open_store.h). The PostgreSQL cases skip without
// VERDICT_TEST_POSTGRES_URL (scripts/test.d/postgres.sh sets it).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/admin_session_store.h"
#include "store/open_store.h"
#include "store/postgres/postgres_test_support.h"
#include "store/test_support.h"

namespace verdict {
namespace {

enum class Backend { kSqlite, kPostgres };

std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::kSqlite ? "Sqlite" : "Postgres";
}

const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);

class AdminSessionsContractTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::kSqlite) {
      db_ = FreshDatabasePath("sessions");
    } else {
      if (TestPostgresUrl().empty()) GTEST_SKIP() << kNoPostgresMessage;
      absl::StatusOr<PostgresTestSchema> schema = PostgresTestSchema::Create();
      ASSERT_TRUE(schema.ok()) << schema.status();
      schema_.emplace(*std::move(schema));
      db_ = schema_->conninfo();
    }
    sessions_ = Open();
    ASSERT_NE(sessions_, nullptr);
  }

  // Another store on the same database, with a connection of its own, as another sidecar's.
  std::unique_ptr<AdminSessionStore> Open() {
    absl::StatusOr<std::unique_ptr<AdminSessionStore>> sessions = OpenAdminSessionStore(db_);
    EXPECT_TRUE(sessions.ok()) << sessions.status();
    return sessions.ok() ? *std::move(sessions) : nullptr;
  }

  // Stores session `n` of `principal`, created at kT0 + n s, for `lifetime`, under the hash
  // "hash-<n>"; how many sessions it removed to make room.
  int64_t Insert(int n, const std::string& principal, absl::Duration lifetime = absl::Hours(1),
                 int max_per_principal = 100) {
    const AdminSession session{.id = absl::StrCat("ses_", n),
                               .principal = principal,
                               .created_at = kT0 + absl::Seconds(n),
                               .expires_at = kT0 + absl::Seconds(n) + lifetime};
    absl::StatusOr<int64_t> removed =
        sessions_->Insert(session, absl::StrCat("hash-", n), max_per_principal);
    EXPECT_TRUE(removed.ok()) << removed.status();
    return removed.value_or(-1);
  }

  std::optional<AdminSession> Find(int n) {
    absl::StatusOr<std::optional<AdminSession>> found =
        sessions_->FindByTokenHash(absl::StrCat("hash-", n));
    EXPECT_TRUE(found.ok()) << found.status();
    return found.ok() ? *found : std::nullopt;
  }

  std::string db_;
  std::optional<PostgresTestSchema> schema_;
  std::unique_ptr<AdminSessionStore> sessions_;
};

INSTANTIATE_TEST_SUITE_P(Backends, AdminSessionsContractTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres), BackendName);

TEST_P(AdminSessionsContractTest, ASessionIsFoundByItsTokenHashOnly) {
  EXPECT_EQ(Insert(1, "alice", absl::Hours(2)), 0);

  std::optional<AdminSession> found = Open()->FindByTokenHash("hash-1").value_or(std::nullopt);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->id, "ses_1");
  EXPECT_EQ(found->principal, "alice");
  EXPECT_EQ(found->created_at, kT0 + absl::Seconds(1));
  EXPECT_EQ(found->expires_at, kT0 + absl::Seconds(1) + absl::Hours(2));
  EXPECT_FALSE(Find(2).has_value());
  EXPECT_FALSE(sessions_->FindByTokenHash("ses_1").value_or(std::nullopt).has_value());
}

TEST_P(AdminSessionsContractTest, ATokenHashIsNeverStoredTwice) {
  Insert(1, "alice");
  const AdminSession again{
      .id = "ses_other", .principal = "bob", .created_at = kT0, .expires_at = kT0 + absl::Hours(1)};
  EXPECT_FALSE(sessions_->Insert(again, "hash-1", 100).ok());
  EXPECT_EQ(Find(1)->principal, "alice");
}

TEST_P(AdminSessionsContractTest, APrincipalHoldsAtMostItsCapAndTheOldestGoFirst) {
  for (int n = 1; n <= 3; ++n) EXPECT_EQ(Insert(n, "alice", absl::Hours(1), 3), 0);
  Insert(100, "bob", absl::Hours(1), 3);

  EXPECT_EQ(Insert(4, "alice", absl::Hours(1), 3), 1);
  EXPECT_FALSE(Find(1).has_value());
  EXPECT_TRUE(Find(2).has_value());
  EXPECT_TRUE(Find(4).has_value());
  EXPECT_TRUE(Find(100).has_value()) << "another principal's sessions are not counted";
}

TEST_P(AdminSessionsContractTest, MakingRoomDeletesThePrincipalsExpiredSessionsFirst) {
  Insert(1, "alice", absl::Seconds(3));  // expired at kT0 + 4 s, before session 5 is made
  Insert(2, "alice");
  Insert(3, "alice");
  EXPECT_EQ(Insert(5, "alice", absl::Hours(1), 3), 1);
  EXPECT_FALSE(Find(1).has_value());
  EXPECT_TRUE(Find(2).has_value());
  EXPECT_TRUE(Find(3).has_value());
}

TEST_P(AdminSessionsContractTest, DeleteTakesOnlyTheNamedPrincipalsSession) {
  Insert(1, "alice");
  absl::StatusOr<bool> by_other = sessions_->Delete("ses_1", "bob");
  ASSERT_TRUE(by_other.ok()) << by_other.status();
  EXPECT_FALSE(*by_other);
  EXPECT_TRUE(Find(1).has_value());

  EXPECT_TRUE(sessions_->Delete("ses_1", "alice").value_or(false));
  EXPECT_FALSE(Find(1).has_value());
  EXPECT_FALSE(sessions_->Delete("ses_1", "alice").value_or(true));

  Insert(2, "alice");
  EXPECT_TRUE(sessions_->Delete("ses_2", "").value_or(false)) << "\"\" deletes anyone's";
}

TEST_P(AdminSessionsContractTest, DeleteAllOfEndsEverySessionOfOnePrincipal) {
  Insert(1, "alice");
  Insert(2, "alice");
  Insert(3, "bob");
  EXPECT_EQ(sessions_->DeleteAllOf("alice").value_or(-1), 2);
  EXPECT_FALSE(Find(1).has_value());
  EXPECT_FALSE(Find(2).has_value());
  EXPECT_TRUE(Find(3).has_value());
}

TEST_P(AdminSessionsContractTest, PruningDeletesExpiredSessionsInBoundedBatches) {
  Insert(1, "alice", absl::Seconds(10));  // expires at kT0 + 11 s
  Insert(2, "bob", absl::Seconds(10));    // kT0 + 12 s
  Insert(3, "carol", absl::Seconds(10));  // kT0 + 13 s
  Insert(4, "dave", absl::Hours(1));

  EXPECT_EQ(sessions_->PruneExpired(kT0 + absl::Seconds(10), 100).value_or(-1), 0);
  EXPECT_EQ(sessions_->PruneExpired(kT0 + absl::Seconds(13), 2).value_or(-1), 2);
  EXPECT_EQ(sessions_->PruneExpired(kT0 + absl::Seconds(13), 2).value_or(-1), 1);
  EXPECT_FALSE(Find(1).has_value());
  EXPECT_FALSE(Find(3).has_value());
  EXPECT_TRUE(Find(4).has_value());
}

}  // namespace
}  // namespace verdict
