// A decision without a trace reads only the permissions that may match its resource
// (PolicyView::PermissionsThatMayMatch: SQLite's filtered decoding, and for an agent of many
// permissions the connection's index, store/wide_permissions.h); a decision with a trace reads
// them all. Both must decide alike: a permission left out by the filter that could have decided,
// a deny above all, would change the answer.
//
// Checked over a seeded random corpus of policies written straight into SQLite, as another
// process could write them, so the patterns include those the admin plane refuses today (empty
// segments, trailing separators, '*' inside a segment, other cases, escapes), and over
// resources and actions chosen to sit on every edge of those patterns. Each request is decided
// twice in one read snapshot, without and with a trace.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "decision/engine.h"
#include "gtest/gtest.h"
#include "store/test_support.h"
#include "store/wide_permissions.h"
#include "testing/random_corpus.h"

namespace verdict {
namespace {

constexpr int kUniverses = 150;
constexpr int kRequestsPerUniverse = 8;
constexpr int kAgents = 4;
// Enough filler permissions to take an agent's record past WidePermissions::kMinBytes.
constexpr int kFillers = 260;

// Patterns as stored, the admin plane's rules notwithstanding; broad ones come up more often.
const std::vector<std::string> kPatterns = {
    "*",        "*",        "docs:*",    "docs:*",        "docs:1",
    "docs:1:*", "docs:*:x", "DOCS:1",    "docs:1:",       ":docs",
    "docs::1",  "docs::*",  "doc*",      "docs*:1",       "*:1",
    "*:*",      ":*",       "**",        "docs:\xc3\xa9", "docs:1 ",
    "/api/**",  "/api/**",  "/api/v1/*", "/api/*/x",      "/**",
    "/",        "/api/",    "/api//v1",  "/API/v1/**",    "/api/v1/a*",
    "/a**b",    "/api/%41", "/api/v1",   "//**",          "/api/v1/**/x"};
// What most requests name, so that most policies have something to say about them.
const std::vector<std::string> kCommonResources = {"docs:1", "docs:2", "docs:1:x", "/api/v1/a",
                                                   "/api/v1"};
// What a delegation lends more often than not, so that chains form.
const std::vector<std::string> kBroadPatterns = {"*", "docs:*", "/api/**"};
const std::vector<std::string> kResources = {
    "docs:1",  "docs:1",      "docs:2",   "docs:1:x",  "docs:2:x",  "docs",          "DOCS:1",
    "docs:1:", "docs::1",     "doc*",     "docs*:1",   ":docs",     "docs:\xc3\xa9", "docs:1 ",
    "",        "*",           ":",        "/api/v1/a", "/api/v1/a", "/api/v1",       "/api",
    "/",       "/api/",       "/api//v1", "/API/v1/a", "/api/%41",  "/api/v2/x",     "/a**b",
    "//x",     "/api/v1/b/x", "fill:7:x"};
const std::vector<std::string> kRequestActions = {"read", "read", "write", "READ", "delete"};
const std::vector<std::string> kGrantedActions = {"read", "write", "delete", "READ"};
const std::vector<std::string> kConstraints = {
    "{}",
    "{}",
    "",
    R"({"ip_allowlist":["10.0.0.0/8"]})",
    R"({"time_window":{"start":"08:00","end":"18:00"}})",
    R"({"time_window":{"start":"22:00","end":"06:00"}})",
    R"({"approval":{"quorum":1}})",
    R"({"rate_limit":{"max_calls":1,"window_seconds":60}})",
};

std::string AgentId(int i) { return absl::StrCat("agt_", i); }

// A permission row as another writer would insert it.
struct Row {
  std::string id;
  std::string resource;
  std::string actions;  // comma-joined, as stored
  std::string effect;
  std::string constraints;
};

// What parity compares: the status, and for a decision its verdict, reason, message, matched
// grant and delegation path.
std::string Outcome(const absl::StatusOr<Decision>& decision) {
  if (!decision.ok()) {
    return absl::StrCat("status ", absl::StatusCodeToString(decision.status().code()));
  }
  std::string path;
  for (const DelegationHop& hop : decision->delegation_path) {
    absl::StrAppend(&path, hop.delegation_id, "(", hop.from_agent_id, "->", hop.to_agent_id, ")");
  }
  return absl::StrCat(VerdictName(decision->verdict), " ", ReasonCodeName(decision->reason), " ",
                      decision->matched_grant ? decision->matched_grant->permission_id : "-", " ",
                      path, " [", decision->message, "]");
}

class MayMatchParityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string path = FreshDatabasePath();
    store_ = OpenTestStore(path, clock_, /*connections=*/1);
    ASSERT_NE(store_, nullptr);
    writer_ = std::make_unique<SQLite::Database>(path, SQLite::OPEN_READWRITE);
    writer_->setBusyTimeout(5000);
  }

