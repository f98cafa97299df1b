// `verdict policy test`: cli/policy_tests.h runs the cases; this prints what came of them.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "cli/commands.h"
#include "cli/explain.h"
#include "cli/output.h"
#include "cli/policy_tests.h"

namespace verdict {
namespace cli {

namespace {

// Exit codes of `policy test` (its own, as `opa test` and `cerbos compile` have theirs).
constexpr int kAllPassed = 0;
constexpr int kSomeFailed = 1;
constexpr int kUnusableFile = 2;

std::string Indented(const std::string& text) {
  return absl::StrCat(
      "    ", absl::StrReplaceAll(text.substr(0, text.size() - 1), {{"\n", "\n    "}}), "\n");
}

}  // namespace

int TestPolicy(Session& session) {
  const ParsedOptions& o = session.options();
  absl::StatusOr<PolicyContents> policy = LoadPolicyForTest(o.Get("policy"));
  absl::StatusOr<std::vector<PolicyTestCase>> cases =
      policy.ok() ? ReadPolicyTests(o.Get("tests")) : policy.status();
  absl::StatusOr<std::vector<PolicyTestResult>> results =
      cases.ok() ? RunPolicyTests(*policy, *cases) : cases.status();
  if (!results.ok()) {
    session.err() << "verdict policy test: " << results.status().message() << "\n";
    return kUnusableFile;
  }
  int passed = 0;
  int failed = 0;
  OutputValue listed = OutputValue::List();
  for (size_t i = 0; i < results->size(); ++i) {
    const PolicyTestCase& test = (*cases)[i];
    const PolicyTestResult& result = (*results)[i];
    (result.passed ? passed : failed)++;
    if (session.format() == OutputFormat::kTable) {
      if (result.passed) continue;
      session.out() << "FAIL " << test.name << " (" << o.Get("tests") << ":" << test.line << ")\n";
      for (const std::string& problem : result.problems) session.out() << "  " << problem << "\n";
      session.out() << Indented(ExplainDecision(result.simulation));
      continue;
    }
    OutputValue problems = OutputValue::List();
    for (const std::string& problem : result.problems) problems.Add("", OutputValue::Text(problem));
    OutputValue entry = OutputValue::Record();
    entry.Add("name", OutputValue::Text(test.name))
        .Add("line", OutputValue::Number(absl::StrCat(test.line)))
        .Add("passed", OutputValue::Bool(result.passed))
        .Add("problems", std::move(problems))
        .Add("decision", OutputOf(result.simulation.decision()));
    if (!result.passed) entry.Add("trace", OutputOf(result.simulation.trace()));
    listed.Add("", std::move(entry));
  }
  if (session.format() == OutputFormat::kTable) {
    session.out() << passed << " passed, " << failed << " failed\n";
  } else {
    OutputValue summary = OutputValue::Record();
    summary.Add("passed", OutputValue::Number(absl::StrCat(passed)))
        .Add("failed", OutputValue::Number(absl::StrCat(failed)))
        .Add("cases", std::move(listed));
    session.Print(summary);
  }
  return failed == 0 ? kAllPassed : kSomeFailed;
}

}  // namespace cli
}  // namespace verdict
