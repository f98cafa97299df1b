// Write contention (issue 5.1): N processes open one brand-new database file at the same instant
// and write to it at once, every kind of write verdict makes: agents, grants, revocations,
// rate-counter spends (through the Authorizer) and decision-log batches. Every write must
// commit, none may surface "database is locked" to its caller, the schema must be migrated
// exactly once, and the final row counts must be exactly what the writers committed.
//
// N is 4 (CI); the stress target sets VERDICT_CONTENTION_WRITERS=12 and
// VERDICT_CONTENTION_AGENTS (agents each writer creates) to 40.
#include <SQLiteCpp/Database.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "decision/authorizer.h"
#include "gtest/gtest.h"
#include "store/decision_log.h"
#include "store/decision_log_row.h"
#include "store/migrations.h"
#include "store/sqlite_store.h"
#include "tests/verdictd_process.h"

namespace verdict {
namespace {

constexpr int kDefaultWriters = 4;
constexpr int kDefaultAgentsPerWriter = 8;
constexpr int kGrantsPerAgent = 3;  // one of them rate-limited, one revoked again
constexpr int kAuthorizationsPerAgent = 5;
constexpr int kLogRowsPerAgent = 4;
constexpr char kRateLimited[] =
    R"({"rate_limit": {"max_calls": 1000000, "window_seconds": 86400}})";

int EnvOr(const char* name, int fallback) {
  int number = fallback;
  const char* value = std::getenv(name);
  if (value != nullptr && !absl::SimpleAtoi(value, &number)) number = fallback;
  return number;
}

const int kWriters = EnvOr("VERDICT_CONTENTION_WRITERS", kDefaultWriters);
const int kAgentsPerWriter = EnvOr("VERDICT_CONTENTION_AGENTS", kDefaultAgentsPerWriter);

// What one writer process did, as it reports it to the test.
struct WriterReport {
  int attempted = 0;
  int committed = 0;
  std::vector<std::string> errors;

  void Count(const absl::Status& status, absl::string_view what) {
    ++attempted;
    if (status.ok()) {
      ++committed;
    } else if (errors.size() < 10) {
      errors.push_back(absl::StrCat(what, ": ", status.ToString()));
    }
  }
};

std::string AgentId(int writer, int agent) { return absl::StrCat("agt_w", writer, "_", agent); }

// Everything one writer process writes; never stops at an error, so the report counts them all.
WriterReport Write(const std::string& path, int writer) {
  WriterReport report;
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(path);
  report.Count(store.status(), "open");
  if (!store.ok()) return report;
  Authorizer authorizer(**store, [] { return absl::Now(); });
  DecisionLog log(path);
  for (int a = 0; a < kAgentsPerWriter; ++a) {
    const std::string agent_id = AgentId(writer, a);
    report.Count((*store)
                     ->admin()
                     .CreateAgent({.owner = "contention", .name = "w", .id = agent_id})
                     .status(),
                 "create agent");
    std::vector<std::string> permission_ids;
    for (int g = 0; g < kGrantsPerAgent; ++g) {
      NewPermission grant{.agent_id = agent_id,
                          .resource = absl::StrCat("res", g, ":*"),
                          .actions = {"use"},
                          .constraints_json = g == 0 ? kRateLimited : ""};
      absl::StatusOr<Permission> granted = (*store)->admin().GrantPermission(grant);
      report.Count(granted.status(), "grant");
      if (granted.ok()) permission_ids.push_back(granted->id);
    }
    for (int call = 0; call < kAuthorizationsPerAgent; ++call) {
      Request request;
      request.subject.agent_id = agent_id;
      request.action = "use";
      request.resource = absl::StrCat("res0:", call);
      absl::StatusOr<Decision> decision = authorizer.Authorize(request);
      absl::Status spent = decision.status();
      if (decision.ok() && decision->verdict != Verdict::kAllow) {
        spent = absl::InternalError(absl::StrCat("not allowed: ", decision->message));
      }
      report.Count(spent, "rate-limited authorize");
    }
    if (permission_ids.size() == kGrantsPerAgent) {
      report.Count((*store)->admin().RevokePermission(permission_ids.back()), "revoke permission");
    }
    std::vector<DecisionLogRow> rows(kLogRowsPerAgent);
    for (int r = 0; r < kLogRowsPerAgent; ++r) {
      rows[r].decided_at_us = absl::ToUnixMicros(absl::Now());
      rows[r].agent_id = agent_id;
      rows[r].action = "use";
      rows[r].resource = absl::StrCat("res1:", r);
      rows[r].verdict = "ALLOW";
      rows[r].reason = "ALLOWED";
    }
    report.Count(log.Append(rows), "decision log batch");
    if (a % 2 == 0) {
      report.Count((*store)->admin().SetAgentStatus(agent_id, AgentStatus::kRevoked).status(),
                   "revoke agent");
    }
  }
  return report;
}

void SaveReport(const WriterReport& report, const std::string& file) {
  std::ofstream out(file);
  out << report.attempted << " " << report.committed << "\n";
  for (const std::string& error : report.errors) out << error << "\n";
}

WriterReport LoadReport(const std::string& file) {
  WriterReport report;
  std::ifstream in(file);
  in >> report.attempted >> report.committed;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) report.errors.push_back(line);
  return report;
}

int64_t Count(SQLite::Database& db, const std::string& sql) {
  return db.execAndGet(sql).getInt64();
}

TEST(WriteContentionTest, ProcessesWritingToANewFileAtOnceCommitEveryWrite) {
  const int writers = kWriters;
  const std::string directory = TestDirectory("contention");
  const std::string path = directory + "/verdict.db";
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());

