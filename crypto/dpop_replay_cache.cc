#include "crypto/dpop_replay_cache.h"

namespace verdict {

DpopReplayCache::Result DpopReplayCache::Record(absl::string_view id, absl::Time expires_at,
                                                absl::Time now) {
  absl::MutexLock lock(&mu_);
  ForgetExpired(now);
  if (expiry_by_id_.contains(id)) return Result::kReplay;
  if (expiry_by_id_.size() >= capacity_) return Result::kFull;
  expiry_by_id_.emplace(id, expires_at);
  by_expiry_.emplace(expires_at, std::string(id));
  return Result::kFirstUse;
}

size_t DpopReplayCache::size() const {
  absl::MutexLock lock(&mu_);
  return expiry_by_id_.size();
}

void DpopReplayCache::ForgetExpired(absl::Time now) {
  // An id's expiry is the last instant its proof is accepted (crypto/dpop.cc accepts a proof
  // exactly iat_window old), so the id is remembered through that instant.
  while (!by_expiry_.empty() && by_expiry_.top().first < now) {
    expiry_by_id_.erase(by_expiry_.top().second);
    by_expiry_.pop();
  }
}

}  // namespace verdict
