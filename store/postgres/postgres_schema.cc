#include "store/postgres/postgres_schema.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "store/postgres/postgres_connection.h"

namespace verdict {
namespace {

// PostgreSQL keeps the version in table verdict_schema_version (one row), and the migration
// advisory lock makes the other openers wait.
class PostgresSchemaSteps final : public SchemaSteps {
 public:
  explicit PostgresSchemaSteps(PostgresConnection& connection) : connection_(connection) {}

  std::string Name() const override { return "the PostgreSQL schema"; }
  absl::StatusOr<int> Version() override { return PostgresSchemaVersion(connection_); }
  // READ COMMITTED (the session's default is REPEATABLE READ): the version read again once the
  // lock is held must see what a migrator before this one committed.
  absl::Status Begin() override {
    const std::string begin = absl::StrCat(
        "BEGIN ISOLATION LEVEL READ COMMITTED; ", PgAdvisoryLockSql(PgLock::kMigration),
        "; CREATE TABLE IF NOT EXISTS verdict_schema_version (version INTEGER NOT NULL)");
    absl::Status begun = connection_.ExecuteScript(begin.c_str());
    if (!begun.ok()) Rollback();
    return begun;
  }
  absl::Status Apply(const Migration& migration) override {
    const std::string step = absl::StrCat(migration.sql, "; DELETE FROM verdict_schema_version;",
                                          " INSERT INTO verdict_schema_version (version) VALUES (",
                                          migration.version, ")");
    return connection_.ExecuteScript(step.c_str());
  }
  absl::Status Commit() override { return connection_.ExecuteScript("COMMIT"); }
  // A connection that cannot leave its transaction is not reused.
  void Rollback() override {
    if (!connection_.ExecuteScript("ROLLBACK").ok()) connection_.MarkBroken();
  }

 private:
  PostgresConnection& connection_;
};

}  // namespace

absl::StatusOr<int> PostgresSchemaVersion(PostgresConnection& connection) {
  absl::StatusOr<ResultRows> exists =
      connection.Query("SELECT to_regclass('verdict_schema_version') IS NOT NULL");
  if (!exists.ok()) return exists.status();
  if (!exists->row(0).Bool(0)) return 0;
  absl::StatusOr<ResultRows> version =
      connection.Query("SELECT coalesce(max(version), 0) FROM verdict_schema_version");
  if (!version.ok()) return version.status();
  return static_cast<int>(version->row(0).Int64(0));
}

absl::Status MigratePostgresSchema(PostgresConnection& connection,
                                   absl::Span<const Migration> migrations) {
  PostgresSchemaSteps steps(connection);
  return RunMigrations(steps, migrations);
}

}  // namespace verdict
