// verdict policy test's runner: the demo policy's own tests pass; a case whose expectation is
// wrong fails with the decision's trace; a malformed tests file is refused naming the file and
// the line; a YAML policy decides as its JSON twin; the call's time and IP reach the engine.
#include "cli/policy_tests.h"

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/verdictd_process.h"

namespace verdict {
namespace cli {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
  std::ofstream(path) << text;
  return path;
}

// A policy of one agent that may read docs:* from 9 to 17 (UTC) and from 10.0.0.0/8 only.
constexpr char kOfficeHoursPolicy[] = R"(version: 1
name: office
agents:
  - id: agt_clerk
    owner: ops
    name: clerk
permissions:
  - id: perm_office_read
    agent_id: agt_clerk
    resource: "docs:*"
    actions: [read]
    constraints:
      time_window: {start: "09:00", end: "17:00"}
      ip_allowlist: [10.0.0.0/8]
)";

TEST(PolicyTestsTest, TheDemoPolicysOwnTestsPass) {
  absl::StatusOr<PolicyContents> policy = LoadPolicyForTest(RunfilePath("deploy/demo-policy.json"));
  ASSERT_TRUE(policy.ok()) << policy.status();
  absl::StatusOr<std::vector<PolicyTestCase>> cases =
      ReadPolicyTests(RunfilePath("deploy/demo-policy.tests.yaml"));
  ASSERT_TRUE(cases.ok()) << cases.status();
  ASSERT_GE(cases->size(), 8u);
  absl::StatusOr<std::vector<PolicyTestResult>> results = RunPolicyTests(*policy, *cases);
  ASSERT_TRUE(results.ok()) << results.status();
  for (size_t i = 0; i < results->size(); ++i) {
    EXPECT_TRUE((*results)[i].passed)
        << (*cases)[i].name << ": " << ::testing::PrintToString((*results)[i].problems);
  }
}

TEST(PolicyTestsTest, ACaseWhoseExpectationIsWrongFailsWithTheTrace) {
  absl::StatusOr<PolicyContents> policy = LoadPolicyForTest(RunfilePath("deploy/demo-policy.json"));
  ASSERT_TRUE(policy.ok()) << policy.status();
  absl::StatusOr<std::vector<PolicyTestCase>> cases = ParsePolicyTests(R"(tests:
  - name: secrets are readable (they are not)
    agent: agt_demo_reader
    action: read
    resource: docs:secret:1
    expect: {verdict: allow, matched_permission: perm_demo_docs_read}
  - name: the assistant writes through the delegation (it cannot)
    agent: agt_demo_assistant
    action: read
    resource: docs:public:1
    expect: {verdict: deny, via_delegation: dlg_demo_reader_to_assistant}
)",
                                                                       "wrong.yaml");
  ASSERT_TRUE(cases.ok()) << cases.status();
  EXPECT_EQ((*cases)[1].line, 7);
  absl::StatusOr<std::vector<PolicyTestResult>> results = RunPolicyTests(*policy, *cases);
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 2u);
  const PolicyTestResult& secret = (*results)[0];
  EXPECT_FALSE(secret.passed);
  EXPECT_THAT(secret.problems,
              testing::ElementsAre("expected ALLOW, got DENY DENIED_BY_POLICY",
                                   "expected the grant perm_demo_docs_read to decide, got "
                                   "perm_demo_secret_deny"));
  ASSERT_FALSE(secret.simulation.trace().stages().empty());  // the trace, to print
  EXPECT_EQ(secret.simulation.trace().stages(0).name(), "subject");
  const PolicyTestResult& lent = (*results)[1];
  EXPECT_FALSE(lent.passed);  // the verdict is right; the delegation did not decide
  EXPECT_THAT(lent.problems, testing::ElementsAre("expected a decision through delegation "
                                                  "dlg_demo_reader_to_assistant"));
}

