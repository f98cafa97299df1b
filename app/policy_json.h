// The whole policy as one JSON document, for backups, migrations between stores and demo seeds.
//
//   {"version": 1,
//    "agents": [{"id": "agt_1", "owner": "alice", "name": "reader",
//                "kind": "autonomous|delegated|service", "status": "active|suspended|revoked",
//                "expires_at": "2030-01-01T00:00:00Z",          // optional: never
//                "token_sha256": "<64 hex>"}],                   // or, on import only,
//                                                                // "token": "vdt_..."
//    "permissions": [{"id": "perm_1", "agent_id": "agt_1", "resource": "docs:*",
//                     "actions": ["read"], "effect": "allow|deny", "constraints": {...}}],
//    "delegations": [{"id": "dlg_1", "from_agent_id": "agt_1", "to_agent_id": "agt_2",
//                     "permissions": [{"resource": "docs:1", "actions": ["read"],
//                                      "constraints": {}}],
//                     "max_depth": 1, "status": "active|revoked",
//                     "expires_at": "2030-01-01T00:00:00Z"}]}   // optional: never
//
// An agent, permission or delegation a policy file manages (`verdict policy apply`) carries
// "managed_by": the file's name; one created at run time has none.
//
// On import, "kind" defaults to autonomous, "status" to active, "effect" to allow,
// "constraints" to {}, "max_depth" to 1; an agent with neither token nor token_sha256 gets no
// usable token (RotateToken gives it one). Unknown keys are refused, like a typo in a policy
// should be. Export writes every key (and expires_at only when set), in the store's creation
// order, so exporting an imported document gives the same document up to key order and white
// space (times in UTC, to the microsecond). created_at times are not part of the document.
//
//   absl::StatusOr<std::string> json = ExportPolicyJson(store.admin());
//   absl::StatusOr<ImportCounts> counts = ImportPolicyJson(other_store, *json);
#ifndef VERDICT_APP_POLICY_JSON_H_
#define VERDICT_APP_POLICY_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "app/policy_admin.h"
#include "store/admin_types.h"

namespace verdict {

struct ImportCounts {
  int agents = 0;
  int permissions = 0;
  int delegations = 0;
  int revoked_token_ids = 0;
};

// The document for `policy`, in canonical JSON (common/json.h).
absl::StatusOr<std::string> PolicyToJson(const PolicyContents& policy);
// INVALID_ARGUMENT, naming the place ("agents[2].kind: ..."), for a malformed document.
absl::StatusOr<PolicyContents> PolicyFromJson(absl::string_view json);

// The store's whole policy, read in one transaction.
absl::StatusOr<std::string> ExportPolicyJson(PolicyAdmin& admin);
// Parses `json` and writes it into `admin`, which must be empty (FAILED_PRECONDITION
// otherwise), in one transaction: all of it or none.
absl::StatusOr<ImportCounts> ImportPolicyJson(PolicyAdmin& admin, absl::string_view json);

}  // namespace verdict

#endif  // VERDICT_APP_POLICY_JSON_H_
