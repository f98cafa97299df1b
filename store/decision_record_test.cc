// decision_records: one row per agent that a decision reads instead of three tables. Triggers
// keep it equal to the tables it is derived from after any write, by verdict or by anything
// else that writes SQL; what cannot be decoded is INTERNAL (the decision fails closed).
#include "store/decision_record.h"

#include <SQLiteCpp/Database.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/migrations.h"
#include "store/sqlite/schema.h"
#include "store/sqlite/sqlite_connection.h"
#include "store/sqlite/sqlite_lookups.h"
#include "store/test_support.h"

namespace verdict {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

// Every field, so that two rows compare equal exactly when they hold the same values.
std::string Describe(const Agent& a) {
  return absl::StrCat(a.id, "|", a.owner, "|", a.name, "|", static_cast<int>(a.kind), "|",
                      static_cast<int>(a.status), "|", absl::FormatTime(a.expires_at), "|",
                      a.token_prefix, "|", absl::FormatTime(a.created_at), "|",
                      absl::FormatTime(a.updated_at));
}
std::string Describe(const Permission& p) {
  return absl::StrCat(p.id, "|", p.agent_id, "|", p.resource, "|", absl::StrJoin(p.actions, ","),
                      "|", static_cast<int>(p.effect), "|", p.constraints_json, "|",
                      absl::FormatTime(p.created_at));
}
std::string Describe(const Delegation& d) {
  std::string lent;
  for (const LentPermission& l : d.permissions) {
    absl::StrAppend(&lent, l.resource, "/", absl::StrJoin(l.actions, ","), "/", l.constraints_json,
                    ";");
  }
  return absl::StrCat(d.id, "|", d.from_agent_id, "|", d.to_agent_id, "|", lent, "|", d.max_depth,
                      "|", static_cast<int>(d.status), "|", absl::FormatTime(d.expires_at), "|",
                      absl::FormatTime(d.created_at));
}
template <typename T>
std::vector<std::string> DescribeAll(const std::vector<T>& rows) {
  std::vector<std::string> described;
  for (const T& row : rows) described.push_back(Describe(row));
  return described;
}

// The agent's row as the store reads it, or nullopt.
std::optional<DecisionRecord> RecordOf(SqliteConnection& connection, const std::string& agent_id) {
  DecisionRecord record;
  if (!LookupDecisionRecord(connection, agent_id, record)) return std::nullopt;
  return record;
}

class DecisionRecordTablesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<SqliteConnection>> opened =
        SqliteConnection::Open(FreshDatabasePath(), ConnectionOptions{});
    ASSERT_TRUE(opened.ok()) << opened.status();
    connection_ = *std::move(opened);
  }

  void Sql(const std::string& sql) { connection_->database().exec(sql); }

  // The record decoded, checked against the tables it is derived from.
  void ExpectRecordMatchesTables(const std::string& agent_id) {
    SCOPED_TRACE(agent_id);
    std::optional<DecisionRecord> record = RecordOf(*connection_, agent_id);
    absl::StatusOr<std::optional<Agent>> agent = LookupAgent(*connection_, agent_id);
    ASSERT_TRUE(agent.ok()) << agent.status();
    ASSERT_EQ(record.has_value(), agent->has_value());
    if (!agent->has_value()) return;

    absl::StatusOr<Agent> decoded_agent = DecodeAgentRecord(record->agent);
    ASSERT_TRUE(decoded_agent.ok()) << decoded_agent.status();
    EXPECT_EQ(Describe(*decoded_agent), Describe(**agent));

    absl::StatusOr<std::vector<Permission>> permissions =
        LookupPermissionsOf(*connection_, agent_id);
    absl::StatusOr<std::vector<Permission>> decoded_permissions =
        DecodePermissionRecords(record->permissions);
    ASSERT_TRUE(permissions.ok() && decoded_permissions.ok()) << decoded_permissions.status();
    EXPECT_EQ(DescribeAll(*decoded_permissions), DescribeAll(*permissions));

    absl::StatusOr<std::vector<Delegation>> delegations =
        LookupActiveDelegationsInto(*connection_, agent_id, kNow);
    absl::StatusOr<std::vector<Delegation>> decoded_delegations =
        DecodeDelegationRecords(record->delegations_into, kNow);
    ASSERT_TRUE(delegations.ok() && decoded_delegations.ok()) << decoded_delegations.status();
    EXPECT_EQ(DescribeAll(*decoded_delegations), DescribeAll(*delegations));
  }

  std::unique_ptr<SqliteConnection> connection_;
};

