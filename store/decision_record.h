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

// The delegations into it whose status is active, in creation order, less those expired at
// `now`.
absl::StatusOr<std::vector<Delegation>> DecodeDelegationRecords(absl::string_view text,
                                                                absl::Time now);

// The same decoding into rows kept for their memory: a connection's transactions decode into
// the rows its earlier ones used, overwriting their strings and vectors in place, so a warm
// connection decodes without allocating. Nothing in them is read before it is overwritten.
//
//   records.Reset();  // a new transaction: every earlier span is invalid
//   absl::StatusOr<absl::Span<const Permission>> own = records.Permissions(text);
class DecodedRecords {
 public:
  // Forgets the rows decoded so far (keeping their memory); the spans handed out die.
  void Reset();

  // Spans valid until the next Reset.
  absl::StatusOr<absl::Span<const Permission>> Permissions(absl::string_view text);
  absl::StatusOr<absl::Span<const Delegation>> Delegations(absl::string_view text, absl::Time now);

 private:
  // A deque, so that taking another list moves none of those handed out.
  std::deque<std::vector<Permission>> permission_lists_;
  size_t permission_lists_used_ = 0;
  std::deque<std::vector<Delegation>> delegation_lists_;
  size_t delegation_lists_used_ = 0;
};

}  // namespace verdict

#endif  // VERDICT_STORE_DECISION_RECORD_H_
