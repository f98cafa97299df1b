#include "server/decision_json_log.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/decision_log.h"
#include "store/decision_log_writer.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kToken = "vdt_Secr3tSecr3tSecr3tSecr3tSecr3tSecr3tSecr3tS";
const absl::Time kAt = absl::FromUnixMicros(1764460800123456);  // 2025-11-30T00:00:00.123456Z

Request TokenRequest() {
  Request request;
  request.subject.token = kToken;
  request.action = "read";
  request.resource = "/docs/7";
  request.client_ip = "10.0.0.7";
  request.arguments_json = R"({"page":2,"auth":{"api_token":"s3cr3t-value"}})";
  request.request_id = "req-1";
  return request;
}

Decision AllowDecision() {
  Decision decision;
  decision.verdict = Verdict::kAllow;
  decision.reason = ReasonCode::kAllowed;
  decision.message = "allowed by perm_1";
  decision.agent_id = "agt_reader";
  decision.request_id = "req-1";
  Grant grant;
  grant.permission_id = "perm_1";
  decision.matched_grant = grant;
  decision.delegation_path = {{"dlg_1", "agt_owner", "agt_middle"},
                              {"dlg_2", "agt_middle", "agt_reader"}};
  return decision;
}

JsonValue ParseLine(const std::string& line) {
  absl::StatusOr<JsonValue> json = ParseJson(line);
  EXPECT_TRUE(json.ok()) << json.status() << " in " << line;
  return json.ok() ? *json : JsonValue();
}

std::string StringAt(const JsonValue& json, absl::string_view key) {
  const JsonValue* value = json.Find(key);
  return value != nullptr && value->is_string() ? value->as_string() : "<missing>";
}

TEST(DecisionJsonLineTest, NamesTheCallAndItsOutcome) {
  const std::string line =
      DecisionJsonLine(TokenRequest(), AllowDecision(), absl::Microseconds(212), kAt);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  JsonValue json = ParseLine(line);
  EXPECT_EQ(StringAt(json, "ts"), "2025-11-30T00:00:00.123456Z");
  EXPECT_EQ(StringAt(json, "event"), "decision");
  EXPECT_EQ(StringAt(json, "request_id"), "req-1");
  EXPECT_EQ(StringAt(json, "agent_id"), "agt_reader");
  EXPECT_EQ(StringAt(json, "subject"), "token");
  EXPECT_EQ(StringAt(json, "action"), "read");
  EXPECT_EQ(StringAt(json, "resource"), "/docs/7");
  EXPECT_EQ(StringAt(json, "client_ip"), "10.0.0.7");
  EXPECT_EQ(StringAt(json, "verdict"), "ALLOW");
  EXPECT_EQ(StringAt(json, "reason"), "ALLOWED");
  EXPECT_EQ(StringAt(json, "permission_id"), "perm_1");
  ASSERT_NE(json.Find("delegation_path"), nullptr);
  EXPECT_EQ(CanonicalJson(*json.Find("delegation_path")), R"(["dlg_1","dlg_2"])");
  ASSERT_NE(json.Find("latency_us"), nullptr);
  EXPECT_EQ(json.Find("latency_us")->as_number(), 212);
}

// A call an approved request let through names the principals who approved it, as the decision
// log does; any other names none.
TEST(DecisionJsonLineTest, NamesThePrincipalsWhoApprovedTheCall) {
  Decision approved = AllowDecision();
  approved.approval_request_id = "apr_1";
  approved.approved_by = {"alice", "bob"};
  JsonValue json =
      ParseLine(DecisionJsonLine(TokenRequest(), approved, absl::Microseconds(1), kAt));
  EXPECT_EQ(StringAt(json, "approval_request_id"), "apr_1");
  ASSERT_NE(json.Find("approved_by"), nullptr);
  EXPECT_EQ(CanonicalJson(*json.Find("approved_by")), R"(["alice","bob"])");

  json = ParseLine(DecisionJsonLine(TokenRequest(), AllowDecision(), absl::Microseconds(1), kAt));
  ASSERT_NE(json.Find("approved_by"), nullptr);
  EXPECT_EQ(CanonicalJson(*json.Find("approved_by")), "[]");
}

