// Helpers for tests that need a PostgreSQL server: the server's URL from the environment, and a
// fresh schema per test so tests share one database without seeing each other's rows.
//
// scripts/test.d/postgres.sh starts a throwaway server (scripts/pg-test-cluster.sh) and runs the
// tests with --test_env=VERDICT_TEST_POSTGRES_URL=postgresql://...; without it they skip.
//
//   if (TestPostgresUrl().empty()) GTEST_SKIP() << kNoPostgresMessage;
//   absl::StatusOr<PostgresTestSchema> schema = PostgresTestSchema::Create();
//   PostgresStore::Open(schema->conninfo()) ...
#ifndef VERDICT_STORE_POSTGRES_POSTGRES_TEST_SUPPORT_H_
#define VERDICT_STORE_POSTGRES_POSTGRES_TEST_SUPPORT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace verdict {

inline constexpr char kPostgresUrlVariable[] = "VERDICT_TEST_POSTGRES_URL";
inline constexpr char kNoPostgresMessage[] =
    "VERDICT_TEST_POSTGRES_URL is not set: no PostgreSQL server for this test "
    "(scripts/test.d/postgres.sh starts one and runs the PostgreSQL tests)";

// The server's URL, or "" when the tests run without one.
std::string TestPostgresUrl();

// The same server for the role scripts/pg-test-cluster.sh creates to log in only over TLS with
// a SCRAM password: the URL's user and password replaced, sslmode=require added.
inline constexpr char kTlsScramUser[] = "verdict_scram";
inline constexpr char kTlsScramPassword[] = "verdict-scram-test";
std::string TestPostgresTlsScramUrl();

// `conninfo` (a URL or key=value pairs) with `search_path` set to `schema` on every connection,
// and `schema` as the connections' application_name, so a test can find its own connections.
std::string WithSearchPath(absl::string_view conninfo, absl::string_view schema);

// A schema of its own, named after the running test and a random suffix, dropped with
// everything in it when destroyed.
class PostgresTestSchema {
 public:
  static absl::StatusOr<PostgresTestSchema> Create();
  PostgresTestSchema(PostgresTestSchema&& other) noexcept;
  PostgresTestSchema& operator=(PostgresTestSchema&&) = delete;
  ~PostgresTestSchema();

  const std::string& name() const { return name_; }
  // Connects into the schema only.
  const std::string& conninfo() const { return conninfo_; }

  // Runs SQL in the schema, behind the store's back. The rows of its last statement, each
  // column's raw bytes (text and bytea as they are; "" for NULL).
  absl::StatusOr<std::vector<std::vector<std::string>>> Query(absl::string_view sql) const;

 private:
  PostgresTestSchema(std::string name, std::string conninfo)
      : name_(std::move(name)), conninfo_(std::move(conninfo)) {}

  std::string name_;
  std::string conninfo_;
};

}  // namespace verdict

#endif  // VERDICT_STORE_POSTGRES_POSTGRES_TEST_SUPPORT_H_
