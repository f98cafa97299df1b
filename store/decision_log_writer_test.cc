#include "store/decision_log_writer.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/decision_log.h"
#include "store/test_support.h"

namespace verdict {
namespace {

Clock FixedClock() {
  return [] { return absl::FromUnixSeconds(1700000000); };
}

Request MakeRequest(int n, std::string arguments_json = "{}") {
  Request request;
  request.subject.agent_id = "agt_a";
  request.action = "read";
  request.resource = absl::StrCat("docs:", n);
  request.arguments_json = std::move(arguments_json);
  request.request_id = absl::StrCat("req-", n);
  return request;
}

Decision Allowed() {
  Decision decision;
  decision.verdict = Verdict::kAllow;
  decision.reason = ReasonCode::kAllowed;
  decision.agent_id = "agt_a";
  return decision;
}

std::vector<DecisionLogRow> AllRows(const std::string& path) {
  DecisionLog log(path);
  std::vector<DecisionLogRow> rows;
  std::string token;
  do {
    absl::StatusOr<DecisionLogPage> page = log.Query({}, kMaxDecisionLogPageSize, token);
    EXPECT_TRUE(page.ok()) << page.status();
    if (!page.ok()) break;
    rows.insert(rows.end(), page->rows.begin(), page->rows.end());
    token = page->next_page_token;
  } while (!token.empty());
  return rows;
}

TEST(DecisionLogWriterTest, WritesEveryDecisionInOrderWithSecretsRedacted) {
  const std::string path = FreshDatabasePath("in_order");
  DecisionLogWriter writer(std::make_unique<DecisionLog>(path), FixedClock());
  for (int i = 0; i < 100; ++i) {
    EXPECT_TRUE(writer
                    .OnDecision(MakeRequest(i, R"({"Authorization":"Bearer x","page":1})"),
                                Allowed(), absl::Microseconds(i))
                    .ok());
  }
  writer.Flush();

  EXPECT_EQ(writer.counters().written, 100u);
  EXPECT_EQ(writer.counters().dropped, 0u);
  EXPECT_EQ(writer.counters().failed, 0u);
  const std::vector<DecisionLogRow> rows = AllRows(path);
  ASSERT_EQ(rows.size(), 100u);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(rows[i].request_id, absl::StrCat("req-", i));
    EXPECT_EQ(rows[i].arguments_json, R"({"Authorization":"[REDACTED]","page":1})");
    EXPECT_EQ(rows[i].latency_us, i);
    EXPECT_EQ(rows[i].decided_at_us, int64_t{1700000000} * 1000000);
  }
  absl::StatusOr<ChainVerification> verification = DecisionLog(path).VerifyChain();
  ASSERT_TRUE(verification.ok()) << verification.status();
  EXPECT_TRUE(verification->intact) << verification->problem;
}

TEST(DecisionLogWriterTest, ShutdownWritesEverythingQueuedAndTakesNoMore) {
  const std::string path = FreshDatabasePath("shutdown");
  DecisionLogWriter writer(std::make_unique<DecisionLog>(path), FixedClock());
  for (int i = 0; i < 2000; ++i)
    EXPECT_TRUE(writer.OnDecision(MakeRequest(i), Allowed(), absl::ZeroDuration()).ok());
  writer.Shutdown();

  EXPECT_EQ(writer.counters().written, 2000u);
  EXPECT_EQ(AllRows(path).size(), 2000u);
  EXPECT_TRUE(writer.OnDecision(MakeRequest(2000), Allowed(), absl::ZeroDuration()).ok());
  EXPECT_EQ(writer.counters().dropped, 1u);
}

TEST(DecisionLogWriterTest, AFullQueueDropsAndCountsInsteadOfWaiting) {
  const std::string path = FreshDatabasePath("full");
  ASSERT_TRUE(DecisionLog(path).VerifyChain().ok());  // creates the schema
  DecisionLogWriterOptions options;
  options.max_queued_rows = 10;
  options.max_batch_rows = 1;
  DecisionLogWriter writer(
      std::make_unique<DecisionLog>(path, ConnectionOptions{absl::Seconds(30)}), FixedClock(),
      options);
  writer.Flush();  // the run's start marker is written: the writer thread is idle
  {
    // Another writer holds the database: the log's writer thread waits on the lock.
    SQLite::Database holder(path, SQLite::OPEN_READWRITE);
    SQLite::Transaction lock(holder, SQLite::TransactionBehavior::IMMEDIATE);
    const absl::Time start = absl::Now();
    for (int i = 0; i < 100; ++i)
      EXPECT_TRUE(writer.OnDecision(MakeRequest(i), Allowed(), absl::ZeroDuration()).ok());
    EXPECT_LT(absl::Now() - start, absl::Seconds(1));
    // At most one row left the queue for the blocked batch; ten more fit in it.
    EXPECT_GE(writer.counters().dropped, 89u);
    EXPECT_EQ(writer.counters().written, 0u);
  }
  writer.Flush();
  const DecisionLogCounters counters = writer.counters();
  EXPECT_EQ(counters.written + counters.dropped, 100u);
  EXPECT_EQ(counters.failed, 0u);
  EXPECT_EQ(AllRows(path).size(), counters.written);
}

TEST(DecisionLogWriterTest, DecisionsDroppedByAFullQueueShowAsAGapInTheChainCheck) {
  const std::string path = FreshDatabasePath("dropped_gap");
  ASSERT_TRUE(DecisionLog(path).VerifyChain().ok());  // creates the schema
  DecisionLogWriterOptions options;
  options.max_queued_rows = 10;
  options.max_batch_rows = 1;
  DecisionLogWriter writer(
      std::make_unique<DecisionLog>(path, ConnectionOptions{absl::Seconds(30)}), FixedClock(),
      options);
  writer.Flush();  // the run's start marker is written: the writer thread is idle
  {
    SQLite::Database holder(path, SQLite::OPEN_READWRITE);
    SQLite::Transaction lock(holder, SQLite::TransactionBehavior::IMMEDIATE);
    for (int i = 0; i < 100; ++i)
      EXPECT_TRUE(writer.OnDecision(MakeRequest(i), Allowed(), absl::ZeroDuration()).ok());
  }
  writer.Shutdown();
  ASSERT_GT(writer.counters().dropped, 0u);

  absl::StatusOr<ChainVerification> verification = DecisionLog(path).VerifyChain();
  ASSERT_TRUE(verification.ok()) << verification.status();
  EXPECT_FALSE(verification->intact) << "dropped decisions went unnoticed";
  // Every dropped decision's number is in a gap of this writer's run.
  int64_t missing = 0;
  for (const DecisionLogGap& gap : verification->gaps) {
    EXPECT_EQ(gap.run_id, writer.run_id());
    missing += gap.last_missing - gap.first_missing + 1;
  }
  EXPECT_EQ(verification->gap_count, static_cast<int64_t>(verification->gaps.size()));
  EXPECT_EQ(missing, static_cast<int64_t>(writer.counters().dropped));
}

TEST(DecisionLogWriterTest, EachDecisionIsNumberedInItsRunBetweenStartAndStopMarkers) {
  const std::string path = FreshDatabasePath("numbered");
  DecisionLogWriter writer(std::make_unique<DecisionLog>(path), FixedClock());
  for (int i = 0; i < 5; ++i)
    EXPECT_TRUE(writer.OnDecision(MakeRequest(i), Allowed(), absl::ZeroDuration()).ok());
  writer.Shutdown();

  const std::vector<DecisionLogRow> rows = AllRows(path);
  ASSERT_EQ(rows.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(rows[i].run_id, writer.run_id());
    EXPECT_EQ(rows[i].run_seq, i + 1);
  }
  SQLite::Database db(path);
  EXPECT_EQ(db.execAndGet("SELECT reason FROM decision_log ORDER BY seq LIMIT 1").getString(),
            kRunStartReason);
  EXPECT_EQ(db.execAndGet("SELECT reason FROM decision_log ORDER BY seq DESC LIMIT 1").getString(),
            kRunStopReason);
  absl::StatusOr<ChainVerification> verification = DecisionLog(path).VerifyChain();
  ASSERT_TRUE(verification.ok()) << verification.status();
  EXPECT_TRUE(verification->intact) << verification->problem;
  EXPECT_EQ(verification->runs, 1);
  EXPECT_EQ(verification->open_runs, 0);
}

TEST(DecisionLogWriterTest, ARunStillWritingIsOpenNotMissingDecisions) {
  const std::string path = FreshDatabasePath("open_run");
  DecisionLogWriter writer(std::make_unique<DecisionLog>(path), FixedClock());
  EXPECT_TRUE(writer.OnDecision(MakeRequest(1), Allowed(), absl::ZeroDuration()).ok());
  writer.Flush();

  // This process is alive: its run has no stop marker yet, and that is no gap.
  absl::StatusOr<ChainVerification> verification = DecisionLog(path).VerifyChain();
  ASSERT_TRUE(verification.ok()) << verification.status();
  EXPECT_TRUE(verification->intact) << verification->problem;
  EXPECT_EQ(verification->open_runs, 1);
}

// The log, holding every batch until the test opens the gate; says when a batch waits there
// and whether the last batch is committed.
class GatedLog : public DecisionLogStore {
 public:
  explicit GatedLog(const std::string& path) : log_(path) {}
  absl::Status Append(std::vector<DecisionLogRow>& rows) override {
    absl::MutexLock lock(&mu_);
    ++waiting_;
    mu_.Await(absl::Condition(&open_));
    absl::Status status = log_.Append(rows);
    ++committed_;
    return status;
  }
  absl::StatusOr<DecisionLogPage> Query(const DecisionLogFilter& filter, int page_size,
                                        absl::string_view page_token) override {
    return log_.Query(filter, page_size, page_token);
  }
  absl::StatusOr<ChainVerification> VerifyChain() override { return log_.VerifyChain(); }