TEST(DecisionJsonLineTest, SecretsNeverAppear) {
  Decision decision = AllowDecision();
  decision.verdict = Verdict::kDeny;
  decision.reason = ReasonCode::kTokenInvalid;
  decision.message = "token " + kToken + " is not known";
  const std::string line = DecisionJsonLine(TokenRequest(), decision, absl::ZeroDuration(), kAt);
  EXPECT_THAT(line, Not(HasSubstr(kToken)));
  EXPECT_THAT(line, Not(HasSubstr("s3cr3t-value")));
  JsonValue json = ParseLine(line);
  EXPECT_EQ(StringAt(json, "token_prefix"), kToken.substr(0, 12));
  EXPECT_EQ(StringAt(json, "message"), "token [REDACTED] is not known");
  ASSERT_NE(json.Find("arguments"), nullptr);
  EXPECT_EQ(CanonicalJson(*json.Find("arguments")),
            R"({"auth":{"api_token":"[REDACTED]"},"page":2})");
}

// A token is a secret wherever the caller put it: in the resource, the action, the request id,
// an argument's key, and so in a message that quotes the resource (issue 15).
TEST(DecisionJsonLineTest, TokensInOtherFieldsNeverAppear) {
  const std::string jwt = "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhZ3RfYSJ9.c2lnbmF0dXJl";
  Request request;
  request.subject.agent_id = "agt_reader";
  request.action = "read-" + kToken;
  request.resource = "docs:" + kToken + ":1";
  request.request_id = jwt;
  request.arguments_json = R"({")" + kToken + R"(":1,"page":2})";
  Decision decision = AllowDecision();
  decision.verdict = Verdict::kDeny;
  decision.reason = ReasonCode::kDeniedByPolicy;
  decision.request_id = request.request_id;
  decision.message = "perm_2 denies read on " + request.resource;
  const std::string line = DecisionJsonLine(request, decision, absl::ZeroDuration(), kAt);
  EXPECT_THAT(line, Not(HasSubstr(kToken.substr(4))));
  EXPECT_THAT(line, Not(HasSubstr(jwt)));
  JsonValue json = ParseLine(line);
  EXPECT_EQ(StringAt(json, "resource"), "docs:[REDACTED]:1");
  EXPECT_EQ(StringAt(json, "action"), "read-[REDACTED]");
  EXPECT_EQ(StringAt(json, "request_id"), "[REDACTED]");
  EXPECT_EQ(StringAt(json, "message"), "perm_2 denies read on docs:[REDACTED]:1");
  ASSERT_NE(json.Find("arguments"), nullptr);
  EXPECT_EQ(CanonicalJson(*json.Find("arguments")), R"({"[REDACTED]":"[REDACTED]","page":2})");
}

TEST(DecisionJsonLineTest, ArgumentsThatDoNotParseAreRedactedWhole) {
  Request request = TokenRequest();
  request.arguments_json = R"({"password":"hunter2")";
  const std::string line = DecisionJsonLine(request, AllowDecision(), absl::ZeroDuration(), kAt);
  EXPECT_THAT(line, Not(HasSubstr("hunter2")));
  EXPECT_EQ(StringAt(ParseLine(line), "arguments"), "[REDACTED]");
}

TEST(DecisionJsonLineTest, AgentIdSubjectHasNoTokenPrefix) {
  Request request = TokenRequest();
  request.subject = Subject{"agt_reader", ""};
  Decision decision = AllowDecision();
  decision.agent_id = "";
  JsonValue json = ParseLine(DecisionJsonLine(request, decision, absl::ZeroDuration(), kAt));
  EXPECT_EQ(StringAt(json, "subject"), "agent_id");
  EXPECT_EQ(StringAt(json, "agent_id"), "agt_reader");
  EXPECT_EQ(json.Find("token_prefix"), nullptr);
}

