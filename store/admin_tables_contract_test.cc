// The admin plane's tables -- the hash-chained decision log and the admin principals -- behave
// the same on SQLite and PostgreSQL, opened as verdictd opens them (store/open_store.h). The
// PostgreSQL cases skip without VERDICT_TEST_POSTGRES_URL (scripts/test.d/postgres.sh sets it).
#include <SQLiteCpp/SQLiteCpp.h>

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/admin_audit_log.h"
#include "store/admin_credential_store.h"
#include "store/decision_log_store.h"
#include "store/open_store.h"
#include "store/postgres/postgres_test_support.h"
#include "store/test_support.h"

namespace verdict {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// One empty database for one test, on one backend.
class TestDatabase {
 public:
  virtual ~TestDatabase() = default;
  // The --db value that names the database.
  virtual std::string db() const = 0;
  // Runs `sql` behind the stores' back, as someone with write access to the database would.
  virtual void Tamper(const std::string& sql) = 0;
};

class SqliteDatabase final : public TestDatabase {
 public:
  std::string db() const override { return path_; }
  void Tamper(const std::string& sql) override {
    SQLite::Database db(path_, SQLite::OPEN_READWRITE);
    db.exec(sql);
  }

 private:
  const std::string path_ = FreshDatabasePath();
};

class PostgresDatabase final : public TestDatabase {
 public:
  explicit PostgresDatabase(PostgresTestSchema schema) : schema_(std::move(schema)) {}
  std::string db() const override { return schema_.conninfo(); }
  void Tamper(const std::string& sql) override {
    // The test schema's Query wants rows back.
    absl::StatusOr<std::vector<std::vector<std::string>>> done =
        schema_.Query(absl::StrCat(sql, " RETURNING seq"));
    ASSERT_TRUE(done.ok()) << done.status();
  }

 private:
  PostgresTestSchema schema_;
};

enum class Backend { kSqlite, kPostgres };

std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::kSqlite ? "Sqlite" : "Postgres";
}

DecisionLogRow Row(absl::string_view agent_id, absl::string_view verdict, int64_t decided_at_us) {
  DecisionLogRow row;
  row.decided_at_us = decided_at_us;
  row.agent_id = std::string(agent_id);
  row.action = "read";
  row.resource = "docs:1";
  row.arguments_json = "{}";
  row.verdict = std::string(verdict);
  row.reason = verdict == "ALLOW" ? "ALLOWED" : "NO_MATCHING_PERMISSION";
  row.delegation_path_json = "[]";
  return row;
}

std::vector<int64_t> Seqs(const DecisionLogPage& page) {
  std::vector<int64_t> seqs;
  for (const DecisionLogRow& row : page.rows) seqs.push_back(row.seq);
  return seqs;
}

class AdminTablesContractTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::kSqlite) {
      database_ = std::make_unique<SqliteDatabase>();
    } else {
      if (TestPostgresUrl().empty()) GTEST_SKIP() << kNoPostgresMessage;
      absl::StatusOr<PostgresTestSchema> schema = PostgresTestSchema::Create();
      ASSERT_TRUE(schema.ok()) << schema.status();
      database_ = std::make_unique<PostgresDatabase>(*std::move(schema));
    }
    log_ = OpenLog();
    ASSERT_NE(log_, nullptr);
  }

  // Another log on the same database, with a connection of its own, as another sidecar's.
  std::unique_ptr<DecisionLogStore> OpenLog() {
    absl::StatusOr<std::unique_ptr<DecisionLogStore>> log = OpenDecisionLogStore(database_->db());
    EXPECT_TRUE(log.ok()) << log.status();
    return log.ok() ? *std::move(log) : nullptr;
  }

  std::unique_ptr<AdminCredentialStore> OpenCredentials() {
    absl::StatusOr<std::unique_ptr<AdminCredentialStore>> credentials =
        OpenAdminCredentialStore(database_->db());
    EXPECT_TRUE(credentials.ok()) << credentials.status();
    return credentials.ok() ? *std::move(credentials) : nullptr;
  }

  // Appends `count` rows, one batch each, alternating agents a/b and verdicts ALLOW/DENY, at
  // decided_at 1000, 2000, ...
  void AppendRows(int count) {
    for (int i = 0; i < count; ++i) {
      std::vector<DecisionLogRow> rows = {
          Row(i % 2 == 0 ? "agt_a" : "agt_b", i % 2 == 0 ? "ALLOW" : "DENY", (i + 1) * 1000)};
      absl::Status appended = log_->Append(rows);
      ASSERT_TRUE(appended.ok()) << appended;
    }
  }

  ChainVerification Verify() {
    absl::StatusOr<ChainVerification> verification = log_->VerifyChain();
    EXPECT_TRUE(verification.ok()) << verification.status();
    return verification.ok() ? *verification : ChainVerification{.intact = false};
  }

  std::unique_ptr<TestDatabase> database_;
  std::unique_ptr<DecisionLogStore> log_;
};

