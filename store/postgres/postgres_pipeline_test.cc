// A decision's reads of one agent cost one round trip on PostgreSQL (issue 22 item 3): the read
// transaction's BEGIN and the three statements go in one pipeline, where one statement after
// another waits for each answer. Skipped without VERDICT_TEST_POSTGRES_URL
// (scripts/test.d/postgres.sh sets it).
#include <memory>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "store/postgres/postgres_connection.h"
#include "store/postgres/postgres_libpq.h"
#include "store/postgres/postgres_schema.h"
#include "store/postgres/postgres_test_support.h"

namespace verdict {
namespace {

TEST(PostgresPipelineTest, AnAgentsThreeReadsAndTheirBeginTakeOneRoundTrip) {
  if (TestPostgresUrl().empty()) GTEST_SKIP() << kNoPostgresMessage;
  absl::StatusOr<PostgresTestSchema> schema = PostgresTestSchema::Create();
  ASSERT_TRUE(schema.ok()) << schema.status();
  absl::StatusOr<const LibPq*> pq = LoadLibPq();
  ASSERT_TRUE(pq.ok()) << pq.status();
  absl::StatusOr<std::unique_ptr<PostgresConnection>> opened =
      PostgresConnection::Open(**pq, schema->conninfo(), {});
  ASSERT_TRUE(opened.ok()) << opened.status();
  PostgresConnection& connection = **opened;
  ASSERT_TRUE(MigratePostgresSchema(connection).ok());
  ASSERT_TRUE(schema
                  ->Query("INSERT INTO agents (id, owner, name, kind, status, token_hash, "
                          "token_prefix, created_at, updated_at) VALUES ('agt_1', 'o', 'n', "
                          "'service', 'active', '\\x01'::bytea, 'p', 0, 0) RETURNING id")
                  .ok());
  const Params of_agent = Params().Text("agt_1");
  const Params delegations_into = Params().Text("agt_1").Time(absl::UnixEpoch());
  const std::vector<PostgresConnection::PipelinedStatement> reads = {
      {Statement::kFindAgent, &of_agent},
      {Statement::kPermissionsOf, &of_agent},
      {Statement::kActiveDelegationsInto, &delegations_into},
  };

  for (int transaction = 0; transaction < 2; ++transaction) {  // preparing, then prepared
    ASSERT_TRUE(connection.Begin(TransactionKind::kRead).ok());
    const int64_t before = connection.round_trips();
    absl::StatusOr<std::vector<ResultRows>> rows = connection.ExecutePipelined(reads);
    ASSERT_TRUE(rows.ok()) << rows.status();
    EXPECT_EQ(connection.round_trips() - before, 1) << "transaction " << transaction;
    ASSERT_EQ(rows->size(), 3u);
    EXPECT_EQ((*rows)[0].size(), 1) << "the agent";
    EXPECT_EQ((*rows)[1].size(), 0) << "no permissions";
    EXPECT_EQ((*rows)[2].size(), 0) << "no delegations";
    ASSERT_TRUE(connection.Commit().ok());
  }

  // The same reads one at a time wait for three answers.
  ASSERT_TRUE(connection.Begin(TransactionKind::kRead).ok());
  const int64_t before = connection.round_trips();
  for (const PostgresConnection::PipelinedStatement& read : reads) {
    ASSERT_TRUE(connection.Execute(read.statement, *read.params).ok());
  }
  EXPECT_EQ(connection.round_trips() - before, 3);
  ASSERT_TRUE(connection.Commit().ok());
}

// A pipeline that fails after one of its statements was prepared (here the second statement's
// preparation waits past lock_timeout for a table another session locked) leaves that first
// preparation on the server, which a rollback does not undo: the next pipeline on the connection
// must not prepare it again ("already exists"), or every later decision on it would fail.
TEST(PostgresPipelineTest, APreparationMadeBeforeAFailureIsNotMadeAgain) {
  if (TestPostgresUrl().empty()) GTEST_SKIP() << kNoPostgresMessage;
  absl::StatusOr<PostgresTestSchema> schema = PostgresTestSchema::Create();
  ASSERT_TRUE(schema.ok()) << schema.status();
  absl::StatusOr<const LibPq*> pq = LoadLibPq();
  ASSERT_TRUE(pq.ok()) << pq.status();
  absl::StatusOr<std::unique_ptr<PostgresConnection>> opened =
      PostgresConnection::Open(**pq, schema->conninfo(), {.lock_timeout = absl::Milliseconds(100)});
  ASSERT_TRUE(opened.ok()) << opened.status();
  PostgresConnection& connection = **opened;
  ASSERT_TRUE(MigratePostgresSchema(connection).ok());
  const Params of_agent = Params().Text("agt_1");
  const std::vector<PostgresConnection::PipelinedStatement> reads = {
      {Statement::kFindAgent, &of_agent},
      {Statement::kPermissionsOf, &of_agent},
  };

  // Another session holds the permissions table.
  const char* keywords[] = {"dbname", nullptr};
  const char* values[] = {schema->conninfo().c_str(), nullptr};
  PGconn* locker = (*pq)->connectdbParams(keywords, values, /*expand_dbname=*/1);
  ASSERT_EQ((*pq)->status(locker), CONNECTION_OK) << (*pq)->errorMessage(locker);
  ASSERT_EQ((*pq)->sendQuery(locker, "BEGIN; LOCK TABLE permissions IN ACCESS EXCLUSIVE MODE"), 1);
  bool locked = true;
  while (PGresult* result = (*pq)->getResult(locker)) {
    locked = locked && (*pq)->resultStatus(result) == PGRES_COMMAND_OK;
    (*pq)->clear(result);
  }
  ASSERT_TRUE(locked) << (*pq)->errorMessage(locker);

  ASSERT_TRUE(connection.Begin(TransactionKind::kRead).ok());
  EXPECT_FALSE(connection.ExecutePipelined(reads).ok());
  connection.Rollback();
  (*pq)->finish(locker);  // the lock goes with its session

  ASSERT_TRUE(connection.Begin(TransactionKind::kRead).ok());
  absl::StatusOr<std::vector<ResultRows>> rows = connection.ExecutePipelined(reads);
  EXPECT_TRUE(rows.ok()) << rows.status();
  connection.Rollback();
}

}  // namespace
}  // namespace verdict