TEST(DecisionJsonLineTest, ControlCharactersInRequestFieldsStayInsideTheirString) {
  Request request = TokenRequest();
  request.resource = "/docs/7\n{\"verdict\":\"ALLOW\"}";
  Decision decision = AllowDecision();
  decision.verdict = Verdict::kDeny;
  const std::string line = DecisionJsonLine(request, decision, absl::ZeroDuration(), kAt);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  JsonValue json = ParseLine(line);
  EXPECT_EQ(StringAt(json, "resource"), request.resource);
  EXPECT_EQ(StringAt(json, "verdict"), "DENY");
}

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(DecisionJsonLogTest, ConcurrentDecisionsWriteWholeLines) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/decisions.jsonl");
  absl::StatusOr<std::unique_ptr<DecisionJsonLog>> log =
      DecisionJsonLog::Open(path, [] { return kAt; });
  ASSERT_TRUE(log.ok()) << log.status();
  constexpr int kThreads = 8;
  constexpr int kPerThread = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Request request = TokenRequest();
      request.request_id = absl::StrCat("t", t);
      for (int i = 0; i < kPerThread; ++i) {
        EXPECT_TRUE((*log)->OnDecision(request, AllowDecision(), absl::Microseconds(i)).ok());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ((*log)->lines_failed(), 0u);
  log->reset();

  std::vector<std::string> lines = absl::StrSplit(ReadFile(path), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), static_cast<size_t>(kThreads * kPerThread));
  for (const std::string& line : lines) {
    EXPECT_EQ(StringAt(ParseLine(line), "event"), "decision");
  }
}

TEST(DecisionJsonLogTest, AppendsToAnExistingFile) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/append.jsonl");
  for (int round = 0; round < 2; ++round) {
    absl::StatusOr<std::unique_ptr<DecisionJsonLog>> log =
        DecisionJsonLog::Open(path, [] { return kAt; });
    ASSERT_TRUE(log.ok()) << log.status();
    EXPECT_TRUE((*log)->OnDecision(TokenRequest(), AllowDecision(), absl::ZeroDuration()).ok());
  }
  std::vector<std::string> lines = absl::StrSplit(ReadFile(path), '\n', absl::SkipEmpty());
  EXPECT_EQ(lines.size(), 2u);
}

TEST(DecisionJsonLogTest, UnwritablePathIsUnavailable) {
  EXPECT_EQ(
      DecisionJsonLog::Open("/nonexistent-dir/decisions.jsonl", [] { return kAt; }).status().code(),
      absl::StatusCode::kUnavailable);
}

TEST(DecisionJsonLineTest, ALineWithoutADecisionLogPositionHasNoRunFields) {
  const JsonValue line =
      ParseLine(DecisionJsonLine(TokenRequest(), AllowDecision(), absl::ZeroDuration(), kAt));
  EXPECT_EQ(line.Find("run_id"), nullptr);
  EXPECT_EQ(line.Find("run_seq"), nullptr);
}

TEST(NumberedDecisionLogsTest, EachJsonLineCarriesItsDecisionLogRowsNumber) {
  const std::string directory = std::getenv("TEST_TMPDIR");
  const std::string json_path = absl::StrCat(directory, "/numbered.jsonl");
  const std::string db_path = absl::StrCat(directory, "/numbered.db");
  DecisionLogWriter writer(std::make_unique<DecisionLog>(db_path), [] { return kAt; });
  absl::StatusOr<std::unique_ptr<DecisionJsonLog>> json_log =
      DecisionJsonLog::Open(json_path, [] { return kAt; });
  ASSERT_TRUE(json_log.ok()) << json_log.status();
  NumberedDecisionLogs logs(writer, **json_log);
  for (int i = 0; i < 3; ++i) {
    Request request = TokenRequest();
    request.request_id = absl::StrCat("req-", i);
    Decision decision = AllowDecision();
    decision.request_id = request.request_id;
    EXPECT_TRUE(logs.OnDecision(request, decision, absl::ZeroDuration()).ok());
  }
  writer.Shutdown();
  json_log->reset();

  std::vector<std::string> lines = absl::StrSplit(ReadFile(json_path), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 3u);
  absl::StatusOr<DecisionLogPage> rows = DecisionLog(db_path).Query({}, 0, "");
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->rows.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const JsonValue line = ParseLine(lines[i]);
    EXPECT_EQ(StringAt(line, "request_id"), rows->rows[i].request_id);
    EXPECT_EQ(StringAt(line, "run_id"), writer.run_id());
    ASSERT_NE(line.Find("run_seq"), nullptr);
    EXPECT_EQ(line.Find("run_seq")->as_number(), rows->rows[i].run_seq);
    EXPECT_EQ(rows->rows[i].run_seq, i + 1);
  }
}

