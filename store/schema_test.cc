#include "store/sqlite/schema.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/migrations.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::IsSupersetOf;

class SchemaTest : public ::testing::Test {
 protected:
  std::string NewDatabasePath() {
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", test->name(), ".db");
    std::remove(path.c_str());
    return path;
  }

  static SQLite::Database OpenDatabase(const std::string& path) {
    return SQLite::Database(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, 5000);
  }

  static std::vector<std::string> Names(SQLite::Database& db, const char* type) {
    SQLite::Statement list(db, "SELECT name FROM sqlite_master WHERE type = ? ORDER BY name");
    list.bind(1, type);
    std::vector<std::string> names;
    while (list.executeStep()) names.push_back(list.getColumn(0).getString());
    return names;
  }
};

TEST_F(SchemaTest, MigrationsAreNumberedFromOneWithoutGaps) {
  int expected = 1;
  for (const Migration& migration : Migrations()) {
    EXPECT_EQ(migration.version, expected++);
  }
  EXPECT_EQ(LatestSchemaVersion(), Migrations().back().version);
}

TEST_F(SchemaTest, NewDatabaseGetsEveryTableAndTheLatestVersion) {
  SQLite::Database db = OpenDatabase(NewDatabasePath());
  ASSERT_TRUE(ConfigureConnection(db, absl::Seconds(5)).ok());
  ASSERT_TRUE(MigrateSchema(db, absl::Seconds(5)).ok());

  EXPECT_EQ(SchemaVersion(db), LatestSchemaVersion());
  EXPECT_THAT(Names(db, "table"),
              IsSupersetOf({"agents", "permissions", "delegations", "approval_requests",
                            "approval_votes", "rate_counters", "revoked_token_ids"}));
  EXPECT_THAT(Names(db, "index"),
              IsSupersetOf({"permissions_by_agent", "delegations_by_to", "delegations_by_from",
                            "approval_requests_open", "approval_requests_by_status"}));
}

TEST_F(SchemaTest, DecisionLogIsLeftToItsOwnMigration) {
  SQLite::Database db = OpenDatabase(NewDatabasePath());
  ASSERT_TRUE(MigrateSchema(db, absl::Seconds(5), Migrations().subspan(0, 1)).ok());
  EXPECT_FALSE(db.tableExists("decision_log"));
  ASSERT_TRUE(MigrateSchema(db, absl::Seconds(5)).ok());
  EXPECT_TRUE(db.tableExists("decision_log"));
  EXPECT_TRUE(db.tableExists("admin_credentials"));
}

TEST_F(SchemaTest, ConfigureConnectionTurnsOnWalAndForeignKeys) {
  SQLite::Database db = OpenDatabase(NewDatabasePath());
  ASSERT_TRUE(ConfigureConnection(db, absl::Seconds(5)).ok());
  EXPECT_EQ(db.execAndGet("PRAGMA journal_mode").getString(), "wal");
  EXPECT_EQ(db.execAndGet("PRAGMA foreign_keys").getInt(), 1);
  EXPECT_EQ(db.execAndGet("PRAGMA synchronous").getInt(), 1);  // NORMAL
}

TEST_F(SchemaTest, MigratingAnUpToDateDatabaseChangesNothing) {
  const std::string path = NewDatabasePath();
  {
    SQLite::Database db = OpenDatabase(path);
    ASSERT_TRUE(MigrateSchema(db, absl::Seconds(5)).ok());
    db.exec("INSERT INTO revoked_token_ids (jti, expires_at) VALUES ('kept', 1)");
  }
  SQLite::Database db = OpenDatabase(path);
  ASSERT_TRUE(MigrateSchema(db, absl::Seconds(5)).ok());
  ASSERT_TRUE(MigrateSchema(db, absl::Seconds(5)).ok());
  EXPECT_EQ(SchemaVersion(db), LatestSchemaVersion());
  EXPECT_EQ(db.execAndGet("SELECT count(*) FROM revoked_token_ids").getInt(), 1);
}

