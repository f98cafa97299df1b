// What a decision costs PostgreSQL (issue 22 item 3): a read transaction sends no BEGIN and no
// COMMIT, so a direct decision (one agent's decision record) is one statement on the server and
// one round trip; every statement of the transaction reads the snapshot its first one took; one
// that fails ends the transaction's reads. Several statements still go in one pipeline. Skipped
// without VERDICT_TEST_POSTGRES_URL (scripts/test.d/postgres.sh sets it).
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/postgres/postgres_connection.h"
#include "store/postgres/postgres_libpq.h"
#include "store/postgres/postgres_schema.h"
#include "store/postgres/postgres_test_support.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

// A migrated schema of its own, two agents in it, and a connection to it.
class PostgresPipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (TestPostgresUrl().empty()) GTEST_SKIP() << kNoPostgresMessage;
    absl::StatusOr<PostgresTestSchema> schema = PostgresTestSchema::Create();
    ASSERT_TRUE(schema.ok()) << schema.status();
    schema_ = std::make_unique<PostgresTestSchema>(*std::move(schema));
    connection_ = Connect();
    ASSERT_NE(connection_, nullptr);
    ASSERT_TRUE(MigratePostgresSchema(*connection_).ok());
    for (const char* id : {"agt_1", "agt_2"}) {
      ASSERT_TRUE(Write(
          absl::StrCat("INSERT INTO agents (id, owner, name, kind, status, "
                       "token_hash, token_prefix, created_at, updated_at) VALUES ('",
                       id, "', 'o', 'n', 'service', 'active', '", id, "'::bytea, 'p', 0, 0)")));
    }
  }

  std::unique_ptr<PostgresConnection> Connect(PostgresConnectionOptions options = {}) {
    absl::StatusOr<const LibPq*> pq = LoadLibPq();
    EXPECT_TRUE(pq.ok()) << pq.status();
    if (!pq.ok()) return nullptr;
    absl::StatusOr<std::unique_ptr<PostgresConnection>> opened =
        PostgresConnection::Open(**pq, schema_->conninfo(), options);
    EXPECT_TRUE(opened.ok()) << opened.status();
    return opened.ok() ? *std::move(opened) : nullptr;
  }

  // A write committed by another session.
  bool Write(const std::string& sql) {
    absl::StatusOr<std::vector<std::vector<std::string>>> done =
        schema_->Query(absl::StrCat(sql, " RETURNING 1"));
    EXPECT_TRUE(done.ok()) << done.status();
    return done.ok();
  }

  // The agent's decision record's agent column, read in the connection's open transaction.
  std::string AgentRecord(absl::string_view agent_id) {
    absl::StatusOr<ResultRows> rows =
        connection_->Execute(Statement::kFindDecisionRecord, Params().Text(agent_id));
    EXPECT_TRUE(rows.ok()) << rows.status();
    if (!rows.ok() || rows->size() != 1) return "";
    return rows->row(0).Text(0);
  }

  std::unique_ptr<PostgresTestSchema> schema_;
  std::unique_ptr<PostgresConnection> connection_;
};

TEST_F(PostgresPipelineTest, AReadOfOneRecordIsOneStatementAndOneRoundTripWithoutBeginOrCommit) {
  for (int transaction = 0; transaction < 3; ++transaction) {  // preparing, then prepared
    const int64_t commands = connection_->commands_sent();
    const int64_t round_trips = connection_->round_trips();
    ASSERT_TRUE(connection_->Begin(TransactionKind::kRead).ok());
    EXPECT_THAT(AgentRecord("agt_1"), HasSubstr("6:active"));
    EXPECT_EQ(connection_->round_trips() - round_trips, 1) << "transaction " << transaction;
    ASSERT_TRUE(connection_->Commit().ok());
    EXPECT_EQ(connection_->round_trips() - round_trips, 1) << "its end is not waited for";
    // The statement and the transaction's end (a sync): no BEGIN, no COMMIT.
    EXPECT_EQ(connection_->commands_sent() - commands, transaction == 0 ? 3 : 2)
        << "transaction " << transaction;
  }
  EXPECT_TRUE(connection_->Reusable());
}

TEST_F(PostgresPipelineTest, EveryStatementOfAReadTransactionReadsTheSnapshotOfItsFirst) {
  ASSERT_TRUE(connection_->Begin(TransactionKind::kRead).ok());
  EXPECT_THAT(AgentRecord("agt_1"), HasSubstr("6:active"));
  ASSERT_TRUE(Write("UPDATE agents SET status = 'suspended' WHERE id = 'agt_2'"));
  EXPECT_THAT(AgentRecord("agt_2"), HasSubstr("6:active")) << "committed after the first read";
  ASSERT_TRUE(connection_->Commit().ok());

  ASSERT_TRUE(connection_->Begin(TransactionKind::kRead).ok());
  EXPECT_THAT(AgentRecord("agt_2"), HasSubstr("9:suspended")) << "the next transaction";
  ASSERT_TRUE(connection_->Commit().ok());
}