constexpr char kTwoAgents[] =
    "INSERT INTO agents (id, owner, name, kind, status, expires_at, token_hash, token_prefix,"
    " created_at, updated_at) VALUES"
    " ('agt_a', 'alice', 'A: with a colon - and a dash', 'autonomous', 'active', NULL, x'01',"
    "  'vdt_a', 1, 2),"
    " ('agt_b', 'bob', 'B \xc3\xa9t\xc3\xa9', 'delegated', 'active', 1900000000000000, x'02',"
    "  'vdt_b', 3, 4);";

TEST_F(DecisionRecordTablesTest, AnAgentsRecordAppearsWithTheAgent) {
  Sql(kTwoAgents);
  ExpectRecordMatchesTables("agt_a");
  ExpectRecordMatchesTables("agt_b");
  ExpectRecordMatchesTables("agt_nobody");
}

TEST_F(DecisionRecordTablesTest, PermissionsFollowInsertsUpdatesAndDeletesInCreationOrder) {
  Sql(kTwoAgents);
  Sql("INSERT INTO permissions (id, agent_id, resource, actions, effect, constraints, created_at)"
      " VALUES ('p1', 'agt_a', 'docs:*', 'read,write', 'allow', '{}', 5),"
      " ('p2', 'agt_a', '/api/**', '*', 'deny', '{\"ip_allowlist\":[\"10.0.0.0/8\"]}', 6),"
      " ('p3', 'agt_b', 'x:y', 'go', 'allow', '{\"note\":\"1:2-3\"}', 7)");
  ExpectRecordMatchesTables("agt_a");
  ExpectRecordMatchesTables("agt_b");

  Sql("UPDATE permissions SET resource = 'docs:1:*' WHERE id = 'p1'");
  ExpectRecordMatchesTables("agt_a");
  Sql("UPDATE permissions SET agent_id = 'agt_b' WHERE id = 'p2'");  // moves between agents
  ExpectRecordMatchesTables("agt_a");
  ExpectRecordMatchesTables("agt_b");
  Sql("DELETE FROM permissions WHERE id = 'p1'");
  ExpectRecordMatchesTables("agt_a");
  std::optional<DecisionRecord> record = RecordOf(*connection_, "agt_a");
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->permissions, "");
}

TEST_F(DecisionRecordTablesTest, DelegationsIntoAnAgentFollowRevocationAndExpiry) {
  Sql(kTwoAgents);
  Sql("INSERT INTO delegations (id, from_agent_id, to_agent_id, permissions, max_depth, status,"
      " expires_at, created_at) VALUES"
      " ('d1', 'agt_a', 'agt_b', '[{\"actions\":[\"read\"],\"constraints\":{},"
      "\"resource\":\"docs:*\"}]', 3, 'active', NULL, 8),"
      " ('d2', 'agt_a', 'agt_b', '[{\"actions\":[\"write\"],\"constraints\":{},"
      "\"resource\":\"docs:*\"}]', 1, 'active', 1800000000000000, 9)");  // expires at kNow
  ExpectRecordMatchesTables("agt_b");
  Sql("UPDATE delegations SET expires_at = NULL WHERE id = 'd2'");
  ExpectRecordMatchesTables("agt_b");
  Sql("UPDATE delegations SET status = 'revoked' WHERE id = 'd1'");
  ExpectRecordMatchesTables("agt_b");
  Sql("DELETE FROM delegations WHERE id = 'd2'");
  ExpectRecordMatchesTables("agt_b");
  ExpectRecordMatchesTables("agt_a");  // a delegation from an agent is not in its record
}

