#include "store/decision_log.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/migrations.h"
#include "store/sqlite/schema.h"
#include "store/test_support.h"

namespace verdict {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

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

// Appends `count` rows, one batch each, alternating agents a/b and verdicts ALLOW/DENY, at
// decided_at 1000, 2000, ...
void AppendRows(DecisionLog& log, int count) {
  for (int i = 0; i < count; ++i) {
    std::vector<DecisionLogRow> rows = {
        Row(i % 2 == 0 ? "agt_a" : "agt_b", i % 2 == 0 ? "ALLOW" : "DENY", (i + 1) * 1000)};
    ASSERT_TRUE(log.Append(rows).ok());
  }
}

std::vector<int64_t> Seqs(const DecisionLogPage& page) {
  std::vector<int64_t> seqs;
  for (const DecisionLogRow& row : page.rows) seqs.push_back(row.seq);
  return seqs;
}

// Tampering goes through a connection of its own, as an attacker with the file would.
void Tamper(const std::string& path, const std::string& sql) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE);
  db.exec(sql);
}

TEST(DecisionLogTest, AppendChainsRowsFromTheGenesisHash) {
  DecisionLog log(FreshDatabasePath("chain"));
  std::vector<DecisionLogRow> rows = {Row("agt_a", "ALLOW", 1), Row("agt_a", "DENY", 2)};
  ASSERT_TRUE(log.Append(rows).ok());
  EXPECT_EQ(rows[0].seq, 1);
  EXPECT_EQ(rows[0].prev_hash, kGenesisHash);
  EXPECT_EQ(rows[0].hash, ChainHash(rows[0]));
  EXPECT_EQ(rows[1].seq, 2);
  EXPECT_EQ(rows[1].prev_hash, rows[0].hash);
}

TEST(DecisionLogTest, SeveralWritersOnOneFileFormOneChain) {
  const std::string path = FreshDatabasePath("writers");
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w) {
    // Each writer has its own connection, as separate processes would.
    writers.emplace_back([&path] {
      DecisionLog log(path);
      for (int i = 0; i < 10; ++i) {
        std::vector<DecisionLogRow> batch = {Row("agt_a", "ALLOW", i), Row("agt_b", "DENY", i)};
        ASSERT_TRUE(log.Append(batch).ok());
      }
    });
  }
  for (std::thread& writer : writers) writer.join();
  absl::StatusOr<ChainVerification> verification = DecisionLog(path).VerifyChain();
  ASSERT_TRUE(verification.ok()) << verification.status();
  EXPECT_TRUE(verification->intact) << verification->problem;
  EXPECT_EQ(verification->rows_checked, 80);
}

TEST(DecisionLogTest, AnUntouchedLogVerifies) {
  DecisionLog log(FreshDatabasePath("untouched"));
  absl::StatusOr<ChainVerification> empty = log.VerifyChain();
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_TRUE(empty->intact);
  EXPECT_EQ(empty->rows_checked, 0);

  AppendRows(log, 5);
  absl::StatusOr<ChainVerification> full = log.VerifyChain();
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_TRUE(full->intact) << full->problem;
  EXPECT_EQ(full->rows_checked, 5);
}

struct TamperCase {
  std::string name;
  std::string sql;
  int64_t first_bad_seq;
  std::string problem;
};

class DecisionLogTamperTest : public testing::TestWithParam<TamperCase> {};

TEST_P(DecisionLogTamperTest, VerificationNamesTheFirstBadSeq) {
  const std::string path = FreshDatabasePath("tamper_" + GetParam().name);
  DecisionLog log(path);
  AppendRows(log, 6);
  Tamper(path, GetParam().sql);

  absl::StatusOr<ChainVerification> verification = log.VerifyChain();
  ASSERT_TRUE(verification.ok()) << verification.status();
  EXPECT_FALSE(verification->intact);
  EXPECT_EQ(verification->first_bad_seq, GetParam().first_bad_seq);
  EXPECT_THAT(verification->problem, HasSubstr(GetParam().problem));
  EXPECT_EQ(verification->rows_checked, GetParam().first_bad_seq - 1);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, DecisionLogTamperTest,
    testing::Values(TamperCase{"EditedVerdict",
                               "UPDATE decision_log SET verdict = 'ALLOW' WHERE seq = 4", 4,
                               "edited"},
                    TamperCase{"EditedArguments",
                               "UPDATE decision_log SET arguments_json = '{\"x\":1}' WHERE seq = 2",
                               2, "edited"},
                    TamperCase{"EditedHash",
                               "UPDATE decision_log SET hash = prev_hash WHERE seq = 3", 3,
                               "edited"},
                    TamperCase{"DeletedMiddleRow", "DELETE FROM decision_log WHERE seq = 3", 3,
                               "row 3 is missing"},
                    TamperCase{"DeletedFirstRow", "DELETE FROM decision_log WHERE seq = 1", 1,
                               "row 1 is missing"},
                    TamperCase{"DeletedLastRows", "DELETE FROM decision_log WHERE seq >= 5", 5,
                               "rows 5 to 6 are missing"},
                    // Rows 2 and 4 trade places: each now sits where the other was written.
                    TamperCase{"ReorderedRows",
                               "UPDATE decision_log SET seq = -2 WHERE seq = 2;"
                               "UPDATE decision_log SET seq = 2 WHERE seq = 4;"
                               "UPDATE decision_log SET seq = 4 WHERE seq = -2;",
                               2, "does not link"}),
    [](const testing::TestParamInfo<TamperCase>& info) { return info.param.name; });

