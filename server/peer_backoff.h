// Failures per peer, and the back-off they earn: a peer may fail a few times in a row, then
// waits for a period that doubles with each further failure; a success forgets its failures.
// Bounded: at most max_tracked_peers are remembered (peers not waiting now are forgotten first).
// The one back-off of the admin plane: AdminAuthenticator (server/admin_auth.h) holds two, by
// (peer, principal) and by peer, for secrets; server/admin_sessions.h one for session tokens.
// A "peer" here is whatever key the holder counts by.
//
//   PeerBackoff backoff(clock);
//   if (absl::Status admitted = backoff.Admit(host); !admitted.ok()) return admitted;
//   ok ? backoff.RecordSuccess(host) : backoff.RecordFailure(host);
#ifndef VERDICT_SERVER_PEER_BACKOFF_H_
#define VERDICT_SERVER_PEER_BACKOFF_H_

#include <cstddef>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "decision/authorizer.h"

namespace verdict {

struct PeerBackoffOptions {
  // Failures a peer may make in a row before it has to wait.
  int free_failures = 3;
  // The wait after the first failure beyond those; it doubles up to max_backoff.
  absl::Duration first_backoff = absl::Seconds(1);
  absl::Duration max_backoff = absl::Minutes(5);
  size_t max_tracked_peers = 4096;
};

class PeerBackoff {
 public:
  explicit PeerBackoff(Clock clock, PeerBackoffOptions options = {});

  // OK, or RESOURCE_EXHAUSTED saying how long `peer_host` must still wait: "too many failed
  // admin credentials <who>: retry in 3 s".
  absl::Status Admit(const std::string& peer_host, absl::string_view who = "from this peer")
      ABSL_LOCKS_EXCLUDED(mu_);
  void RecordFailure(const std::string& peer_host) ABSL_LOCKS_EXCLUDED(mu_);
  void RecordSuccess(const std::string& peer_host) ABSL_LOCKS_EXCLUDED(mu_);
  // True when `peer_host` has failed since its last success (and is still remembered).
  bool HasFailed(const std::string& peer_host) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Failures {
    int count = 0;
    absl::Time retry_after = absl::InfinitePast();
  };

  const Clock clock_;
  const PeerBackoffOptions options_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, Failures> failures_ ABSL_GUARDED_BY(mu_);
};

}  // namespace verdict

#endif  // VERDICT_SERVER_PEER_BACKOFF_H_
