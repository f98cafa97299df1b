// verdictd's admin plane (design section 5): AdminService on a listener of its own, the admin
// credential set from --admin_secret_file, and the hash-chained decision log (--decision_log),
// in the database --db names (SQLite or PostgreSQL; store/open_store.h).
//
//   absl::StatusOr<AdminPlaneOptions> admin_options = AdminPlaneOptionsFromFlags(db_path, listen);
//   absl::StatusOr<std::unique_ptr<AdminPlane>> admin =
//       AdminPlane::Start(*admin_options, db_path, store.admin(), clock);
//   if ((*admin)->decision_log() != nullptr) observers.Add((*admin)->decision_log());
//   ...
//   (*admin)->Shutdown(grace);  // after the decision listener: flushes the decision log
#ifndef VERDICT_SERVER_ADMIN_PLANE_H_
#define VERDICT_SERVER_ADMIN_PLANE_H_

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "app/policy_admin.h"
#include "crypto/secret_hash.h"
#include "decision/authorizer.h"
#include "server/admin_auth.h"
#include "server/admin_authentication.h"
#include "server/admin_service.h"
#include "server/admin_sessions.h"
#include "server/grpc_server.h"
#include "server/metrics.h"
#include "server/unix_socket.h"
#include "store/admin_audit_log.h"
#include "store/admin_credential_store.h"
#include "store/admin_session_store.h"
#include "store/decision_log_store.h"
#include "store/decision_log_writer.h"

ABSL_DECLARE_FLAG(std::string, admin_listen);
ABSL_DECLARE_FLAG(std::string, admin_secret_file);
ABSL_DECLARE_FLAG(std::string, admin_socket_group);
ABSL_DECLARE_FLAG(bool, approval_separation);
ABSL_DECLARE_FLAG(bool, decision_log);
ABSL_DECLARE_FLAG(std::string, decision_log_durability);
ABSL_DECLARE_FLAG(bool, test_only_weak_admin_hash);

namespace verdict {

struct AdminPlaneOptions {
  // Where AdminService listens ("unix:PATH" or "host:port"); "" for no admin listener. The
  // default is a socket next to a SQLite database; a PostgreSQL database has no such place, so
  // there the admin listener is only where --admin_listen says.
  std::string listen;
  // True when the operator chose the address: failing to listen there stops verdictd. The
  // default address (next to the database) is best effort: verdictd serves decisions without it.
  bool listen_required = false;
  // A unix: listener's socket is 0600 (its owner, verdictd's user, only); with a group, 0660 and
  // owned by that group (--admin_socket_group), whatever the umask.
  std::optional<gid_t> socket_group;
  std::string secret_file;  // "" when none: the stored credential, if any, stays as it is
  bool decision_log = false;
  DecisionLogDurability decision_log_durability = DecisionLogDurability::kAsync;
  SecretHashParams hash_params;  // production unless --test_only_weak_admin_hash
  // The kids of --jwks_file: the signing-key calls refuse them (server/admin_service.h).
  std::vector<std::string> file_key_ids;
  // The same transport limits as the decision listener (server/transport_limits.h).
  TransportLimits transport_limits;
  // Admin sessions and peer uids (--admin_session_ttl, --admin_peer_uids ...).
  AdminAuthenticationOptions authentication;
  // A principal may not approve a request made by an agent it owns (--approval_separation).
  bool approval_separation = false;
  // Where admin calls are counted by method, code and role; none when null. Must outlive the
  // admin plane.
  Metrics* metrics = nullptr;
};

// Reads the flags above. INVALID_ARGUMENT naming the flag (an --admin_socket_group that names no
// group, or is given without a unix: listener); --admin_listen must differ from the
// decision listener `decision_listen`, so AdminService is never served on the decision port.
absl::StatusOr<AdminPlaneOptions> AdminPlaneOptionsFromFlags(const std::string& db_path,
                                                             const std::string& decision_listen);

class AdminPlane {
 public:
  // Sets the admin credential when there is none, starts the decision log writer and the
  // admin listener, all on the database `db_path` names. Errors: `db_path` names no store or
  // libpq is missing for a PostgreSQL one, the secret file cannot be read (INVALID_ARGUMENT,
  // NOT_FOUND), a required listener cannot be bound (UNAVAILABLE). `decision_store`, when
  // given (it must outlive the plane), is what AdminService lists effective permissions from.
  static absl::StatusOr<std::unique_ptr<AdminPlane>> Start(const AdminPlaneOptions& options,
                                                           const std::string& db_path,
                                                           PolicyAdmin& admin, Clock clock,
                                                           PolicyStore* decision_store = nullptr);
  ~AdminPlane();

  // The decision log writer for the Authorizer, or null without --decision_log.
  DecisionLogWriter* decision_log() { return writer_.get(); }
  // The admin audit log, for the pruning job (server/store_pruner.h).
  AdminAuditLog& admin_audit() { return *admin_audit_; }
  // The admin sessions' table, for the pruning job (server/store_pruner.h).
  AdminSessionStore* session_store() { return session_store_.get(); }
  // The admin listener's address, or "" when there is none.
  const std::string& address() const { return address_; }

  // Stops the admin listener (calls in flight get `grace`), then writes every queued decision
  // and reports the log's counters on stderr. Idempotent.
  void Shutdown(absl::Duration grace);

 private:
  AdminPlane(std::unique_ptr<AdminCredentialStore> credentials,
             std::unique_ptr<AdminSessionStore> session_store,
             std::unique_ptr<DecisionLogStore> decision_log,
             std::unique_ptr<AdminAuditLog> admin_audit, PolicyAdmin& admin, Clock clock,
             const AdminPlaneOptions& options);

  const std::unique_ptr<AdminCredentialStore> credentials_;
  AdminAuthenticator auth_;
  const std::unique_ptr<AdminSessionStore> session_store_;
  AdminSessionManager sessions_;
  AdminAuthentication authentication_;
  // Queried by AdminService; the writer appends through a log (and a connection) of its own.
  const std::unique_ptr<DecisionLogStore> decision_log_;
  // Written by AdminService's writes, queried and verified by it, pruned by the pruning job.
  const std::unique_ptr<AdminAuditLog> admin_audit_;
  GrpcAdminService service_;
  std::unique_ptr<DecisionLogWriter> writer_;
  std::unique_ptr<GrpcServer> server_;
  // On a unix: address, what accepts the connections server_ serves; null otherwise.
  std::unique_ptr<UnixListener> listener_;
  std::string address_;
  bool shut_down_ = false;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_ADMIN_PLANE_H_
