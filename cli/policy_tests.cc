#include "cli/policy_tests.h"

#include <stdlib.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "app/policy_file.h"
#include "app/policy_json.h"
#include "common/admin_limits.h"
#include "common/json.h"
#include "decision/authorizer.h"
#include "proto/enum_names.h"
#include "server/proto_convert.h"
#include "store/sqlite_store.h"

namespace verdict {
namespace cli {
namespace {

absl::Status Invalid(absl::string_view file, const YAML::Mark& mark, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(file, ":", mark.line + 1, ": ", problem));
}

// The most values one YAML document may make: aliases can repeat a value without end (a
// "billion laughs"), which a size cap on the file does not bound.
constexpr int64_t kMaxYamlValues = 1 << 20;

// A YAML value as JSON: quoted scalars are strings; plain ones are read as JSON would read
// them (true, false, null, numbers), else strings. `budget` counts the values made.
absl::StatusOr<JsonValue> YamlToJson(const YAML::Node& node, absl::string_view file, int depth,
                                     int64_t& budget) {
  if (depth > 32) return Invalid(file, node.Mark(), "nested more than 32 deep");
  if (--budget < 0) {
    return Invalid(file, node.Mark(),
                   absl::StrCat("more than ", kMaxYamlValues, " values (aliases included)"));
  }
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return JsonValue();
    case YAML::NodeType::Scalar: {
      const std::string& text = node.Scalar();
      if (node.Tag() == "!") return JsonValue::String(text);
      if (text == "true" || text == "false") return JsonValue::Bool(text == "true");
      if (text == "null" || text == "~") return JsonValue();
      double number = 0;
      if (!text.empty() &&
          (absl::ascii_isdigit(static_cast<unsigned char>(text[0])) || text[0] == '-') &&
          absl::SimpleAtod(text, &number) && text.find_first_of(":T") == std::string::npos) {
        return JsonValue::Number(number);
      }
      return JsonValue::String(text);
    }
    case YAML::NodeType::Sequence: {
      JsonValue::Array items;
      for (const YAML::Node& item : node) {
        absl::StatusOr<JsonValue> value = YamlToJson(item, file, depth + 1, budget);
        if (!value.ok()) return value.status();
        items.push_back(*std::move(value));
      }
      return JsonValue::MakeArray(std::move(items));
    }
    case YAML::NodeType::Map: {
      JsonValue::Object members;
      for (const auto& member : node) {
        absl::StatusOr<JsonValue> value = YamlToJson(member.second, file, depth + 1, budget);
        if (!value.ok()) return value.status();
        members[member.first.as<std::string>()] = *std::move(value);
      }
      return JsonValue::MakeObject(std::move(members));
    }
  }
  return JsonValue();
}

absl::StatusOr<std::string> ReadFile(const std::string& path, size_t max_bytes) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": is a directory"));
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot be read"));
  std::string text(max_bytes + 1, '\0');
  file.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(file.gcount()));
  if (text.size() > max_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": more than the ", max_bytes, " bytes such a file may have"));
  }
  return text;
}

// The string at `key` of a case, "" when absent; refuses anything but a scalar.
absl::StatusOr<std::string> ScalarAt(const YAML::Node& map, const char* key,
                                     absl::string_view file) {
  const YAML::Node value = map[key];
  if (!value) return std::string();
  if (!value.IsScalar()) return Invalid(file, value.Mark(), absl::StrCat(key, ": must be text"));
  return value.Scalar();
}