INSTANTIATE_TEST_SUITE_P(Backends, AdminTablesContractTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres), BackendName);

// --- The decision log ---

TEST_P(AdminTablesContractTest, AppendChainsRowsFromTheGenesisHash) {
  std::vector<DecisionLogRow> rows = {Row("agt_a", "ALLOW", 1), Row("agt_a", "DENY", 2)};
  ASSERT_TRUE(log_->Append(rows).ok());
  EXPECT_EQ(rows[0].seq, 1);
  EXPECT_EQ(rows[0].prev_hash, kGenesisHash);
  EXPECT_EQ(rows[0].hash, ChainHash(rows[0]));
  EXPECT_EQ(rows[1].seq, 2);
  EXPECT_EQ(rows[1].prev_hash, rows[0].hash);

  absl::StatusOr<DecisionLogPage> page = log_->Query({}, 0, "");
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->rows.size(), 2u);
  EXPECT_EQ(page->rows[1].hash, rows[1].hash);
  EXPECT_EQ(page->rows[1].verdict, "DENY");
  EXPECT_EQ(page->rows[1].decided_at_us, 2);
}

TEST_P(AdminTablesContractTest, LogsOfSeveralSidecarsAppendOneChain) {
  constexpr int kSidecars = 3;
  constexpr int kBatches = 10;
  std::vector<std::thread> sidecars;
  for (int s = 0; s < kSidecars; ++s) {
    sidecars.emplace_back([this, s] {
      std::unique_ptr<DecisionLogStore> log = OpenLog();
      for (int b = 0; b < kBatches; ++b) {
        std::vector<DecisionLogRow> rows = {Row(absl::StrCat("agt_", s), "ALLOW", b),
                                            Row(absl::StrCat("agt_", s), "DENY", b)};
        absl::Status appended = log->Append(rows);
        EXPECT_TRUE(appended.ok()) << appended;
      }
    });
  }
  for (std::thread& sidecar : sidecars) sidecar.join();

  ChainVerification verification = Verify();
  EXPECT_TRUE(verification.intact) << verification.problem;
  EXPECT_EQ(verification.rows_checked, kSidecars * kBatches * 2);
}

TEST_P(AdminTablesContractTest, QueryFiltersByAgentTimeAndVerdict) {
  AppendRows(6);  // seq 1..6; agt_a/ALLOW on odd seqs; decided_at seq*1000
  const struct {
    const char* name;
    DecisionLogFilter filter;
    std::vector<int64_t> seqs;
  } cases[] = {
      {"everything", {}, {1, 2, 3, 4, 5, 6}},
      {"agent", {.agent_id = "agt_b"}, {2, 4, 6}},
      {"verdict", {.verdict = "ALLOW"}, {1, 3, 5}},
      {"since (inclusive)", {.since = absl::FromUnixMicros(4000)}, {4, 5, 6}},
      {"until (exclusive)", {.until = absl::FromUnixMicros(3000)}, {1, 2}},
      {"all at once",
       {.agent_id = "agt_a",
        .since = absl::FromUnixMicros(2000),
        .until = absl::FromUnixMicros(6000),
        .verdict = "ALLOW"},
       {3, 5}},
      {"no match", {.agent_id = "agt_c"}, {}},
  };
  for (const auto& c : cases) {
    absl::StatusOr<DecisionLogPage> page = log_->Query(c.filter, 0, "");
    ASSERT_TRUE(page.ok()) << c.name << ": " << page.status();
    EXPECT_EQ(Seqs(*page), c.seqs) << c.name;
    EXPECT_EQ(page->next_page_token, "") << c.name;
  }
}

TEST_P(AdminTablesContractTest, QueryPagesThroughEveryMatchingRowOnce) {
  AppendRows(7);
  std::vector<int64_t> seen;
  std::string token;
  int pages = 0;
  do {
    absl::StatusOr<DecisionLogPage> page = log_->Query({.agent_id = "agt_a"}, 2, token);
    ASSERT_TRUE(page.ok()) << page.status();
    for (int64_t seq : Seqs(*page)) seen.push_back(seq);
    token = page->next_page_token;
    ++pages;
  } while (!token.empty() && pages < 10);
  EXPECT_THAT(seen, ElementsAre(1, 3, 5, 7));
  EXPECT_EQ(pages, 2);
}

