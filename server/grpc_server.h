// The gRPC server verdictd runs: one listener with explicit limits, grpc.health.v1 health
// checking, server reflection when asked for, and a graceful shutdown. Every service is on
// gRPC's callback API, so the server runs no synchronous polling threads.
//
//   absl::StatusOr<std::unique_ptr<GrpcServer>> server = GrpcServer::Start(
//       "127.0.0.1:0", {{v1::DecisionService::service_full_name(), &service}}, Reflection::kOn);
//   (*server)->SetServing(true);          // health starts NOT_SERVING
//   std::cout << (*server)->address();    // "127.0.0.1:41877": the port actually bound
//   (*server)->Shutdown(absl::Seconds(10));
#ifndef VERDICT_SERVER_GRPC_SERVER_H_
#define VERDICT_SERVER_GRPC_SERVER_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/connection_guard.h"
#include "server/health_service.h"
#include "server/reflection_service.h"
#include "server/transport_limits.h"

namespace verdict {

// Limits a client cannot talk the server out of; the others are in server/transport_limits.h.
inline constexpr int kMaxReceiveMessageBytes = 4 << 20;

struct NamedService {
  std::string full_name;  // "verdict.v1.DecisionService": its name for health checks
  grpc::Service* service;
};

// Whether the server answers grpc.reflection.v1 and v1alpha (grpcurl's list and describe), listing
// its services and health.
enum class Reflection { kOff, kOn };

class GrpcServer {
 public:
  // Listens on `listen` ("host:port", port 0 for any free one, or "unix:PATH"; "" for no
  // listener: connections come through AdoptConnection) and serves the services, which must
  // outlive the server. UNAVAILABLE when the address cannot be bound;
  // ALREADY_EXISTS when another live process serves the unix socket.
  // A message larger than `max_receive_message_bytes` is refused (RESOURCE_EXHAUSTED); every
  // connection is held to `limits`.
  static absl::StatusOr<std::unique_ptr<GrpcServer>> Start(
      const std::string& listen, const std::vector<NamedService>& services,
      Reflection reflection = Reflection::kOff,
      int max_receive_message_bytes = kMaxReceiveMessageBytes,
      const TransportLimits& limits = TransportLimits());

  ~GrpcServer();

  // Serves a connected socket (non-blocking) as one more client connection, and closes it when
  // the connection ends; a server shut down closes it at once. Its calls' peer is "fd:N", N
  // being `fd`. Not to be called concurrently with Shutdown.
  void AdoptConnection(int fd);

  // The address actually bound (the chosen port for port 0); "" with no listener.
  const std::string& address() const { return address_; }

  // The listener's connection guard, for its counters (it outlives the server while shared).
  std::shared_ptr<const ConnectionGuard> connection_guard() const { return guard_; }

  // grpc.health.v1 status of the server ("") and of every service.
  void SetServing(bool serving);

  // Health NOT_SERVING for good (open health Watch streams are told so and end), stop accepting
  // calls, let the calls in flight finish within `grace` (cancelling what remains after it), and
  // wait until every call is done.
  void Shutdown(absl::Duration grace);

 private:
  GrpcServer(std::shared_ptr<ConnectionGuard> guard, std::unique_ptr<HealthService> health,
             std::unique_ptr<ReflectionServices> reflection, std::unique_ptr<grpc::Server> server,
             std::string address, int socket_lock);

  // The listener's connection guard, which AdoptConnection hands each connection to.
  std::shared_ptr<ConnectionGuard> guard_;
  // Declared before the server, which serves them until the server is destroyed.
  std::unique_ptr<HealthService> health_;
  std::unique_ptr<ReflectionServices> reflection_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
  // For a unix: address, the flock on "<path>.lock" that claims the socket until Shutdown; -1
  // otherwise.
  int socket_lock_;
  bool shut_down_ = false;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_GRPC_SERVER_H_