TEST(DecisionLogTest, ARowForgedWithAValidHashBreaksTheNextLink) {
  const std::string path = FreshDatabasePath("forged");
  DecisionLog log(path);
  AppendRows(log, 6);
  absl::StatusOr<DecisionLogPage> page = log.Query({}, 10, "");
  ASSERT_TRUE(page.ok()) << page.status();
  DecisionLogRow forged = page->rows[4];
  forged.message = "forged";
  forged.hash = ChainHash(forged);
  Tamper(path, absl::StrCat("UPDATE decision_log SET message = 'forged', hash = '", forged.hash,
                            "' WHERE seq = 5"));

  absl::StatusOr<ChainVerification> verification = log.VerifyChain();
  ASSERT_TRUE(verification.ok()) << verification.status();
  EXPECT_FALSE(verification->intact);
  EXPECT_EQ(verification->first_bad_seq, 6);
  EXPECT_THAT(verification->problem, HasSubstr("does not link"));
}

TEST(DecisionLogTest, AppendAfterATailDeletionLeavesTheGapVisible) {
  const std::string path = FreshDatabasePath("tail");
  DecisionLog log(path);
  AppendRows(log, 4);
  Tamper(path, "DELETE FROM decision_log WHERE seq = 4");
  AppendRows(log, 1);

  absl::StatusOr<ChainVerification> verification = log.VerifyChain();
  ASSERT_TRUE(verification.ok()) << verification.status();
  EXPECT_FALSE(verification->intact);
  EXPECT_EQ(verification->first_bad_seq, 4);
}

TEST(DecisionLogTest, QueryFiltersByAgentVerdictAndTime) {
  DecisionLog log(FreshDatabasePath("query"));
  AppendRows(log, 6);  // a: 1,3,5 ALLOW; b: 2,4,6 DENY; decided_at = seq * 1000 us

  DecisionLogFilter by_agent;
  by_agent.agent_id = "agt_b";
  absl::StatusOr<DecisionLogPage> page = log.Query(by_agent, 0, "");
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_THAT(Seqs(*page), ElementsAre(2, 4, 6));

  DecisionLogFilter by_verdict;
  by_verdict.verdict = "ALLOW";
  page = log.Query(by_verdict, 0, "");
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_THAT(Seqs(*page), ElementsAre(1, 3, 5));

  DecisionLogFilter by_time;
  by_time.since = absl::FromUnixMicros(2000);
  by_time.until = absl::FromUnixMicros(5000);
  page = log.Query(by_time, 0, "");
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_THAT(Seqs(*page), ElementsAre(2, 3, 4));

  DecisionLogFilter all_three = by_time;
  all_three.agent_id = "agt_a";
  all_three.verdict = "ALLOW";
  page = log.Query(all_three, 0, "");
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_THAT(Seqs(*page), ElementsAre(3));
}

TEST(DecisionLogTest, QueryPagesThroughEveryRowOnce) {
  DecisionLog log(FreshDatabasePath("pages"));
  AppendRows(log, 7);
  std::vector<int64_t> seen;
  std::string token;
  int pages = 0;
  do {
    absl::StatusOr<DecisionLogPage> page = log.Query({}, 3, token);
    ASSERT_TRUE(page.ok()) << page.status();
    for (int64_t seq : Seqs(*page)) seen.push_back(seq);
    token = page->next_page_token;
    ++pages;
  } while (!token.empty());
  EXPECT_EQ(pages, 3);
  EXPECT_THAT(seen, ElementsAre(1, 2, 3, 4, 5, 6, 7));
}

