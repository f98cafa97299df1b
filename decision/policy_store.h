// The store as the decision path sees it: snapshots to read, and a write transaction for the
// few decisions that must write (a rate-limit slot, an approval request).
//
//   absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store.BeginRead();
//   ... engine.Decide(request, **snapshot, now) ...
//   // The snapshot's read transaction ends when it is destroyed.
#ifndef VERDICT_DECISION_POLICY_STORE_H_
#define VERDICT_DECISION_POLICY_STORE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "decision/policy_view.h"
#include "decision/types.h"

namespace verdict {

// One read transaction. Ends (and returns its connection) when destroyed.
class ReadSnapshot : public PolicyView {};

// One write transaction that serialises with every other writer (SQLite BEGIN IMMEDIATE).
// Reads inside it see the latest committed state. Rolled back when destroyed uncommitted.
class WriteTransaction : public PolicyView {
 public:
  // Counts one call against spend.permission_id in spend's window. A store may forget this
  // permission's counts of windows that began more than spend.window_seconds before spend's
  // (the engine reads only the current window): a store that keeps them grows without end.
  // The previous window is kept, for sidecars whose clocks differ by less than a window.
  virtual absl::Status SpendRate(const RateSpend& spend) = 0;
  // Opens a pending approval request and returns its id.
  virtual absl::StatusOr<std::string> OpenApproval(const ApprovalToOpen& approval,
                                                   absl::Time now) = 0;
  // Marks an approved request used, so it allows exactly one call.
  virtual absl::Status UseApproval(absl::string_view approval_id, absl::Time now) = 0;
  // The distinct principals who voted to approve the request, sorted by name.
  virtual absl::StatusOr<std::vector<std::string>> ApproversOf(absl::string_view approval_id) = 0;
  virtual absl::Status Commit() = 0;
};

class PolicyStore {
 public:
  virtual ~PolicyStore() = default;
  // Errors are UNAVAILABLE when the store cannot be reached or read.
  virtual absl::StatusOr<std::unique_ptr<ReadSnapshot>> BeginRead() = 0;
  virtual absl::StatusOr<std::unique_ptr<WriteTransaction>> BeginWrite() = 0;
};

}  // namespace verdict

#endif  // VERDICT_DECISION_POLICY_STORE_H_
