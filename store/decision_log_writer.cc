#include "store/decision_log_writer.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "store/decision_log_row.h"
#include "store/ids.h"

namespace verdict {
namespace {

// What a queued decision costs in memory, near enough to bound the queue by bytes.
size_t ApproximateBytes(const Request& request, const Decision& decision) {
  return sizeof(Request) + sizeof(Decision) + request.subject.agent_id.size() +
         request.subject.token.size() + request.action.size() + request.resource.size() +
         request.client_ip.size() + request.arguments_json.size() + request.request_id.size() +
         decision.message.size() + decision.agent_id.size() +
         decision.delegation_path.size() * sizeof(DelegationHop) +
         (decision.matched_grant ? decision.matched_grant->constraints_json.size() : 0);
}

std::string HostName() {
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) return "";
  return host;
}

}  // namespace

absl::string_view DecisionLogDurabilityName(DecisionLogDurability durability) {
  return durability == DecisionLogDurability::kSync ? "sync" : "async";
}

DecisionLogWriter::DecisionLogWriter(std::unique_ptr<DecisionLogStore> log, Clock clock,
                                     DecisionLogWriterOptions options)
    : log_(std::move(log)),
      clock_(std::move(clock)),
      options_(options),
      run_id_(NewId("run_")),
      origin_{HostName(), static_cast<int64_t>(getpid()),
              std::string(DecisionLogDurabilityName(options.durability))} {
  {
    absl::MutexLock lock(&mu_);
    queue_.push_back(Pending{Kind::kStart, 0, {}, {}, {}, clock_(), 0});
    ++enqueued_;
  }
  writer_ = std::thread([this] { WriteUntilShutdown(); });
}

DecisionLogWriter::~DecisionLogWriter() { Shutdown(); }

absl::Status DecisionLogWriter::OnDecision(const Request& request, const Decision& decision,
                                           absl::Duration latency) {
  return Record(request, decision, latency).kept;
}

DecisionLogPosition DecisionLogWriter::Record(const Request& request, const Decision& decision,
                                              absl::Duration latency) {
  const size_t bytes = ApproximateBytes(request, decision);
  const absl::Time decided_at = clock_();
  const bool sync = options_.durability == DecisionLogDurability::kSync;
  DecisionLogPosition position{run_id_, 0, absl::OkStatus()};
  // kSync's answer waits for the row; a row that is not kept holds the answer back.
  auto not_kept = [&](absl::string_view why) {
    if (sync) {
      position.kept = absl::UnavailableError(
          absl::StrCat("the decision log did not keep this decision (", why,
                       "); with --decision_log_durability=sync it is not answered"));
    }
    return position;
  };
  SyncWait wait;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) {
      ++counters_.dropped;  // after the stop marker: no number to miss
      return not_kept("the decision log has shut down");
    }
    // A dropped decision spends its number too: the chain check shows it missing.
    position.run_seq = ++decided_;
    if (queue_.size() >= options_.max_queued_rows ||
        queued_bytes_ + bytes > options_.max_queued_bytes) {
      ++counters_.dropped;
      return not_kept("its queue is full");
    }
    queue_.push_back(Pending{Kind::kDecision, position.run_seq, request, decision, latency,
                             decided_at, bytes, sync ? &wait : nullptr});
    queued_bytes_ += bytes;
    ++enqueued_;
  }
  if (!sync) return position;
  AwaitFinished(wait);
  if (!wait.status.ok()) {
    return not_kept(absl::StrCat("its row was refused: ", wait.status.message()));
  }
  return position;
}

void DecisionLogWriter::AwaitFinished(SyncWait& wait) {
  absl::MutexLock lock(&finished_mu_);
  while (!wait.finished) finished_cv_.Wait(&finished_mu_);
}

void DecisionLogWriter::Flush() {
  absl::MutexLock lock(&mu_);
  const uint64_t target = enqueued_;
  auto done = [this, target]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return finished_ >= target; };
  mu_.Await(absl::Condition(&done));
}

