#include "server/peer_backoff.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"

namespace verdict {

PeerBackoff::PeerBackoff(Clock clock, PeerBackoffOptions options)
    : clock_(std::move(clock)), options_(options) {}

absl::Status PeerBackoff::Admit(const std::string& peer_host, absl::string_view who) {
  absl::MutexLock lock(&mu_);
  auto it = failures_.find(peer_host);
  const absl::Time now = clock_();
  if (it == failures_.end() || now >= it->second.retry_after) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat(
      "too many failed admin credentials ", who, ": retry in ",
      absl::ToInt64Seconds(absl::Ceil(it->second.retry_after - now, absl::Seconds(1))), " s"));
}

void PeerBackoff::RecordFailure(const std::string& peer_host) {
  const absl::Time now = clock_();
  absl::MutexLock lock(&mu_);
  if (!failures_.contains(peer_host) && failures_.size() >= options_.max_tracked_peers) {
    absl::erase_if(failures_, [now](const auto& entry) { return entry.second.retry_after <= now; });
    // Every tracked peer waits: the new one goes untracked rather than free one of them.
    if (failures_.size() >= options_.max_tracked_peers) return;
  }
  Failures& failures = failures_[peer_host];
  ++failures.count;
  const int doublings = failures.count - options_.free_failures;
  if (doublings < 0) return;
  failures.retry_after =
      now + std::min(options_.first_backoff * (int64_t{1} << std::min(doublings, 30)),
                     options_.max_backoff);
}

bool PeerBackoff::HasFailed(const std::string& peer_host) {
  absl::MutexLock lock(&mu_);
  auto it = failures_.find(peer_host);
  return it != failures_.end() && it->second.count > 0;
}

void PeerBackoff::RecordSuccess(const std::string& peer_host) {
  absl::MutexLock lock(&mu_);
  failures_.erase(peer_host);
}

}  // namespace verdict
