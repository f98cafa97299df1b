#include "server/admin_plane.h"

#include <grp.h>

#include <iostream>
#include <optional>
#include <string>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/admin_limits.h"
#include "common/log.h"
#include "server/admin_secret.h"
#include "server/flags.h"
#include "server/unix_socket.h"
#include "store/open_store.h"

ABSL_FLAG(std::string, admin_listen, "",
          "Where AdminService listens: unix:PATH or host:port, never the --listen address. "
          "Default: unix:<--db>.admin.sock, next to the database; \"off\" for no admin listener.");
ABSL_FLAG(std::string, admin_secret_file, "",
          "A file holding the admin secret. When the database has no admin principal \"admin\" "
          "yet, its Argon2id hash becomes that principal's credential (role admin): the first "
          "principal, who creates the others (verdict principals create).");
ABSL_FLAG(std::string, admin_socket_group, "",
          "A group whose members may connect to the unix: admin socket: it is made 0660 and owned "
          "by that group. Default: the socket is 0600, for verdictd's user only.");
ABSL_FLAG(bool, approval_separation, false,
          "A principal may not approve an approval request made by an agent whose owner is that "
          "principal's name (it may still deny it).");
ABSL_FLAG(bool, decision_log, false,
          "Write every decision to the hash-chained decision log table (batched, off the "
          "decision path).");
ABSL_FLAG(std::string, decision_log_durability, "async",
          "With --decision_log: async (default) answers without waiting for the decision's row, "
          "so a crash loses the rows still queued (the chain check reports them as a gap); sync "
          "makes each answer wait until the batch holding its row is committed.");
ABSL_FLAG(bool, test_only_weak_admin_hash, false,
          "FOR TESTS ONLY: hash a new admin credential with cheap Argon2id parameters.");

namespace verdict {
namespace {

// Cheap enough for a test suite that starts many servers; never for a real credential.
constexpr SecretHashParams kWeakTestHashParams = {.time_cost = 1, .memory_kib = 1024};

// Stores the hash of the secret in `secret_file` as the principal "admin" (role admin) unless
// that principal exists already.
absl::Status BootstrapCredential(AdminCredentialStore& credentials, const std::string& secret_file,
                                 const SecretHashParams& params, absl::Time now) {
  absl::StatusOr<std::string> secret = ReadAdminSecretFile(secret_file);
  if (!secret.ok()) return secret.status();
  absl::StatusOr<std::optional<StoredAdminPrincipal>> stored =
      credentials.FindPrincipal(kBootstrapPrincipal);
  if (!stored.ok()) return stored.status();
  if (stored->has_value()) {
    LogInfo(
        "verdictd: the admin principal \"admin\" exists already; --admin_secret_file leaves it "
        "as it is");
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> hash = HashSecret(*secret, params);
  if (!hash.ok()) return hash.status();
  absl::StatusOr<bool> set = credentials.SetIfAbsent(*hash, now);
  if (!set.ok()) return set.status();
  LogInfo(absl::StrCat("verdictd: admin principal \"admin\" set from ", secret_file));
  return absl::OkStatus();
}

// The group named `name`, or INVALID_ARGUMENT naming the flag.
absl::StatusOr<gid_t> GroupNamed(const std::string& name) {
  group entry;
  group* found = nullptr;
  std::string buffer(16 << 10, '\0');
  const int error = getgrnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found);
  if (error != 0 || found == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("--admin_socket_group: no group named \"", name, "\""));
  }
  return found->gr_gid;
}

}  // namespace

