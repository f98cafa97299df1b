#include "store/sqlite/schema.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "crypto/sha256.h"
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

// A migration that has shipped is never edited, in either dialect: a database an earlier verdict
// migrated and a new one end with the same schema. Each shipped text is pinned by its SHA-256.
TEST_F(SchemaTest, ShippedMigrationsKeepTheirTextInBothDialects) {
  struct Shipped {
    Dialect dialect;
    int version;
    const char* sha256_hex;
  };
  const Shipped kShipped[] = {
      {Dialect::kSqlite, 1, "c569b0dc413994c45305c724fafeea8ee98d6e0a7534c4b176951924e9c519ec"},
      {Dialect::kPostgres, 1, "4176c50c2ebb61704025c2188eb33db603787c351a03e0772da761c587e43b4f"},
      {Dialect::kSqlite, 2, "2231849210115b1446344042a401d65db66068d4bf23749fa1a1dbb1d2d2605c"},
      {Dialect::kPostgres, 2, "c7a5288b9a98cebc1c370c2eebc464cae97abcc0f94324fdc9cdc301b160c464"},
      {Dialect::kSqlite, 3, "04274f229c84697f12840b0643f3f29f332f21c9b3654eb69fb5ece53617c6dc"},
      {Dialect::kPostgres, 3, "1779fca66db8becce323821b234b02e647a064ca1ec599b77dac233fd9562c93"},
      {Dialect::kSqlite, 6, "18c41fe31f93cee643f96b0cdb16305c2a06dd8e3f9ccac53eb09f129b672738"},
      {Dialect::kPostgres, 6, "5b3555d2dbd63b2df9cd7945da46171b542617661df9a14abcf3fd299acfb884"},
      {Dialect::kSqlite, 7, "068cc351123e04873578cc9266e8997fde64512576cba589c53bc1dd574fe9df"},
      {Dialect::kPostgres, 7, "bcdd317a958ecd3846a0fe2be2da051169c1e4640441882506bba34fe0b95e8d"},
      {Dialect::kSqlite, 8, "5e89af039fa2b0e3526740fc7c8ea41444393dfde3c273bb4b511a5c4e72dfd7"},
      {Dialect::kPostgres, 8, "82ca0019be06f81262ccf28c1b2de72f173dfbd9d78502271e64c7eed87b1a16"},
      {Dialect::kSqlite, 9, "2d2daaeb84429b2314264312ccdef0a05e466f5daa7d1b14f8399120a34b1e20"},
      {Dialect::kPostgres, 9, "187ce82feebed1fa536b4029d261909614af17b3966ced56a2180e2382937c90"},
  };
  for (const Shipped& shipped : kShipped) {
    const Migration* found = nullptr;
    for (const Migration& migration : Migrations(shipped.dialect)) {
      if (migration.version == shipped.version) found = &migration;
    }
    const char* dialect = shipped.dialect == Dialect::kSqlite ? "SQLite" : "PostgreSQL";
    ASSERT_NE(found, nullptr) << dialect << " migration " << shipped.version;
    EXPECT_EQ(HexEncode(Sha256(found->sql)), shipped.sha256_hex)
        << dialect << " migration " << shipped.version << " changed:\n"
        << found->sql;
  }
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
  EXPECT_TRUE(db.tableExists("admin_principals"));
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
