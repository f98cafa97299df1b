// Remembers DPoP proof ids (RFC 9449 section 11.1) until the proofs could no longer be accepted
// anyway, so each proof is used once. Bounded: when full of live ids it refuses new ones, since
// forgetting a live id would let its proof be replayed. Thread-safe.
//
//   DpopReplayCache cache(/*capacity=*/65536);
//   if (cache.Record(id, iat + window, now) != DpopReplayCache::Result::kFirstUse) refuse();
#ifndef VERDICT_CRYPTO_DPOP_REPLAY_CACHE_H_
#define VERDICT_CRYPTO_DPOP_REPLAY_CACHE_H_

#include <cstddef>
#include <functional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace verdict {

class DpopReplayCache {
 public:
  enum class Result {
    kFirstUse,  // Recorded now.
    kReplay,    // Recorded before and not yet expired.
    kFull,      // Not recorded: `capacity` ids are live.
  };

  explicit DpopReplayCache(size_t capacity = 65536) : capacity_(capacity) {}
  DpopReplayCache(const DpopReplayCache&) = delete;
  DpopReplayCache& operator=(const DpopReplayCache&) = delete;

  // Records `id` through `expires_at`, the last instant its proof is accepted, first forgetting
  // every id whose expiry is before `now`.
  Result Record(absl::string_view id, absl::Time expires_at, absl::Time now);

  // Live and expired-but-not-yet-forgotten ids.
  size_t size() const;

 private:
  using Expiry = std::pair<absl::Time, std::string>;

  void ForgetExpired(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const size_t capacity_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, absl::Time> expiry_by_id_ ABSL_GUARDED_BY(mu_);
  // Soonest expiry on top; one entry per id in expiry_by_id_.
  std::priority_queue<Expiry, std::vector<Expiry>, std::greater<Expiry>> by_expiry_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace verdict

#endif  // VERDICT_CRYPTO_DPOP_REPLAY_CACHE_H_