absl::StatusOr<AdminPlaneOptions> AdminPlaneOptionsFromFlags(const std::string& db_path,
                                                             const std::string& decision_listen) {
  AdminPlaneOptions options;
  const std::string listen = absl::GetFlag(FLAGS_admin_listen);
  absl::StatusOr<StoreLocation> location = ParseStoreLocation(db_path);
  const bool on_postgres = location.ok() && location->kind == StoreKind::kPostgres;
  if (absl::EqualsIgnoreCase(listen, "off") || (listen.empty() && on_postgres)) {
    options.listen = "";
  } else if (listen.empty()) {
    // Next to the database file, named as the operator named it ("sqlite:///var/lib/v.db" names
    // /var/lib/v.db; "verdict.db" stays relative, as the CLI's default address expects, and
    // short: a Unix socket's path holds at most 107 bytes).
    absl::string_view file = db_path;
    absl::ConsumePrefix(&file, "sqlite://");
    options.listen = absl::StrCat("unix:", file, ".admin.sock");
  } else {
    if (absl::Status valid = ValidateListenAddress("--admin_listen", listen); !valid.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(valid.message(), " (or off)"));
    }
    options.listen = listen;
    options.listen_required = true;
  }
  // Port 0 asks for any free port, a different one for each listener.
  if (!options.listen.empty() && options.listen == decision_listen &&
      !absl::EndsWith(options.listen, ":0")) {
    return absl::InvalidArgumentError(
        "--admin_listen: must differ from --listen: AdminService is never served on the "
        "decision port");
  }
  if (const std::string group = absl::GetFlag(FLAGS_admin_socket_group); !group.empty()) {
    if (UnixSocketPath(options.listen).empty()) {
      return absl::InvalidArgumentError(
          "--admin_socket_group: the admin listener is not a unix: socket");
    }
    absl::StatusOr<gid_t> gid = GroupNamed(group);
    if (!gid.ok()) return gid.status();
    options.socket_group = *gid;
  }
  options.secret_file = absl::GetFlag(FLAGS_admin_secret_file);
  options.decision_log = absl::GetFlag(FLAGS_decision_log);
  options.approval_separation = absl::GetFlag(FLAGS_approval_separation);
  const std::string durability = absl::GetFlag(FLAGS_decision_log_durability);
  if (durability == "sync") {
    options.decision_log_durability = DecisionLogDurability::kSync;
  } else if (durability != "async") {
    return absl::InvalidArgumentError(
        absl::StrCat("--decision_log_durability: async or sync, got \"", durability, "\""));
  }
  if (absl::GetFlag(FLAGS_test_only_weak_admin_hash)) options.hash_params = kWeakTestHashParams;
  absl::StatusOr<AdminAuthenticationOptions> authentication =
      AdminAuthenticationOptionsFromFlags(!UnixSocketPath(options.listen).empty());
  if (!authentication.ok()) return authentication.status();
  options.authentication = *std::move(authentication);
  return options;
}

AdminPlane::AdminPlane(std::unique_ptr<AdminCredentialStore> credentials,
                       std::unique_ptr<AdminSessionStore> session_store,
                       std::unique_ptr<DecisionLogStore> decision_log,
                       std::unique_ptr<AdminAuditLog> admin_audit, PolicyAdmin& admin, Clock clock,
                       const AdminPlaneOptions& options)
    : credentials_(std::move(credentials)),
      auth_(*credentials_, clock, {.hash_params = options.hash_params}),
      session_store_(std::move(session_store)),
      sessions_(*session_store_, clock, options.authentication.sessions),
      authentication_(&sessions_, options.authentication.peer_uids),
      decision_log_(std::move(decision_log)),
      admin_audit_(std::move(admin_audit)),
      service_(admin, *decision_log_, *admin_audit_, auth_, clock, options.file_key_ids) {
  service_.set_authentication(&authentication_);
}