TEST_F(SchemaTest, OnlyMigrationsNewerThanTheDatabaseRun) {
  const Migration first[] = {{1, "CREATE TABLE one (x INTEGER)"}};
  const Migration both[] = {{1, "CREATE TABLE one (x INTEGER)"},
                            {2, "CREATE TABLE two (x INTEGER)"}};
  SQLite::Database db = OpenDatabase(NewDatabasePath());
  ASSERT_TRUE(MigrateSchema(db, absl::Seconds(5), first).ok());
  ASSERT_TRUE(MigrateSchema(db, absl::Seconds(5), both).ok());  // would fail if 1 re-ran
  EXPECT_EQ(SchemaVersion(db), 2);
  EXPECT_TRUE(db.tableExists("two"));
}

// Version 6 keys rate counters by agent too; counts kept from before go to the agent whose
// permission they counted (a lent permission's slot: the delegation's borrower).
TEST_F(SchemaTest, RateCountsFromBeforePerAgentCountersGoToTheirPermissionsAgent) {
  SQLite::Database db = OpenDatabase(NewDatabasePath());
  ASSERT_TRUE(MigrateSchema(db, absl::Seconds(5), Migrations().subspan(0, 5)).ok());
  db.exec(
      "INSERT INTO agents (id, owner, name, kind, status, token_hash, token_prefix, created_at,"
      " updated_at) VALUES ('agt_a', 'o', 'A', 'autonomous', 'active', x'01', 'vdt_a', 1, 1),"
      " ('agt_b', 'o', 'B', 'delegated', 'active', x'02', 'vdt_b', 1, 1);"
      "INSERT INTO permissions (id, agent_id, resource, actions, effect, constraints, created_at)"
      " VALUES ('p1', 'agt_a', 'docs:*', 'read', 'allow', '{}', 1);"
      "INSERT INTO delegations (id, from_agent_id, to_agent_id, permissions, max_depth, status,"
      " created_at) VALUES ('d1', 'agt_a', 'agt_b', '[]', 1, 'active', 1);"
      "INSERT INTO rate_counters (permission_id, window_start, count) VALUES ('p1', 60, 3),"
      " ('d1#0', 60, 2), ('p_gone', 60, 9)");
  ASSERT_TRUE(MigrateSchema(db, absl::Seconds(5), Migrations()).ok());
  SQLite::Statement rows(db,
                         "SELECT agent_id || ' ' || permission_id || ' ' || window_start || ' ' ||"
                         " count FROM rate_counters ORDER BY agent_id, permission_id");
  std::vector<std::string> counts;
  while (rows.executeStep()) counts.push_back(rows.getColumn(0).getString());
  // A count of a permission that no longer exists is never read again: it is dropped.
  EXPECT_EQ(counts, (std::vector<std::string>{"agt_a p1 60 3", "agt_b d1#0 60 2"}));
}

TEST_F(SchemaTest, FailedMigrationLeavesTheDatabaseAsItWas) {
  const Migration broken[] = {{1, "CREATE TABLE one (x INTEGER)"},
                              {2, "CREATE TABLE two (x INTEGER); THIS IS NOT SQL"}};
  SQLite::Database db = OpenDatabase(NewDatabasePath());
  absl::Status status = MigrateSchema(db, absl::Seconds(5), broken);
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(status.message(), HasSubstr("from schema version 0: migration 2 failed"));
  EXPECT_EQ(SchemaVersion(db), 0);
  EXPECT_FALSE(db.tableExists("one"));
  EXPECT_FALSE(db.tableExists("two"));
}

TEST_F(SchemaTest, DatabaseFromANewerVerdictIsRefused) {
  SQLite::Database db = OpenDatabase(NewDatabasePath());
  db.exec(absl::StrCat("PRAGMA user_version = ", LatestSchemaVersion() + 1));
  absl::Status status = MigrateSchema(db, absl::Seconds(5));
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("upgrade verdict"));
}

}  // namespace
}  // namespace verdict