TEST_F(DecisionRecordTablesTest, AgentChangesAndDeletionFollow) {
  Sql(kTwoAgents);
  Sql("INSERT INTO permissions (id, agent_id, resource, actions, effect, constraints, created_at)"
      " VALUES ('p1', 'agt_a', 'docs:*', 'read', 'allow', '{}', 5)");
  Sql("UPDATE agents SET status = 'suspended', updated_at = 10 WHERE id = 'agt_a'");
  ExpectRecordMatchesTables("agt_a");
  Sql("INSERT OR REPLACE INTO agents (id, owner, name, kind, status, expires_at, token_hash,"
      " token_prefix, created_at, updated_at) VALUES ('agt_a', 'carol', 'A2', 'service',"
      " 'revoked', 7, x'03', 'vdt_c', 1, 11)");
  ExpectRecordMatchesTables("agt_a");
  Sql("DELETE FROM agents WHERE id = 'agt_a'");
  ExpectRecordMatchesTables("agt_a");
  EXPECT_FALSE(RecordOf(*connection_, "agt_a").has_value());
}

// Another process may write with REPLACE, which deletes the conflicting row without firing its
// delete trigger: a write that would silently take a row from another agent is refused, so no
// record keeps a row its tables no longer hold.
TEST_F(DecisionRecordTablesTest, AReplaceThatWouldTakeAnotherAgentsRowIsRefused) {
  Sql(kTwoAgents);
  Sql("INSERT INTO permissions (id, agent_id, resource, actions, effect, constraints, created_at)"
      " VALUES ('p1', 'agt_a', 'docs:*', 'read', 'allow', '{}', 5)");
  Sql("INSERT INTO delegations (id, from_agent_id, to_agent_id, permissions, max_depth, status,"
      " expires_at, created_at) VALUES ('d1', 'agt_b', 'agt_a', '[{\"actions\":[\"read\"],"
      "\"constraints\":{},\"resource\":\"docs:*\"}]', 1, 'active', NULL, 8)");
  const char* refused[] = {
      // p1 moved onto agt_b by id, or by its seq
      "INSERT OR REPLACE INTO permissions (id, agent_id, resource, actions, effect, constraints,"
      " created_at) VALUES ('p1', 'agt_b', 'x:y', 'read', 'allow', '{}', 9)",
      "INSERT OR REPLACE INTO permissions (seq, id, agent_id, resource, actions, effect,"
      " constraints, created_at) SELECT seq, 'p9', 'agt_b', 'x:y', 'read', 'allow', '{}', 9"
      " FROM permissions WHERE id = 'p1'",
      // agt_b's own permission renamed onto p1
      "INSERT INTO permissions (id, agent_id, resource, actions, effect, constraints, created_at)"
      " VALUES ('p2', 'agt_b', 'x:y', 'read', 'allow', '{}', 9);"
      "UPDATE OR REPLACE permissions SET id = 'p1' WHERE id = 'p2'",
      // d1 re-pointed at agt_b
      "INSERT OR REPLACE INTO delegations (id, from_agent_id, to_agent_id, permissions,"
      " max_depth, status, expires_at, created_at) VALUES ('d1', 'agt_a', 'agt_b', '[]', 1,"
      " 'active', NULL, 9)",
      // agt_b given agt_a's token hash, which deletes agt_a
      "UPDATE OR REPLACE agents SET token_hash = x'01' WHERE id = 'agt_b'",
      "INSERT OR REPLACE INTO agents (id, owner, name, kind, status, expires_at, token_hash,"
      " token_prefix, created_at, updated_at) VALUES ('agt_c', 'carol', 'C', 'service',"
      " 'active', NULL, x'01', 'vdt_c', 1, 2)",
  };
  for (const char* sql : refused) {
    SCOPED_TRACE(sql);
    Sql("SAVEPOINT attempt");
    EXPECT_THROW(Sql(sql), SQLite::Exception);
    Sql("ROLLBACK TO attempt; RELEASE attempt");
    ExpectRecordMatchesTables("agt_a");
    ExpectRecordMatchesTables("agt_b");
    ExpectRecordMatchesTables("agt_c");
  }
  // A REPLACE within one agent's rows keeps every record right, and is allowed.
  Sql("INSERT OR REPLACE INTO permissions (id, agent_id, resource, actions, effect, constraints,"
      " created_at) VALUES ('p1', 'agt_a', 'docs:1:*', 'read', 'deny', '{}', 9)");
  ExpectRecordMatchesTables("agt_a");
}

