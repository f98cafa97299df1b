// Decoding the decision_records table (migration 4, store/migrations.cc): one row per agent with
// the agent, its own permissions and the active delegations into it, kept in step with those
// tables by triggers, so one primary-key search gives a decision everything it needs to know
// about one agent.
//
// Each column is a list of records of a fixed number of fields; a field is its length in bytes,
// a colon and its bytes ("6:active"), or "-" for NULL. Text that does not decode was written by
// something else or is damaged: INTERNAL, never a guess (the caller fails closed). A list cut
// exactly between two records still decodes, as the shorter list: a column carries no count of
// its records. Within SQLite's row that damage is a shorter length for `permissions`, which
// moves the start of `delegations_into` after it, and that column then all but surely fails to
// decode; a shorter `delegations_into` (the last column) only loses grants. A count per column
// would close it outright, at the cost of a migration of the triggers
// (store/decision_record_sql.h) and of every stored row.
//
//   absl::StatusOr<Agent> agent = DecodeAgentRecord(row_text);
//   absl::StatusOr<std::vector<Permission>> own = DecodePermissionRecords(permissions_text);
#ifndef VERDICT_STORE_DECISION_RECORD_H_
#define VERDICT_STORE_DECISION_RECORD_H_

#include <deque>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "decision/types.h"

namespace verdict {

// One row of decision_records as stored: each column still encoded.
struct DecisionRecord {
  std::string agent;
  std::string permissions;
  std::string delegations_into;
};

// The agent's columns, in store/row_readers.h's order.
absl::StatusOr<Agent> DecodeAgentRecord(absl::string_view text);

// Its own permissions, in creation order.
absl::StatusOr<std::vector<Permission>> DecodePermissionRecords(absl::string_view text);

// Whether any of its own permissions allows (what makes it the origin of a delegation chain),
// read from the effect fields alone: a delegator's rights need no decoding for this. The whole
// list is framed: damage anywhere is INTERNAL, even after an allow.
absl::StatusOr<bool> AnyAllowPermissionRecord(absl::string_view text);

// The delegations into it whose status is active, in creation order, less those expired at
// `now`.
absl::StatusOr<std::vector<Delegation>> DecodeDelegationRecords(absl::string_view text,
                                                                absl::Time now);

// One connection's decoding workspace: the decision records a transaction has read and the rows
// decoded from them, kept for their memory. Each transaction overwrites what an earlier one
// left, strings and vectors in place, so a warm connection reads and decodes without
// allocating; nothing left from an earlier transaction is ever read (Reset forgets it all).
//
//   records.Reset();  // a new transaction: every earlier pointer and span is invalid
//   const DecodedRecords::Kept* kept = records.Find("agt_1");
//   if (kept == nullptr) { DecodedRecords::Kept& slot = records.Add("agt_1"); ... }
//   absl::StatusOr<absl::Span<const Permission>> own =
//   records.Permissions(kept->record.permissions);
class DecodedRecords {
 public:
  // An agent's row as read in this transaction; one that does not exist is kept too.
  struct Kept {
    std::string agent_id;
    bool exists = false;
    DecisionRecord record;  // still encoded
    Agent agent;            // decoded when it exists
  };

  // Forgets everything read and decoded so far (keeping the memory).
  void Reset();

  // The row kept for `agent_id` in this transaction, or nullptr.
  const Kept* Find(absl::string_view agent_id) const;
  // A slot for another agent's row, named `agent_id`, not existing until the caller says so;
  // its record and agent hold leftovers for the caller to overwrite. Valid until the next Reset.
  // A row read before its agent is known (a token's, whose agent its decoding names) takes a
  // slot named "", which Find never answers, and is named once decoded.
  Kept& Add(absl::string_view agent_id);
  // Takes back the slot Add gave last, when it could not be filled.
  void ForgetLast();

  // Decoded rows, valid until the next Reset.
  absl::StatusOr<absl::Span<const Permission>> Permissions(absl::string_view text);
  // Those of the permissions that may match `resource`, in creation order: every one whose
  // pattern matches it (decision/resource_match.h), and any whose pattern is empty, which does
  // not decode. The others are framed and ordered but not decoded: a request for one resource
  // of an agent's many pays for the few that concern it.
  absl::StatusOr<absl::Span<const Permission>> PermissionsThatMayMatch(absl::string_view text,
                                                                       absl::string_view resource);
  absl::StatusOr<absl::Span<const Delegation>> Delegations(absl::string_view text, absl::Time now);

 private:
  std::vector<Permission>& NextPermissionList();

  // Deques, so that taking another slot moves none of those handed out.
  std::deque<Kept> kept_;
  size_t kept_used_ = 0;
  std::deque<std::vector<Permission>> permission_lists_;
  size_t permission_lists_used_ = 0;
  std::deque<std::vector<Delegation>> delegation_lists_;
  size_t delegation_lists_used_ = 0;
};

// Decodes an agent's encoded columns into `agent`, overwriting it.
absl::Status DecodeAgentRecordInto(absl::string_view text, Agent& agent);

}  // namespace verdict

#endif  // VERDICT_STORE_DECISION_RECORD_H_
