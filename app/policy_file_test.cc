#include "app/policy_file.h"

#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string ReadRunfile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Message(const absl::StatusOr<PolicyFile>& file) {
  return std::string(file.status().message());
}

constexpr char kSmallYaml[] = R"(version: 1
name: team-a
agents:
  - id: agt_a
    owner: alice
    name: "true"
    kind: service
permissions:
  - id: perm_a
    agent_id: agt_a
    resource: "docs:*"
    actions: [read, write]
    constraints:
      rate_limit: {max_calls: 5, window_seconds: 60}
delegations:
  - id: dlg_a
    from_agent_id: agt_a
    to_agent_id: agt_b
    permissions:
      - {resource: "docs:1", actions: [read]}
)";

constexpr char kSmallJson[] = R"({"version": 1, "name": "team-a",
  "agents": [{"id": "agt_a", "owner": "alice", "name": "true", "kind": "service"}],
  "permissions": [{"id": "perm_a", "agent_id": "agt_a", "resource": "docs:*",
                   "actions": ["read", "write"],
                   "constraints": {"rate_limit": {"max_calls": 5, "window_seconds": 60}}}],
  "delegations": [{"id": "dlg_a", "from_agent_id": "agt_a", "to_agent_id": "agt_b",
                   "permissions": [{"resource": "docs:1", "actions": ["read"]}]}]})";

TEST(PolicyFileTest, YamlDeclaresItsNameAndObjectsWithTheirDefaults) {
  absl::StatusOr<PolicyFile> file = ParsePolicyFile(kSmallYaml, "team-a.yaml");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->name, "team-a");
  ASSERT_EQ(file->policy.agents.size(), 1u);
  EXPECT_EQ(file->policy.agents[0].agent.name, "true");  // quoted: a string, not a boolean
  EXPECT_EQ(file->policy.agents[0].agent.kind, AgentKind::kService);
  EXPECT_EQ(file->policy.agents[0].agent.status, AgentStatus::kActive);
  EXPECT_TRUE(file->policy.agents[0].token_sha256.empty());
  ASSERT_EQ(file->policy.permissions.size(), 1u);
  EXPECT_EQ(file->policy.permissions[0].effect, Effect::kAllow);
  EXPECT_EQ(file->policy.permissions[0].actions, (std::vector<std::string>{"read", "write"}));
  EXPECT_EQ(file->policy.permissions[0].constraints_json,
            R"({"rate_limit":{"max_calls":5,"window_seconds":60}})");
  ASSERT_EQ(file->policy.delegations.size(), 1u);
  EXPECT_EQ(file->policy.delegations[0].max_depth, 1);
  EXPECT_EQ(file->lines.at("permissions[0].actions"), 12);
}

TEST(PolicyFileTest, JsonAndYamlOfOnePolicyDeclareTheSameObjects) {
  absl::StatusOr<PolicyFile> yaml = ParsePolicyFile(kSmallYaml, "team-a.yaml");
  absl::StatusOr<PolicyFile> json = ParsePolicyFile(kSmallJson, "team-a.json");
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_EQ(json->name, yaml->name);
  EXPECT_EQ(json->policy.agents[0].agent.name, yaml->policy.agents[0].agent.name);
  EXPECT_EQ(json->policy.permissions[0].constraints_json,
            yaml->policy.permissions[0].constraints_json);
  EXPECT_EQ(json->policy.delegations[0].permissions[0].resource, "docs:1");
  EXPECT_EQ(json->lines.at("permissions[0].actions"), 4);
  EXPECT_NE(json->sha256_hex, yaml->sha256_hex);
}

TEST(PolicyFileTest, TheRepositorysExamplesParse) {
  for (const char* path : {"deploy/policy/demo.yaml", "deploy/policy/service.json"}) {
    const std::string text = ReadRunfile(path);
    ASSERT_FALSE(text.empty()) << path;
    absl::StatusOr<PolicyFile> file = ParsePolicyFile(text, path);
    EXPECT_TRUE(file.ok()) << file.status();
  }
}

