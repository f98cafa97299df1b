#include "app/policy_file.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "app/policy_json.h"
#include "common/json.h"
#include "crypto/sha256.h"
#include "yaml-cpp/eventhandler.h"
#include "yaml-cpp/exceptions.h"
#include "yaml-cpp/mark.h"
#include "yaml-cpp/parser.h"

namespace verdict {
namespace {

constexpr int kPolicyFileVersion = 1;
constexpr size_t kMaxNameBytes = 64;

// A node of the file as read, with its line, before it becomes JSON.
struct FileNode {
  enum class Kind { kNull, kScalar, kSequence, kMap };
  Kind kind = Kind::kNull;
  std::string text;               // a scalar's
  bool plain = false;             // an unquoted YAML scalar: its type is resolved from its text
  int line = 0;                   // 1-based
  std::vector<std::string> keys;  // a map's, one per item
  std::vector<FileNode> items;
};

// Thrown from the event handler to stop yaml-cpp's parse; caught in ReadNodes.
struct Refused {
  int line;
  std::string message;
};

// Builds FileNodes from yaml-cpp's events, refusing what a policy file has no use for and
// what could cost more than its text: anchors, aliases, explicit tags, too deep a nesting,
// too many nodes.
class NodeBuilder final : public YAML::EventHandler {
 public:
  std::unique_ptr<FileNode> root;

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    CheckAnchor(mark, anchor);
    FileNode node;
    node.line = mark.line + 1;
    Add(std::move(node), mark);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    throw Refused{mark.line + 1, "YAML aliases are not accepted in a policy file"};
  }
  void OnAnchor(const YAML::Mark& mark, const std::string&) override {
    throw Refused{mark.line + 1, "YAML anchors are not accepted in a policy file"};
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    CheckAnchor(mark, anchor);
    if (tag != "?" && tag != "!") {
      throw Refused{mark.line + 1, absl::StrCat("YAML tags are not accepted (", tag, ")")};
    }
    FileNode node;
    node.kind = FileNode::Kind::kScalar;
    node.text = value;
    node.plain = tag == "?";
    node.line = mark.line + 1;
    Add(std::move(node), mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(mark, tag, anchor, FileNode::Kind::kSequence);
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(mark, tag, anchor, FileNode::Kind::kMap);
  }
  void OnMapEnd() override { Close(); }

 private:
  static void CheckAnchor(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor) {
      throw Refused{mark.line + 1, "YAML anchors are not accepted in a policy file"};
    }
  }

  void Open(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
            FileNode::Kind kind) {
    CheckAnchor(mark, anchor);
    if (tag != "?" && tag != "!" && !tag.empty()) {
      throw Refused{mark.line + 1, absl::StrCat("YAML tags are not accepted (", tag, ")")};
    }
    if (static_cast<int>(open_.size()) >= kMaxPolicyFileDepth) {
      throw Refused{mark.line + 1,
                    absl::StrCat("nested deeper than ", kMaxPolicyFileDepth, " levels")};
    }
    Count(mark);
    FileNode node;
    node.kind = kind;
    node.line = mark.line + 1;
    open_.push_back(std::move(node));
    pending_key_.push_back(std::nullopt);
  }

  void Close() {
    FileNode node = std::move(open_.back());
    open_.pop_back();
    pending_key_.pop_back();
    YAML::Mark mark;
    mark.line = node.line - 1;
    Place(std::move(node), mark);
  }

  void Add(FileNode node, const YAML::Mark& mark) {
    Count(mark);
    Place(std::move(node), mark);
  }

  void Count(const YAML::Mark& mark) {
    // Each node costs a few words; a file within kMaxPolicyFileBytes has far fewer than this.
    if (++nodes_ > 4 * static_cast<int64_t>(kMaxPolicyFileBytes) / 8) {
      throw Refused{mark.line + 1, "too many nodes"};
    }
  }

  void Place(FileNode node, const YAML::Mark& mark) {
    if (open_.empty()) {
      if (root != nullptr) throw Refused{mark.line + 1, "a policy file holds one document"};
      root = std::make_unique<FileNode>(std::move(node));
      return;
    }
    FileNode& parent = open_.back();
    if (parent.kind == FileNode::Kind::kSequence) {
      parent.items.push_back(std::move(node));
      return;
    }
    std::optional<std::string>& key = pending_key_.back();
    if (!key.has_value()) {
      if (node.kind != FileNode::Kind::kScalar) {
        throw Refused{node.line, "a key must be a plain string"};
      }
      for (const std::string& existing : parent.keys) {
        if (existing == node.text) {
          throw Refused{node.line, absl::StrCat("key \"", node.text, "\" appears twice")};
        }
      }
      key = std::move(node.text);
      return;
    }
    parent.keys.push_back(*std::move(key));
    key.reset();
    parent.items.push_back(std::move(node));
  }