  void AwaitWaiting(int batches) {
    absl::MutexLock lock(&mu_);
    auto reached = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return waiting_ >= batches; };
    mu_.Await(absl::Condition(&reached));
  }
  void Open() {
    absl::MutexLock lock(&mu_);
    open_ = true;
  }
  int committed() {
    absl::MutexLock lock(&mu_);
    return committed_;
  }

 private:
  DecisionLog log_;
  absl::Mutex mu_;
  bool open_ ABSL_GUARDED_BY(mu_) = false;
  int waiting_ ABSL_GUARDED_BY(mu_) = 0;
  int committed_ ABSL_GUARDED_BY(mu_) = 0;
};

TEST(DecisionLogWriterTest, WithSyncDurabilityADecisionReturnsOnlyOnceItsRowIsCommitted) {
  const std::string path = FreshDatabasePath("sync");
  auto gated = std::make_unique<GatedLog>(path);
  GatedLog& log = *gated;
  DecisionLogWriterOptions options;
  options.durability = DecisionLogDurability::kSync;
  DecisionLogWriter writer(std::move(gated), FixedClock(), options);
  log.AwaitWaiting(1);  // the start marker's batch holds the writer at the gate

  int committed_when_answered = -1;
  std::thread decision([&] {
    EXPECT_TRUE(writer.OnDecision(MakeRequest(1), Allowed(), absl::ZeroDuration()).ok());
    committed_when_answered = log.committed();
  });
  log.Open();
  decision.join();
  // The marker's batch and then the decision's: both committed before OnDecision returned.
  EXPECT_EQ(committed_when_answered, 2);
  EXPECT_EQ(AllRows(path).size(), 1u);
}