TEST_F(DecisionRecordTablesTest, ARecordIsRewrittenWhateverConflictClauseTheWriteCarries) {
  Sql(kTwoAgents);
  // A record left behind for an agent that is gone (written there by hand).
  Sql("INSERT INTO decision_records (agent_id, agent, permissions, delegations_into)"
      " SELECT 'agt_ghost', agent, permissions, delegations_into FROM decision_records"
      " WHERE agent_id = 'agt_a'");
  // SQLite applies the outer OR IGNORE to the statements of the triggers it fires.
  Sql("INSERT OR IGNORE INTO agents (id, owner, name, kind, status, expires_at, token_hash,"
      " token_prefix, created_at, updated_at) VALUES ('agt_ghost', 'gail', 'G', 'service',"
      " 'revoked', NULL, x'07', 'vdt_g', 1, 2)");
  ExpectRecordMatchesTables("agt_ghost");
  Sql("UPDATE OR IGNORE agents SET status = 'suspended' WHERE id = 'agt_a'");
  ExpectRecordMatchesTables("agt_a");
}

TEST_F(DecisionRecordTablesTest, ATokenFindsItsAgentsRecordDuringItsGraceOnly) {
  Sql(kTwoAgents);
  Sql("UPDATE agents SET prev_token_hash = x'01', prev_token_expires_at = 1800000000000001,"
      " token_hash = x'09' WHERE id = 'agt_a'");
  auto agent_of = [&](const std::string& hash, absl::Time now) -> std::string {
    DecisionRecord record;
    if (!LookupDecisionRecordByTokenHash(*connection_, hash, now, record)) return "none";
    absl::StatusOr<Agent> agent = DecodeAgentRecord(record.agent);
    return agent.ok() ? agent->id : "undecodable";
  };
  EXPECT_EQ(agent_of("\x09", kNow), "agt_a");
  EXPECT_EQ(agent_of("\x01", kNow), "agt_a");
  EXPECT_EQ(agent_of("\x01", kNow + absl::Seconds(1)), "none");
  EXPECT_EQ(agent_of("\x02", kNow), "agt_b");
  EXPECT_EQ(agent_of("\x07", kNow), "none");
}

TEST(DecisionRecordMigrationTest, ADatabaseFromBeforeTheRecordsGetsThemForEveryAgent) {
  const std::string path = FreshDatabasePath();
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    ASSERT_TRUE(ConfigureConnection(db, absl::Seconds(5)).ok());
    ASSERT_TRUE(MigrateSchema(db, absl::Seconds(5), Migrations().subspan(0, 3)).ok());
    db.exec(kTwoAgents);
    db.exec(
        "INSERT INTO permissions (id, agent_id, resource, actions, effect, constraints,"
        " created_at) VALUES ('p1', 'agt_a', 'docs:*', 'read', 'allow', '{}', 5)");
  }
  absl::StatusOr<std::unique_ptr<SqliteConnection>> connection =
      SqliteConnection::Open(path, ConnectionOptions{});
  ASSERT_TRUE(connection.ok()) << connection.status();
  std::optional<DecisionRecord> record = RecordOf(**connection, "agt_a");
  ASSERT_TRUE(record.has_value());
  absl::StatusOr<std::vector<Permission>> permissions =
      DecodePermissionRecords(record->permissions);
  ASSERT_TRUE(permissions.ok()) << permissions.status();
  ASSERT_EQ(permissions->size(), 1u);
  EXPECT_EQ((*permissions)[0].id, "p1");
  EXPECT_TRUE(RecordOf(**connection, "agt_b").has_value());
}

TEST(DecisionRecordDecodingTest, PermissionsComeBackInCreationOrderWhateverOrderTheyWereListed) {
  const std::string second = "1:72:p21:a1:x1:r5:allow2:{}1:0";
  const std::string first = "1:32:p11:a1:x1:r4:deny2:{}1:0";
  absl::StatusOr<std::vector<Permission>> permissions = DecodePermissionRecords(second + first);
  ASSERT_TRUE(permissions.ok()) << permissions.status();
  ASSERT_EQ(permissions->size(), 2u);
  EXPECT_EQ((*permissions)[0].id, "p1");
  EXPECT_EQ((*permissions)[1].id, "p2");
}

TEST(DecisionRecordDecodingTest, TimesOfEveryLengthReadExactly) {
  for (int64_t micros : {int64_t{0}, int64_t{7}, int64_t{12345678}, int64_t{123456789},
                         int64_t{1735689600000000}, int64_t{9223372036854775807}}) {
    const std::string digits = absl::StrCat(micros);
    const std::string text = absl::StrCat("5:agt_a5:alice1:A10:autonomous6:active", digits.size(),
                                          ":", digits, "5:vdt_a1:11:2");
    absl::StatusOr<Agent> agent = DecodeAgentRecord(text);
    ASSERT_TRUE(agent.ok()) << text << ": " << agent.status();
    EXPECT_EQ(agent->expires_at, absl::FromUnixMicros(micros)) << text;
  }
}