  // Replaces every agent, permission and delegation with a new random policy. With `wide`, one
  // agent's permissions are mixed among enough fillers for its record to be indexed.
  void Populate(RandomCorpus& corpus, int wide) {
    writer_->exec(
        "BEGIN IMMEDIATE; DELETE FROM delegations; DELETE FROM permissions;"
        " DELETE FROM rate_counters; DELETE FROM approval_requests; DELETE FROM agents");
    SQLite::Statement agent(*writer_,
                            "INSERT INTO agents (id, owner, name, kind, status, expires_at,"
                            " token_hash, token_prefix, created_at, updated_at) VALUES"
                            " (?1, 'o', 'n', 'autonomous', ?2, NULL, ?1, 'vdt_', 1, 1)");
    SQLite::Statement permission(*writer_,
                                 "INSERT INTO permissions (id, agent_id, resource, actions,"
                                 " effect, constraints, created_at) VALUES (?1, ?2, ?3, ?4, ?5,"
                                 " ?6, 1)");
    for (int i = 0; i < kAgents; ++i) {
      agent.bind(1, AgentId(i));
      agent.bind(2, corpus.Chance(8) ? "suspended" : "active");
      agent.exec();
      agent.reset();
      std::vector<Row> rows;
      for (int p = 1 + corpus.Uniform(6); p > 0; --p) {
        rows.push_back({absl::StrCat("p", i, "_", p), corpus.Pick(kPatterns),
                        absl::StrJoin(corpus.Actions(kGrantedActions, /*any_percent=*/25), ","),
                        corpus.Chance(30) ? "deny" : "allow", corpus.Pick(kConstraints)});
      }
      // Now and then a damaged row: a pattern that is empty, which must fail the decisions that
      // read it (INTERNAL), with or without a trace, never be read as matching nothing.
      if (corpus.Chance(2)) rows.push_back({absl::StrCat("p", i, "_empty"), "", "*", "deny", "{}"});
      // Delegators up the chain below hold something broad more often, so chains form.
      if (i > 0 && corpus.Chance(50)) {
        rows.push_back(
            {absl::StrCat("p", i, "_broad"), corpus.Pick(kBroadPatterns), "*", "allow", "{}"});
      }
      if (i == wide) {
        for (int f = 0; f < kFillers; ++f) {
          rows.push_back({absl::StrCat("perm_filler_", i, "_", f), absl::StrCat("fill:", f, ":*"),
                          "read", f % 7 == 0 ? "deny" : "allow", "{}"});
        }
        std::shuffle(rows.begin(), rows.end(), corpus.rng());
      }
      for (const Row& row : rows) {
        permission.bind(1, row.id);
        permission.bind(2, AgentId(i));
        permission.bind(3, row.resource);
        permission.bind(4, row.actions);
        permission.bind(5, row.effect);
        permission.bind(6, row.constraints);
        permission.exec();
        permission.reset();
      }
    }
    SQLite::Statement delegation(*writer_,
                                 "INSERT INTO delegations (id, from_agent_id, to_agent_id,"
                                 " permissions, max_depth, status, expires_at, created_at) VALUES"
                                 " (?1, ?2, ?3, ?4, ?5, ?6, NULL, 1)");
    // A chain agt_3 -> agt_2 -> agt_1 -> agt_0, its links each present more often than not, and
    // links at random.
    for (int d = kAgents - 1 + corpus.Uniform(4); d > 0; --d) {
      std::vector<std::string> lent;
      for (int l = 1 + corpus.Uniform(2); l > 0; --l) {
        const std::vector<std::string> actions =
            corpus.Chance(40) ? std::vector<std::string>{"*"}
                              : corpus.Actions(kGrantedActions, /*any_percent=*/25);
        std::string constraints = corpus.Chance(60) ? "{}" : corpus.Pick(kConstraints);
        if (constraints.empty()) constraints = "{}";
        lent.push_back(absl::StrCat(
            R"({"actions":[")", absl::StrJoin(actions, R"(",")"), R"("],"constraints":)",
            constraints, R"(,"resource":")",
            corpus.Chance(50) ? corpus.Pick(kBroadPatterns) : corpus.Pick(kPatterns), R"("})"));
      }
      delegation.bind(1, absl::StrCat("dlg_", d));
      const bool chained = d < kAgents && corpus.Chance(70);
      const int to = chained ? d - 1 : corpus.Uniform(kAgents);
      delegation.bind(2, AgentId(chained ? d : corpus.Uniform(kAgents)));
      delegation.bind(3, AgentId(to));
      delegation.bind(4, absl::StrCat("[", absl::StrJoin(lent, ","), "]"));
      delegation.bind(5, 1 + corpus.Uniform(3));
      delegation.bind(6, corpus.Chance(10) ? "revoked" : "active");
      delegation.exec();
      delegation.reset();
    }
    writer_->exec("COMMIT");
  }

  int64_t RecordBytes(int agent) {
    SQLite::Statement length(
        *writer_, "SELECT length(permissions) FROM decision_records WHERE agent_id = ?1");
    length.bind(1, AgentId(agent));
    return length.executeStep() ? length.getColumn(0).getInt64() : 0;
  }

  ManualClock clock_{absl::FromUnixSeconds(1'800'000'000) + absl::Hours(2)};  // 10:00 UTC
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<SQLite::Database> writer_;
};

TEST_F(MayMatchParityTest, ADecisionWithoutATraceDecidesAsOneThatReadsEveryPermission) {
  RandomCorpus corpus(20260115);
  std::map<ReasonCode, int> reasons;
  int wide_subject_decisions = 0;
  int wide_subject_denies = 0;
  int delegated_allows = 0;
  int damaged = 0;  // decisions that read a damaged row
  for (int u = 0; u < kUniverses; ++u) {
    const int wide = corpus.Chance(35) ? corpus.Uniform(kAgents) : -1;
    ASSERT_NO_FATAL_FAILURE(Populate(corpus, wide));
    if (wide >= 0) {
      ASSERT_GE(RecordBytes(wide), static_cast<int64_t>(WidePermissions::kMinBytes));
    }
    for (int r = 0; r < kRequestsPerUniverse; ++r) {
      Request request;
      const int subject = wide >= 0 && corpus.Chance(40) ? wide : corpus.Uniform(kAgents);
      request.subject.agent_id = AgentId(subject);
      request.action = corpus.Pick(kRequestActions);
      request.resource =
          corpus.Chance(50) ? corpus.Pick(kCommonResources) : corpus.Pick(kResources);
      request.client_ip = corpus.Chance(50) ? "10.1.2.3" : "192.0.2.1";
      // One snapshot for both, so both read the same rows; a fresh one per request, so the
      // connection's index of a wide agent is built once and then found by its text.
      std::unique_ptr<ReadSnapshot> snapshot = BeginTestRead(*store_);
      ASSERT_NE(snapshot, nullptr);
      const absl::StatusOr<Decision> filtered =
          Decide(request, *snapshot, clock_.Now(), /*trace=*/nullptr);
      Trace trace;
      const absl::StatusOr<Decision> every = Decide(request, *snapshot, clock_.Now(), &trace);
      ASSERT_EQ(Outcome(filtered), Outcome(every))
          << "universe " << u << " request " << r << ": " << request.subject.agent_id << " "
          << request.action << " on \"" << request.resource << "\" from " << request.client_ip
          << (subject == wide ? " (wide subject)" : "");
      if (!filtered.ok()) {
        ASSERT_EQ(filtered.status().code(), absl::StatusCode::kInternal) << filtered.status();
        ++damaged;
        continue;
      }
      ++reasons[filtered->reason];
      if (subject == wide) {
        ++wide_subject_decisions;
        if (filtered->reason == ReasonCode::kDeniedByPolicy) ++wide_subject_denies;
      }
      if (filtered->verdict == Verdict::kAllow && !filtered->delegation_path.empty()) {
        ++delegated_allows;
      }
    }
  }
  // The corpus is only worth something if it reaches every way a permission decides.
  for (ReasonCode reason :
       {ReasonCode::kAllowed, ReasonCode::kDeniedByPolicy, ReasonCode::kNoMatchingPermission,
        ReasonCode::kAgentSuspended, ReasonCode::kIpNotAllowed, ReasonCode::kApprovalRequired,
        ReasonCode::kOutsideTimeWindow}) {
    EXPECT_GT(reasons[reason], 0) << ReasonCodeName(reason);
  }
  EXPECT_GT(damaged, 5);
  EXPECT_GT(wide_subject_decisions, 100);
  EXPECT_GT(wide_subject_denies, 5);
  EXPECT_GT(delegated_allows, 10);
}

}  // namespace
}  // namespace verdict