  std::vector<FileNode> open_;
  std::vector<std::optional<std::string>> pending_key_;
  int64_t nodes_ = 0;
};

absl::Status Invalid(absl::string_view file_name, int line, absl::string_view message) {
  if (line <= 0) return absl::InvalidArgumentError(absl::StrCat(file_name, ": ", message));
  return absl::InvalidArgumentError(absl::StrCat(file_name, ":", line, ": ", message));
}

absl::StatusOr<FileNode> ReadNodes(absl::string_view text, absl::string_view file_name) {
  std::istringstream in{std::string(text)};
  NodeBuilder builder;
  try {
    YAML::Parser parser(in);
    if (!parser.HandleNextDocument(builder) || builder.root == nullptr) {
      return Invalid(file_name, 0, "the file holds no document");
    }
    // A second document would be ignored: refuse it rather than apply half a file.
    NodeBuilder rest;
    if (parser.HandleNextDocument(rest)) {
      return Invalid(file_name, 0, "a policy file holds one document");
    }
  } catch (const Refused& refused) {
    return Invalid(file_name, refused.line, refused.message);
  } catch (const YAML::Exception& e) {
    return Invalid(file_name, e.mark.is_null() ? 0 : e.mark.line + 1, e.msg);
  } catch (const std::exception& e) {
    return Invalid(file_name, 0, e.what());
  }
  return std::move(*builder.root);
}

// YAML 1.2's core schema for an unquoted scalar: null, a boolean, a number or a string.
JsonValue PlainScalar(const std::string& text) {
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") {
    return JsonValue();
  }
  if (text == "true" || text == "True" || text == "TRUE") return JsonValue::Bool(true);
  if (text == "false" || text == "False" || text == "FALSE") return JsonValue::Bool(false);
  const char first = text[0];
  if (absl::ascii_isdigit(static_cast<unsigned char>(first)) || first == '-' || first == '+' ||
      first == '.') {
    bool numeric = true;
    for (char c : text) {
      numeric &= absl::ascii_isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' ||
                 c == '.' || c == 'e' || c == 'E';
    }
    double number = 0;
    if (numeric && absl::SimpleAtod(text, &number) && std::isfinite(number)) {
      return JsonValue::Number(number);
    }
  }
  return JsonValue::String(text);
}

// The node as JSON, recording each path's line.
JsonValue ToJson(const FileNode& node, const std::string& path,
                 absl::flat_hash_map<std::string, int>& lines) {
  if (!path.empty()) lines.emplace(path, node.line);
  switch (node.kind) {
    case FileNode::Kind::kNull:
      return JsonValue();
    case FileNode::Kind::kScalar:
      return node.plain ? PlainScalar(node.text) : JsonValue::String(node.text);
    case FileNode::Kind::kSequence: {
      JsonValue::Array array;
      for (size_t i = 0; i < node.items.size(); ++i) {
        array.push_back(ToJson(node.items[i], absl::StrCat(path, "[", i, "]"), lines));
      }
      return JsonValue::MakeArray(std::move(array));
    }
    case FileNode::Kind::kMap: {
      JsonValue::Object object;
      for (size_t i = 0; i < node.items.size(); ++i) {
        const std::string child =
            path.empty() ? node.keys[i] : absl::StrCat(path, ".", node.keys[i]);
        object.emplace(node.keys[i], ToJson(node.items[i], child, lines));
      }
      return JsonValue::MakeObject(std::move(object));
    }
  }
  return JsonValue();
}

bool IsJsonFile(absl::string_view text, absl::string_view file_name) {
  if (absl::EndsWithIgnoreCase(file_name, ".json")) return true;
  if (absl::EndsWithIgnoreCase(file_name, ".yaml") || absl::EndsWithIgnoreCase(file_name, ".yml")) {
    return false;
  }
  absl::string_view start = absl::StripLeadingAsciiWhitespace(text);
  return !start.empty() && start[0] == '{';
}