TEST(DecisionRecordDecodingTest, AnAllowAnywhereInTheListMakesAnOrigin) {
  const std::string deny = "1:32:p11:a1:x1:r4:deny2:{}1:0";
  const std::string allow = "1:72:p21:a1:x1:r5:allow2:{}1:0";
  EXPECT_FALSE(*AnyAllowPermissionRecord(""));
  EXPECT_FALSE(*AnyAllowPermissionRecord(deny));
  EXPECT_FALSE(*AnyAllowPermissionRecord(deny + deny));
  EXPECT_TRUE(*AnyAllowPermissionRecord(allow));
  EXPECT_TRUE(*AnyAllowPermissionRecord(deny + allow));
}

TEST(DecisionRecordDecodingTest, AnEffectThatIsNeitherAllowNorDenyIsInternal) {
  for (const std::string text : {"1:32:p11:a1:x1:r5:maybe2:{}1:0", "1:32:p11:a1:x1:r-2:{}1:0",
                                 "1:32:p11:a1:x1:r", "1:32:p11:a1:x1:r4:deny2:{}1:01:4"}) {
    EXPECT_EQ(AnyAllowPermissionRecord(text).status().code(), absl::StatusCode::kInternal) << text;
  }
}

TEST(DecisionRecordDecodingTest, APermissionThatCouldMatchNothingIsInternal) {
  // A deny decoded without its resource or an action would quietly stop denying.
  ASSERT_TRUE(DecodePermissionRecords("1:32:p11:a1:x1:r4:deny2:{}1:0").ok());
  for (const std::string text :
       {"1:32:p11:a0:1:r4:deny2:{}1:0", "1:32:p11:a1:x0:4:deny2:{}1:0",
        "1:32:p11:a1:x2:r,4:deny2:{}1:0", "1:32:p11:a1:x2:,r4:deny2:{}1:0"}) {
    EXPECT_EQ(DecodePermissionRecords(text).status().code(), absl::StatusCode::kInternal) << text;
  }
}

// The ids of the permissions of `text` that may match `resource`, or the decoding's error.
absl::StatusOr<std::vector<std::string>> IdsThatMayMatch(absl::string_view text,
                                                         absl::string_view resource) {
  DecodedRecords records;
  absl::StatusOr<absl::Span<const Permission>> permissions =
      records.PermissionsThatMayMatch(text, resource);
  if (!permissions.ok()) return permissions.status();
  std::vector<std::string> ids;
  for (const Permission& permission : *permissions) ids.push_back(permission.id);
  return ids;
}

TEST(DecisionRecordDecodingTest, ARequestDecodesOnlyThePermissionsWhosePatternMatchesItsResource) {
  const std::string docs = "1:12:p11:a6:docs:*4:read5:allow2:{}1:0";
  const std::string secret = "1:22:p21:a13:docs:secret:*1:*4:deny2:{}1:0";
  const std::string api = "1:32:p31:a10:/api/v1/**3:GET5:allow2:{}1:0";
  const std::string anything = "1:42:p41:a1:*5:write5:allow2:{}1:0";
  const std::string all = docs + secret + api + anything;

  EXPECT_THAT(*IdsThatMayMatch(all, "docs:guide"), ElementsAre("p1", "p4"));
  EXPECT_THAT(*IdsThatMayMatch(all, "docs:secret:plans"), ElementsAre("p1", "p2", "p4"));
  EXPECT_THAT(*IdsThatMayMatch(all, "/api/v1/users/7"), ElementsAre("p3", "p4"));
  // The action is the engine's to judge: a pattern that matches is decoded whatever it allows.
  EXPECT_THAT(*IdsThatMayMatch(all, "tickets:9"), ElementsAre("p4"));
}