TEST(PolicyTestsTest, TheCallsTimeAndAddressReachTheEngine) {
  absl::StatusOr<PolicyContents> policy =
      LoadPolicyForTest(WriteFile("office.yaml", kOfficeHoursPolicy));
  ASSERT_TRUE(policy.ok()) << policy.status();
  absl::StatusOr<std::vector<PolicyTestCase>> cases = ParsePolicyTests(R"(tests:
  - {name: in hours, agent: agt_clerk, action: read, resource: "docs:1",
     context: {time: "2030-01-07T10:00:00Z", client_ip: 10.1.2.3},
     expect: {verdict: allow, matched_permission: perm_office_read}}
  - {name: at night, agent: agt_clerk, action: read, resource: "docs:1",
     context: {time: "2030-01-07T22:00:00Z", client_ip: 10.1.2.3},
     expect: {verdict: deny, reason: outside_time_window}}
  - {name: from outside, agent: agt_clerk, action: read, resource: "docs:1",
     context: {time: "2030-01-07T10:00:00Z", client_ip: 192.0.2.1},
     expect: {verdict: deny, reason: ip_not_allowed}}
)",
                                                                       "office-tests.yaml");
  ASSERT_TRUE(cases.ok()) << cases.status();
  absl::StatusOr<std::vector<PolicyTestResult>> results = RunPolicyTests(*policy, *cases);
  ASSERT_TRUE(results.ok()) << results.status();
  for (size_t i = 0; i < results->size(); ++i) {
    EXPECT_TRUE((*results)[i].passed)
        << (*cases)[i].name << ": " << ::testing::PrintToString((*results)[i].problems);
  }
}

TEST(PolicyTestsTest, AMalformedTestsFileIsRefusedNamingTheFileAndLine) {
  const std::vector<std::pair<std::string, std::string>> malformed = {
      {"tests:\n  - name: a\n    agent: agt_x\n    action: read\n    resource: r\n"
       "    expect: {verdict: allow}\n    colour: red\n",
       "bad.yaml:7: tests[0]: unknown key \"colour\""},
      {"tests:\n  - name: a\n    agent: agt_x\n    action: read\n    resource: r\n",
       "bad.yaml:2: tests[0].expect: required"},
      {"tests:\n  - name: a\n    agent: agt_x\n    action: read\n    resource: r\n"
       "    expect:\n      verdict: maybe\n",
       "bad.yaml:7: tests[0].expect.verdict: allow, deny or needs_approval"},
      {"tests:\n  - name: a\n    agent: agt_x\n    token: vdt_y\n    action: read\n",
       "bad.yaml:2: tests[0]: give exactly one of agent and token"},
      {"tests:\n  - name: a\n    agent: agt_x\n    action: read\n    resource: r\n"
       "    context: {time: tomorrow}\n    expect: {verdict: allow}\n",
       "bad.yaml:6: tests[0].context.time: an RFC 3339 time"},
      {"tests: [\n  {name: a,\n", "bad.yaml:3: "},  // yaml-cpp's own syntax error
      {"cases: []\n", "bad.yaml:1: the file: unknown key \"cases\""},
      {"{\"tests\": [{\"name\": \"json\", \"agent\": \"agt_x\", \"action\": \"read\",\n"
       " \"resource\": \"r\", \"expect\": {\"verdict\": \"allow\", \"reason\": \"nope\"}}]}\n",
       "bad.yaml:2: tests[0].expect.reason: no reason code is named \"nope\""},
  };
  for (const auto& [text, message] : malformed) {
    absl::StatusOr<std::vector<PolicyTestCase>> cases = ParsePolicyTests(text, "bad.yaml");
    ASSERT_FALSE(cases.ok()) << text;
    EXPECT_EQ(cases.status().code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_THAT(std::string(cases.status().message()), StartsWith(message)) << text;
  }
}

// A tests file is read by the reader of policy files (app/document_file.h): an anchor, which
// could repeat a case without end, is refused there by the same words, naming file and line.
TEST(PolicyTestsTest, ATestsFileRefusesYamlAnchorsAndAliasesAsAPolicyFileDoes) {
  constexpr char kAnchored[] = R"(tests:
  - name: first
    agent: agt_x
    action: read
    resource: r
    expect: &allowed {verdict: allow}
  - name: second
    agent: agt_x
    action: read
    resource: r
    expect: *allowed
)";
  absl::StatusOr<std::vector<PolicyTestCase>> cases = ParsePolicyTests(kAnchored, "anchors.yaml");
  ASSERT_FALSE(cases.ok());
  EXPECT_EQ(cases.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(cases.status().message(),
            "anchors.yaml:6: YAML anchors are not accepted in a tests file");
  absl::StatusOr<PolicyContents> policy =
      LoadPolicyForTest(WriteFile("anchors-policy.yaml", "version: 1\nname: &n a\n"));
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.status().message(),
            absl::StrCat(std::getenv("TEST_TMPDIR"),
                         "/anchors-policy.yaml:2: YAML anchors are not accepted in a policy file"));

  // So are duplicate keys, explicit tags and a second document, which a YAML library's own
  // loader would take silently (the last key, the tagged value, the first document).
  for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
           {"tests: []\ntests: []\n", "t.yaml:2: key \"tests\" appears twice"},
           {"tests: !!seq []\n", "t.yaml:1: YAML tags are not accepted"},
           {"tests: []\n---\ntests: []\n", "t.yaml: a tests file holds one document"},
       }) {
    cases = ParsePolicyTests(text, "t.yaml");
    ASSERT_FALSE(cases.ok()) << text;
    EXPECT_THAT(std::string(cases.status().message()), StartsWith(message)) << text;
  }
}

