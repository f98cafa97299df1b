// grpc.health.v1.Health on gRPC's callback API, answered from a flag per service: Check never
// waits on anything (not on the store: server/availability_monitor.h sets the flags), and a
// Watch stream is ended when the server shuts down, so an open watch does not hold the shutdown
// for its whole grace period, as gRPC's default health service does.
//
//   HealthService health({"verdict.v1.DecisionService"});  // and "" for the whole server
//   builder.RegisterService(&health);
//   health.SetServing(true);
//   ...
//   health.Shutdown();  // NOT_SERVING for good; every Watch gets it and ends
#ifndef VERDICT_SERVER_HEALTH_SERVICE_H_
#define VERDICT_SERVER_HEALTH_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "grpc/health/v1/health.grpc.pb.h"

namespace verdict {

class HealthService final : public grpc::health::v1::Health::CallbackService {
 public:
  using ServingStatus = grpc::health::v1::HealthCheckResponse::ServingStatus;

  // Knows "" (the whole server) and `service_names`, all NOT_SERVING until SetServing.
  explicit HealthService(const std::vector<std::string>& service_names);
  // The server must have finished every call (grpc::Server::Wait) first.
  ~HealthService() override;

  // Every known service, and the server, SERVING or NOT_SERVING; ignored after Shutdown.
  void SetServing(bool serving) ABSL_LOCKS_EXCLUDED(mu_);

  // NOT_SERVING for good. Every open Watch is sent NOT_SERVING and ended (UNAVAILABLE), and a
  // Watch begun later is too. Idempotent.
  void Shutdown() ABSL_LOCKS_EXCLUDED(mu_);

  // The service's status; NOT_FOUND for a service the server does not know.
  grpc::ServerUnaryReactor* Check(grpc::CallbackServerContext* context,
                                  const grpc::health::v1::HealthCheckRequest* request,
                                  grpc::health::v1::HealthCheckResponse* response) override;

  // The service's status at once (SERVICE_UNKNOWN for one the server does not know), then each
  // change, the latest only when the client reads slower than the status changes.
  grpc::ServerWriteReactor<grpc::health::v1::HealthCheckResponse>* Watch(
      grpc::CallbackServerContext* context,
      const grpc::health::v1::HealthCheckRequest* request) override;

 private:
  class Watcher;
  friend class Watcher;

  ServingStatus StatusLocked(const std::string& service) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  void Forget(Watcher* watcher) ABSL_LOCKS_EXCLUDED(mu_);

  absl::Mutex mu_;
  absl::flat_hash_map<std::string, ServingStatus> statuses_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<Watcher*> watchers_ ABSL_GUARDED_BY(mu_);
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_HEALTH_SERVICE_H_
