// Who makes an admin call, as the admin service's authentication established it. The admin
// rules (which role a call needs, whose vote counts) and the admin audit trail read it; the
// service fills it before a call's body runs.
//
//   AdminActor actor{.principal = "admin", .method = AdminAuthMethod::kSecret,
//                    .peer = "uid:1000"};
#ifndef VERDICT_DECISION_ADMIN_ADMIN_ACTOR_H_
#define VERDICT_DECISION_ADMIN_ADMIN_ACTOR_H_

#include <string>

namespace verdict {

// How the caller proved who it is.
enum class AdminAuthMethod {
  kSecret,   // the principal's secret, checked by Argon2id
  kSession,  // a session token the principal obtained with its secret
  kPeerUid,  // the Unix socket's peer uid, mapped to the principal by configuration
};

struct AdminActor {
  // The authenticated principal's name. The secret of --admin_secret_file authenticates the
  // principal "admin".
  std::string principal;
  AdminAuthMethod method = AdminAuthMethod::kSecret;
  // Where the call came from: "uid:1000" on the admin Unix socket, "ipv4:10.0.0.1:5555" on TCP
  // (server/unix_socket.h's CallerIdentity).
  std::string peer;
};

}  // namespace verdict

#endif  // VERDICT_DECISION_ADMIN_ADMIN_ACTOR_H_
