// The admin credential check every AdminService call passes first.
//
// A call presents "authorization: Bearer <secret>"; the secret is checked against the stored
// Argon2id hash (store/admin_credential_store.h), read fresh on every call. The check takes the
// same time whether or not a credential is stored (BurnVerificationTime), and answers the same
// words. A peer that keeps failing is refused without a check for a back-off period that doubles
// with each further failure; a success forgets its failures. Argon2id at production parameters
// holds 64 MiB per check, so only a few checks run at once.
//
//   AdminAuthenticator auth(credentials, [] { return absl::Now(); });
//   absl::Status s = auth.Authenticate(context->peer(), authorization_header);
//   // UNAUTHENTICATED, RESOURCE_EXHAUSTED (backing off), or UNAVAILABLE (store)
#ifndef VERDICT_SERVER_ADMIN_AUTH_H_
#define VERDICT_SERVER_ADMIN_AUTH_H_

#include <cstddef>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "crypto/secret_hash.h"
#include "decision/authorizer.h"
#include "store/admin_credential_store.h"

namespace verdict {

struct AdminAuthOptions {
  // Failures a peer may make in a row before it has to wait.
  int free_failures = 3;
  // The wait after the first failure beyond those; it doubles up to max_backoff.
  absl::Duration first_backoff = absl::Seconds(1);
  absl::Duration max_backoff = absl::Minutes(5);
  // Peers remembered at once. When full, peers not waiting now are forgotten; when all are
  // waiting, a new peer goes untracked (the limit on concurrent checks still holds it back).
  size_t max_tracked_peers = 4096;
  // Checks that may run at the same time.
  int max_concurrent_checks = 2;
  // Those of the stored hash, so that "no credential" costs what a check costs. Lowered only by
  // tests.
  SecretHashParams hash_params;
};

class AdminAuthenticator {
 public:
  // `credentials` must outlive the authenticator.
  AdminAuthenticator(AdminCredentialStore& credentials, Clock clock, AdminAuthOptions options = {});

  // OK when `authorization` is "Bearer " and the admin secret. `peer` is gRPC's peer string
  // ("ipv4:10.0.0.1:5555", "unix:"); the port is ignored, so one host is one peer.
  absl::Status Authenticate(absl::string_view peer, absl::string_view authorization);

 private:
  struct PeerFailures {
    int count = 0;
    absl::Time retry_after = absl::InfinitePast();
  };

  // Whether the presented secret is the admin secret, at the cost of one Argon2id check.
  absl::StatusOr<bool> SecretMatches(absl::string_view secret);
  void RecordFailure(const std::string& peer_host, absl::Time now);
  void ForgetIdlePeers(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  AdminCredentialStore& credentials_;
  const Clock clock_;
  const AdminAuthOptions options_;

  absl::Mutex mu_;
  absl::flat_hash_map<std::string, PeerFailures> failures_ ABSL_GUARDED_BY(mu_);
  int checks_running_ ABSL_GUARDED_BY(mu_) = 0;
};

// "ipv4:10.0.0.1" for "ipv4:10.0.0.1:5555", "ipv6:[::1]" for "ipv6:[::1]:5555"; other peers
// ("unix:/run/verdict.sock") as they are.
std::string PeerHost(absl::string_view peer);

}  // namespace verdict

#endif  // VERDICT_SERVER_ADMIN_AUTH_H_