TEST_F(PostgresPipelineTest, AReadTransactionInWhichAStatementFailedReadsNoMore) {
  std::unique_ptr<PostgresConnection> reader = Connect({.lock_timeout = absl::Milliseconds(100)});
  ASSERT_NE(reader, nullptr);
  std::unique_ptr<PostgresConnection> locker = Connect();
  ASSERT_NE(locker, nullptr);
  ASSERT_TRUE(
      locker->ExecuteScript("BEGIN; LOCK TABLE decision_records IN ACCESS EXCLUSIVE MODE").ok());

  ASSERT_TRUE(reader->Begin(TransactionKind::kRead).ok());
  absl::StatusOr<ResultRows> blocked =
      reader->Execute(Statement::kFindDecisionRecord, Params().Text("agt_1"));
  EXPECT_EQ(blocked.status().code(), absl::StatusCode::kUnavailable) << blocked.status();
  ASSERT_TRUE(locker->ExecuteScript("ROLLBACK").ok());
  // A later statement would read another snapshot: refused, never answered.
  absl::StatusOr<ResultRows> later =
      reader->Execute(Statement::kFindDecisionRecord, Params().Text("agt_2"));
  EXPECT_EQ(later.status().code(), absl::StatusCode::kInternal) << later.status();
  reader->Rollback();

  ASSERT_TRUE(reader->Reusable());
  ASSERT_TRUE(reader->Begin(TransactionKind::kRead).ok());
  absl::StatusOr<ResultRows> rows =
      reader->Execute(Statement::kFindDecisionRecord, Params().Text("agt_1"));
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(rows->size(), 1);
  ASSERT_TRUE(reader->Commit().ok());
}

TEST_F(PostgresPipelineTest, AScriptInsideAReadTransactionIsRefused) {
  ASSERT_TRUE(connection_->Begin(TransactionKind::kRead).ok());
  EXPECT_THAT(AgentRecord("agt_1"), HasSubstr("6:active"));
  // A simple query would end the transaction's implicit transaction, and its snapshot.
  EXPECT_EQ(connection_->ExecuteScript("DELETE FROM agents").code(), absl::StatusCode::kInternal);
  EXPECT_EQ(connection_->Query("SELECT 1").status().code(), absl::StatusCode::kInternal);
  ASSERT_TRUE(connection_->Commit().ok());
  EXPECT_EQ(schema_->Query("SELECT id FROM agents")->size(), 2u);
}

TEST_F(PostgresPipelineTest, SeveralStatementsGoInOneRoundTrip) {
  const Params of_agent = Params().Text("agt_1");
  const Params delegations_into = Params().Text("agt_1").Time(absl::UnixEpoch());
  const std::vector<PostgresConnection::PipelinedStatement> reads = {
      {Statement::kFindAgent, &of_agent},
      {Statement::kPermissionsOf, &of_agent},
      {Statement::kActiveDelegationsInto, &delegations_into},
  };
  for (int transaction = 0; transaction < 2; ++transaction) {  // preparing, then prepared
    ASSERT_TRUE(connection_->Begin(TransactionKind::kRead).ok());
    const int64_t before = connection_->round_trips();
    absl::StatusOr<std::vector<ResultRows>> rows = connection_->ExecutePipelined(reads);
    ASSERT_TRUE(rows.ok()) << rows.status();
    EXPECT_EQ(connection_->round_trips() - before, 1) << "transaction " << transaction;
    ASSERT_EQ(rows->size(), 3u);
    EXPECT_EQ((*rows)[0].size(), 1) << "the agent";
    EXPECT_EQ((*rows)[1].size(), 0) << "no permissions";
    EXPECT_EQ((*rows)[2].size(), 0) << "no delegations";
    ASSERT_TRUE(connection_->Commit().ok());
  }

  // The same reads one at a time wait for three answers.
  ASSERT_TRUE(connection_->Begin(TransactionKind::kRead).ok());
  const int64_t before = connection_->round_trips();
  for (const PostgresConnection::PipelinedStatement& read : reads) {
    ASSERT_TRUE(connection_->Execute(read.statement, *read.params).ok());
  }
  EXPECT_EQ(connection_->round_trips() - before, 3);
  ASSERT_TRUE(connection_->Commit().ok());
}

// A pipeline that fails after one of its statements was prepared (here the second statement's
// preparation waits past lock_timeout for a table another session locked) leaves that first
// preparation on the server, which a rollback does not undo: the next pipeline on the connection
// must not prepare it again ("already exists"), or every later decision on it would fail.
TEST_F(PostgresPipelineTest, APreparationMadeBeforeAFailureIsNotMadeAgain) {
  std::unique_ptr<PostgresConnection> reader = Connect({.lock_timeout = absl::Milliseconds(100)});
  ASSERT_NE(reader, nullptr);
  std::unique_ptr<PostgresConnection> locker = Connect();
  ASSERT_NE(locker, nullptr);
  const Params of_agent = Params().Text("agt_1");
  const std::vector<PostgresConnection::PipelinedStatement> reads = {
      {Statement::kFindAgent, &of_agent},
      {Statement::kPermissionsOf, &of_agent},
  };

  // Another session holds the permissions table.
  ASSERT_TRUE(locker->ExecuteScript("BEGIN; LOCK TABLE permissions IN ACCESS EXCLUSIVE MODE").ok());
  ASSERT_TRUE(reader->Begin(TransactionKind::kRead).ok());
  EXPECT_FALSE(reader->ExecutePipelined(reads).ok());
  reader->Rollback();
  ASSERT_TRUE(locker->ExecuteScript("ROLLBACK").ok());

  ASSERT_TRUE(reader->Begin(TransactionKind::kRead).ok());
  absl::StatusOr<std::vector<ResultRows>> rows = reader->ExecutePipelined(reads);
  EXPECT_TRUE(rows.ok()) << rows.status();
  reader->Rollback();
}

}  // namespace
}  // namespace verdict