absl::Status OnlyKeys(const YAML::Node& map, std::vector<absl::string_view> known,
                      absl::string_view file, absl::string_view what) {
  if (!map.IsMap()) return Invalid(file, map.Mark(), absl::StrCat(what, ": must be a map"));
  for (const auto& member : map) {
    const std::string key = member.first.Scalar();
    bool is_known = false;
    for (absl::string_view k : known) is_known |= key == k;
    if (!is_known) {
      return Invalid(file, member.first.Mark(),
                     absl::StrCat(what, ": unknown key \"", key,
                                  "\" (known: ", absl::StrJoin(known, ", "), ")"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<PolicyTestCase> ParseCase(const YAML::Node& node, absl::string_view file,
                                         size_t index) {
  const std::string what = absl::StrCat("tests[", index, "]");
  if (absl::Status known = OnlyKeys(
          node, {"name", "agent", "token", "action", "resource", "context", "expect"}, file, what);
      !known.ok()) {
    return known;
  }
  PolicyTestCase test;
  test.line = node.Mark().line + 1;
  absl::StatusOr<std::string> name = ScalarAt(node, "name", file);
  if (!name.ok()) return name.status();
  test.name = name->empty() ? what : *name;
  v1::AuthorizeRequest& request = *test.request.mutable_request();
  absl::StatusOr<std::string> agent = ScalarAt(node, "agent", file);
  if (!agent.ok()) return agent.status();
  absl::StatusOr<std::string> token = ScalarAt(node, "token", file);
  if (!token.ok()) return token.status();
  if (agent->empty() == token->empty()) {
    return Invalid(file, node.Mark(), absl::StrCat(what, ": give exactly one of agent and token"));
  }
  if (!agent->empty()) request.mutable_subject()->set_agent_id(*agent);
  if (!token->empty()) request.mutable_subject()->set_token(*token);
  for (const char* key : {"action", "resource"}) {
    absl::StatusOr<std::string> value = ScalarAt(node, key, file);
    if (!value.ok()) return value.status();
    if (value->empty())
      return Invalid(file, node.Mark(), absl::StrCat(what, ".", key, ": required"));
    if (std::string(key) == "action") request.set_action(*value);
    if (std::string(key) == "resource") request.set_resource(*value);
  }
  if (const YAML::Node context = node["context"]) {
    if (absl::Status known =
            OnlyKeys(context, {"time", "client_ip", "arguments"}, file, what + ".context");
        !known.ok()) {
      return known;
    }
    absl::StatusOr<std::string> time = ScalarAt(context, "time", file);
    if (!time.ok()) return time.status();
    if (!time->empty()) {
      absl::Time at;
      std::string error;
      if (!absl::ParseTime(absl::RFC3339_full, *time, &at, &error) ||
          at == absl::InfiniteFuture() || at == absl::InfinitePast()) {
        return Invalid(file, context["time"].Mark(),
                       absl::StrCat(what,
                                    ".context.time: an RFC 3339 time such as "
                                    "2030-01-01T10:00:00Z, not \"",
                                    *time, "\""));
      }
      const int64_t seconds = absl::ToUnixSeconds(at);
      test.request.mutable_what_if()->mutable_at()->set_seconds(seconds);
      test.request.mutable_what_if()->mutable_at()->set_nanos(
          static_cast<int32_t>(absl::ToInt64Nanoseconds(at - absl::FromUnixSeconds(seconds))));
    }
    absl::StatusOr<std::string> ip = ScalarAt(context, "client_ip", file);
    if (!ip.ok()) return ip.status();
    request.mutable_context()->set_client_ip(*ip);
    if (const YAML::Node arguments = context["arguments"]) {
      if (arguments.IsScalar()) {
        request.mutable_context()->set_arguments_json(arguments.Scalar());
      } else {
        int64_t budget = kMaxYamlValues;
        absl::StatusOr<JsonValue> json = YamlToJson(arguments, file, 0, budget);
        if (!json.ok()) return json.status();
        request.mutable_context()->set_arguments_json(CanonicalJson(*json));
      }
    }
  }
  const YAML::Node expect = node["expect"];
  if (!expect) return Invalid(file, node.Mark(), absl::StrCat(what, ".expect: required"));
  if (absl::Status known =
          OnlyKeys(expect, {"verdict", "reason", "matched_permission", "via_delegation"}, file,
                   what + ".expect");
      !known.ok()) {
    return known;
  }
  absl::StatusOr<std::string> verdict = ScalarAt(expect, "verdict", file);
  if (!verdict.ok()) return verdict.status();
  if (!ParseShortEnumName(absl::AsciiStrToUpper(*verdict), &test.verdict) ||
      test.verdict == v1::VERDICT_UNSPECIFIED) {
    return Invalid(file, expect.Mark(),
                   absl::StrCat(what, ".expect.verdict: allow, deny or needs_approval, not \"",
                                *verdict, "\""));
  }
  absl::StatusOr<std::string> reason = ScalarAt(expect, "reason", file);
  if (!reason.ok()) return reason.status();
  if (!reason->empty()) {
    v1::ReasonCode code;
    if (!ParseShortEnumName(absl::AsciiStrToUpper(*reason), &code) ||
        code == v1::REASON_CODE_UNSPECIFIED) {
      return Invalid(
          file, expect["reason"].Mark(),
          absl::StrCat(what, ".expect.reason: no reason code is named \"", *reason, "\""));
    }
    test.reason = code;
  }
  absl::StatusOr<std::string> matched = ScalarAt(expect, "matched_permission", file);
  if (!matched.ok()) return matched.status();
  test.matched_permission = *matched;
  absl::StatusOr<std::string> via = ScalarAt(expect, "via_delegation", file);
  if (!via.ok()) return via.status();
  test.via_delegation = *via;
  return test;
}

// What differs between the expectation and the decision.
std::vector<std::string> Problems(const PolicyTestCase& test, const v1::AuthorizeResponse& got) {
  std::vector<std::string> problems;
  if (got.verdict() != test.verdict || (test.reason && got.reason() != *test.reason)) {
    problems.push_back(
        absl::StrCat("expected ", ShortEnumName(test.verdict),
                     test.reason ? absl::StrCat(" ", ShortEnumName(*test.reason)) : std::string(),
                     ", got ", ShortEnumName(got.verdict()), " ", ShortEnumName(got.reason())));
  }
  if (!test.matched_permission.empty() &&
      got.matched_grant().permission_id() != test.matched_permission) {
    problems.push_back(absl::StrCat(
        "expected the grant ", test.matched_permission, " to decide, got ",
        got.has_matched_grant() ? got.matched_grant().permission_id() : std::string("none")));
  }
  if (!test.via_delegation.empty()) {
    bool through = false;
    for (const v1::DelegationHop& hop : got.delegation_path()) {
      through |= hop.delegation_id() == test.via_delegation;
    }
    if (!through) {
      problems.push_back(
          absl::StrCat("expected a decision through delegation ", test.via_delegation));
    }
  }
  return problems;
}

// A directory of the run's own, removed with everything in it when the run ends.
class ScratchDirectory {
 public:
  static absl::StatusOr<std::unique_ptr<ScratchDirectory>> Make() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/verdict-policy-test.XXXXXX");
    if (mkdtemp(pattern.data()) == nullptr) {
      return absl::UnavailableError(absl::StrCat("cannot make a directory like ", pattern));
    }
    return std::unique_ptr<ScratchDirectory>(new ScratchDirectory(pattern));
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  explicit ScratchDirectory(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace

absl::StatusOr<PolicyContents> LoadPolicyForTest(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path, static_cast<size_t>(kMaxPolicyDocumentBytes));
  if (!text.ok()) return text.status();
  // An export (`verdict policy export`: JSON, agents with their tokens) reads as `policy import`
  // reads it; anything else must be a policy file, read as `policy apply` reads it.
  const size_t first = text->find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (*text)[first] == '{') {
    if (absl::StatusOr<PolicyContents> exported = PolicyFromJson(*text); exported.ok()) {
      return exported;
    }
  }
  absl::StatusOr<PolicyFile> file = ParsePolicyFile(*text, path);
  if (!file.ok()) return file.status();
  return std::move(file->policy);
}

absl::StatusOr<std::vector<PolicyTestCase>> ParsePolicyTests(absl::string_view text,
                                                             const std::string& file_name) {
  if (text.size() > kMaxPolicyTestFileBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        file_name, ": more than the ", kMaxPolicyTestFileBytes, " bytes a tests file may have"));
  }
  try {
    const YAML::Node document = YAML::Load(std::string(text));
    if (absl::Status known = OnlyKeys(document, {"tests"}, file_name, "the file"); !known.ok()) {
      return known;
    }
    const YAML::Node tests = document["tests"];
    if (!tests || !tests.IsSequence()) {
      return Invalid(file_name, document.Mark(), "tests: required, a list of cases");
    }
    if (tests.size() > kMaxPolicyTestCases) {
      return Invalid(file_name, tests.Mark(),
                     absl::StrCat("tests: ", tests.size(), " cases, more than the ",
                                  kMaxPolicyTestCases, " a file may have"));
    }
    std::vector<PolicyTestCase> cases;
    for (size_t i = 0; i < tests.size(); ++i) {
      absl::StatusOr<PolicyTestCase> test = ParseCase(tests[i], file_name, i);
      if (!test.ok()) return test.status();
      cases.push_back(*std::move(test));
    }
    return cases;
  } catch (const YAML::Exception& e) {
    return Invalid(file_name, e.mark, e.msg);
  }
}

absl::StatusOr<std::vector<PolicyTestCase>> ReadPolicyTests(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path, kMaxPolicyTestFileBytes);
  if (!text.ok()) return text.status();
  return ParsePolicyTests(*text, path);
}

absl::StatusOr<std::vector<PolicyTestResult>> RunPolicyTests(
    const PolicyContents& policy, const std::vector<PolicyTestCase>& cases) {
  absl::StatusOr<std::unique_ptr<ScratchDirectory>> scratch = ScratchDirectory::Make();
  if (!scratch.ok()) return scratch.status();
  SqliteOptions options;
  options.connections = 1;
  absl::StatusOr<std::unique_ptr<SqliteStore>> store =
      SqliteStore::Open(absl::StrCat((*scratch)->path(), "/policy.db"), options);
  if (!store.ok()) return store.status();
  if (absl::Status imported = (*store)->admin().ImportPolicy(policy); !imported.ok()) {
    return absl::Status(imported.code(), absl::StrCat("the policy: ", imported.message()));
  }
  Authorizer authorizer(**store, [] { return absl::Now(); });
  std::vector<PolicyTestResult> results;
  for (const PolicyTestCase& test : cases) {
    absl::StatusOr<Request> request = RequestFromProto(test.request.request());
    absl::StatusOr<WhatIf> what_if =
        request.ok() ? WhatIfFromProto(test.request.what_if()) : request.status();
    absl::StatusOr<Simulation> simulation =
        what_if.ok() ? authorizer.Simulate(*request, *what_if) : what_if.status();
    if (!simulation.ok()) {
      return absl::Status(
          simulation.status().code(),
          absl::StrCat(test.name, " (line ", test.line, "): ", simulation.status().message()));
    }
    PolicyTestResult result;
    SimulationToProto(*simulation, &result.simulation);
    result.problems = Problems(test, result.simulation.decision());
    result.passed = result.problems.empty();
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace cli
}  // namespace verdict