void DecisionLogWriter::Shutdown() {
  {
    absl::MutexLock lock(&mu_);
    if (!stopping_) {
      stopping_ = true;
      queue_.push_back(Pending{Kind::kStop, decided_, {}, {}, {}, clock_(), 0});
      ++enqueued_;
    }
  }
  if (writer_.joinable()) writer_.join();
}

DecisionLogCounters DecisionLogWriter::counters() const {
  absl::MutexLock lock(&mu_);
  return counters_;
}

bool DecisionLogWriter::HasWorkOrStopping() const { return !queue_.empty() || stopping_; }

void DecisionLogWriter::WriteUntilShutdown() {
  for (;;) {
    std::vector<Pending> batch;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(this, &DecisionLogWriter::HasWorkOrStopping));
      if (queue_.empty()) return;  // stopping, and everything is written
      while (!queue_.empty() && batch.size() < options_.max_batch_rows) {
        queued_bytes_ -= queue_.front().bytes;
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    // Redaction happens here, off the decision path (hashing in Append).
    std::vector<DecisionLogRow> rows;
    rows.reserve(batch.size());
    size_t decisions = 0;
    for (const Pending& pending : batch) {
      rows.push_back(RowFor(pending));
      if (pending.kind == Kind::kDecision) ++decisions;
    }
    // A refused batch is tried again, retry_delay apart (a lock another process holds past the
    // busy timeout passes), and its rows are given up only after max_batch_attempts. Once
    // shutting down it is tried once: every attempt may wait out the busy timeout, and a drain
    // must end.
    const int attempts = std::max(1, options_.max_batch_attempts);
    absl::Status status;
    for (int attempt = 1;; ++attempt) {
      // Every row says how far the run's numbering had gone when it was written, as late as
      // can be: if the process dies before the decisions made meanwhile are written, the chain
      // check names them.
      int64_t decided;
      {
        absl::MutexLock lock(&mu_);
        decided = decided_;
      }
      for (DecisionLogRow& row : rows) row.run_decided = decided;
      status = log_->Append(rows);
      if (status.ok()) break;
      LogWarning(absl::StrCat("verdict: decision log: ", rows.size(), " rows not written (attempt ",
                              attempt, " of ", attempts, "): ", status.ToString()));
      if (attempt >= attempts || Stopping()) break;
      PauseUnlessStopping();
    }
    {
      absl::MutexLock lock(&mu_);
      (status.ok() ? counters_.written : counters_.failed) += decisions;
      finished_ += rows.size();
    }
    // One wake-up for the whole batch's waiters (kSync), each told whether its row is kept.
    absl::MutexLock lock(&finished_mu_);
    bool waited_for = false;
    for (const Pending& pending : batch) {
      if (pending.wait == nullptr) continue;
      pending.wait->status = status;
      pending.wait->finished = true;
      waited_for = true;
    }
    if (waited_for) finished_cv_.SignalAll();
  }
}

DecisionLogRow DecisionLogWriter::RowFor(const Pending& pending) const {
  DecisionLogRow row;
  switch (pending.kind) {
    case Kind::kStart:
      row = MakeRunStartRow(run_id_, origin_, pending.decided_at);
      break;
    case Kind::kStop:
      row = MakeRunStopRow(run_id_, pending.run_seq, pending.decided_at);
      break;
    case Kind::kDecision:
      row = MakeDecisionLogRow(pending.request, pending.decision, pending.latency,
                               pending.decided_at);
      row.run_id = run_id_;
      row.run_seq = pending.run_seq;
      break;
  }
  return row;
}

bool DecisionLogWriter::Stopping() const {
  absl::MutexLock lock(&mu_);
  return stopping_;
}

void DecisionLogWriter::PauseUnlessStopping() {
  absl::MutexLock lock(&mu_);
  // Wakes early on Shutdown, which then drains without pausing.
  auto stopping = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_; };
  mu_.AwaitWithTimeout(absl::Condition(&stopping), options_.retry_delay);
}

}  // namespace verdict
