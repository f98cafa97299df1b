// `verdict policy test`: expected decisions, run against a policy file with no server. The
// policy is imported into a SQLite store of the run's own (a temporary file, removed after) by
// the same import as `verdict policy import`, and each case is decided by the Authorizer's
// Simulate, the code verdictd runs (without what-if inputs, Simulate decides as Authorize does;
// it spends no rate slot and opens no approval, so each case is decided as if it came first).
//
// A tests file, YAML or JSON, is read as a policy file is (app/document_file.h: the format by
// its name, no YAML anchors or aliases, errors with the file and line), at most 1 MiB, 32 levels
// of nesting and 1000 cases:
//
//   tests:
//     - name: the reader reads the guide
//       agent: agt_demo_reader           # the subject: `agent` (an id) or `token`
//       action: read
//       resource: docs:guide:1
//       context:                         # optional
//         time: 2030-01-01T10:00:00Z     # when the call is made (default: now)
//         client_ip: 10.0.0.7
//         arguments: {page: 3}           # the call's arguments, a map (or a JSON string)
//       expect:
//         verdict: allow                 # allow, deny or needs_approval (any case)
//         reason: allowed                # optional: the reason code's short name
//         matched_permission: perm_x     # optional: the grant that decided
//         via_delegation: dlg_y          # optional: a link of its delegation path
//
//   absl::StatusOr<PolicyContents> policy = LoadPolicyForTest("deploy/demo-policy.json");
//   absl::StatusOr<std::vector<PolicyTestCase>> cases = ParsePolicyTests(text, "demo.yaml");
//   absl::StatusOr<std::vector<PolicyTestResult>> results = RunPolicyTests(*policy, *cases);
#ifndef VERDICT_CLI_POLICY_TESTS_H_
#define VERDICT_CLI_POLICY_TESTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "store/admin_types.h"
#include "verdict/v1/decision.pb.h"

namespace verdict {
namespace cli {

inline constexpr size_t kMaxPolicyTestFileBytes = 1 << 20;
inline constexpr size_t kMaxPolicyTestCases = 1000;
inline constexpr int kMaxPolicyTestDepth = 32;
inline constexpr int64_t kMaxPolicyTestValues = 1 << 20;

// The policy at `path`: a policy file (YAML or JSON, app/policy_file.h, read as `verdict policy
// apply` reads it), or JSON as `verdict policy export` writes it. INVALID_ARGUMENT naming the
// file (and the line) when it is malformed. The one place `policy test` reads a policy.
absl::StatusOr<PolicyContents> LoadPolicyForTest(const std::string& path);

struct PolicyTestCase {
  std::string name;
  int line = 0;  // where the case starts in its file, from 1
  v1::SimulateRequest request;
  v1::Verdict verdict = v1::VERDICT_UNSPECIFIED;
  std::optional<v1::ReasonCode> reason;
  std::string matched_permission;  // "" when not expected
  std::string via_delegation;      // "" when not expected
};

// The cases of a tests file; INVALID_ARGUMENT "FILE:LINE: problem" for a malformed one.
absl::StatusOr<std::vector<PolicyTestCase>> ParsePolicyTests(absl::string_view text,
                                                             const std::string& file_name);
// The same, read from the file at `path` (refused past kMaxPolicyTestFileBytes unread).
absl::StatusOr<std::vector<PolicyTestCase>> ReadPolicyTests(const std::string& path);

struct PolicyTestResult {
  bool passed = false;
  std::vector<std::string> problems;  // what differed from the expectation
  v1::SimulateResponse simulation;    // the decision and its trace
};

// Decides every case against `policy`, in the cases' order. INVALID_ARGUMENT when the policy
// does not import (it names the field) or a case's request is malformed (it names the case);
// the store's status when it cannot be used.
absl::StatusOr<std::vector<PolicyTestResult>> RunPolicyTests(
    const PolicyContents& policy, const std::vector<PolicyTestCase>& cases);

}  // namespace cli
}  // namespace verdict

#endif  // VERDICT_CLI_POLICY_TESTS_H_
