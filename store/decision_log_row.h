// One decision log row, as stored, and the hash that chains it to the row before it.
//
// A row's hash is the SHA-256 of the canonical JSON (common/json.h) of all of its fields,
// including its seq and the previous row's hash, so editing, deleting or reordering a row breaks
// the chain at that row. The first row's previous hash is kGenesisHash.
//
// Every row a process writes also carries its run (one per process that logs) and its place in
// that run: a start marker (run_seq 0) opens the run, decisions are numbered 1, 2, ... in the
// order they were answered (a decision the log could not keep still spends its number), and a
// stop marker closes a clean shutdown. The chain check (store/decision_log_store.h) shows a
// missing number as a gap. Rows written before these columns existed have an empty run_id; their
// hash does not cover the run columns, so they still verify.
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
#include "store/hash_chain.h"

namespace verdict {

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
  // The run that wrote the row ("" on rows from before runs were recorded), the row's number in
  // it (0 for the start marker, the last decision's number for the stop marker), and the
  // highest number the run had given any decision when the row was written: decisions up to it
  // were made (and, with asynchronous durability, answered), so when the run dies the ones
  // among them that never reached the log are named in the gap.
  std::string run_id;
  int64_t run_seq = 0;
  int64_t run_decided = 0;
  // For a decision that used an approved request, the principals who approved it, sorted, as a
  // canonical JSON array (ApprovedByToJson); "" for every other row, and for rows written before
  // the column existed. The hash covers it when it is set, so those rows keep their hash.
  std::string approved_by_json;
};

// A start or stop marker has no verdict; its reason says which.
inline constexpr char kRunStartReason[] = "LOG_RUN_START";
inline constexpr char kRunStopReason[] = "LOG_RUN_STOP";
bool IsRunMarker(const DecisionLogRow& row);

// Who wrote a run, as its start marker says.
struct RunOrigin {
  std::string host;
  int64_t pid = 0;
  std::string durability;  // "async" or "sync"
};

// The start marker of run `run_id` begun by `origin` at `at`; the stop marker of a run whose
// last decision was number `last_run_seq`. seq and hashes unset.
DecisionLogRow MakeRunStartRow(absl::string_view run_id, const RunOrigin& origin, absl::Time at);
DecisionLogRow MakeRunStopRow(absl::string_view run_id, int64_t last_run_seq, absl::Time at);
// The origin a start marker records; INVALID_ARGUMENT when `row` is not one.
absl::StatusOr<RunOrigin> RunOriginOf(const DecisionLogRow& row);

// Calls text(field) or integer(field) on each field of `row` in the order of the decision
// log's columns (seq, decided_at_us, request_id, agent_id, action, resource, client_ip,
// arguments_json, verdict, reason, message, matched_permission_id, delegation_path_json,
// approval_request_id, latency_us, prev_hash, hash, run_id, run_seq, run_decided, approved_by):
// the one list every store reads its rows with (a non-const row) and binds them with (a const
// row).
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
  text(row.run_id);
  integer(row.run_seq);
  integer(row.run_decided);
  text(row.approved_by_json);
}

// The row for one decision, with secrets redacted from the arguments; seq and hashes unset.
// The subject's token is never part of a row: only the agent it resolved to.
DecisionLogRow MakeDecisionLogRow(const Request& request, const Decision& decision,
                                  absl::Duration latency, absl::Time decided_at);

// Lower-case hex SHA-256 of the canonical JSON of every field but `hash` (the run fields only
// when run_id is set, approved_by only when set, so rows written before either existed keep
// their hash).
std::string ChainHash(const DecisionLogRow& row);

// Numbers `rows` from `first_seq` and chains them after `previous_hash` (the last stored row's,
// or kGenesisHash): fills each row's seq, prev_hash and hash (store/hash_chain.h). Every store
// appends through it.
void ChainRows(int64_t first_seq, absl::string_view previous_hash,
               std::vector<DecisionLogRow>& rows);

std::string DelegationPathToJson(const std::vector<DelegationHop>& path);
// "" for no approvers (no approval used), else the canonical JSON array of the names.
std::string ApprovedByToJson(const std::vector<std::string>& approvers);
// The names ApprovedByToJson wrote ("" reads as none); INVALID_ARGUMENT for anything else.
absl::StatusOr<std::vector<std::string>> ApprovedByFromJson(absl::string_view json);
// INVALID_ARGUMENT unless `json` is an array of hops as DelegationPathToJson writes them.
absl::StatusOr<std::vector<DelegationHop>> DelegationPathFromJson(absl::string_view json);

}  // namespace verdict

#endif  // VERDICT_STORE_DECISION_LOG_ROW_H_