absl::Status CheckManagerName(absl::string_view name) {
  if (name.empty() || name.size() > kMaxNameBytes) {
    return absl::InvalidArgumentError(absl::StrCat("must be 1 to ", kMaxNameBytes, " characters"));
  }
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') {
      return absl::InvalidArgumentError("may hold only letters, digits, '-', '_' and '.'");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status LocateInPolicyFile(const PolicyFile& file, const absl::Status& status) {
  if (status.ok()) return status;
  absl::string_view message = status.message();
  const size_t colon = message.find(": ");
  std::string path(message.substr(0, colon == absl::string_view::npos ? 0 : colon));
  absl::string_view rest = colon == absl::string_view::npos ? message : message.substr(colon + 2);
  // The lent permissions' messages name their place within the delegation's.
  constexpr absl::string_view kLent = "lent permissions[";
  if (absl::StartsWith(rest, kLent)) {
    const size_t end = rest.find(": ");
    path = absl::StrCat(path, ".permissions[", rest.substr(kLent.size(), end - kLent.size()));
    rest = end == absl::string_view::npos ? "" : rest.substr(end + 2);
  }
  // The field's line, or its nearest enclosing object's.
  std::string at = path;
  int line = 0;
  while (!at.empty()) {
    if (auto found = file.lines.find(at); found != file.lines.end()) {
      line = found->second;
      break;
    }
    const size_t cut = at.find_last_of(".[");
    at = cut == std::string::npos ? "" : at.substr(0, cut);
  }
  const std::string located = line > 0
                                  ? absl::StrCat(file.file_name, ":", line, ": ", path, ": ", rest)
                                  : absl::StrCat(file.file_name, ": ", message);
  return absl::Status(status.code(), located);
}

DeclaredPolicy DeclaredPolicyOf(const PolicyFile& file) {
  auto shared = std::make_shared<const PolicyFile>(file);
  return DeclaredPolicy{file.name, file.policy, [shared](const absl::Status& status) {
                          return LocateInPolicyFile(*shared, status);
                        }};
}

absl::StatusOr<PolicyFile> ParsePolicyFile(absl::string_view text, absl::string_view file_name) {
  if (text.size() > kMaxPolicyFileBytes) {
    return Invalid(file_name, 0,
                   absl::StrCat("a policy file holds at most ", kMaxPolicyFileBytes, " bytes"));
  }
  if (IsJsonFile(text, file_name)) {
    // Strict JSON first (yaml-cpp would read YAML in a .json file too).
    absl::StatusOr<JsonValue> strict = ParseJson(
        text, JsonLimits{.max_bytes = kMaxPolicyFileBytes, .max_depth = kMaxPolicyFileDepth});
    if (!strict.ok()) return Invalid(file_name, 0, strict.status().message());
  }
  absl::StatusOr<FileNode> nodes = ReadNodes(text, file_name);
  if (!nodes.ok()) return nodes.status();

  PolicyFile file;
  file.file_name = std::string(file_name);
  file.sha256_hex = HexEncode(Sha256(text));
  JsonValue document = ToJson(*nodes, "", file.lines);
  if (!document.is_object()) return Invalid(file_name, nodes->line, "must be a mapping");
  JsonValue::Object& members = document.as_object();
  auto line_of = [&](absl::string_view path) {
    auto found = file.lines.find(path);
    return found == file.lines.end() ? 0 : found->second;
  };

  for (const auto& [key, value] : members) {
    if (key != "version" && key != "name" && key != "agents" && key != "permissions" &&
        key != "delegations") {
      return Invalid(file_name, line_of(key),
                     absl::StrCat(key,
                                  ": unknown key (known: version, name, agents, "
                                  "permissions, delegations)"));
    }
  }
  auto version = members.find("version");
  if (version == members.end() || !version->second.is_number() ||
      version->second.as_number() != kPolicyFileVersion) {
    return Invalid(file_name, line_of("version"),
                   absl::StrCat("version: must be ", kPolicyFileVersion));
  }
  auto name = members.find("name");
  if (name == members.end() || !name->second.is_string()) {
    return Invalid(file_name, line_of("name"),
                   "name: is required: the name of the file's policy, which manages its objects");
  }
  if (absl::Status s = CheckManagerName(name->second.as_string()); !s.ok()) {
    return Invalid(file_name, line_of("name"), absl::StrCat("name: ", s.message()));
  }
  file.name = name->second.as_string();
  members.erase(name);

  int objects = 0;
  for (absl::string_view list : {"agents", "permissions", "delegations"}) {
    auto found = members.find(list);
    if (found == members.end()) continue;
    if (found->second.is_null()) {  // "agents:" with nothing under it
      members.erase(found);
      continue;
    }
    if (found->second.is_array()) objects += found->second.as_array().size();
  }
  if (objects > kMaxPolicyFileObjects) {
    return Invalid(file_name, 0,
                   absl::StrCat("a policy file declares at most ", kMaxPolicyFileObjects,
                                " agents, permissions and delegations"));
  }
  // Tokens never travel in a policy file: a token is issued by RotateToken, or given as its hash.
  if (auto agents = members.find("agents"); agents != members.end() && agents->second.is_array()) {
    const JsonValue::Array& list = agents->second.as_array();
    for (size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is_object()) continue;
      for (absl::string_view secret :
           {"token", "previous_token_sha256", "previous_token_expires_at"}) {
        if (list[i].Find(secret) == nullptr) continue;
        const std::string path = absl::StrCat("agents[", i, "].", secret);
        return Invalid(file_name, line_of(path),
                       absl::StrCat(path,
                                    ": not accepted in a policy file (a token is issued by "
                                    "`verdict agents rotate`, or given as token_sha256)"));
      }
    }
  }

  absl::StatusOr<PolicyContents> policy = PolicyFromJson(CanonicalJson(document));
  if (!policy.ok()) return LocateInPolicyFile(file, policy.status());
  file.policy = *std::move(policy);
  return file;
}

}  // namespace verdict