// With sync durability no decision is answered without its row: one the database finally refuses
// is reported, and must not be answered.
TEST(DecisionLogWriterTest, WithSyncDurabilityARefusedRowIsReportedSoTheAnswerIsWithheld) {
  DecisionLogWriterOptions options;
  options.durability = DecisionLogDurability::kSync;
  options.retry_delay = absl::Milliseconds(1);
  DecisionLogWriter writer(std::make_unique<DecisionLog>("/nonexistent-dir/verdict.db"),
                           FixedClock(), options);
  absl::Status kept = writer.OnDecision(MakeRequest(1), Allowed(), absl::ZeroDuration());
  EXPECT_EQ(kept.code(), absl::StatusCode::kUnavailable);  // returned: no hang
  EXPECT_EQ(writer.counters().failed, 1u);
}

TEST(DecisionLogWriterTest, WithSyncDurabilityADecisionAfterShutdownIsReportedNotKept) {
  const std::string path = FreshDatabasePath("sync_after_shutdown");
  DecisionLogWriterOptions options;
  options.durability = DecisionLogDurability::kSync;
  DecisionLogWriter writer(std::make_unique<DecisionLog>(path), FixedClock(), options);
  EXPECT_TRUE(writer.OnDecision(MakeRequest(1), Allowed(), absl::ZeroDuration()).ok());
  writer.Shutdown();
  absl::Status kept = writer.OnDecision(MakeRequest(2), Allowed(), absl::ZeroDuration());
  EXPECT_EQ(kept.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(writer.counters().dropped, 1u);
}

// Async durability answers first: a row refused later is counted, and the decision was answered.
TEST(DecisionLogWriterTest, WithAsyncDurabilityEveryDecisionIsAnsweredAndALostRowCounted) {
  DecisionLogWriterOptions options;
  options.retry_delay = absl::Milliseconds(1);
  DecisionLogWriter writer(std::make_unique<DecisionLog>("/nonexistent-dir/verdict.db"),
                           FixedClock(), options);
  EXPECT_TRUE(writer.OnDecision(MakeRequest(1), Allowed(), absl::ZeroDuration()).ok());
  writer.Flush();
  EXPECT_EQ(writer.counters().failed, 1u);
}

TEST(DecisionLogWriterTest, TheQueueIsBoundedInBytesToo) {
  const std::string path = FreshDatabasePath("bytes");
  DecisionLogWriterOptions options;
  options.max_queued_bytes = 64 * 1024;
  DecisionLogWriter writer(std::make_unique<DecisionLog>(path), FixedClock(), options);
  const std::string large_arguments = absl::StrCat(R"({"blob":")", std::string(100000, 'x'), "\"}");
  EXPECT_TRUE(
      writer.OnDecision(MakeRequest(1, large_arguments), Allowed(), absl::ZeroDuration()).ok());
  EXPECT_TRUE(writer.OnDecision(MakeRequest(2), Allowed(), absl::ZeroDuration()).ok());
  writer.Flush();
  EXPECT_EQ(writer.counters().dropped, 1u);
  EXPECT_EQ(writer.counters().written, 1u);
}

