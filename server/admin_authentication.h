// Who makes an admin call, by the first of these that applies:
//   1. a local user on the admin Unix socket whose uid --admin_peer_uids maps to a principal
//      (read by SO_PEERCRED: server/unix_socket.h's CallerIdentity "uid:N"; never on TCP, whose
//      peers are hosts): that principal, with no secret;
//   2. "authorization: Bearer vas_...": a session token (server/admin_sessions.h), one lookup;
//   3. otherwise the secret (server/admin_auth.h), one Argon2id check.
// A session token never reaches the secret's check, so it never costs an Argon2id slot.
//
//   AdminAuthentication authentication(&sessions, {{1000, "alice"}});
//   absl::StatusOr<AdminActor> actor = authentication.Authenticate(
//       CallerIdentity(context->peer()), authorization,
//       [&] { return secrets.Authenticate(caller, authorization); });
#ifndef VERDICT_SERVER_ADMIN_AUTHENTICATION_H_
#define VERDICT_SERVER_ADMIN_AUTHENTICATION_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/flags/declare.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "decision/admin/admin_actor.h"
#include "server/admin_sessions.h"

ABSL_DECLARE_FLAG(std::vector<std::string>, admin_peer_uids);
ABSL_DECLARE_FLAG(absl::Duration, admin_session_ttl);
ABSL_DECLARE_FLAG(absl::Duration, admin_session_max_ttl);

namespace verdict {

// The principal each mapped local uid acts as.
using PeerUidPrincipals = absl::flat_hash_map<uid_t, std::string>;

// "UID=principal" entries ("0=admin", "1000=alice") as a map. INVALID_ARGUMENT naming
// --admin_peer_uids for an entry that is not a number, '=' and a name of 1 to 128 printable
// characters without spaces, or a uid given twice.
absl::StatusOr<PeerUidPrincipals> ParsePeerUidPrincipals(const std::vector<std::string>& entries);

struct AdminAuthenticationOptions {
  AdminSessionOptions sessions;
  PeerUidPrincipals peer_uids;
};

// Reads --admin_peer_uids, --admin_session_ttl and --admin_session_max_ttl. Peer uids need a
// unix: admin listener (`on_unix_socket`): INVALID_ARGUMENT otherwise, as for any bad value.
absl::StatusOr<AdminAuthenticationOptions> AdminAuthenticationOptionsFromFlags(bool on_unix_socket);

class AdminAuthentication {
 public:
  // `sessions` (null for none: a "vas_" credential then goes to the secret's check, and fails
  // there) must outlive this.
  AdminAuthentication(AdminSessionManager* sessions, PeerUidPrincipals peer_uids)
      : sessions_(sessions), peer_uids_(std::move(peer_uids)) {}

  using BySecret = absl::FunctionRef<absl::StatusOr<AdminActor>()>;

  // The caller, `caller` being CallerIdentity's answer for the call's peer and `authorization`
  // its authorization metadata; `by_secret` checks the secret when neither the uid nor a
  // session applies.
  absl::StatusOr<AdminActor> Authenticate(absl::string_view caller, absl::string_view authorization,
                                          BySecret by_secret);

  AdminSessionManager* sessions() const { return sessions_; }

 private:
  AdminSessionManager* const sessions_;
  const PeerUidPrincipals peer_uids_;
};

// The credential of "Bearer <credential>" (the scheme's case is free), or "".
absl::string_view BearerCredential(absl::string_view authorization);

}  // namespace verdict

#endif  // VERDICT_SERVER_ADMIN_AUTHENTICATION_H_
