// The admin audit log (issue 18 item 4): one hash-chained row (store/admin_audit_row.h) per admin
// write, successful or refused, on either database.
//
// A successful write's row is appended inside the write's own transaction
// (AppendAdminAuditRow, through app/admin_transaction.h), so the change and its author commit
// together; a refused call's row in a transaction of its own (AdminAuditLog::Append). Every
// append runs in a kWrite transaction, which serialises all admin writes across processes, and
// continues the chain from the log's state row (the last seq and hash ever written, and where
// pruning left the chain's start), so rows deleted from either end stay detectable.
//
//   absl::StatusOr<std::unique_ptr<AdminAuditLog>> log = OpenAdminAuditLog(db);  // open_store.h
//   (*log)->Append(row);                                     // fills seq, prev_hash, hash
//   absl::StatusOr<AdminAuditPage> page = (*log)->Query({.object_id = "agt_1"}, 50, "");
//   absl::StatusOr<AdminAuditVerification> v = (*log)->Verify();
#ifndef VERDICT_STORE_ADMIN_AUDIT_LOG_H_
#define VERDICT_STORE_ADMIN_AUDIT_LOG_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "store/admin_audit_row.h"
#include "store/connection.h"

namespace verdict {

// Every set member must match; unset members match everything.
struct AdminAuditFilter {
  std::string principal;
  std::string object_id;            // one of the row's objects (by its index)
  std::string call;                 // "RevokeAgent"
  std::optional<absl::Time> since;  // recorded at or after
  std::optional<absl::Time> until;  // recorded before
};

struct AdminAuditPage {
  std::vector<AdminAuditRow> rows;  // ascending by seq
  std::string next_page_token;      // "" on the last page
};

struct AdminAuditVerification {
  bool intact = true;
  int64_t rows_checked = 0;
  // When broken: the first seq at which the stored rows differ from what was written, and why.
  int64_t first_bad_seq = 0;
  std::string problem;
  // The chain starts after this row: those up to it were pruned (0: none were).
  int64_t pruned_through_seq = 0;
};

// How long rows are kept, and how many at most; pruning removes the oldest rows first, at most
// `batch` per run.
struct AdminAuditRetention {
  absl::Duration max_age = absl::Hours(24 * 400);
  int64_t max_rows = 10'000'000;
  int64_t batch = 1000;
};

inline constexpr int kDefaultAdminAuditPageSize = 50;
inline constexpr int kMaxAdminAuditPageSize = 1000;

// Appends `row` inside the caller's kWrite transaction on `connection`: fills its seq,
// prev_hash and hash, and indexes its objects.
absl::Status AppendAdminAuditRow(Connection& connection, AdminAuditRow& row);

class AdminAuditLog {
 public:
  // The log in `database`, whose connections connect (and migrate) on first use.
  explicit AdminAuditLog(std::unique_ptr<Database> database);

  // Appends `row` in a transaction of its own (a refused call's row).
  absl::Status Append(AdminAuditRow& row);

  // page_size 0 means the default; larger than the maximum means the maximum. A page token
  // comes from a previous page of the same query; anything else is INVALID_ARGUMENT.
  absl::StatusOr<AdminAuditPage> Query(const AdminAuditFilter& filter, int page_size,
                                       absl::string_view page_token);

  // Recomputes every row's hash in one read snapshot, from where pruning left the chain's start
  // to the last seq ever written. A broken chain is an answer (intact=false), not an error.
  absl::StatusOr<AdminAuditVerification> Verify();

  // Deletes the oldest rows recorded before `now` - retention.max_age, and the oldest beyond
  // retention.max_rows, at most retention.batch of them, from the start of the chain only, and
  // records the last one deleted as the chain's new start: the rest still verifies. The number
  // of rows deleted. INVALID_ARGUMENT for a retention out of range.
  absl::StatusOr<int64_t> Prune(const AdminAuditRetention& retention, absl::Time now);

 private:
  const std::unique_ptr<Database> database_;
};

// INVALID_ARGUMENT naming the member out of range (max_age and max_rows positive, batch 1 to
// 100,000).
absl::Status CheckAdminAuditRetention(const AdminAuditRetention& retention);

}  // namespace verdict

#endif  // VERDICT_STORE_ADMIN_AUDIT_LOG_H_
