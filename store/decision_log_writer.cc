#include "store/decision_log_writer.h"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "store/decision_log_row.h"

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

}  // namespace

DecisionLogWriter::DecisionLogWriter(std::unique_ptr<DecisionLogStore> log, Clock clock,
                                     DecisionLogWriterOptions options)
    : log_(std::move(log)), clock_(std::move(clock)), options_(options) {
  writer_ = std::thread([this] { WriteUntilShutdown(); });
}

DecisionLogWriter::~DecisionLogWriter() { Shutdown(); }

void DecisionLogWriter::OnDecision(const Request& request, const Decision& decision,
                                   absl::Duration latency) {
  const size_t bytes = ApproximateBytes(request, decision);
  const absl::Time decided_at = clock_();
  absl::MutexLock lock(&mu_);
  if (stopping_ || queue_.size() >= options_.max_queued_rows ||
      queued_bytes_ + bytes > options_.max_queued_bytes) {
    ++counters_.dropped;
    return;
  }
  queue_.push_back(Pending{request, decision, latency, decided_at, bytes});
  queued_bytes_ += bytes;
  ++enqueued_;
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
    stopping_ = true;
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
    // Redaction and hashing happen here, off the decision path.
    std::vector<DecisionLogRow> rows;
    rows.reserve(batch.size());
    for (const Pending& pending : batch) {
      rows.push_back(MakeDecisionLogRow(pending.request, pending.decision, pending.latency,
                                        pending.decided_at));
    }
    // A refused batch is tried again, retry_delay apart (a lock another process holds past the
    // busy timeout passes), and its rows are given up only after max_batch_attempts. Once
    // shutting down it is tried once: every attempt may wait out the busy timeout, and a drain
    // must end.
    const int attempts = std::max(1, options_.max_batch_attempts);
    absl::Status status;
    for (int attempt = 1;; ++attempt) {
      status = log_->Append(rows);
      if (status.ok()) break;
      std::fprintf(stderr, "verdict: decision log: %zu rows not written (attempt %d of %d): %s\n",
                   rows.size(), attempt, attempts, status.ToString().c_str());
      if (attempt >= attempts || Stopping()) break;
      PauseUnlessStopping();
    }
    absl::MutexLock lock(&mu_);
    (status.ok() ? counters_.written : counters_.failed) += rows.size();
    finished_ += rows.size();
  }
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
