#include "store/postgres/postgres_test_support.h"

#include <cstdlib>
#include <memory>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "crypto/token.h"
#include "gtest/gtest.h"
#include "store/postgres/postgres_connection.h"
#include "store/postgres/postgres_libpq.h"

namespace verdict {
namespace {

absl::Status RunScript(const std::string& conninfo, const std::string& sql) {
  absl::StatusOr<const LibPq*> pq = LoadLibPq();
  if (!pq.ok()) return pq.status();
  absl::StatusOr<std::unique_ptr<PostgresConnection>> connection =
      PostgresConnection::Open(**pq, conninfo, {});
  if (!connection.ok()) return connection.status();
  return (*connection)->ExecuteScript(sql.c_str());
}

// A lower-case identifier from the running test's name: letters, digits and underscores.
std::string TestSchemaName() {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name =
      test == nullptr ? "test" : absl::StrCat(test->test_suite_name(), "_", test->name());
  for (char& c : name) {
    c = absl::ascii_isalnum(static_cast<unsigned char>(c)) ? absl::ascii_tolower(c) : '_';
  }
  // PostgreSQL keeps 63 bytes of an identifier; the random suffix must survive.
  return absl::StrCat("t_", name.substr(0, 40), "_", absl::BytesToHexString(RandomBytes(4)));
}

}  // namespace

std::string TestPostgresUrl() {
  const char* url = std::getenv(kPostgresUrlVariable);
  return url == nullptr ? "" : url;
}

std::string TestPostgresTlsScramUrl() {
  const std::string url = TestPostgresUrl();
  const size_t authority = url.find("://") + 3;
  const size_t host = url.find('@', authority);
  return absl::StrCat(url.substr(0, authority), kTlsScramUser, ":", kTlsScramPassword, "@",
                      url.substr(host == std::string::npos ? authority : host + 1),
                      absl::StrContains(url, "?") ? "&" : "?", "sslmode=require");
}

std::string WithSearchPath(absl::string_view conninfo, absl::string_view schema) {
  if (absl::StrContains(conninfo, "://")) {
    return absl::StrCat(conninfo, absl::StrContains(conninfo, "?") ? "&" : "?",
                        "options=-csearch_path%3D", schema, "&application_name=", schema);
  }
  return absl::StrCat(conninfo, " options='-csearch_path=", schema, "' application_name=", schema);
}

absl::StatusOr<PostgresTestSchema> PostgresTestSchema::Create() {
  const std::string url = TestPostgresUrl();
  if (url.empty()) return absl::FailedPreconditionError(kNoPostgresMessage);
  std::string name = TestSchemaName();
  if (absl::Status created = RunScript(url, absl::StrCat("CREATE SCHEMA ", name)); !created.ok()) {
    return created;
  }
  return PostgresTestSchema(name, WithSearchPath(url, name));
}

PostgresTestSchema::PostgresTestSchema(PostgresTestSchema&& other) noexcept
    : name_(std::exchange(other.name_, "")), conninfo_(std::move(other.conninfo_)) {}

PostgresTestSchema::~PostgresTestSchema() {
  if (name_.empty()) return;
  absl::Status dropped =
      RunScript(TestPostgresUrl(), absl::StrCat("DROP SCHEMA ", name_, " CASCADE"));
  EXPECT_TRUE(dropped.ok()) << dropped;
}

absl::StatusOr<std::vector<std::vector<std::string>>> PostgresTestSchema::Query(
    absl::string_view sql) const {
  absl::StatusOr<const LibPq*> pq = LoadLibPq();
  if (!pq.ok()) return pq.status();
  absl::StatusOr<std::unique_ptr<PostgresConnection>> connection =
      PostgresConnection::Open(**pq, conninfo_, {});
  if (!connection.ok()) return connection.status();
  absl::StatusOr<ResultRows> result = (*connection)->Query(std::string(sql).c_str());
  if (!result.ok()) return result.status();
  std::vector<std::vector<std::string>> rows;
  for (int i = 0; i < result->size(); ++i) {
    std::vector<std::string>& row = rows.emplace_back();
    for (int column = 0; column < result->columns(); ++column) {
      row.push_back(result->row(i).Text(column));
    }
  }
  return rows;
}

}  // namespace verdict
