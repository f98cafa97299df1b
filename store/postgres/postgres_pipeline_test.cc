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

}  // namespace
}  // namespace verdict