  // Every child blocks reading the pipe; closing its write end releases them all at once, onto
  // a file none of them has created yet.
  int start[2];
  ASSERT_EQ(pipe(start), 0);
  std::vector<pid_t> children;
  for (int writer = 0; writer < writers; ++writer) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(start[1]);
      char byte;
      (void)!read(start[0], &byte, 1);
      SaveReport(Write(path, writer), absl::StrCat(directory, "/writer-", writer));
      _exit(0);
    }
    children.push_back(pid);
  }
  close(start[0]);
  const absl::Time started = absl::Now();
  close(start[1]);
  for (pid_t child : children) {
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer " << child;
  }
  const absl::Duration elapsed = absl::Now() - started;

  int attempted = 0;
  int committed = 0;
  for (int writer = 0; writer < writers; ++writer) {
    const WriterReport report = LoadReport(absl::StrCat(directory, "/writer-", writer));
    attempted += report.attempted;
    committed += report.committed;
    for (const std::string& error : report.errors)
      ADD_FAILURE() << "writer " << writer << ": " << error;
  }
  // Per agent: created, granted, rate spends, a permission revoked, a log batch; every other
  // agent revoked.
  const int writes_per_writer =
      1 + kAgentsPerWriter * (1 + kGrantsPerAgent + kAuthorizationsPerAgent + 1 + 1) +
      (kAgentsPerWriter + 1) / 2;
  EXPECT_EQ(attempted, writers * writes_per_writer);
  EXPECT_EQ(committed, attempted);
  std::printf("write contention: %d processes, %d of %d writes committed in %s\n", writers,
              committed, attempted, absl::FormatDuration(elapsed).c_str());

  SQLite::Database db(path, SQLite::OPEN_READONLY);
  EXPECT_EQ(db.execAndGet("PRAGMA user_version").getInt(), LatestSchemaVersion());
  EXPECT_EQ(Count(db, "SELECT count(*) FROM sqlite_master WHERE name = 'agents'"), 1);
  const int64_t agents = int64_t{writers} * kAgentsPerWriter;
  EXPECT_EQ(Count(db, "SELECT count(*) FROM agents"), agents);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM agents WHERE status = 'revoked'"),
            int64_t{writers} * ((kAgentsPerWriter + 1) / 2));
  EXPECT_EQ(Count(db, "SELECT count(*) FROM permissions"), agents * (kGrantsPerAgent - 1));
  // A revoked agent's counts go with its revocation (issue 16); every other agent's are all here.
  const int64_t revoked = int64_t{writers} * ((kAgentsPerWriter + 1) / 2);
  EXPECT_EQ(Count(db, "SELECT coalesce(sum(count), 0) FROM rate_counters"),
            (agents - revoked) * kAuthorizationsPerAgent);
  EXPECT_EQ(Count(db,
                  "SELECT count(*) FROM rate_counters r JOIN agents a ON a.id = r.agent_id"
                  " WHERE a.status = 'revoked'"),
            0);
  EXPECT_EQ(Count(db, "SELECT count(*) FROM decision_log"), agents * kLogRowsPerAgent);

  // Appenders in several processes still form one hash chain.
  absl::StatusOr<ChainVerification> chain = DecisionLog(path).VerifyChain();
  ASSERT_TRUE(chain.ok()) << chain.status();
  EXPECT_TRUE(chain->intact) << chain->problem << " at seq " << chain->first_bad_seq;
  EXPECT_EQ(chain->rows_checked, agents * kLogRowsPerAgent);
}

}  // namespace
}  // namespace verdict