TEST(DecisionLogTest, QueryRefusesAForeignPageToken) {
  DecisionLog log(FreshDatabasePath("token"));
  for (const char* token : {"abc", "-1", "1.5"}) {
    absl::StatusOr<DecisionLogPage> page = log.Query({}, 10, token);
    EXPECT_EQ(page.status().code(), absl::StatusCode::kInvalidArgument) << token;
  }
}

TEST(DecisionLogTest, QueryReturnsRowsAsWritten) {
  DecisionLog log(FreshDatabasePath("roundtrip"));
  DecisionLogRow written = Row("agt_a", "DENY", 1234);
  written.request_id = "req";
  written.client_ip = "::1";
  written.message = "no grant";
  written.matched_permission_id = "perm_x";
  written.delegation_path_json = R"([{"delegation_id":"d","from_agent_id":"f","to_agent_id":"t"}])";
  written.approval_request_id = "apr_1";
  written.latency_us = 77;
  std::vector<DecisionLogRow> rows = {written};
  ASSERT_TRUE(log.Append(rows).ok());

  absl::StatusOr<DecisionLogPage> page = log.Query({}, 10, "");
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->rows.size(), 1u);
  const DecisionLogRow& read = page->rows[0];
  EXPECT_EQ(read.hash, rows[0].hash);
  EXPECT_EQ(ChainHash(read), read.hash);
  EXPECT_EQ(read.message, "no grant");
  EXPECT_EQ(read.delegation_path_json, written.delegation_path_json);
  EXPECT_EQ(read.latency_us, 77);
  EXPECT_TRUE(page->next_page_token.empty());
}

TEST(DecisionLogTest, AnUnreachableDatabaseIsUnavailable) {
  DecisionLog log("/nonexistent-dir/verdict.db");
  std::vector<DecisionLogRow> rows = {Row("agt_a", "ALLOW", 1)};
  EXPECT_EQ(log.Append(rows).code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(log.VerifyChain().status().code(), absl::StatusCode::kUnavailable);
}

// --- Runs: each process's numbering of its decisions (store/decision_log_row.h) ---

constexpr char kHost[] = "host-a";

// Liveness as the test decides it: the processes named in `gone` are dead.
RunLiveness Gone(std::vector<int64_t> gone) {
  return [gone](const RunOrigin& origin) {
    return std::find(gone.begin(), gone.end(), origin.pid) != gone.end();
  };
}

DecisionLogRow Start(absl::string_view run_id, int64_t pid) {
  return MakeRunStartRow(run_id, RunOrigin{kHost, pid, "async"}, absl::FromUnixMicros(1));
}

// Decision `run_seq` of `run_id`, written when the run had numbered `decided` decisions.
DecisionLogRow Decided(absl::string_view run_id, int64_t run_seq, int64_t decided = 0) {
  DecisionLogRow row = Row("agt_a", "ALLOW", run_seq);
  row.request_id = absl::StrCat(run_id, "-", run_seq);
  row.run_id = std::string(run_id);
  row.run_seq = run_seq;
  row.run_decided = std::max(decided, run_seq);
  return row;
}

DecisionLogRow Stop(absl::string_view run_id, int64_t last_run_seq) {
  return MakeRunStopRow(run_id, last_run_seq, absl::FromUnixMicros(2));
}

ChainVerification Verify(const std::string& path, RunLiveness liveness = Gone({})) {
  absl::StatusOr<ChainVerification> verification =
      DecisionLog(path, {}, std::move(liveness)).VerifyChain();
  EXPECT_TRUE(verification.ok()) << verification.status();
  return verification.ok() ? *verification : ChainVerification{.intact = false};
}

void AppendEach(DecisionLog& log, std::vector<DecisionLogRow> rows) {
  for (DecisionLogRow& row : rows) {
    std::vector<DecisionLogRow> batch = {row};
    ASSERT_TRUE(log.Append(batch).ok());
  }
}

// A log migrated to `version` alone, holding `rows` ALLOW rows chained as that version wrote
// them: hashed without any column a later version added. Each names `approval_request_id`.
void WriteChainAsVersionWroteIt(const std::string& path, int version, int rows,
                                const std::string& approval_request_id) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  ASSERT_TRUE(MigrateSchema(db, absl::Seconds(5), Migrations().subspan(0, version)).ok());
  ASSERT_EQ(SchemaVersion(db), version);
  std::string previous = kGenesisHash;
  for (int seq = 1; seq <= rows; ++seq) {
    DecisionLogRow row = Row("agt_a", "ALLOW", seq);
    row.seq = seq;
    row.approval_request_id = approval_request_id;
    row.prev_hash = previous;
    row.hash = ChainHash(row);
    previous = row.hash;
    SQLite::Statement insert(
        db,
        "INSERT INTO decision_log (seq, decided_at, request_id, agent_id, action, resource, "
        "client_ip, arguments_json, verdict, reason, message, matched_permission_id, "
        "delegation_path, approval_request_id, latency_us, prev_hash, hash) VALUES (?, ?, '', "
        "?, 'read', 'docs:1', '', '{}', 'ALLOW', 'ALLOWED', '', '', '[]', ?, 0, ?, ?)");
    insert.bind(1, row.seq);
    insert.bind(2, row.decided_at_us);
    insert.bind(3, row.agent_id);
    insert.bind(4, row.approval_request_id);
    insert.bind(5, row.prev_hash);
    insert.bind(6, row.hash);
    insert.exec();
  }
}

