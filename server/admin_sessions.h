// Admin sessions: a principal proves itself once -- its secret, checked by Argon2id, or its
// mapped uid on the admin Unix socket -- and gets a short-lived session token; each later call
// presents "authorization: Bearer vas_..." and is authenticated by one lookup of the token's
// SHA-256 (store/admin_session_store.h), with no Argon2id check.
//
// A token is "vas_" and 32 bytes of BoringSSL's CSPRNG in unpadded base64url, 47 characters;
// only its SHA-256 is stored. A session lasts the TTL asked for (default_ttl when none, at most
// max_ttl), is bound to its principal, and ends early when revoked: a principal revokes its own
// sessions, the principal "admin" anyone's. A principal holds at most max_per_principal
// sessions: one more evicts its oldest (so that a login always works; a holder of the secret
// could make new sessions anyway). A session cannot create another session: that would let a
// stolen token outlive its expiry.
//
// An unknown, expired or revoked token is UNAUTHENTICATED, in the same words; such failures
// count against the peer as a wrong secret does (server/peer_backoff.h), without an Argon2id
// check. No token is ever written to a log, an error message or a metric.
//
//   AdminSessionManager sessions(store, clock);
//   absl::StatusOr<NewAdminSession> made = sessions.Create(actor, absl::ZeroDuration());
//   absl::StatusOr<AdminActor> caller = sessions.Authenticate("uid:1000", made->token);
#ifndef VERDICT_SERVER_ADMIN_SESSIONS_H_
#define VERDICT_SERVER_ADMIN_SESSIONS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "decision/admin/admin_actor.h"
#include "decision/authorizer.h"
#include "server/peer_backoff.h"
#include "store/admin_session_store.h"

namespace verdict {

inline constexpr absl::string_view kSessionTokenPrefix = "vas_";
inline constexpr size_t kSessionTokenLength = 47;
// May revoke every principal's sessions.
inline constexpr absl::string_view kAdminPrincipal = "admin";

struct AdminSessionOptions {
  absl::Duration default_ttl = absl::Hours(1);
  absl::Duration max_ttl = absl::Hours(12);
  int max_per_principal = 100;
  PeerBackoffOptions backoff;
};

// INVALID_ARGUMENT naming the flag unless 0 < default_ttl <= max_ttl <= 7 days and
// max_per_principal is 1..10,000.
absl::Status CheckAdminSessionOptions(const AdminSessionOptions& options);

struct NewAdminSession {
  AdminSession session;
  std::string token;  // shown once, to its creator
};

// True when a bearer credential is meant as a session token (it starts "vas_"); says nothing
// about whether it is one.
bool IsSessionToken(absl::string_view credential);

// `text` with every run of "vas_" and more base64url characters than the prefix replaced by
// "[REDACTED]": for messages that may quote what a caller sent.
std::string RedactSessionTokens(absl::string_view text);

class AdminSessionManager {
 public:
  // `store` must outlive the manager. `options` must pass CheckAdminSessionOptions.
  AdminSessionManager(AdminSessionStore& store, Clock clock, AdminSessionOptions options = {});

  // A new session for `creator`'s principal lasting `ttl` (zero: default_ttl).
  // PERMISSION_DENIED when `creator` was authenticated by a session; INVALID_ARGUMENT for a
  // negative ttl or one over max_ttl; the store's error otherwise.
  absl::StatusOr<NewAdminSession> Create(const AdminActor& creator, absl::Duration ttl);

  // The caller presenting `token` from `peer`: its session's principal, authenticated by a
  // session. UNAUTHENTICATED for a token unknown, expired or revoked; RESOURCE_EXHAUSTED while
  // the peer backs off; UNAVAILABLE when the store cannot be read.
  absl::StatusOr<AdminActor> Authenticate(absl::string_view peer, absl::string_view token);

  // Ends sessions on behalf of `caller`; how many ended. `session_id`: that session, when it is
  // the caller's (any principal's for "admin"). `principal`: all of that principal's sessions
  // (another's only for "admin": PERMISSION_DENIED otherwise). Neither: the session
  // `presented_token` is, the one the call is made with. INVALID_ARGUMENT when both are given,
  // when either is malformed, or when neither is and the call was not made with a session.
  absl::StatusOr<int64_t> Revoke(const AdminActor& caller, absl::string_view presented_token,
                                 absl::string_view session_id, absl::string_view principal);

  const AdminSessionOptions& options() const { return options_; }

 private:
  AdminSessionStore& store_;
  const Clock clock_;
  const AdminSessionOptions options_;
  PeerBackoff backoff_;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_ADMIN_SESSIONS_H_
