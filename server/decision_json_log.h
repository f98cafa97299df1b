// Structured decision logs: one JSON line per Authorize decision, for a log collector reading
// the container's output. Secrets never appear: the subject's token is reduced to its display
// prefix (crypto/token.h), secret-bearing argument values are redacted
// (common/redaction.h), and the token is scrubbed from the message too.
//
//   absl::StatusOr<std::unique_ptr<DecisionJsonLog>> log =
//       DecisionJsonLog::Open("-", [] { return absl::Now(); });  // "-": standard output
//   Authorizer authorizer(store, clock, log->get());
//
// A line looks like (one line, wrapped here):
//   {"ts":"2026-11-30T10:00:00.000123Z","event":"decision","request_id":"r-1",
//    "agent_id":"agt_reader","subject":"token","token_prefix":"vdt_AbCdEfGh","action":"read",
//    "resource":"docs:guide:1","client_ip":"10.0.0.7","arguments":{"password":"[REDACTED]"},
//    "verdict":"ALLOW","reason":"ALLOWED","message":"...","permission_id":"perm_1",
//    "delegation_path":[],"approval_request_id":"","approved_by":[],"latency_us":212}
#ifndef VERDICT_SERVER_DECISION_JSON_LOG_H_
#define VERDICT_SERVER_DECISION_JSON_LOG_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "decision/authorizer.h"
#include "decision/types.h"
#include "store/decision_log_writer.h"

namespace verdict {

// The JSON line for one decision, without the trailing newline. With a `position` (the decision
// log's run and number for the decision, store/decision_log_writer.h) the line carries
// "run_id" and "run_seq" too, so a reader sees the same gaps as the decision log's check.
std::string DecisionJsonLine(const Request& request, const Decision& decision,
                             absl::Duration latency, absl::Time at,
                             const DecisionLogPosition* position = nullptr);

class DecisionJsonLog : public DecisionObserver {
 public:
  // Appends to the file at `path` (created 0640 when missing), or writes to standard output
  // when `path` is "-".
  static absl::StatusOr<std::unique_ptr<DecisionJsonLog>> Open(const std::string& path,
                                                               Clock clock);

  // Writes to `fd`; closes it when destroyed only if `owns_fd`.
  DecisionJsonLog(int fd, bool owns_fd, Clock clock);
  ~DecisionJsonLog() override;

  DecisionJsonLog(const DecisionJsonLog&) = delete;
  DecisionJsonLog& operator=(const DecisionJsonLog&) = delete;

  // Writes the line whole (one write per line unless the descriptor takes less); called on
  // gRPC's threads, concurrently. Never refuses the decision: a line not written is counted.
  absl::Status OnDecision(const Request& request, const Decision& decision,
                          absl::Duration latency) override;
  // OnDecision with the decision log position the line names (nullptr: none).
  void Write(const Request& request, const Decision& decision, absl::Duration latency,
             const DecisionLogPosition* position);

  // Lines that could not be written (a full disk, a closed pipe).
  uint64_t lines_failed() const { return lines_failed_.load(std::memory_order_relaxed); }

 private:
  const int fd_;
  const bool owns_fd_;
  const Clock clock_;
  absl::Mutex write_mu_;
  // The last line's write stopped part way: the next one starts with a newline.
  bool line_cut_short_ ABSL_GUARDED_BY(write_mu_) = false;
  std::atomic<uint64_t> lines_failed_{0};
};

// Both decision logs as one observer: each decision is numbered in the decision log's run
// and its JSON line carries that number (with --decision_log_durability=sync, once the row is
// committed; a decision whose row is not kept then gets no line, and is refused).
class NumberedDecisionLogs final : public DecisionObserver {
 public:
  // Both must outlive this observer.
  NumberedDecisionLogs(DecisionLogWriter& writer, DecisionJsonLog& json_log)
      : writer_(writer), json_log_(json_log) {}

  absl::Status OnDecision(const Request& request, const Decision& decision,
                          absl::Duration latency) override;

 private:
  DecisionLogWriter& writer_;
  DecisionJsonLog& json_log_;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_DECISION_JSON_LOG_H_
