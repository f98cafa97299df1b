#include "store/admin_credentials.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "store/migrations.h"
#include "store/sqlite/schema.h"
#include "store/test_support.h"

namespace verdict {
namespace {

TEST(AdminCredentialsTest, ANewDatabaseHasNoPrincipal) {
  AdminCredentials credentials(FreshDatabasePath("none"));
  absl::StatusOr<std::optional<StoredAdminPrincipal>> admin = credentials.FindPrincipal("admin");
  ASSERT_TRUE(admin.ok()) << admin.status();
  EXPECT_FALSE(admin->has_value());
}

TEST(AdminCredentialsTest, TheFirstAdminIsNeverOverwritten) {
  const std::string path = FreshDatabasePath("first");
  AdminCredentials credentials(path);
  absl::StatusOr<bool> first = credentials.SetIfAbsent("$argon2id$first", absl::Now());
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_TRUE(*first);
  absl::StatusOr<bool> second = credentials.SetIfAbsent("$argon2id$second", absl::Now());
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_FALSE(*second);

  // Another connection (another process) reads what was committed.
  absl::StatusOr<std::optional<StoredAdminPrincipal>> admin =
      AdminCredentials(path).FindPrincipal("admin");
  ASSERT_TRUE(admin.ok()) << admin.status();
  ASSERT_TRUE(admin->has_value());
  EXPECT_EQ((*admin)->secret_hash, "$argon2id$first");
}

// Upgrading (README): a database of schema 10 holds one admin credential; migration 11 makes it
// the principal "admin", with the role admin and the same hash, so the same secret still works.
TEST(AdminCredentialsTest, TheCredentialOfSchema10BecomesThePrincipalAdmin) {
  const std::string path = FreshDatabasePath("schema10");
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, 5000);
    ASSERT_TRUE(MigrateSchema(db, absl::Seconds(5), Migrations().subspan(0, 10)).ok());
    ASSERT_EQ(SchemaVersion(db), 10);
    db.exec(
        "INSERT INTO admin_credentials (id, secret_hash, created_at) "
        "VALUES (1, '$argon2id$v=19$m=1024,t=1,p=1$old', 1700000000000000)");
  }
  AdminCredentials credentials(path);  // migrates on first use
  absl::StatusOr<std::vector<StoredAdminPrincipal>> all = credentials.ListPrincipals();
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 1u);
  const StoredAdminPrincipal& admin = (*all)[0];
  EXPECT_EQ(admin.principal.name, "admin");
  EXPECT_EQ(admin.secret_hash, "$argon2id$v=19$m=1024,t=1,p=1$old");
  EXPECT_EQ(admin.principal.roles, AdminRoleSet({AdminRole::kAdmin}));
  EXPECT_TRUE(admin.principal.enabled);
  EXPECT_TRUE(admin.principal.grant_patterns.empty());
  EXPECT_EQ(admin.created_at, absl::FromUnixSeconds(1700000000));

  SQLite::Database db(path, SQLite::OPEN_READONLY);
  EXPECT_FALSE(db.tableExists("admin_credentials"));
}

TEST(AdminCredentialsTest, ADatabaseOfSchema10WithoutCredentialHasNoPrincipal) {
  const std::string path = FreshDatabasePath("schema10_empty");
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, 5000);
    ASSERT_TRUE(MigrateSchema(db, absl::Seconds(5), Migrations().subspan(0, 10)).ok());
  }
  absl::StatusOr<std::vector<StoredAdminPrincipal>> all = AdminCredentials(path).ListPrincipals();
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_TRUE(all->empty());
}

TEST(AdminCredentialsTest, AnUnreachableDatabaseIsUnavailable) {
  AdminCredentials credentials("/nonexistent-dir/verdict.db");
  EXPECT_EQ(credentials.FindPrincipal("admin").status().code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace verdict
