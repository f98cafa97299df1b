// Every statement on the decision path must be an indexed search: a full scan of a table would
// make Authorize's cost grow with the size of the policy.
#include <SQLiteCpp/Statement.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/sqlite/sqlite_connection.h"
#include "store/statements.h"
#include "store/test_support.h"

namespace verdict {
namespace {

std::vector<std::string> QueryPlan(SqliteConnection& connection, const char* sql) {
  SQLite::Statement explain(connection.database(), absl::StrCat("EXPLAIN QUERY PLAN ", sql));
  std::vector<std::string> details;
  while (explain.executeStep()) details.push_back(explain.getColumn(3).getString());
  return details;
}

bool ReadsRows(const char* sql) {
  return absl::StartsWith(sql, "SELECT") || absl::StartsWith(sql, "UPDATE") ||
         absl::StartsWith(sql, "DELETE");
}

TEST(QueryPlanTest, DecisionPathStatementsSearchIndexesAndNeverScanATable) {
  absl::StatusOr<std::unique_ptr<SqliteConnection>> connection =
      SqliteConnection::Open(FreshDatabasePath(), ConnectionOptions{});
  ASSERT_TRUE(connection.ok()) << connection.status();

  for (Statement id : DecisionPathStatements()) {
    const StatementSql statement = GetStatementSql(id);
    const std::vector<std::string> plan = QueryPlan(**connection, statement.sql);
    SCOPED_TRACE(absl::StrCat(statement.name, ": ", absl::StrJoin(plan, " | ")));
    bool searches = false;
    for (const std::string& step : plan) {
      EXPECT_FALSE(absl::StartsWith(step, "SCAN")) << "full scan in " << statement.name;
      if (absl::StartsWith(step, "SEARCH")) {
        searches = true;
        EXPECT_TRUE(absl::StrContains(step, "USING INDEX") ||
                    absl::StrContains(step, "USING PRIMARY KEY") ||
                    absl::StrContains(step, "USING INTEGER PRIMARY KEY") ||
                    absl::StrContains(step, "USING COVERING INDEX"))
            << step;
      }
    }
    if (ReadsRows(statement.sql)) {
      EXPECT_TRUE(searches) << statement.name << " finds no rows?";
    }
  }
}

// A token call's lookup is two B-tree searches: the token's hash in an index that also holds
// the agent's id, then the agent's record by its key. Never the agents table itself.
TEST(QueryPlanTest, ATokenFindsItsRecordThroughTheCoveringIndexAlone) {
  absl::StatusOr<std::unique_ptr<SqliteConnection>> connection =
      SqliteConnection::Open(FreshDatabasePath(), ConnectionOptions{});
  ASSERT_TRUE(connection.ok()) << connection.status();

  EXPECT_THAT(
      QueryPlan(**connection, GetStatementSql(Statement::kFindDecisionRecordByTokenHash).sql),
      ::testing::ElementsAre("SEARCH a USING COVERING INDEX agents_by_token_hash (token_hash=?)",
                             "SEARCH r USING PRIMARY KEY (agent_id=?)"));
}

TEST(QueryPlanTest, EveryLookupOfThePolicyViewIsOnTheDecisionPath) {
  const std::vector<Statement> path(DecisionPathStatements().begin(),
                                    DecisionPathStatements().end());
  EXPECT_THAT(path, ::testing::IsSupersetOf(
                        {Statement::kFindAgent, Statement::kPermissionsOf,
                         Statement::kActiveDelegationsInto, Statement::kFindOpenApproval,
                         Statement::kRateCount, Statement::kSpendRate, Statement::kInsertApproval,
                         Statement::kUseApproval, Statement::kFindActiveSigningKey,
                         Statement::kIsTokenIdRevoked, Statement::kFindDecisionRecord,
                         Statement::kFindDecisionRecordByTokenHash,
                         Statement::kFindDecisionRecordByPreviousTokenHash}));
}

// `verdict policy apply` (and a watched policy file, at each change) reads the objects its file
// manages: through an index on managed_by each (migration 16), in creation order with no sort,
// so an apply costs what the file manages, not the size of the store.
TEST(QueryPlanTest, AnApplyReadsWhatItsFileManagesThroughTheManagerIndexes) {
  absl::StatusOr<std::unique_ptr<SqliteConnection>> connection =
      SqliteConnection::Open(FreshDatabasePath(), ConnectionOptions{});
  ASSERT_TRUE(connection.ok()) << connection.status();

  EXPECT_THAT(QueryPlan(**connection, GetStatementSql(Statement::kManagedAgents).sql),
              ::testing::ElementsAre("SEARCH agents USING INDEX agents_by_manager (managed_by=?)"));
  EXPECT_THAT(QueryPlan(**connection, GetStatementSql(Statement::kManagedPermissions).sql),
              ::testing::ElementsAre(
                  "SEARCH permissions USING INDEX permissions_by_manager (managed_by=?)"));
  EXPECT_THAT(QueryPlan(**connection, GetStatementSql(Statement::kManagedDelegations).sql),
              ::testing::ElementsAre(
                  "SEARCH delegations USING INDEX delegations_by_manager (managed_by=?)"));
}

}  // namespace
}  // namespace verdict
