// Decoding the decision_records table (migration 4, store/migrations.cc): one row per agent with
// the agent, its own permissions and the active delegations into it, kept in step with those
// tables by triggers, so one primary-key search gives a decision everything it needs to know
// about one agent.
//
// Each column is a list of records of a fixed number of fields; a field is its length in bytes,
// a colon and its bytes ("6:active"), or "-" for NULL. Text that does not decode was written by
// something else or is damaged: INTERNAL, never a guess (the caller fails closed).
//
//   absl::StatusOr<Agent> agent = DecodeAgentRecord(row_text);
//   absl::StatusOr<std::vector<Permission>> own = DecodePermissionRecords(permissions_text);
#ifndef VERDICT_STORE_DECISION_RECORD_H_
#define VERDICT_STORE_DECISION_RECORD_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
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

// The delegations into it whose status is active, in creation order, less those expired at
// `now`.
absl::StatusOr<std::vector<Delegation>> DecodeDelegationRecords(absl::string_view text,
                                                                absl::Time now);

}  // namespace verdict

#endif  // VERDICT_STORE_DECISION_RECORD_H_