TEST(PolicyFileTest, AnErrorNamesTheFileTheLineAndTheField) {
  std::string yaml = kSmallYaml;
  yaml.replace(yaml.find("kind: service"), 13, "kind: robot");
  absl::StatusOr<PolicyFile> file = ParsePolicyFile(yaml, "team-a.yaml");
  EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(file), StartsWith("team-a.yaml:7: agents[0].kind: "));

  std::string json = kSmallJson;
  json.replace(json.find("\"max_calls\": 5"), 14, "\"max_calls\": \"5\"");
  file = ParsePolicyFile(json, "team-a.json");
  // Constraints are checked when applied; the structure here is fine.
  EXPECT_TRUE(file.ok()) << file.status();

  json = kSmallJson;
  json.replace(json.find("\"actions\": [\"read\"]"), 19, "\"actions\": \"read\"");
  file = ParsePolicyFile(json, "team-a.json");
  EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(file), StartsWith("team-a.json:7: delegations[0].permissions[0].actions: "));
}

TEST(PolicyFileTest, UnknownKeysAreRefusedWithTheirLine) {
  std::string yaml = kSmallYaml;
  yaml.replace(yaml.find("    owner: alice"), 16, "    ownr: alice");
  absl::StatusOr<PolicyFile> file = ParsePolicyFile(yaml, "f.yaml");
  EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(file), StartsWith("f.yaml:4: agents[0]: unknown key \"ownr\""));

  file = ParsePolicyFile("version: 1\nname: a\nagent: []\n", "f.yaml");
  EXPECT_THAT(Message(file), StartsWith("f.yaml:3: agent: unknown key"));
}

TEST(PolicyFileTest, ANameAndVersionOneAreRequired) {
  absl::StatusOr<PolicyFile> file = ParsePolicyFile("version: 1\nagents: []\n", "f.yaml");
  EXPECT_THAT(Message(file), HasSubstr("name: is required"));
  file = ParsePolicyFile("version: 2\nname: a\n", "f.yaml");
  EXPECT_THAT(Message(file), StartsWith("f.yaml:1: version: must be 1"));
  file = ParsePolicyFile("version: 1\nname: a b\n", "f.yaml");
  EXPECT_THAT(Message(file), StartsWith("f.yaml:2: name: may hold only"));
  file = ParsePolicyFile("version: 1\nname: empty\n", "f.yaml");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_TRUE(file->policy.agents.empty());
}

TEST(PolicyFileTest, TokensInClearAreRefused) {
  absl::StatusOr<PolicyFile> file = ParsePolicyFile(
      "version: 1\nname: a\nagents:\n  - id: agt_a\n    owner: o\n    name: n\n"
      "    token: vdt_M5hwIYE5vAXm0pPRBRsyIvcyYmg_pnll04u8cx7plPM\n",
      "f.yaml");
  EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(file), StartsWith("f.yaml:7: agents[0].token: not accepted"));
}

// managed_by travels in an export (app/policy_json.h); in a policy file the file's name is the
// manager of everything it declares.
TEST(PolicyFileTest, AnObjectNamingItsOwnManagerIsRefused) {
  absl::StatusOr<PolicyFile> file = ParsePolicyFile(
      "version: 1\nname: a\nagents:\n  - {id: agt_a, owner: o, name: n, managed_by: b}\n",
      "f.yaml");
  EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(file), StartsWith("f.yaml:4: agents[0].managed_by: not accepted"));
}

TEST(PolicyFileTest, YamlAnchorsAndAliasesAreRefusedSoNoBombExpands) {
  // The "billion laughs": nine levels of nine aliases would expand to 10^9 strings.
  std::string bomb = "version: 1\nname: a\nx0: &a0 [lol]\n";
  for (int i = 1; i < 10; ++i) {
    bomb += absl::StrCat("x", i, ": &a", i, " [");
    for (int j = 0; j < 9; ++j) bomb += absl::StrCat(j ? ", " : "", "*a", i - 1);
    bomb += "]\n";
  }
  absl::StatusOr<PolicyFile> file = ParsePolicyFile(bomb, "bomb.yaml");
  EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(file), StartsWith("bomb.yaml:3: YAML anchors are not accepted"));

  file = ParsePolicyFile("version: 1\nname: *n\n", "alias.yaml");
  EXPECT_THAT(Message(file), HasSubstr("alias"));
}

