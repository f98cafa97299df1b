#include "app/policy_file.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "app/document_file.h"
#include "app/policy_json.h"
#include "common/json.h"
#include "crypto/sha256.h"
#include "decision/admin/input_rules.h"

namespace verdict {
namespace {

constexpr int kPolicyFileVersion = 1;

absl::Status Invalid(absl::string_view file_name, int line, absl::string_view message) {
  if (line <= 0) return absl::InvalidArgumentError(absl::StrCat(file_name, ": ", message));
  return absl::InvalidArgumentError(absl::StrCat(file_name, ":", line, ": ", message));
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
  const int line = path.empty() ? 0 : LineOf(file.lines, path);
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
  absl::StatusOr<DocumentFile> read = ReadDocumentFile(
      text, file_name,
      DocumentLimits{.kind = "a policy file",
                     .max_bytes = kMaxPolicyFileBytes,
                     .max_depth = kMaxPolicyFileDepth,
                     // Each node costs a few words; a file within kMaxPolicyFileBytes has far
                     // fewer than this.
                     .max_nodes = 4 * static_cast<int64_t>(kMaxPolicyFileBytes) / 8});
  if (!read.ok()) return read.status();

  PolicyFile file;
  file.file_name = std::string(file_name);
  file.sha256_hex = HexEncode(Sha256(text));
  file.lines = std::move(read->lines);
  JsonValue& document = read->root;
  if (!document.is_object()) return Invalid(file_name, LineOf(file.lines, ""), "must be a mapping");
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
  if (absl::Status s = CheckPolicyName(name->second.as_string()); !s.ok()) {
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
  // The file's name manages every object it declares: an object names no other manager.
  for (absl::string_view list : {"agents", "permissions", "delegations"}) {
    auto found = members.find(list);
    if (found == members.end() || !found->second.is_array()) continue;
    const JsonValue::Array& objects = found->second.as_array();
    for (size_t i = 0; i < objects.size(); ++i) {
      if (!objects[i].is_object() || objects[i].Find("managed_by") == nullptr) continue;
      const std::string path = absl::StrCat(list, "[", i, "].managed_by");
      return Invalid(file_name, line_of(path),
                     absl::StrCat(path,
                                  ": not accepted in a policy file (the file's name manages "
                                  "every object it declares)"));
    }
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