TEST(DecisionRecordDecodingTest, PermissionsThatMayMatchComeBackInCreationOrderToo) {
  const std::string third = "1:92:p31:a6:docs:*4:read5:allow2:{}1:0";
  const std::string skipped = "1:52:p21:a6:logs:*4:read5:allow2:{}1:0";
  const std::string first = "1:12:p11:a6:docs:*4:read4:deny2:{}1:0";
  EXPECT_THAT(*IdsThatMayMatch(third + skipped + first, "docs:1"), ElementsAre("p1", "p3"));
}

TEST(DecisionRecordDecodingTest, APermissionSkippedForItsPatternIsStillFramedAndOrdered) {
  const std::string docs = "1:12:p11:a6:docs:*4:read5:allow2:{}1:0";
  // Damage in the framing or the creation order of any record is INTERNAL, matching or not.
  for (const std::string& text :
       {docs + "1:22:p21:a6:logs:*", docs + "1:x2:p21:a6:logs:*" + "4:read5:allow2:{}1:0"}) {
    EXPECT_EQ(IdsThatMayMatch(text, "docs:1").status().code(), absl::StatusCode::kInternal) << text;
  }
  // A pattern that cannot match has no say in this decision, whatever else its record holds.
  EXPECT_THAT(*IdsThatMayMatch(docs + "1:22:p21:a6:logs:*4:read5:maybe2:{}1:0", "docs:1"),
              ElementsAre("p1"));
}

TEST(DecisionRecordDecodingTest, APermissionWithNoPatternIsDecodedToReportIt) {
  // Skipped, a deny without its resource would stop denying quietly.
  for (const std::string text :
       {"1:12:p11:a0:4:read4:deny2:{}1:0", "1:12:p11:a-4:read4:deny2:{}1:0"}) {
    EXPECT_EQ(IdsThatMayMatch(text, "docs:1").status().code(), absl::StatusCode::kInternal) << text;
  }
}

TEST(DecisionRecordDecodingTest, NoRecordsAreNoRows) {
  EXPECT_THAT(*DecodePermissionRecords(""), IsEmpty());
  EXPECT_THAT(*DecodeDelegationRecords("", kNow), IsEmpty());
}

