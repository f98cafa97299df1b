#include "cli/policy_tests.h"

#include <stdlib.h>

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
#include "app/document_file.h"
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

// One map of a tests file: its keys checked against those it may have, its fields read as text.
class MapReader {
 public:
  // `path` is where the map is in the file ("tests[2].expect"); `what` names it in errors.
  static absl::StatusOr<MapReader> Open(const DocumentFile& file, const JsonValue& value,
                                        std::string path, std::string what,
                                        std::vector<absl::string_view> known) {
    if (!value.is_object()) return file.ErrorAt(path, absl::StrCat(what, ": must be a map"));
    for (const auto& [key, member] : value.as_object()) {
      bool is_known = false;
      for (absl::string_view k : known) is_known |= key == k;
      if (!is_known) {
        return file.ErrorAt(Child(path, key),
                            absl::StrCat(what, ": unknown key \"", key,
                                         "\" (known: ", absl::StrJoin(known, ", "), ")"));
      }
    }
    return MapReader(file, value, std::move(path), std::move(what));
  }

  const JsonValue* Find(absl::string_view key) const {
    const JsonValue* member = map_->Find(key);
    return member == nullptr || member->is_null() ? nullptr : member;
  }
  // Where the member `key` is, for its errors.
  std::string PathOf(absl::string_view key) const { return Child(path_, key); }
  std::string WhatOf(absl::string_view key) const { return absl::StrCat(what_, ".", key); }
  absl::Status Invalid(absl::string_view problem) const {
    return file_->ErrorAt(path_, absl::StrCat(what_, ": ", problem));
  }
  // A required member left out, at the map's line.
  absl::Status Missing(absl::string_view key) const {
    return file_->ErrorAt(path_, absl::StrCat(WhatOf(key), ": required"));
  }
  absl::Status InvalidAt(absl::string_view key, absl::string_view problem) const {
    return file_->ErrorAt(PathOf(key), absl::StrCat(WhatOf(key), ": ", problem));
  }

  // The member `key` as text ("" when absent or null); a number or a boolean as written in
  // JSON. Anything else is refused.
  absl::StatusOr<std::string> Text(absl::string_view key) const {
    const JsonValue* member = Find(key);
    if (member == nullptr) return std::string();
    if (member->is_string()) return member->as_string();
    if (member->is_number() || member->is_bool()) return CanonicalJson(*member);
    return InvalidAt(key, "must be text");
  }

 private:
  MapReader(const DocumentFile& file, const JsonValue& map, std::string path, std::string what)
      : file_(&file), map_(&map), path_(std::move(path)), what_(std::move(what)) {}

  static std::string Child(absl::string_view path, absl::string_view key) {
    return path.empty() ? std::string(key) : absl::StrCat(path, ".", key);
  }

  const DocumentFile* file_;
  const JsonValue* map_;
  std::string path_;
  std::string what_;
};