TEST(DecisionLogRunsTest, InterleavedRunsThatStoppedCleanlyVerify) {
  const std::string path = FreshDatabasePath("runs_clean");
  DecisionLog log(path);
  AppendEach(log, {Start("run_a", 10), Start("run_b", 11), Decided("run_a", 1), Decided("run_b", 1),
                   Decided("run_b", 2), Decided("run_a", 2), Stop("run_b", 2), Decided("run_a", 3),
                   Stop("run_a", 3)});

  ChainVerification verification = Verify(path);
  EXPECT_TRUE(verification.intact) << verification.problem;
  EXPECT_EQ(verification.runs, 2);
  EXPECT_EQ(verification.open_runs, 0);
  EXPECT_THAT(verification.gaps, IsEmpty());
}

TEST(DecisionLogRunsTest, ANumberMissingInARunIsAGapNamingTheRunAndTheNumbers) {
  const std::string path = FreshDatabasePath("runs_gap");
  DecisionLog log(path);
  AppendEach(log, {Start("run_a", 10), Start("run_b", 11), Decided("run_a", 1), Decided("run_b", 1),
                   Decided("run_a", 4), Decided("run_b", 2), Stop("run_b", 2), Stop("run_a", 6)});

  ChainVerification verification = Verify(path);
  EXPECT_FALSE(verification.intact);
  EXPECT_EQ(verification.first_bad_seq, 0);  // the chain itself holds
  EXPECT_EQ(verification.gap_count, 2);
  ASSERT_EQ(verification.gaps.size(), 2u);
  EXPECT_EQ(verification.gaps[0].run_id, "run_a");
  EXPECT_EQ(verification.gaps[0].origin, "pid 10 on host-a");
  EXPECT_EQ(verification.gaps[0].first_missing, 2);
  EXPECT_EQ(verification.gaps[0].last_missing, 3);
  // Decisions the run numbered after its last row, as its stop marker says.
  EXPECT_EQ(verification.gaps[1].first_missing, 5);
  EXPECT_EQ(verification.gaps[1].last_missing, 6);
  EXPECT_THAT(verification.problem, HasSubstr("run run_a (pid 10 on host-a): decisions 2 to 3"));
}

TEST(DecisionLogRunsTest, ARunWhoseProcessDiedWithoutStoppingLostWhatItHadNumbered) {
  const std::string path = FreshDatabasePath("runs_killed");
  DecisionLog log(path);
  // run_a's last batch was written when it had numbered 5 decisions; it died before 4 and 5.
  AppendEach(log, {Start("run_a", 10), Decided("run_a", 1), Decided("run_a", 2),
                   Decided("run_a", 3, /*decided=*/5)});

  ChainVerification open = Verify(path, Gone({}));
  EXPECT_TRUE(open.intact) << "a live run's queued decisions are not missing: " << open.problem;
  EXPECT_EQ(open.open_runs, 1);

  ChainVerification killed = Verify(path, Gone({10}));
  EXPECT_FALSE(killed.intact);
  EXPECT_EQ(killed.open_runs, 0);
  ASSERT_EQ(killed.gaps.size(), 1u);
  EXPECT_EQ(killed.gaps[0].first_missing, 4);
  EXPECT_EQ(killed.gaps[0].last_missing, 5);
  EXPECT_THAT(killed.problem, HasSubstr("ended without stopping"));
}

TEST(DecisionLogRunsTest, ADeadRunWithNothingQueuedStillShowsItsUnknownEnd) {
  const std::string path = FreshDatabasePath("runs_unknown_end");
  DecisionLog log(path);
  AppendEach(log, {Start("run_a", 10), Decided("run_a", 1), Decided("run_a", 2)});

  ChainVerification verification = Verify(path, Gone({10}));
  EXPECT_FALSE(verification.intact);
  ASSERT_EQ(verification.gaps.size(), 1u);
  EXPECT_EQ(verification.gaps[0].first_missing, 3);
  EXPECT_EQ(verification.gaps[0].last_missing, 0);  // unknown: whatever it made after 2
}

