#include "server/grpc_server.h"

#include <grpcpp/server_posix.h>
#include <unistd.h>

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "grpc/health/v1/health.pb.h"
#include "server/unix_socket.h"

namespace verdict {
namespace {

// "127.0.0.1:0" bound to port 41877 reads "127.0.0.1:41877"; unix sockets (and no address)
// stay as given.
std::string BoundAddress(const std::string& listen, int selected_port) {
  if (listen.empty() || absl::StartsWith(listen, "unix:")) return listen;
  const absl::string_view host = absl::string_view(listen).substr(0, listen.rfind(':'));
  return absl::StrCat(host, ":", selected_port);
}

}  // namespace

absl::StatusOr<std::unique_ptr<GrpcServer>> GrpcServer::Start(
    const std::string& listen, const std::vector<NamedService>& services, Reflection reflection,
    int max_receive_message_bytes, const TransportLimits& limits) {
  absl::StatusOr<int> socket_lock = ClaimUnixSocket(listen);
  if (!socket_lock.ok()) return socket_lock.status();
  // verdict's own health service instead (server/health_service.h).
  grpc::EnableDefaultHealthCheckService(false);

  grpc::ServerBuilder builder;
  int selected_port = 0;
  // No TLS in the process: the mesh proxy terminates mTLS and verdictd listens on loopback or a
  // Unix socket (see third_party/system.BUILD for why the TLS-capable gRPC is not linked).
  // No address: the connections come through AdoptConnection.
  if (!listen.empty()) {
    builder.AddListeningPort(listen, grpc::InsecureServerCredentials(), &selected_port);
  }
  // gRPC binds with SO_REUSEPORT by default: a second verdictd on a port already served would
  // start and share its connections, each answering from its own database. A port in use is an
  // error instead.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  std::shared_ptr<ConnectionGuard> guard =
      ApplyTransportLimits(limits, max_receive_message_bytes, builder);

  std::vector<std::string> service_names;
  for (const NamedService& named : services) {
    builder.RegisterService(named.service);
    service_names.push_back(named.full_name);
  }
  auto health = std::make_unique<HealthService>(service_names);
  builder.RegisterService(health.get());
  std::unique_ptr<ReflectionServices> reflection_services;
  if (reflection == Reflection::kOn) {
    std::vector<std::string> listed = service_names;
    // gRPC's default health service too, named through the descriptor that lets reflection
    // describe it (the reference also keeps proto/grpc/health/v1's descriptors linked).
    listed.push_back(
        grpc::health::v1::HealthCheckRequest::descriptor()->file()->service(0)->full_name());
    reflection_services = std::make_unique<ReflectionServices>(listed);
    builder.RegisterService(&reflection_services->v1);
    builder.RegisterService(&reflection_services->v1alpha);
  }
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  // The port is known only once bound; 0 means the address could not be bound.
  if (server == nullptr || (!listen.empty() && selected_port == 0)) {
    if (*socket_lock >= 0) close(*socket_lock);
    return absl::UnavailableError(absl::StrCat("cannot listen on ", listen));
  }
  // Health starts NOT_SERVING: nothing is served before the store opens.
  return std::unique_ptr<GrpcServer>(
      new GrpcServer(std::move(guard), std::move(health), std::move(reflection_services),
                     std::move(server), BoundAddress(listen, selected_port), *socket_lock));
}

GrpcServer::GrpcServer(std::shared_ptr<ConnectionGuard> guard,
                       std::unique_ptr<HealthService> health,
                       std::unique_ptr<ReflectionServices> reflection,
                       std::unique_ptr<grpc::Server> server, std::string address, int socket_lock)
    : guard_(std::move(guard)),
      health_(std::move(health)),
      reflection_(std::move(reflection)),
      server_(std::move(server)),
      address_(std::move(address)),
      socket_lock_(socket_lock) {}

GrpcServer::~GrpcServer() { Shutdown(absl::ZeroDuration()); }

void GrpcServer::AdoptConnection(int fd) {
  if (shut_down_) {
    close(fd);
    return;
  }
  // gRPC's socket mutator sees only the connections its own listener accepts: this one is given
  // to the guard here (max_connections, header block limit, half-sent messages) before gRPC
  // reads from it.
  const std::optional<uid_t> uid = PeerUid(fd);
  guard_->TakeOver(fd);
  RememberAdoptedPeer(fd, uid);
  grpc::AddInsecureChannelFromFd(server_.get(), fd);
}

void GrpcServer::SetServing(bool serving) { health_->SetServing(serving); }

void GrpcServer::Shutdown(absl::Duration grace) {
  if (shut_down_) return;
  shut_down_ = true;
  // Probes see NOT_SERVING from now on, whatever SetServing is called with later, and open
  // Watch streams end now rather than hold the shutdown for its whole grace.
  health_->Shutdown();
  server_->Shutdown(absl::ToChronoTime(absl::Now() + grace));
  server_->Wait();
  // The socket is no longer served: another server may claim it.
  if (socket_lock_ >= 0) close(socket_lock_);
  socket_lock_ = -1;
}

}  // namespace verdict