TEST(PolicyFileTest, SizeAndNestingAreBounded) {
  std::string deep = "version: 1\nname: a\nagents: ";
  for (int i = 0; i < 100; ++i) deep += "[";
  for (int i = 0; i < 100; ++i) deep += "]";
  absl::StatusOr<PolicyFile> file = ParsePolicyFile(deep, "deep.yaml");
  EXPECT_THAT(Message(file), HasSubstr("nested deeper than 32 levels"));

  // A deeper nesting than yaml-cpp's own guard stops there, not on the stack.
  std::string deeper = "[";
  for (int i = 0; i < 100000; ++i) deeper += "[";
  file = ParsePolicyFile(deeper, "deeper.yaml");
  EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument);

  std::string large(kMaxPolicyFileBytes + 1, ' ');
  file = ParsePolicyFile(large, "large.yaml");
  EXPECT_THAT(Message(file), HasSubstr("at most"));
}

TEST(PolicyFileTest, OneDocumentWithDistinctKeys) {
  absl::StatusOr<PolicyFile> file =
      ParsePolicyFile("version: 1\nname: a\n---\nversion: 1\nname: b\n", "two.yaml");
  EXPECT_THAT(Message(file), HasSubstr("one document"));
  file = ParsePolicyFile("version: 1\nname: a\nname: b\n", "twice.yaml");
  EXPECT_THAT(Message(file), StartsWith("twice.yaml:3: key \"name\" appears twice"));
  file = ParsePolicyFile("", "empty.yaml");
  EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument);
}

// YAML's flow style starts with '{' as JSON does: the name says which it is (.json, .yaml,
// .yml), and only a name that does not (standard input, policy.txt) is sniffed, JSON when the
// text is JSON and YAML otherwise.
constexpr char kFlowYaml[] = R"({version: 1, name: flow,   # YAML, not JSON: unquoted keys
  agents: [{id: agt_f, owner: ops, name: flow-reader}],
  permissions: [{id: perm_f, agent_id: agt_f, resource: "docs:*", actions: [read]}]}
)";

TEST(PolicyFileTest, AYamlFileInFlowStyleIsReadAsYaml) {
  for (const char* name : {"flow.yaml", "flow.YML", "stdin", "policy.txt"}) {
    absl::StatusOr<PolicyFile> file = ParsePolicyFile(kFlowYaml, name);
    ASSERT_TRUE(file.ok()) << name << ": " << file.status();
    EXPECT_EQ(file->name, "flow") << name;
    ASSERT_EQ(file->policy.permissions.size(), 1u) << name;
    EXPECT_EQ(file->policy.permissions[0].actions, std::vector<std::string>{"read"}) << name;
    EXPECT_EQ(file->lines.at("permissions[0].actions"), 3) << name;
  }
}

TEST(PolicyFileTest, AnUnnamedJsonFileIsReadAsJsonAndAJsonFileMustBeJson) {
  absl::StatusOr<PolicyFile> json = ParsePolicyFile(kSmallJson, "stdin");
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_EQ(json->policy.permissions[0].constraints_json,
            R"({"rate_limit":{"max_calls":5,"window_seconds":60}})");
  absl::StatusOr<PolicyFile> flow = ParsePolicyFile(kFlowYaml, "flow.json");
  EXPECT_EQ(flow.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(flow), StartsWith("flow.json: "));
}

TEST(PolicyFileTest, JsonMustBeStrictJson) {
  // YAML in a .json file is refused: the file says what it is.
  absl::StatusOr<PolicyFile> file = ParsePolicyFile("version: 1\nname: a\n", "f.json");
  EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(file), StartsWith("f.json: "));
}

}  // namespace
}  // namespace verdict