// With --decision_log_durability=sync a decision whose row the decision log did not keep is not
// answered: it is refused, and the JSON log, a record of answers, gets no line for it.
TEST(NumberedDecisionLogsTest, ADecisionASyncLogDidNotKeepIsRefusedWithoutAJsonLine) {
  const std::string directory = std::getenv("TEST_TMPDIR");
  const std::string json_path = absl::StrCat(directory, "/numbered_refused.jsonl");
  DecisionLogWriterOptions options;
  options.durability = DecisionLogDurability::kSync;
  options.max_batch_attempts = 1;
  DecisionLogWriter writer(
      std::make_unique<DecisionLog>("/nonexistent-dir/verdict.db"), [] { return kAt; }, options);
  absl::StatusOr<std::unique_ptr<DecisionJsonLog>> json_log =
      DecisionJsonLog::Open(json_path, [] { return kAt; });
  ASSERT_TRUE(json_log.ok()) << json_log.status();
  NumberedDecisionLogs logs(writer, **json_log);
  absl::Status recorded = logs.OnDecision(TokenRequest(), AllowDecision(), absl::ZeroDuration());
  EXPECT_EQ(recorded.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(recorded.message()), HasSubstr("not answered"));
  json_log->reset();
  EXPECT_EQ(ReadFile(json_path), "");
}

TEST(DecisionJsonLogTest, FailedWritesAreCounted) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  close(fds[0]);  // nobody reads: every write fails with EPIPE
  signal(SIGPIPE, SIG_IGN);
  DecisionJsonLog log(fds[1], /*owns_fd=*/true, [] { return kAt; });
  EXPECT_TRUE(log.OnDecision(TokenRequest(), AllowDecision(), absl::ZeroDuration()).ok());
  EXPECT_TRUE(log.OnDecision(TokenRequest(), AllowDecision(), absl::ZeroDuration()).ok());
  EXPECT_EQ(log.lines_failed(), 2u);
}

// A full disk cuts a line short; the next line must start on a line of its own, or it would be
// glued to the fragment and lost to every reader (review h41). A file size limit makes the cut.
TEST(DecisionJsonLogTest, ALineCutShortIsEndedBeforeTheNext) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/cut.jsonl");
  std::remove(path.c_str());
  absl::StatusOr<std::unique_ptr<DecisionJsonLog>> log =
      DecisionJsonLog::Open(path, [] { return kAt; });
  ASSERT_TRUE(log.ok()) << log.status();
  signal(SIGXFSZ, SIG_IGN);  // a write past the limit then fails with EFBIG
  struct rlimit before;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &before), 0);
  struct rlimit small = before;
  small.rlim_cur = 40;  // shorter than a line
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  EXPECT_TRUE((*log)->OnDecision(TokenRequest(), AllowDecision(), absl::ZeroDuration()).ok());
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &before), 0);
  EXPECT_EQ((*log)->lines_failed(), 1u);
  EXPECT_TRUE((*log)->OnDecision(TokenRequest(), AllowDecision(), absl::ZeroDuration()).ok());

  std::ifstream file(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(file, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].size(), 40u);  // the fragment, on a line of its own
  EXPECT_TRUE(ParseJson(lines[1]).ok()) << lines[1];
}

// The same when the fragment was left by an earlier run: a restart after the disk filled (h42).
TEST(DecisionJsonLogTest, AFragmentLeftByAnEarlierRunIsEndedToo) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/restarted.jsonl");
  std::ofstream(path, std::ios::trunc) << R"({"ts":"2026-11-30T00:00:00Z","subj)";
  absl::StatusOr<std::unique_ptr<DecisionJsonLog>> log =
      DecisionJsonLog::Open(path, [] { return kAt; });
  ASSERT_TRUE(log.ok()) << log.status();
  EXPECT_TRUE((*log)->OnDecision(TokenRequest(), AllowDecision(), absl::ZeroDuration()).ok());
  std::ifstream file(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(file, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(ParseJson(lines[1]).ok()) << lines[1];
}

}  // namespace
}  // namespace verdict