TEST(PolicyTestsTest, ATestsFileIsBoundedInSizeAndCases) {
  std::string many = "tests:\n";
  for (size_t i = 0; i <= kMaxPolicyTestCases; ++i) {
    absl::StrAppend(&many, "  - {agent: agt_x, action: a, resource: r, expect: {verdict: deny}}\n");
  }
  absl::StatusOr<std::vector<PolicyTestCase>> too_many = ParsePolicyTests(many, "many.yaml");
  ASSERT_FALSE(too_many.ok());
  EXPECT_THAT(std::string(too_many.status().message()),
              HasSubstr("1001 cases, more than the 1000"));
  absl::StatusOr<std::vector<PolicyTestCase>> too_big =
      ReadPolicyTests(WriteFile("big.yaml", std::string(kMaxPolicyTestFileBytes + 1, '#')));
  ASSERT_FALSE(too_big.ok());
  EXPECT_THAT(std::string(too_big.status().message()), HasSubstr("bytes such a file may have"));
}

TEST(PolicyTestsTest, APolicyThatDoesNotLoadOrImportIsRefused) {
  absl::StatusOr<PolicyContents> unknown_key =
      LoadPolicyForTest(WriteFile("typo.yaml", "version: 1\nagentz: []\n"));
  ASSERT_FALSE(unknown_key.ok());
  EXPECT_THAT(std::string(unknown_key.status().message()), HasSubstr("typo.yaml:"));
  EXPECT_THAT(std::string(unknown_key.status().message()), HasSubstr("agentz"));
  EXPECT_FALSE(LoadPolicyForTest(WriteFile("broken.yaml", "version: [1\n")).ok());
  // Aliases that would repeat a value 10^10 times are refused, not expanded (a policy file takes
  // no anchors or aliases at all).
  std::string laughs = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (char level = 'b'; level <= 'j'; ++level) {
    const char below = static_cast<char>(level - 1);
    absl::StrAppend(
        &laughs, std::string(1, level), ": &", std::string(1, level), " [",
        absl::StrJoin(std::vector<std::string>(10, absl::StrCat("*", std::string(1, below))), ", "),
        "]\n");
  }
  absl::StatusOr<PolicyContents> laughed = LoadPolicyForTest(WriteFile("laughs.yaml", laughs));
  ASSERT_FALSE(laughed.ok());
  EXPECT_THAT(std::string(laughed.status().message()), HasSubstr("anchors are not accepted"));
  EXPECT_FALSE(LoadPolicyForTest(WriteFile("missing-dir/none.json", "")).ok());
}

}  // namespace
}  // namespace cli
}  // namespace verdict