TEST_P(AdminTablesContractTest, AnUnknownPageTokenIsInvalidArgument) {
  EXPECT_EQ(log_->Query({}, 10, "not-a-token").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_P(AdminTablesContractTest, VerifyFindsAnEditedRow) {
  AppendRows(4);
  EXPECT_TRUE(Verify().intact);
  database_->Tamper("UPDATE decision_log SET verdict = 'ALLOW' WHERE seq = 2");
  ChainVerification verification = Verify();
  EXPECT_FALSE(verification.intact);
  EXPECT_EQ(verification.first_bad_seq, 2);
  EXPECT_THAT(verification.problem, HasSubstr("edited"));
}

TEST_P(AdminTablesContractTest, VerifyFindsARowDeletedFromTheMiddle) {
  AppendRows(4);
  database_->Tamper("DELETE FROM decision_log WHERE seq = 3");
  ChainVerification verification = Verify();
  EXPECT_FALSE(verification.intact);
  EXPECT_EQ(verification.first_bad_seq, 3);
  EXPECT_THAT(verification.problem, HasSubstr("missing"));
}

TEST_P(AdminTablesContractTest, RowsDeletedFromTheEndStayMissingAfterLaterAppends) {
  AppendRows(4);
  database_->Tamper("DELETE FROM decision_log WHERE seq >= 3");
  ChainVerification truncated = Verify();
  EXPECT_FALSE(truncated.intact);
  EXPECT_EQ(truncated.first_bad_seq, 3);

  // The next append does not reuse the deleted numbers, so it cannot paper over the gap.
  std::vector<DecisionLogRow> rows = {Row("agt_a", "ALLOW", 9000)};
  ASSERT_TRUE(log_->Append(rows).ok());
  EXPECT_EQ(rows[0].seq, 5);
  ChainVerification after = Verify();
  EXPECT_FALSE(after.intact);
  EXPECT_EQ(after.first_bad_seq, 3);
}

// Two sidecars' runs interleave in one chain; the one that missed a decision is named.
TEST_P(AdminTablesContractTest, VerifyNamesTheRunThatMissesADecision) {
  std::unique_ptr<DecisionLogStore> other = OpenLog();
  ASSERT_NE(other, nullptr);
  auto decided = [](absl::string_view run_id, int64_t run_seq) {
    DecisionLogRow row = Row("agt_a", "ALLOW", run_seq * 1000);
    row.run_id = std::string(run_id);
    row.run_seq = run_seq;
    row.run_decided = run_seq;
    return row;
  };
  const absl::Time at = absl::FromUnixSeconds(1);
  std::vector<std::vector<DecisionLogRow>> batches = {
      {MakeRunStartRow("run_a", RunOrigin{"host-a", 10, "async"}, at)},
      {MakeRunStartRow("run_b", RunOrigin{"host-b", 11, "sync"}, at)},
      {decided("run_a", 1), decided("run_a", 2)},
      {decided("run_b", 1)},
      {decided("run_a", 4)},
      {decided("run_b", 2), MakeRunStopRow("run_b", 2, at)},
      {MakeRunStopRow("run_a", 4, at)}};
  for (size_t i = 0; i < batches.size(); ++i) {
    absl::Status appended = (i % 2 == 0 ? *log_ : *other).Append(batches[i]);
    ASSERT_TRUE(appended.ok()) << appended;
  }

  ChainVerification verification = Verify();
  EXPECT_FALSE(verification.intact);
  EXPECT_EQ(verification.rows_checked, 9);
  EXPECT_EQ(verification.runs, 2);
  ASSERT_EQ(verification.gaps.size(), 1u);
  EXPECT_EQ(verification.gaps[0].run_id, "run_a");
  EXPECT_EQ(verification.gaps[0].origin, "pid 10 on host-a");
  EXPECT_EQ(verification.gaps[0].first_missing, 3);
  EXPECT_EQ(verification.gaps[0].last_missing, 3);

  // Queries list decisions only, never the markers.
  absl::StatusOr<DecisionLogPage> page = log_->Query({}, 0, "");
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(page->rows.size(), 5u);
  for (const DecisionLogRow& row : page->rows) EXPECT_EQ(row.verdict, "ALLOW");
}

TEST_P(AdminTablesContractTest, AnEmptyLogIsIntact) {
  ChainVerification verification = Verify();
  EXPECT_TRUE(verification.intact);
  EXPECT_EQ(verification.rows_checked, 0);
}

// --- The admin principals ---

StoredAdminPrincipal NewPrincipal(std::string name, AdminRoleSet roles,
                                  std::vector<std::string> patterns = {}) {
  StoredAdminPrincipal stored;
  stored.principal = {.name = std::move(name), .roles = roles, .grant_patterns = patterns};
  stored.secret_hash = absl::StrCat("$argon2id$", stored.principal.name);
  stored.created_at = stored.updated_at = absl::FromUnixSeconds(1700000000);
  return stored;
}

TEST_P(AdminTablesContractTest, ANewDatabaseHasNoPrincipal) {
  std::unique_ptr<AdminCredentialStore> credentials = OpenCredentials();
  ASSERT_NE(credentials, nullptr);
  absl::StatusOr<std::optional<StoredAdminPrincipal>> admin = credentials->FindPrincipal("admin");
  ASSERT_TRUE(admin.ok()) << admin.status();
  EXPECT_FALSE(admin->has_value());
  absl::StatusOr<std::vector<StoredAdminPrincipal>> all = credentials->ListPrincipals();
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_TRUE(all->empty());
}

TEST_P(AdminTablesContractTest, TheFirstAdminHoldsForEverySidecar) {
  std::unique_ptr<AdminCredentialStore> first_sidecar = OpenCredentials();
  std::unique_ptr<AdminCredentialStore> second_sidecar = OpenCredentials();
  ASSERT_NE(first_sidecar, nullptr);
  ASSERT_NE(second_sidecar, nullptr);
  absl::StatusOr<bool> first = first_sidecar->SetIfAbsent("$argon2id$first", absl::Now());
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_TRUE(*first);
  absl::StatusOr<bool> second = second_sidecar->SetIfAbsent("$argon2id$second", absl::Now());
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_FALSE(*second);

  for (AdminCredentialStore* sidecar : {first_sidecar.get(), second_sidecar.get()}) {
    absl::StatusOr<std::optional<StoredAdminPrincipal>> admin = sidecar->FindPrincipal("admin");
    ASSERT_TRUE(admin.ok()) << admin.status();
    ASSERT_TRUE(admin->has_value());
    EXPECT_EQ((*admin)->secret_hash, "$argon2id$first");
    EXPECT_EQ((*admin)->principal.roles, AdminRoleSet({AdminRole::kAdmin}));
    EXPECT_TRUE((*admin)->principal.enabled);
  }
}

// --- The admin audit log (store/admin_audit_log.h) ---

AdminAuditRow AuditRow(absl::string_view principal, absl::string_view call,
                       std::vector<std::string> objects, int64_t recorded_at_us,
                       absl::string_view result_code = "OK") {
  AdminAuditRow row;
  row.recorded_at_us = recorded_at_us;
  row.principal = std::string(principal);
  row.auth_method = "secret";
  row.peer = "uid:1000";
  row.call = std::string(call);
  row.objects = std::move(objects);
  row.arguments_json = "{}";
  row.result_code = std::string(result_code);
  return row;
}

std::vector<int64_t> AuditSeqs(const AdminAuditPage& page) {
  std::vector<int64_t> seqs;
  for (const AdminAuditRow& row : page.rows) seqs.push_back(row.seq);
  return seqs;
}

class AdminAuditContractTest : public AdminTablesContractTest {
 protected:
  void SetUp() override {
    AdminTablesContractTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    audit_ = OpenAudit();
    ASSERT_NE(audit_, nullptr);
  }

  std::unique_ptr<AdminAuditLog> OpenAudit() {
    absl::StatusOr<std::unique_ptr<AdminAuditLog>> audit = OpenAdminAuditLog(database_->db());
    EXPECT_TRUE(audit.ok()) << audit.status();
    return audit.ok() ? *std::move(audit) : nullptr;
  }

  void Append(AdminAuditRow row) {
    absl::Status appended = audit_->Append(row);
    ASSERT_TRUE(appended.ok()) << appended;
  }

  // Rows 1..count by alice and bob in turn, each revoking agt_<seq>, recorded at 1000, 2000, ...
  void AppendRevokes(int count) {
    for (int i = 1; i <= count; ++i) {
      Append(AuditRow(i % 2 == 1 ? "alice" : "bob", "RevokeAgent", {absl::StrCat("agt_", i)},
                      i * 1000));
    }
  }

  AdminAuditPage Query(const AdminAuditFilter& filter, int page_size = 0,
                       absl::string_view token = "") {
    absl::StatusOr<AdminAuditPage> page = audit_->Query(filter, page_size, token);
    EXPECT_TRUE(page.ok()) << page.status();
    return page.value_or(AdminAuditPage());
  }

  AdminAuditVerification VerifyAudit() {
    absl::StatusOr<AdminAuditVerification> verification = audit_->Verify();
    EXPECT_TRUE(verification.ok()) << verification.status();
    return verification.value_or(AdminAuditVerification{.intact = false});
  }

  int64_t Prune(const AdminAuditRetention& retention, int64_t now_us) {
    absl::StatusOr<int64_t> pruned = audit_->Prune(retention, absl::FromUnixMicros(now_us));
    EXPECT_TRUE(pruned.ok()) << pruned.status();
    return pruned.value_or(-1);
  }

  std::unique_ptr<AdminAuditLog> audit_;
};

INSTANTIATE_TEST_SUITE_P(Backends, AdminAuditContractTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres), BackendName);

TEST_P(AdminAuditContractTest, AppendChainsRowsFromTheGenesisHashAndKeepsEveryField) {
  AdminAuditRow first = AuditRow("alice", "CreateDelegation", {"del_1", "agt_a", "agt_b"}, 1000);
  ASSERT_TRUE(audit_->Append(first).ok());
  AdminAuditRow second = AuditRow("bob", "RevokeAgent", {"agt_a"}, 2000, "FAILED_PRECONDITION");
  second.result_message = "agent agt_a is revoked";
  ASSERT_TRUE(audit_->Append(second).ok());
  EXPECT_EQ(first.seq, 1);
  EXPECT_EQ(first.prev_hash, kGenesisHash);
  EXPECT_EQ(first.hash, ChainHash(first));
  EXPECT_EQ(second.seq, 2);
  EXPECT_EQ(second.prev_hash, first.hash);

  AdminAuditPage page = Query({});
  ASSERT_EQ(page.rows.size(), 2u);
  const AdminAuditRow& read = page.rows[1];
  EXPECT_EQ(read.principal, "bob");
  EXPECT_EQ(read.auth_method, "secret");
  EXPECT_EQ(read.peer, "uid:1000");
  EXPECT_EQ(read.call, "RevokeAgent");
  EXPECT_THAT(read.objects, ElementsAre("agt_a"));
  EXPECT_EQ(read.result_code, "FAILED_PRECONDITION");
  EXPECT_EQ(read.result_message, "agent agt_a is revoked");
  EXPECT_EQ(read.recorded_at_us, 2000);
  EXPECT_EQ(read.hash, second.hash);
  EXPECT_THAT(page.rows[0].objects, ElementsAre("del_1", "agt_a", "agt_b"));
}

TEST_P(AdminAuditContractTest, AnObjectNamedTwiceInOneRowIsIndexedOnce) {
  Append(AuditRow("alice", "CreateDelegation", {"del_1", "agt_a", "agt_a"}, 1000));
  AdminAuditPage page = Query({.object_id = "agt_a"});
  ASSERT_EQ(page.rows.size(), 1u);
  EXPECT_THAT(page.rows[0].objects, ElementsAre("del_1", "agt_a"));
  EXPECT_TRUE(VerifyAudit().intact);
}

TEST_P(AdminAuditContractTest, QueryFindsEveryRowThatNamesAnObjectAndTheirAuthors) {
  Append(AuditRow("alice", "CreateAgent", {"agt_a"}, 1000));
  Append(AuditRow("bob", "GrantPermission", {"prm_1", "agt_a"}, 2000));
  Append(AuditRow("carol", "CreateAgent", {"agt_b"}, 3000));
  Append(AuditRow("dave", "RevokeAgent", {"agt_a"}, 4000));

  AdminAuditPage about_a = Query({.object_id = "agt_a"});
  EXPECT_THAT(AuditSeqs(about_a), ElementsAre(1, 2, 4));
  ASSERT_EQ(about_a.rows.size(), 3u);
  EXPECT_EQ(about_a.rows[2].principal, "dave");
  EXPECT_THAT(AuditSeqs(Query({.object_id = "prm_1"})), ElementsAre(2));
  EXPECT_THAT(AuditSeqs(Query({.object_id = "agt_none"})), ElementsAre());
}

TEST_P(AdminAuditContractTest, QueryFiltersByPrincipalCallAndTime) {
  AppendRevokes(6);  // alice at 1000, 3000, 5000; bob at 2000, 4000, 6000
  Append(AuditRow("alice", "GrantPermission", {"prm_1"}, 7000));
  EXPECT_THAT(AuditSeqs(Query({.principal = "alice"})), ElementsAre(1, 3, 5, 7));
  EXPECT_THAT(AuditSeqs(Query({.principal = "alice", .call = "RevokeAgent"})),
              ElementsAre(1, 3, 5));
  EXPECT_THAT(
      AuditSeqs(Query({.since = absl::FromUnixMicros(2000), .until = absl::FromUnixMicros(5000)})),
      ElementsAre(2, 3, 4));
  EXPECT_THAT(AuditSeqs(Query(
                  {.principal = "bob", .object_id = "agt_4", .since = absl::FromUnixMicros(4000)})),
              ElementsAre(4));
  EXPECT_THAT(AuditSeqs(Query({.principal = "alice", .object_id = "agt_4"})), ElementsAre());
}

TEST_P(AdminAuditContractTest, QueryPagesThroughEveryMatchingRowOnce) {
  AppendRevokes(5);
  AdminAuditPage first = Query({}, 2);
  EXPECT_THAT(AuditSeqs(first), ElementsAre(1, 2));
  ASSERT_FALSE(first.next_page_token.empty());
  AdminAuditPage second = Query({}, 2, first.next_page_token);
  EXPECT_THAT(AuditSeqs(second), ElementsAre(3, 4));
  AdminAuditPage last = Query({}, 2, second.next_page_token);
  EXPECT_THAT(AuditSeqs(last), ElementsAre(5));
  EXPECT_EQ(last.next_page_token, "");
  EXPECT_EQ(audit_->Query({}, 2, "not-a-token").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_P(AdminAuditContractTest, AnEmptyLogIsIntact) {
  AdminAuditVerification verification = VerifyAudit();
  EXPECT_TRUE(verification.intact);
  EXPECT_EQ(verification.rows_checked, 0);
}

TEST_P(AdminAuditContractTest, VerifyFindsAnEditedRowAtThatRow) {
  AppendRevokes(4);
  EXPECT_TRUE(VerifyAudit().intact);
  // Someone with write access to the database puts the revoke on another principal.
  database_->Tamper("UPDATE admin_audit_log SET principal = 'mallory' WHERE seq = 3");
  AdminAuditVerification verification = VerifyAudit();
  EXPECT_FALSE(verification.intact);
  EXPECT_EQ(verification.first_bad_seq, 3);
  EXPECT_THAT(verification.problem, HasSubstr("edited"));
}

TEST_P(AdminAuditContractTest, VerifyFindsEveryColumnEdited) {
  const char* const edits[] = {
      "recorded_at = 1",        "auth_method = 'session'",      "peer = 'uid:0'",
      "call_name = 'GetAgent'", "arguments_json = '{\"x\":1}'", "result_code = 'NOT_FOUND'",
      "result_message = 'x'",   "objects = '[\"agt_9\"]'",      "prev_hash = hash",
  };
  AppendRevokes(3);
  for (const char* edit : edits) {
    SCOPED_TRACE(edit);
    database_->Tamper(absl::StrCat("UPDATE admin_audit_log SET ", edit, " WHERE seq = 2"));
    AdminAuditVerification verification = VerifyAudit();
    EXPECT_FALSE(verification.intact);
    EXPECT_EQ(verification.first_bad_seq, 2);
  }
}

TEST_P(AdminAuditContractTest, VerifyFindsRowsDeletedFromTheMiddleOrTheEnd) {
  AppendRevokes(5);
  database_->Tamper("DELETE FROM admin_audit_log WHERE seq = 5");
  AdminAuditVerification truncated = VerifyAudit();
  EXPECT_FALSE(truncated.intact);
  EXPECT_EQ(truncated.first_bad_seq, 5);
  EXPECT_THAT(truncated.problem, HasSubstr("missing from the end"));

  database_->Tamper("DELETE FROM admin_audit_log WHERE seq = 2");
  AdminAuditVerification holed = VerifyAudit();
  EXPECT_FALSE(holed.intact);
  EXPECT_EQ(holed.first_bad_seq, 2);
  EXPECT_THAT(holed.problem, HasSubstr("missing"));
}

TEST_P(AdminAuditContractTest, PruningByAgeKeepsTheRestOfTheChainVerifiable) {
  AppendRevokes(6);  // recorded at 1000 .. 6000 microseconds
  // At 10,000 us with a 6,500 us retention, rows before 3,500 go: 1, 2 and 3.
  EXPECT_EQ(Prune({.max_age = absl::Microseconds(6500)}, 10'000), 3);
  EXPECT_THAT(AuditSeqs(Query({})), ElementsAre(4, 5, 6));
  EXPECT_THAT(AuditSeqs(Query({.object_id = "agt_2"})), ElementsAre());
  AdminAuditVerification verification = VerifyAudit();
  EXPECT_TRUE(verification.intact) << verification.problem;
  EXPECT_EQ(verification.rows_checked, 3);
  EXPECT_EQ(verification.pruned_through_seq, 3);

  // The chain continues from the kept rows; pruning again finds nothing more to delete.
  Append(AuditRow("alice", "RevokeAgent", {"agt_7"}, 7000));
  EXPECT_EQ(Prune({.max_age = absl::Microseconds(6500)}, 10'000), 0);
  EXPECT_TRUE(VerifyAudit().intact);

  // A kept row deleted behind the pruner's back is still found.
  database_->Tamper("DELETE FROM admin_audit_log WHERE seq = 4");
  AdminAuditVerification holed = VerifyAudit();
  EXPECT_FALSE(holed.intact);
  EXPECT_EQ(holed.first_bad_seq, 4);
}

TEST_P(AdminAuditContractTest, PruningKeepsAtMostMaxRowsAndDeletesInBatches) {
  AppendRevokes(7);
  const AdminAuditRetention cap{.max_rows = 3, .batch = 2};
  EXPECT_EQ(Prune(cap, 8000), 2);  // one batch: rows 1 and 2
  EXPECT_EQ(Prune(cap, 8000), 2);  // rows 3 and 4
  EXPECT_EQ(Prune(cap, 8000), 0);
  EXPECT_THAT(AuditSeqs(Query({})), ElementsAre(5, 6, 7));
  AdminAuditVerification verification = VerifyAudit();
  EXPECT_TRUE(verification.intact) << verification.problem;
  EXPECT_EQ(verification.pruned_through_seq, 4);
}

TEST_P(AdminAuditContractTest, PruningDeletesOnlyFromTheStartOfTheChain) {
  // Row 2 carries a later time than row 3 (clocks of two nodes disagree): pruning stops at it,
  // so the chain never loses a row from its middle.
  Append(AuditRow("alice", "RevokeAgent", {"agt_1"}, 1000));
  Append(AuditRow("alice", "RevokeAgent", {"agt_2"}, 9000));
  Append(AuditRow("alice", "RevokeAgent", {"agt_3"}, 2000));
  EXPECT_EQ(Prune({.max_age = absl::Microseconds(5000)}, 10'000), 1);
  EXPECT_THAT(AuditSeqs(Query({})), ElementsAre(2, 3));
  EXPECT_TRUE(VerifyAudit().intact);
}

TEST_P(AdminAuditContractTest, ARetentionOutOfRangeIsInvalidArgument) {
  EXPECT_EQ(audit_->Prune({.max_age = absl::ZeroDuration()}, absl::Now()).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(audit_->Prune({.max_rows = 0}, absl::Now()).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(audit_->Prune({.batch = 0}, absl::Now()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_P(AdminAuditContractTest, AuditLogsOfSeveralSidecarsAppendOneChain) {
  std::unique_ptr<AdminAuditLog> other = OpenAudit();
  ASSERT_NE(other, nullptr);
  std::vector<std::thread> writers;
  for (AdminAuditLog* log : {audit_.get(), other.get()}) {
    writers.emplace_back([log] {
      for (int i = 0; i < 10; ++i) {
        AdminAuditRow row = AuditRow("alice", "RevokeAgent", {"agt_x"}, 1000);
        EXPECT_TRUE(log->Append(row).ok());
      }
    });
  }
  for (std::thread& writer : writers) writer.join();
  AdminAuditVerification verification = VerifyAudit();
  EXPECT_TRUE(verification.intact) << verification.problem;
  EXPECT_EQ(verification.rows_checked, 20);
}

TEST_P(AdminTablesContractTest, PrincipalsAreCreatedOnceAndListedByName) {
  std::unique_ptr<AdminCredentialStore> credentials = OpenCredentials();
  ASSERT_NE(credentials, nullptr);
  ASSERT_TRUE(credentials
                  ->CreatePrincipal(
                      NewPrincipal("issuer-app", {AdminRole::kIssuer}, {"docs:*", "/api/v1/**"}))
                  .ok());
  ASSERT_TRUE(
      credentials
          ->CreatePrincipal(NewPrincipal("carol", {AdminRole::kApprover, AdminRole::kAuditor}))
          .ok());
  absl::Status again = credentials->CreatePrincipal(NewPrincipal("carol", {AdminRole::kAdmin}));
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);

  absl::StatusOr<std::vector<StoredAdminPrincipal>> all = OpenCredentials()->ListPrincipals();
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].principal.name, "carol");
  EXPECT_EQ((*all)[0].principal.roles, AdminRoleSet({AdminRole::kApprover, AdminRole::kAuditor}));
  EXPECT_EQ((*all)[1].principal.name, "issuer-app");
  EXPECT_THAT((*all)[1].principal.grant_patterns, ElementsAre("docs:*", "/api/v1/**"));
  EXPECT_EQ((*all)[1].secret_hash, "$argon2id$issuer-app");
  EXPECT_EQ((*all)[1].created_at, absl::FromUnixSeconds(1700000000));
}

TEST_P(AdminTablesContractTest, AChangeIsWrittenWholeAndReadByEverySidecar) {
  std::unique_ptr<AdminCredentialStore> credentials = OpenCredentials();
  ASSERT_NE(credentials, nullptr);
  ASSERT_TRUE(credentials->CreatePrincipal(NewPrincipal("op", {AdminRole::kOperator})).ok());
  const absl::Time later = absl::FromUnixSeconds(1700000100);
  absl::StatusOr<StoredAdminPrincipal> changed = credentials->ChangePrincipal(
      "op",
      [](StoredAdminPrincipal& p) {
        p.principal.enabled = false;
        p.principal.roles = {AdminRole::kIssuer};
        p.principal.grant_patterns = {"a:*"};
        p.secret_hash = "$argon2id$new";
        return absl::OkStatus();
      },
      later);
  ASSERT_TRUE(changed.ok()) << changed.status();
  absl::StatusOr<std::optional<StoredAdminPrincipal>> read = OpenCredentials()->FindPrincipal("op");
  ASSERT_TRUE(read.ok() && read->has_value());
  EXPECT_FALSE((*read)->principal.enabled);
  EXPECT_EQ((*read)->principal.roles, AdminRoleSet({AdminRole::kIssuer}));
  EXPECT_THAT((*read)->principal.grant_patterns, ElementsAre("a:*"));
  EXPECT_EQ((*read)->secret_hash, "$argon2id$new");
  EXPECT_EQ((*read)->updated_at, later);

  // A change that fails writes nothing; an unknown principal is NOT_FOUND.
  absl::StatusOr<StoredAdminPrincipal> refused = credentials->ChangePrincipal(
      "op", [](StoredAdminPrincipal&) { return absl::InvalidArgumentError("no"); }, later);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(credentials
                ->ChangePrincipal(
                    "nobody", [](StoredAdminPrincipal&) { return absl::OkStatus(); }, later)
                .status()
                .code(),
            absl::StatusCode::kNotFound);
}

TEST_P(AdminTablesContractTest, TheLastEnabledAdminIsKept) {
  std::unique_ptr<AdminCredentialStore> credentials = OpenCredentials();
  ASSERT_NE(credentials, nullptr);
  ASSERT_TRUE(credentials->SetIfAbsent("$argon2id$admin", absl::Now()).ok());
  const auto disable = [](StoredAdminPrincipal& p) {
    p.principal.enabled = false;
    return absl::OkStatus();
  };
  const auto demote = [](StoredAdminPrincipal& p) {
    p.principal.roles = {AdminRole::kOperator};
    return absl::OkStatus();
  };
  absl::StatusOr<StoredAdminPrincipal> refused =
      credentials->ChangePrincipal("admin", disable, absl::Now());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(), HasSubstr("last enabled admin"));
  EXPECT_EQ(credentials->ChangePrincipal("admin", demote, absl::Now()).status().code(),
            absl::StatusCode::kFailedPrecondition);

  // A disabled admin does not count; an enabled one does.
  StoredAdminPrincipal other = NewPrincipal("root2", {AdminRole::kAdmin});
  other.principal.enabled = false;
  ASSERT_TRUE(credentials->CreatePrincipal(other).ok());
  EXPECT_EQ(credentials->ChangePrincipal("admin", disable, absl::Now()).status().code(),
            absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(credentials
                  ->ChangePrincipal(
                      "root2",
                      [](StoredAdminPrincipal& p) {
                        p.principal.enabled = true;
                        return absl::OkStatus();
                      },
                      absl::Now())
                  .ok());
  EXPECT_TRUE(credentials->ChangePrincipal("admin", disable, absl::Now()).ok());
  EXPECT_EQ(credentials->ChangePrincipal("root2", demote, absl::Now()).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace verdict