// The log, refusing its first `refusals` batches as a database locked past the busy timeout does.
class RefusingAtFirst : public DecisionLogStore {
 public:
  RefusingAtFirst(const std::string& path, int refusals) : log_(path), refusals_(refusals) {}
  absl::Status Append(std::vector<DecisionLogRow>& rows) override {
    if (refusals_-- > 0) return absl::UnavailableError("database is locked");
    return log_.Append(rows);
  }
  absl::StatusOr<DecisionLogPage> Query(const DecisionLogFilter& filter, int page_size,
                                        absl::string_view page_token) override {
    return log_.Query(filter, page_size, page_token);
  }
  absl::StatusOr<ChainVerification> VerifyChain() override { return log_.VerifyChain(); }

 private:
  DecisionLog log_;
  int refusals_;
};

TEST(DecisionLogWriterTest, ABatchRefusedForAWhileIsWrittenWhenTheDatabaseAcceptsIt) {
  const std::string path = FreshDatabasePath("refused_at_first");
  DecisionLogWriterOptions options;
  options.retry_delay = absl::Milliseconds(1);
  DecisionLogWriter writer(std::make_unique<RefusingAtFirst>(path, 3), FixedClock(), options);
  for (int i = 0; i < 10; ++i)
    EXPECT_TRUE(writer.OnDecision(MakeRequest(i), Allowed(), absl::ZeroDuration()).ok());
  writer.Flush();
  EXPECT_EQ(writer.counters().written, 10u);
  EXPECT_EQ(writer.counters().failed, 0u);
  EXPECT_EQ(AllRows(path).size(), 10u);
}

TEST(DecisionLogWriterTest, RowsTheDatabaseRefusesAreCountedFailed) {
  DecisionLogWriterOptions options;
  options.retry_delay = absl::Milliseconds(1);
  DecisionLogWriter writer(std::make_unique<DecisionLog>("/nonexistent-dir/verdict.db"),
                           FixedClock(), options);
  for (int i = 0; i < 10; ++i)
    EXPECT_TRUE(writer.OnDecision(MakeRequest(i), Allowed(), absl::ZeroDuration()).ok());
  writer.Flush();
  EXPECT_EQ(writer.counters().failed, 10u);
  EXPECT_EQ(writer.counters().written, 0u);
}

}  // namespace
}  // namespace verdict