TEST(DecisionLogRunsTest, AMissingStartMarkerIsReported) {
  const std::string path = FreshDatabasePath("runs_no_start");
  DecisionLog log(path);
  AppendEach(log, {Decided("run_a", 3), Stop("run_a", 3)});

  ChainVerification verification = Verify(path);
  EXPECT_FALSE(verification.intact);
  ASSERT_EQ(verification.gaps.size(), 1u);
  EXPECT_EQ(verification.gaps[0].first_missing, 1);
  EXPECT_EQ(verification.gaps[0].last_missing, 2);
  EXPECT_THAT(verification.problem, HasSubstr("start marker is missing"));
}

TEST(DecisionLogRunsTest, EditingARunColumnBreaksTheChain) {
  const std::string path = FreshDatabasePath("runs_edit");
  DecisionLog log(path);
  AppendEach(log, {Start("run_a", 10), Decided("run_a", 1), Decided("run_a", 2), Stop("run_a", 2)});
  Tamper(path, "UPDATE decision_log SET run_seq = 3 WHERE seq = 3");

  ChainVerification verification = Verify(path);
  EXPECT_FALSE(verification.intact);
  EXPECT_EQ(verification.first_bad_seq, 3);
}

TEST(DecisionLogRunsTest, QueriesLeaveOutTheMarkers) {
  const std::string path = FreshDatabasePath("runs_query");
  DecisionLog log(path);
  AppendEach(log, {Start("run_a", 10), Decided("run_a", 1), Stop("run_a", 1)});

  absl::StatusOr<DecisionLogPage> page = log.Query({}, 0, "");
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_THAT(page->rows, ElementsAre(Field(&DecisionLogRow::run_seq, 1)));
}

TEST(DecisionLogRunsTest, ALogFromBeforeVersion7StillVerifiesAndRunsContinueIt) {
  const std::string path = FreshDatabasePath("runs_v6");
  WriteChainAsVersionWroteIt(path, 6, 3, "");
  DecisionLog log(path);  // migrates to the latest version on first use
  ChainVerification before_runs = Verify(path);
  EXPECT_TRUE(before_runs.intact) << before_runs.problem;
  EXPECT_EQ(before_runs.rows_checked, 3);
  EXPECT_EQ(before_runs.runs, 0);

  AppendEach(log, {Start("run_a", 10), Decided("run_a", 1), Stop("run_a", 1)});
  ChainVerification with_runs = Verify(path);
  EXPECT_TRUE(with_runs.intact) << with_runs.problem;
  EXPECT_EQ(with_runs.rows_checked, 6);
  EXPECT_EQ(with_runs.runs, 1);
}

// A decision allowed by an approval names its approvers in its row, and the hash covers them.
TEST(DecisionLogTest, ALogFromBeforeVersion15StillVerifiesAndRowsNamingApproversContinueIt) {
  const std::string path = FreshDatabasePath("approvers_v14");
  WriteChainAsVersionWroteIt(path, 14, 2, "apr_old");
  DecisionLog log(path);  // migrates to the latest version on first use
  ChainVerification before = Verify(path);
  EXPECT_TRUE(before.intact) << before.problem;
  EXPECT_EQ(before.rows_checked, 2);

  DecisionLogRow approved = Row("agt_a", "ALLOW", 3);
  approved.approval_request_id = "apr_new";
  approved.approved_by_json = ApprovedByToJson({"carol", "dave"});
  std::vector<DecisionLogRow> rows = {approved};
  ASSERT_TRUE(log.Append(rows).ok());
  ChainVerification after = Verify(path);
  EXPECT_TRUE(after.intact) << after.problem;
  EXPECT_EQ(after.rows_checked, 3);
  absl::StatusOr<DecisionLogPage> page = log.Query({}, 0, "");
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->rows.size(), 3u);
  EXPECT_EQ(page->rows[0].approved_by_json, "");
  EXPECT_EQ(page->rows[2].approved_by_json, R"(["carol","dave"])");

  // Who approved is part of the row the chain covers.
  Tamper(path, R"(UPDATE decision_log SET approved_by = '["carol"]' WHERE seq = 3)");
  ChainVerification edited = Verify(path);
  EXPECT_FALSE(edited.intact);
  EXPECT_EQ(edited.first_bad_seq, 3);
}

}  // namespace
}  // namespace verdict
