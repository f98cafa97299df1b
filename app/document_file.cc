#include "app/document_file.h"

#include <cmath>
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
#include "yaml-cpp/eventhandler.h"
#include "yaml-cpp/exceptions.h"
#include "yaml-cpp/mark.h"
#include "yaml-cpp/parser.h"

namespace verdict {
namespace {

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

// Builds FileNodes from yaml-cpp's events (no yaml-cpp node tree, which would expand aliases),
// refusing what such a file has no use for and what could cost more than its text: anchors,
// aliases, explicit tags, too deep a nesting, too many nodes.
class NodeBuilder final : public YAML::EventHandler {
 public:
  explicit NodeBuilder(const DocumentLimits& limits) : limits_(limits) {}

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
    throw Refused{mark.line + 1, absl::StrCat("YAML aliases are not accepted in ", limits_.kind)};
  }
  void OnAnchor(const YAML::Mark& mark, const std::string&) override {
    throw Refused{mark.line + 1, AnchorsRefused()};
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
  std::string AnchorsRefused() const {
    return absl::StrCat("YAML anchors are not accepted in ", limits_.kind);
  }

  void CheckAnchor(const YAML::Mark& mark, YAML::anchor_t anchor) const {
    if (anchor != YAML::NullAnchor) throw Refused{mark.line + 1, AnchorsRefused()};
  }

  void Open(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
            FileNode::Kind kind) {
    CheckAnchor(mark, anchor);
    if (tag != "?" && tag != "!" && !tag.empty()) {
      throw Refused{mark.line + 1, absl::StrCat("YAML tags are not accepted (", tag, ")")};
    }
    if (static_cast<int>(open_.size()) >= limits_.max_depth) {
      throw Refused{mark.line + 1,
                    absl::StrCat("nested deeper than ", limits_.max_depth, " levels")};
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
    if (++nodes_ > limits_.max_nodes) {
      throw Refused{mark.line + 1, absl::StrCat("more than ", limits_.max_nodes, " values")};
    }
  }

  void Place(FileNode node, const YAML::Mark& mark) {
    if (open_.empty()) {
      if (root != nullptr) {
        throw Refused{mark.line + 1, absl::StrCat(limits_.kind, " holds one document")};
      }
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

  const DocumentLimits& limits_;
  std::vector<FileNode> open_;
  std::vector<std::optional<std::string>> pending_key_;
  int64_t nodes_ = 0;
};

absl::Status Invalid(absl::string_view file_name, int line, absl::string_view message) {
  if (line <= 0) return absl::InvalidArgumentError(absl::StrCat(file_name, ": ", message));
  return absl::InvalidArgumentError(absl::StrCat(file_name, ":", line, ": ", message));
}

absl::StatusOr<FileNode> ReadNodes(absl::string_view text, absl::string_view file_name,
                                   const DocumentLimits& limits) {
  std::istringstream in{std::string(text)};
  NodeBuilder builder(limits);
  try {
    YAML::Parser parser(in);
    if (!parser.HandleNextDocument(builder) || builder.root == nullptr) {
      return Invalid(file_name, 0, "the file holds no document");
    }
    // A second document would be ignored: refuse it rather than use half a file.
    NodeBuilder rest(limits);
    if (parser.HandleNextDocument(rest)) {
      return Invalid(file_name, 0, absl::StrCat(limits.kind, " holds one document"));
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
  lines.emplace(path, node.line);
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

}  // namespace

int LineOf(const absl::flat_hash_map<std::string, int>& lines, absl::string_view path) {
  std::string at(path);
  while (true) {
    if (auto found = lines.find(at); found != lines.end()) return found->second;
    if (at.empty()) return 0;
    const size_t cut = at.find_last_of(".[");
    at = cut == std::string::npos ? "" : at.substr(0, cut);
  }
}

int DocumentFile::LineOf(absl::string_view path) const { return verdict::LineOf(lines, path); }

absl::Status DocumentFile::ErrorAt(absl::string_view path, absl::string_view message) const {
  return verdict::Invalid(file_name, LineOf(path), message);
}

absl::Status DocumentFile::Invalid(absl::string_view path, absl::string_view problem) const {
  return ErrorAt(path, path.empty() ? std::string(problem) : absl::StrCat(path, ": ", problem));
}

absl::StatusOr<DocumentFile> ReadDocumentFile(absl::string_view text, absl::string_view file_name,
                                              const DocumentLimits& limits) {
  if (text.size() > limits.max_bytes) {
    return Invalid(file_name, 0,
                   absl::StrCat(limits.kind, " holds at most ", limits.max_bytes, " bytes"));
  }
  // yaml-cpp would read YAML in a .json file too: the name says it is JSON, so it must be.
  // (Any other name needs no such check: JSON is YAML's flow style, and reads as it.)
  if (absl::EndsWithIgnoreCase(file_name, ".json")) {
    absl::StatusOr<JsonValue> strict =
        ParseJson(text, JsonLimits{.max_bytes = limits.max_bytes, .max_depth = limits.max_depth});
    if (!strict.ok()) return Invalid(file_name, 0, strict.status().message());
  }
  absl::StatusOr<FileNode> nodes = ReadNodes(text, file_name, limits);
  if (!nodes.ok()) return nodes.status();
  DocumentFile file;
  file.file_name = std::string(file_name);
  file.root = ToJson(*nodes, "", file.lines);
  return file;
}

}  // namespace verdict