absl::StatusOr<std::unique_ptr<AdminPlane>> AdminPlane::Start(const AdminPlaneOptions& options,
                                                              const std::string& db_path,
                                                              PolicyAdmin& admin, Clock clock,
                                                              PolicyStore* decision_store) {
  absl::StatusOr<std::unique_ptr<AdminCredentialStore>> credentials =
      OpenAdminCredentialStore(db_path);
  if (!credentials.ok()) return credentials.status();
  absl::StatusOr<std::unique_ptr<AdminSessionStore>> session_store = OpenAdminSessionStore(db_path);
  if (!session_store.ok()) return session_store.status();
  absl::StatusOr<std::unique_ptr<DecisionLogStore>> decision_log = OpenDecisionLogStore(db_path);
  if (!decision_log.ok()) return decision_log.status();
  absl::StatusOr<std::unique_ptr<AdminAuditLog>> admin_audit = OpenAdminAuditLog(db_path);
  if (!admin_audit.ok()) return admin_audit.status();
  std::unique_ptr<AdminPlane> plane(
      new AdminPlane(*std::move(credentials), *std::move(session_store), *std::move(decision_log),
                     *std::move(admin_audit), admin, clock, options));
  if (options.decision_log) {
    absl::StatusOr<std::unique_ptr<DecisionLogStore>> written_log = OpenDecisionLogStore(db_path);
    if (!written_log.ok()) return written_log.status();
    plane->writer_ = std::make_unique<DecisionLogWriter>(
        *std::move(written_log), clock,
        DecisionLogWriterOptions{.durability = options.decision_log_durability});
  }
  plane->service_.set_decision_logging_on(plane->writer_ != nullptr);
  plane->service_.set_decision_store(decision_store);
  plane->service_.set_approval_separation(options.approval_separation);
  plane->service_.set_metrics(options.metrics);
  if (!options.secret_file.empty()) {
    absl::Status bootstrapped = BootstrapCredential(*plane->credentials_, options.secret_file,
                                                    options.hash_params, clock());
    if (absl::IsInvalidArgument(bootstrapped) || absl::IsNotFound(bootstrapped)) {
      return bootstrapped;  // the operator's file is wrong: say so before serving anything
    }
    if (!bootstrapped.ok()) {
      LogWarning(absl::StrCat("verdictd: admin credential not set: ", bootstrapped.message()));
    }
  }
  if (options.listen.empty()) return plane;
  // On a unix: address verdictd accepts the connections itself, so that the throttle knows each
  // caller's uid (server/admin_auth.h): gRPC 1.51 does not tell a callback service its peer's
  // credentials.
  const bool on_unix_socket = !UnixSocketPath(options.listen).empty();
  absl::StatusOr<std::unique_ptr<GrpcServer>> server = GrpcServer::Start(
      on_unix_socket ? "" : options.listen,
      {{v1::AdminService::service_full_name(), &plane->service_}}, Reflection::kOff,
      kMaxAdminMessageBytes,  // a policy import carries the whole document
      options.transport_limits);
  if (server.ok() && on_unix_socket) {
    GrpcServer* grpc_server = server->get();
    absl::StatusOr<std::unique_ptr<UnixListener>> listener = UnixListener::Start(
        options.listen,
        {.mode = static_cast<mode_t>(options.socket_group.has_value() ? 0660 : 0600),
         .group = options.socket_group},
        [grpc_server](int fd) { grpc_server->AdoptConnection(fd); });
    if (listener.ok()) {
      plane->listener_ = *std::move(listener);
      plane->address_ = options.listen;
    } else {
      (*server)->Shutdown(absl::ZeroDuration());
      server = listener.status();
    }
  } else if (server.ok()) {
    plane->address_ = (*server)->address();
  }
  if (!server.ok()) {
    if (options.listen_required) return server.status();
    // The default socket: a second verdictd on one database finds the first one's, and a
    // database on a volume mounted after the start has no directory for it yet. Decisions are
    // served anyway; the message says how to name another listener.
    LogWarning(absl::StrCat("verdictd: no admin listener (", server.status().message(),
                            "); name one with --admin_listen"));
    return plane;
  }
  plane->server_ = *std::move(server);
  plane->server_->SetServing(true);
  LogInfo(absl::StrCat("verdictd: admin service on ", plane->address_));
  // Said here, not to callers: they learn only that their credential is refused.
  if (absl::StatusOr<std::vector<StoredAdminPrincipal>> stored =
          plane->credentials_->ListPrincipals();
      stored.ok() && stored->empty()) {
    LogWarning(
        "verdictd: no admin principal is stored yet: every admin call is refused until verdictd "
        "starts with --admin_secret_file");
  }
  return plane;
}

AdminPlane::~AdminPlane() { Shutdown(absl::ZeroDuration()); }

void AdminPlane::Shutdown(absl::Duration grace) {
  if (shut_down_) return;
  shut_down_ = true;
  // No new connection first: the listener hands them to the server.
  if (listener_ != nullptr) listener_->Stop();
  if (server_ != nullptr) server_->Shutdown(grace);
  if (writer_ != nullptr) {
    writer_->Shutdown();
    const DecisionLogCounters counters = writer_->counters();
    LogInfo(absl::StrCat("verdictd: decision log: ", counters.written, " rows written, ",
                         counters.dropped, " dropped (queue full), ", counters.failed, " failed"));
  }
}

}  // namespace verdict
