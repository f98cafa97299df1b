// A policy file: policy as code (design section 9), in YAML or JSON, kept in git and applied
// with `verdict policy apply` or watched by `verdictd --policy_file`. Its format is
// deploy/policy.schema.json's:
//
//   version: 1
//   name: platform-docs            # who manages the objects below: another file's objects,
//                                  # and agents created at run time, are never touched
//   agents:
//     - id: agt_reader
//       owner: alice@example.com
//       name: reader
//       kind: service              # autonomous (default) | delegated | service
//       status: active             # active (default) | suspended | revoked
//       token_sha256: 9f86d0...    # optional: a token's SHA-256, never the token itself
//   permissions:
//     - {id: perm_read, agent_id: agt_reader, resource: "docs:*", actions: [read]}
//   delegations:
//     - id: dlg_lend
//       from_agent_id: agt_reader
//       to_agent_id: agt_helper
//       permissions: [{resource: "docs:1", actions: [read]}]
//
// The objects' fields are those of the policy JSON document (app/policy_json.h) except tokens:
// `token`, `previous_token_sha256` and revoked token ids are refused. Parsing is pure (no
// store) and bounded: app/document_file.h reads the file (its size and nesting capped, YAML
// anchors and aliases, whose expansion can explode, refused), and the objects are counted.
//
//   absl::StatusOr<PolicyFile> file = ParsePolicyFile(text, "policy.yaml");
//   if (!file.ok()) return file.status();  // "policy.yaml:12: agents[1].kind: ..."
#ifndef VERDICT_APP_POLICY_FILE_H_
#define VERDICT_APP_POLICY_FILE_H_

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "app/policy_admin.h"
#include "store/admin_types.h"

namespace verdict {

// Bounds on what a policy file may cost to read.
inline constexpr size_t kMaxPolicyFileBytes = 16 << 20;
inline constexpr int kMaxPolicyFileDepth = 32;
// Agents, permissions and delegations together.
inline constexpr int kMaxPolicyFileObjects = 200000;

struct PolicyFile {
  std::string file_name;
  // The declared name: the store records it as the manager of the file's objects.
  std::string name;
  // The declared objects, with the defaults filled in. An agent's token_sha256 is empty when the
  // file gives none (its token is then issued by RotateToken).
  PolicyContents policy;
  // SHA-256 of the file's text, in hex.
  std::string sha256_hex;
  // The 1-based line of each object and field, by path: "agents[1]", "agents[1].kind",
  // "delegations[0].permissions[2].actions".
  absl::flat_hash_map<std::string, int> lines;
};

// The policy `text` declares. INVALID_ARGUMENT for a file that is too large, not YAML or JSON,
// or not a policy file, with a message "<file_name>:<line>: <field>: <problem>". The name says
// the format: ".json" is JSON, ".yaml" and ".yml" YAML (a flow mapping "{...}" too); any other
// name (standard input) is read as YAML, of which JSON is the flow style
// (app/document_file.h).
absl::StatusOr<PolicyFile> ParsePolicyFile(absl::string_view text, absl::string_view file_name);

// `status` with its message placed in `file`: a message that starts with a field's path
// ("permissions[2].actions: ...") gets the file name and that field's line (or that of the
// nearest enclosing object) in front. OK stays OK.
absl::Status LocateInPolicyFile(const PolicyFile& file, const absl::Status& status);

// The file's objects for PolicyAdmin::ApplyPolicy, which places its errors in the file.
DeclaredPolicy DeclaredPolicyOf(const PolicyFile& file);

}  // namespace verdict

#endif  // VERDICT_APP_POLICY_FILE_H_