absl::StatusOr<PolicyTestCase> ParseCase(const DocumentFile& file, const JsonValue& value,
                                         size_t index) {
  const std::string what = absl::StrCat("tests[", index, "]");
  absl::StatusOr<MapReader> node =
      MapReader::Open(file, value, what, what,
                      {"name", "agent", "token", "action", "resource", "context", "expect"});
  if (!node.ok()) return node.status();
  PolicyTestCase test;
  test.line = file.LineOf(what);
  absl::StatusOr<std::string> name = node->Text("name");
  if (!name.ok()) return name.status();
  test.name = name->empty() ? what : *name;
  v1::AuthorizeRequest& request = *test.request.mutable_request();
  absl::StatusOr<std::string> agent = node->Text("agent");
  if (!agent.ok()) return agent.status();
  absl::StatusOr<std::string> token = node->Text("token");
  if (!token.ok()) return token.status();
  if (agent->empty() == token->empty()) return node->Invalid("give exactly one of agent and token");
  if (!agent->empty()) request.mutable_subject()->set_agent_id(*agent);
  if (!token->empty()) request.mutable_subject()->set_token(*token);
  for (const char* key : {"action", "resource"}) {
    absl::StatusOr<std::string> text = node->Text(key);
    if (!text.ok()) return text.status();
    if (text->empty()) return node->Missing(key);
    if (std::string(key) == "action") request.set_action(*text);
    if (std::string(key) == "resource") request.set_resource(*text);
  }
  if (const JsonValue* context_value = node->Find("context")) {
    absl::StatusOr<MapReader> context =
        MapReader::Open(file, *context_value, node->PathOf("context"), node->WhatOf("context"),
                        {"time", "client_ip", "arguments"});
    if (!context.ok()) return context.status();
    absl::StatusOr<std::string> time = context->Text("time");
    if (!time.ok()) return time.status();
    if (!time->empty()) {
      absl::Time at;
      std::string error;
      if (!absl::ParseTime(absl::RFC3339_full, *time, &at, &error) ||
          at == absl::InfiniteFuture() || at == absl::InfinitePast()) {
        return context->InvalidAt(
            "time",
            absl::StrCat("an RFC 3339 time such as 2030-01-01T10:00:00Z, not \"", *time, "\""));
      }
      const int64_t seconds = absl::ToUnixSeconds(at);
      test.request.mutable_what_if()->mutable_at()->set_seconds(seconds);
      test.request.mutable_what_if()->mutable_at()->set_nanos(
          static_cast<int32_t>(absl::ToInt64Nanoseconds(at - absl::FromUnixSeconds(seconds))));
    }
    absl::StatusOr<std::string> ip = context->Text("client_ip");
    if (!ip.ok()) return ip.status();
    request.mutable_context()->set_client_ip(*ip);
    // A map (or any value) is the arguments; a string holds them as JSON text.
    if (const JsonValue* arguments = context->Find("arguments")) {
      request.mutable_context()->set_arguments_json(
          arguments->is_string() ? arguments->as_string() : CanonicalJson(*arguments));
    }
  }
  const JsonValue* expect_value = node->Find("expect");
  if (expect_value == nullptr) {
    return node->Missing("expect");
  }
  absl::StatusOr<MapReader> expect =
      MapReader::Open(file, *expect_value, node->PathOf("expect"), node->WhatOf("expect"),
                      {"verdict", "reason", "matched_permission", "via_delegation"});
  if (!expect.ok()) return expect.status();
  absl::StatusOr<std::string> verdict = expect->Text("verdict");
  if (!verdict.ok()) return verdict.status();
  if (!ParseShortEnumName(absl::AsciiStrToUpper(*verdict), &test.verdict) ||
      test.verdict == v1::VERDICT_UNSPECIFIED) {
    return expect->InvalidAt("verdict",
                             absl::StrCat("allow, deny or needs_approval, not \"", *verdict, "\""));
  }
  absl::StatusOr<std::string> reason = expect->Text("reason");
  if (!reason.ok()) return reason.status();
  if (!reason->empty()) {
    v1::ReasonCode code;
    if (!ParseShortEnumName(absl::AsciiStrToUpper(*reason), &code) ||
        code == v1::REASON_CODE_UNSPECIFIED) {
      return expect->InvalidAt("reason", absl::StrCat("no reason code is named \"", *reason, "\""));
    }
    test.reason = code;
  }
  absl::StatusOr<std::string> matched = expect->Text("matched_permission");
  if (!matched.ok()) return matched.status();
  test.matched_permission = *matched;
  absl::StatusOr<std::string> via = expect->Text("via_delegation");
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
  // Read as a policy file is (app/document_file.h): bounded, no anchors or aliases.
  absl::StatusOr<DocumentFile> file =
      ReadDocumentFile(text, file_name,
                       DocumentLimits{.kind = "a tests file",
                                      .max_bytes = kMaxPolicyTestFileBytes,
                                      .max_depth = kMaxPolicyTestDepth,
                                      .max_nodes = kMaxPolicyTestValues});
  if (!file.ok()) return file.status();
  absl::StatusOr<MapReader> document =
      MapReader::Open(*file, file->root, "", "the file", {"tests"});
  if (!document.ok()) return document.status();
  const JsonValue* tests = document->Find("tests");
  if (tests == nullptr || !tests->is_array()) {
    return file->ErrorAt("tests", "tests: required, a list of cases");
  }
  const JsonValue::Array& list = tests->as_array();
  if (list.size() > kMaxPolicyTestCases) {
    return file->ErrorAt("tests", absl::StrCat("tests: ", list.size(), " cases, more than the ",
                                               kMaxPolicyTestCases, " a file may have"));
  }
  std::vector<PolicyTestCase> cases;
  for (size_t i = 0; i < list.size(); ++i) {
    absl::StatusOr<PolicyTestCase> test = ParseCase(*file, list[i], i);
    if (!test.ok()) return test.status();
    cases.push_back(*std::move(test));
  }
  return cases;
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
