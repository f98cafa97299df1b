// One decision log row, as stored, and the hash that chains it to the row before it.
//
// A row's hash is the SHA-256 of the canonical JSON (common/json.h) of all of its fields,
// including its seq and the previous row's hash, so editing, deleting or reordering a row breaks
// the chain at that row. The first row's previous hash is kGenesisHash.
//
//   DecisionLogRow row = MakeDecisionLogRow(request, decision, latency, now);
//   row.seq = last.seq + 1;
//   row.prev_hash = last.hash;
//   row.hash = ChainHash(row);
#ifndef VERDICT_STORE_DECISION_LOG_ROW_H_
#define VERDICT_STORE_DECISION_LOG_ROW_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "decision/types.h"

namespace verdict {

// The previous hash of the first row: 64 hex zeros.
extern const char kGenesisHash[];

struct DecisionLogRow {
  int64_t seq = 0;            // from 1, assigned when written
  int64_t decided_at_us = 0;  // unix microseconds
  std::string request_id;
  std::string agent_id;  // the resolved agent; "" when the subject matched none
  std::string action;
  std::string resource;
  std::string client_ip;
  std::string arguments_json;  // canonical, secrets redacted
  std::string verdict;         // VerdictName: "ALLOW"
  std::string reason;          // ReasonCodeName: "AGENT_REVOKED"
  std::string message;
  std::string matched_permission_id;
  std::string delegation_path_json;  // canonical [{"delegation_id","from_agent_id","to_agent_id"}]
  std::string approval_request_id;
  int64_t latency_us = 0;
  std::string prev_hash;  // hex
  std::string hash;       // hex
};

// Calls text(field) or integer(field) on each field of `row` in the order of the decision
// log's columns (seq, decided_at_us, request_id, agent_id, action, resource, client_ip,
// arguments_json, verdict, reason, message, matched_permission_id, delegation_path_json,
// approval_request_id, latency_us, prev_hash, hash): the one list every store reads its rows
// with (a non-const row) and binds them with (a const row).
//
//   ForEachDecisionLogColumn(row, [&](std::string& field) { field = NextText(); },
//                            [&](int64_t& field) { field = NextInteger(); });
template <typename Row, typename Text, typename Integer>
void ForEachDecisionLogColumn(Row& row, Text text, Integer integer) {
  integer(row.seq);
  integer(row.decided_at_us);
  text(row.request_id);
  text(row.agent_id);
  text(row.action);
  text(row.resource);
  text(row.client_ip);
  text(row.arguments_json);
  text(row.verdict);
  text(row.reason);
  text(row.message);
  text(row.matched_permission_id);
  text(row.delegation_path_json);
  text(row.approval_request_id);
  integer(row.latency_us);
  text(row.prev_hash);
  text(row.hash);
}

// The row for one decision, with secrets redacted from the arguments; seq and hashes unset.
// The subject's token is never part of a row: only the agent it resolved to.
DecisionLogRow MakeDecisionLogRow(const Request& request, const Decision& decision,
                                  absl::Duration latency, absl::Time decided_at);

// Lower-case hex SHA-256 of the canonical JSON of every field but `hash`.
std::string ChainHash(const DecisionLogRow& row);

// Numbers `rows` from `first_seq` and chains them after `previous_hash` (the last stored row's,
// or kGenesisHash): fills each row's seq, prev_hash and hash. Every store appends through it.
void ChainRows(int64_t first_seq, absl::string_view previous_hash,
               std::vector<DecisionLogRow>& rows);

std::string DelegationPathToJson(const std::vector<DelegationHop>& path);
// INVALID_ARGUMENT unless `json` is an array of hops as DelegationPathToJson writes them.
absl::StatusOr<std::vector<DelegationHop>> DelegationPathFromJson(absl::string_view json);

}  // namespace verdict

#endif  // VERDICT_STORE_DECISION_LOG_ROW_H_
