// The admin credential check every AdminService call passes first, and the principal each call
// is then judged by (decision/admin/roles.h).
//
// A call presents "authorization: Bearer <secret>" and names its principal in the metadata
// "verdict-principal: <name>" ("admin", the principal --admin_secret_file sets, when it names
// none). The secret is checked against that principal's stored Argon2id hash
// (store/admin_credential_store.h), read fresh on every call: one check per call. An unknown
// principal takes the same time as a wrong secret (BurnVerificationTime) and answers the same
// words, so neither timing nor message tells which principals exist.
//
// Failures are counted per peer and principal: a (peer, principal) that keeps failing is refused
// without a check for a back-off period that doubles with each further failure, and a success
// forgets its failures. So guesses at one principal from one peer lock out neither that principal
// used from another peer nor another principal used from the same peer. A peer that fails across
// many principals is held back as well, after peer_free_failures failures in all.
//
// A peer is a local user on the admin unix socket ("uid:1000", server/unix_socket.h), a host on
// TCP ("ipv4:10.0.0.1"). Argon2id at production parameters holds 64 MiB and tens of milliseconds
// of CPU per check, and on TCP a caller can change its source address for each guess, so the
// checks of all peers together are bounded too: a few at once, and the checks of (peer,
// principal)s that have not passed yet draw on a token bucket of checks per second. When that
// bound is reached, who waits is decided by what the caller itself has done, never by what others
// did: a (peer, principal) whose secret passed (and that has not failed since) goes first and
// needs no token, a new one next (a bounded number of them wait), and one with failures on record
// is refused at once (RESOURCE_EXHAUSTED) rather than wait. So a caller who keeps failing delays
// or refuses only itself and other failing callers.
//
//   AdminAuthenticator auth(credentials, [] { return absl::Now(); });
//   absl::StatusOr<AdminActor> actor = auth.Authenticate(context->peer(), authorization, "carol");
//   // UNAUTHENTICATED, RESOURCE_EXHAUSTED (backing off), or UNAVAILABLE (store)
//   absl::StatusOr<AdminPrincipal> principal = auth.CurrentPrincipal(actor->principal);
//   absl::Status allowed = CheckMayCall("CreateAgent", *principal);
#ifndef VERDICT_SERVER_ADMIN_AUTH_H_
#define VERDICT_SERVER_ADMIN_AUTH_H_

#include <cstddef>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "crypto/secret_hash.h"
#include "decision/admin/admin_actor.h"
#include "decision/admin/roles.h"
#include "decision/authorizer.h"
#include "server/peer_backoff.h"
#include "store/admin_credential_store.h"

namespace verdict {

struct AdminAuthOptions {
  // Failures a (peer, principal) may make in a row before it has to wait.
  int free_failures = 3;
  // Failures a peer may make in a row, whatever the principals it names, before it has to wait.
  int peer_free_failures = 20;
  // The wait after the first failure beyond those; it doubles up to max_backoff.
  absl::Duration first_backoff = absl::Seconds(1);
  absl::Duration max_backoff = absl::Minutes(5);
  // Peers remembered at once. When full, peers not waiting now are forgotten; when all are
  // waiting, a new peer goes untracked (the limit on concurrent checks still holds it back).
  size_t max_tracked_peers = 4096;
  // Checks that may run at the same time.
  int max_concurrent_checks = 2;
  // Checks begun per second, in the long run and in a burst, by peers that have not passed.
  double checks_per_second = 4;
  int check_burst = 8;
  // Peers new to the authenticator that may wait for a check at once (more are refused), and how
  // long any peer waits before it is refused (RESOURCE_EXHAUSTED).
  int max_waiting_new_peers = 8;
  absl::Duration max_check_wait = absl::Seconds(5);
  // Those of the stored hash, so that "no credential" costs what a check costs. Lowered only by
  // tests.
  SecretHashParams hash_params;
};

class AdminAuthenticator {
 public:
  // `credentials` must outlive the authenticator.
  AdminAuthenticator(AdminCredentialStore& credentials, Clock clock, AdminAuthOptions options = {});

  // The caller, when `authorization` is "Bearer " and the secret of the principal named
  // `principal`: that principal, authenticated by its secret, from `peer`. `peer` is gRPC's peer
  // string ("ipv4:10.0.0.1:5555"; the port is ignored, so one host is one peer) or a local user
  // ("uid:1000", server/unix_socket.h's CallerIdentity). A disabled principal passes here: the
  // role check that follows every authentication refuses it (CurrentPrincipal).
  absl::StatusOr<AdminActor> Authenticate(absl::string_view peer, absl::string_view authorization,
                                          absl::string_view principal = kBootstrapPrincipal);

  // The principal `name` as stored now, for the role check that follows every authentication,
  // whatever its method (a session or a peer uid too). PERMISSION_DENIED when it no longer
  // exists; UNAVAILABLE when the store cannot be read.
  absl::StatusOr<AdminPrincipal> CurrentPrincipal(absl::string_view name);

  // Where the principals are kept, for the calls that manage them.
  AdminCredentialStore& credentials() { return credentials_; }
  // The parameters a new principal's secret is hashed with.
  const SecretHashParams& hash_params() const { return options_.hash_params; }

  // Peers waiting for a check now (for tests and metrics).
  int WaitingPeers() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  // How much a peer's check may wait for the global bound, by what that peer has done.
  enum class Standing { kPassedBefore, kNew, kFailing };

  // Takes a check slot and a token for the caller (`key`: its peer and principal), waiting when
  // its standing allows; RESOURCE_EXHAUSTED when it may not wait, or waited max_check_wait.
  absl::Status AdmitCheck(const std::string& key);
  // The peer may take a free slot and token now: no peer of a better standing waits.
  bool MayRunNow(Standing standing) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RefillTokens(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  struct SecretCheck {
    bool matches = false;  // the secret is the principal's
    bool enabled = false;  // and the principal is enabled
  };
  // Whether the presented secret is the principal's, at the cost of one Argon2id check, run in
  // the slot AdmitCheck took (and given back here).
  absl::StatusOr<SecretCheck> SecretMatches(absl::string_view principal, absl::string_view secret);
  // Counts a failure of the caller `key` and of its peer `peer_host`.
  void RecordFailure(const std::string& key, const std::string& peer_host);

  AdminCredentialStore& credentials_;
  const Clock clock_;
  const AdminAuthOptions options_;

  // Failures by caller (peer and principal), and by peer whatever the principal: the back-off
  // session tokens have too (server/peer_backoff.h). Locked after mu_ when both are.
  PeerBackoff caller_backoff_;
  PeerBackoff peer_backoff_;

  absl::Mutex mu_;
  absl::CondVar check_done_;  // a slot was given back
  // Callers whose secret passed and that have not failed since (at most max_tracked_peers).
  absl::flat_hash_set<std::string> passed_ ABSL_GUARDED_BY(mu_);
  int checks_running_ ABSL_GUARDED_BY(mu_) = 0;
  double tokens_ ABSL_GUARDED_BY(mu_);
  absl::Time tokens_updated_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  int waiting_passed_ ABSL_GUARDED_BY(mu_) = 0;
  int waiting_new_ ABSL_GUARDED_BY(mu_) = 0;
};

// "ipv4:10.0.0.1" for "ipv4:10.0.0.1:5555", "ipv6:[::1]" for "ipv6:[::1]:5555"; other peers
// ("unix:/run/verdict.sock") as they are.
std::string PeerHost(absl::string_view peer);

}  // namespace verdict

#endif  // VERDICT_SERVER_ADMIN_AUTH_H_