TEST(DecisionRecordDecodingTest, DamagedTextIsInternalNeverAGuess) {
  const std::string agent = "5:agt_a5:alice1:A10:autonomous6:active-5:vdt_a1:11:2";
  ASSERT_TRUE(DecodeAgentRecord(agent).ok()) << DecodeAgentRecord(agent).status();
  const std::vector<std::string> damaged = {
      "",                                                       // no fields
      agent.substr(0, agent.size() - 1),                        // cut short
      agent + "1:x",                                            // a field too many
      "5agt_a5:alice1:A10:autonomous6:active-5:vdt_a1:11:2",    // no colon
      "9:agt_a5:alice1:A10:autonomous6:active-5:vdt_a1:11:2",   // a length that overruns
      "5:agt_a5:alice1:A10:autonomous6:active-5:vdt_a1:x1:2",   // a time that is no number
      "5:agt_a5:alice1:A10:autonomous7:retired-5:vdt_a1:11:2",  // a status that is none
      "x:agt_a5:alice1:A10:autonomous6:active-5:vdt_a1:11:2",   // a length that is no number
      "5:agt_a5:alice1:A10:autonomous6:active16:17356896x00000005:vdt_a1:11:2",     // in 8 digits
      "5:agt_a5:alice1:A10:autonomous6:active16:1735689600000:005:vdt_a1:11:2",     // in 8 digits
      "5:agt_a5:alice1:A10:autonomous6:active19:92233720368547758085:vdt_a1:11:2",  // overflows
  };
  for (const std::string& text : damaged) {
    EXPECT_EQ(DecodeAgentRecord(text).status().code(), absl::StatusCode::kInternal) << text;
  }
  EXPECT_EQ(DecodePermissionRecords("1:32:p1").status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(DecodeDelegationRecords("1:x", kNow).status().code(), absl::StatusCode::kInternal);
}

// A length is one to nine digits: a longer one would overflow on the way, and 2^64 + 5 would
// then read as 5 and frame the bytes that follow as a field.
TEST(DecisionRecordDecodingTest, ALengthOfMoreThanNineDigitsIsInternalEvenOneThatWouldWrapToFit) {
  const std::string agent = "5:alice1:A10:autonomous6:active-5:vdt_a1:11:2";
  ASSERT_TRUE(DecodeAgentRecord("5:agt_a" + agent).ok());
  for (const std::string length : {"18446744073709551621", "0000000005", "999999999"}) {
    EXPECT_EQ(DecodeAgentRecord(length + ":agt_a" + agent).status().code(),
              absl::StatusCode::kInternal)
        << length;
    const std::string deny = "1:12:p11:a" + length + ":docs:4:read4:deny2:{}1:0";
    EXPECT_EQ(DecodePermissionRecords(deny).status().code(), absl::StatusCode::kInternal) << length;
    EXPECT_EQ(IdsThatMayMatch(deny, "docs:1").status().code(), absl::StatusCode::kInternal)
        << length;
    EXPECT_EQ(AnyAllowPermissionRecord(deny).status().code(), absl::StatusCode::kInternal)
        << length;
  }
}

// A list cut inside a record, wherever, is damage: never fewer permissions read as all of them,
// even when the filter would decode none of them.
TEST(DecisionRecordDecodingTest, AListCutInsideARecordIsInternal) {
  const std::vector<std::string> records = {"1:12:p11:a6:docs:*4:read4:deny2:{}1:0",
                                            "1:22:p21:a6:logs:*1:*5:allow2:{}1:0",
                                            "1:32:p31:a13:docs:secret:*4:read4:deny2:{}1:0"};
  const std::string all = absl::StrJoin(records, "");
  std::vector<size_t> record_ends = {0};
  for (const std::string& record : records)
    record_ends.push_back(record_ends.back() + record.size());
  for (size_t cut = 1; cut < all.size(); ++cut) {
    if (std::find(record_ends.begin(), record_ends.end(), cut) != record_ends.end()) continue;
    const std::string text = all.substr(0, cut);
    EXPECT_EQ(DecodePermissionRecords(text).status().code(), absl::StatusCode::kInternal) << text;
    EXPECT_EQ(IdsThatMayMatch(text, "mail:1").status().code(), absl::StatusCode::kInternal) << text;
  }
}

// AnyAllowPermissionRecord answers for the whole list, as the decoder does: an allow read before
// the damage does not make damaged text an origin.
TEST(DecisionRecordDecodingTest, AnAllowBeforeDamageInTheListIsStillInternal) {
  const std::string allow = "1:72:p21:a1:x1:r5:allow2:{}1:0";
  for (const std::string damage : {"1:", "1:32:p11:a1:x1:r5:maybe2:{}1:0", "x", "1:32:p3"}) {
    EXPECT_EQ(AnyAllowPermissionRecord(allow + damage).status().code(), absl::StatusCode::kInternal)
        << allow + damage;
    EXPECT_EQ(DecodePermissionRecords(allow + damage).status().code(), absl::StatusCode::kInternal)
        << allow + damage;
  }
}

// A connection's workspace is reused from one transaction to the next: a list decoded into a slot
// that held more rows shows only its own.
TEST(DecisionRecordDecodingTest, AReusedWorkspaceAnswersOnlyWhatThisDecodingKept) {
  const std::string docs = "1:12:p11:a6:docs:*4:read5:allow2:{}1:0";
  const std::string secret = "1:22:p21:a13:docs:secret:*1:*4:deny2:{}1:0";
  const std::string logs = "1:32:p31:a6:logs:*4:read5:allow2:{}1:0";
  DecodedRecords records;
  auto ids = [](absl::Span<const Permission> permissions) {
    std::vector<std::string> ids;
    for (const Permission& permission : permissions) ids.push_back(permission.id);
    return ids;
  };
  absl::StatusOr<absl::Span<const Permission>> first =
      records.PermissionsThatMayMatch(docs + secret + logs, "docs:secret:1");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_THAT(ids(*first), ElementsAre("p1", "p2"));

  records.Reset();  // the next transaction decodes into the same lists
  absl::StatusOr<absl::Span<const Permission>> second =
      records.PermissionsThatMayMatch(docs + secret + logs, "logs:1");
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_THAT(ids(*second), ElementsAre("p3"));
  absl::StatusOr<absl::Span<const Permission>> none =
      records.PermissionsThatMayMatch(docs + secret, "mail:1");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_THAT(ids(*none), IsEmpty());

  records.Reset();
  absl::StatusOr<absl::Span<const Permission>> all = records.Permissions(logs);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_THAT(ids(*all), ElementsAre("p3"));
}

}  // namespace
}  // namespace verdict
