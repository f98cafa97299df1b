#include "server/grpc_server.h"

#include <fcntl.h>
#include <grpcpp/health_check_service_interface.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "grpc/health/v1/health.pb.h"

namespace verdict {
namespace {

// "127.0.0.1:0" bound to port 41877 reads "127.0.0.1:41877"; unix sockets stay as given.
std::string BoundAddress(const std::string& listen, int selected_port) {
  if (absl::StartsWith(listen, "unix:")) return listen;
  const absl::string_view host = absl::string_view(listen).substr(0, listen.rfind(':'));
  return absl::StrCat(host, ":", selected_port);
}

// gRPC removes whatever socket file is at a unix: address before it binds, so a second
// verdictd would take over a running one's socket (and remove it when it exits). Each server
// holds an flock on "<path>.lock" for as long as it runs, which makes the check and the bind
// one step for verdictd processes starting together, and the lock dies with its process. A
// socket that still answers a connect, or that cannot be probed, belongs to some other live
// server: refused too. One that does not answer is stale, left by a process that died, and gRPC
// may replace it. Returns the lock's descriptor, or -1 for an address that is not a unix: one.
absl::StatusOr<int> ClaimUnixSocket(const std::string& listen) {
  if (!absl::StartsWith(listen, "unix:")) return -1;
  std::string path = listen.substr(std::strlen("unix:"));
  if (absl::StartsWith(path, "//")) path = path.substr(2);  // unix:///abs/path
  sockaddr_un address{};
  if (path.empty() || path.size() >= sizeof(address.sun_path)) return -1;  // gRPC says why
  const auto in_use = [&listen] {
    return absl::AlreadyExistsError(
        absl::StrCat("cannot listen on ", listen, ": another process is serving that socket"));
  };
  const std::string lock_path = path + ".lock";
  const int lock = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock < 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", listen, ": ", lock_path, ": ", std::strerror(errno)));
  }
  if (flock(lock, LOCK_EX | LOCK_NB) != 0) {
    close(lock);
    return in_use();
  }
  struct stat file;
  if (stat(path.c_str(), &file) != 0 || !S_ISSOCK(file.st_mode)) return lock;
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.data(), path.size());
  const int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (probe < 0) return lock;
  const bool stale =
      connect(probe, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0 &&
      (errno == ECONNREFUSED || errno == ENOENT);
  close(probe);
  if (stale) return lock;
  close(lock);
  return in_use();
}

}  // namespace

absl::StatusOr<std::unique_ptr<GrpcServer>> GrpcServer::Start(
    const std::string& listen, const std::vector<NamedService>& services, Reflection reflection,
    int max_receive_message_bytes, const TransportLimits& limits) {
  absl::StatusOr<int> socket_lock = ClaimUnixSocket(listen);
  if (!socket_lock.ok()) return socket_lock.status();
  grpc::EnableDefaultHealthCheckService(true);

  grpc::ServerBuilder builder;
  int selected_port = 0;
  // No TLS in the process: the mesh proxy terminates mTLS and verdictd listens on loopback or a
  // Unix socket (see third_party/system.BUILD for why the TLS-capable gRPC is not linked).
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials(), &selected_port);
  // gRPC binds with SO_REUSEPORT by default: a second verdictd on a port already served would
  // start and share its connections, each answering from its own database. A port in use is an
  // error instead.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.SetMaxReceiveMessageSize(max_receive_message_bytes);
  ApplyTransportLimits(limits, builder);

  std::vector<std::string> service_names;
  for (const NamedService& named : services) {
    builder.RegisterService(named.service);
    service_names.push_back(named.full_name);
  }
  std::unique_ptr<ReflectionService> reflection_service;
  if (reflection == Reflection::kOn) {
    std::vector<std::string> listed = service_names;
    // gRPC's default health service too, named through the descriptor that lets reflection
    // describe it (the reference also keeps proto/grpc/health/v1's descriptors linked).
    listed.push_back(
        grpc::health::v1::HealthCheckRequest::descriptor()->file()->service(0)->full_name());
    reflection_service = std::make_unique<ReflectionService>(std::move(listed));
    builder.RegisterService(reflection_service.get());
  }
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  // The port is known only once bound; 0 means the address could not be bound.
  if (server == nullptr || selected_port == 0) {
    if (*socket_lock >= 0) close(*socket_lock);
    return absl::UnavailableError(absl::StrCat("cannot listen on ", listen));
  }
  auto grpc_server = std::unique_ptr<GrpcServer>(
      new GrpcServer(std::move(reflection_service), std::move(server),
                     BoundAddress(listen, selected_port), std::move(service_names), *socket_lock));
  // The default health service starts SERVING; nothing is served before the store opens.
  grpc_server->SetServing(false);
  return grpc_server;
}

GrpcServer::GrpcServer(std::unique_ptr<ReflectionService> reflection,
                       std::unique_ptr<grpc::Server> server, std::string address,
                       std::vector<std::string> service_names, int socket_lock)
    : reflection_(std::move(reflection)),
      server_(std::move(server)),
      address_(std::move(address)),
      service_names_(std::move(service_names)),
      socket_lock_(socket_lock) {}

GrpcServer::~GrpcServer() { Shutdown(absl::ZeroDuration()); }

void GrpcServer::SetServing(bool serving) {
  grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService();
  health->SetServingStatus(serving);
  for (const std::string& name : service_names_) health->SetServingStatus(name, serving);
}

void GrpcServer::Shutdown(absl::Duration grace) {
  if (shut_down_) return;
  shut_down_ = true;
  // Probes see NOT_SERVING from now on, whatever SetServing is called with later.
  server_->GetHealthCheckService()->Shutdown();
  server_->Shutdown(absl::ToChronoTime(absl::Now() + grace));
  server_->Wait();
  // The socket is no longer served: another server may claim it.
  if (socket_lock_ >= 0) close(socket_lock_);
  socket_lock_ = -1;
}

}  // namespace verdict
