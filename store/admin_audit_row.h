// One row of the admin audit log: who made an admin write (principal, how authenticated, from
// where), what (the call, the objects it names, its arguments with secrets redacted), when, and
// its result, hash-chained to the row before it (store/hash_chain.h) so a row edited, deleted or
// reordered is found at that row.
//
//   AdminAuditRow row{.recorded_at_us = ..., .principal = "alice", .auth_method = "session",
//                     .peer = "uid:1000", .call = "RevokeAgent", .objects = {"agt_1"},
//                     .arguments_json = R"({"agent_id":"agt_1"})", .result_code = "OK"};
//   AppendAdminAuditRow(connection, row);   // store/admin_audit_log.h: fills seq and hashes
#ifndef VERDICT_STORE_ADMIN_AUDIT_ROW_H_
#define VERDICT_STORE_ADMIN_AUDIT_ROW_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace verdict {

struct AdminAuditRow {
  int64_t seq = 0;             // from 1, assigned when written
  int64_t recorded_at_us = 0;  // unix microseconds
  std::string principal;       // the authenticated principal
  std::string auth_method;     // "secret", "session" or "peer_uid"
  std::string peer;            // "uid:1000", "ipv4:10.0.0.1:5555"
  std::string call;            // the AdminService method: "RevokeAgent"
  // The ids the call names (agents, permissions, delegations, approvals, kids, jtis,
  // principals), each once, in the order named: what `verdict audit query --object` finds.
  std::vector<std::string> objects;
  std::string arguments_json;  // the request, secrets redacted (server/admin_audit.h)
  std::string result_code;     // absl's code name: "OK", "NOT_FOUND", "PERMISSION_DENIED"
  std::string result_message;  // "" when OK
  std::string prev_hash;       // hex
  std::string hash;            // hex
};

// Lower-case hex SHA-256 of the canonical JSON of every field but `hash`.
std::string ChainHash(const AdminAuditRow& row);

// The objects as stored: a canonical JSON array of strings; and back (INVALID_ARGUMENT unless
// `json` is such an array).
std::string AdminAuditObjectsToJson(const std::vector<std::string>& objects);
absl::StatusOr<std::vector<std::string>> AdminAuditObjectsFromJson(absl::string_view json);

// Calls text(field) or integer(field) on each stored column of `row` in the table's order
// (seq, recorded_at, principal, auth_method, peer, call, arguments_json, result_code,
// result_message, prev_hash, hash); the objects column is stored apart, as JSON.
template <typename Row, typename Text, typename Integer>
void ForEachAdminAuditColumn(Row& row, Text text, Integer integer) {
  integer(row.seq);
  integer(row.recorded_at_us);
  text(row.principal);
  text(row.auth_method);
  text(row.peer);
  text(row.call);
  text(row.arguments_json);
  text(row.result_code);
  text(row.result_message);
  text(row.prev_hash);
  text(row.hash);
}

}  // namespace verdict

#endif  // VERDICT_STORE_ADMIN_AUDIT_ROW_H_
