#include "server/health_service.h"

#include <optional>
#include <utility>

namespace verdict {

using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

// One Watch stream. gRPC allows one write in flight: a status that changes meanwhile waits in
// `pending_`, replaced by any later one, so a client that does not read holds one status at most.
class HealthService::Watcher final : public grpc::ServerWriteReactor<HealthCheckResponse> {
 public:
  Watcher(HealthService& service, bool known) : service_(service), known_(known) {}

  // Whether the watched service is one the server knows (else it was told SERVICE_UNKNOWN).
  bool known() const { return known_; }

  // Sends `status` unless it is what the client last got; `last` ends the stream after it.
  void Update(ServingStatus status, bool last) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    if (finished_) return;
    ending_ = ending_ || last;
    if (status != sent_ || writing_) pending_ = status;
    WriteOrFinishLocked();
  }

  void OnWriteDone(bool ok) override ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    writing_ = false;
    if (!ok) {  // the call is over: nothing more reaches the client
      FinishLocked(grpc::Status(grpc::StatusCode::CANCELLED, "health watch broken"));
      return;
    }
    WriteOrFinishLocked();
  }

  void OnCancel() override ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    FinishLocked(grpc::Status(grpc::StatusCode::CANCELLED, "health watch cancelled"));
  }

  void OnDone() override {
    service_.Forget(this);
    delete this;
  }

 private:
  void WriteOrFinishLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (writing_ || finished_) return;
    if (pending_.has_value() && *pending_ != sent_) {
      sent_ = *pending_;
      pending_.reset();
      response_.set_status(sent_);
      writing_ = true;
      StartWrite(&response_);
      return;
    }
    pending_.reset();
    if (ending_) {
      FinishLocked(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the server is shutting down"));
    }
  }

  void FinishLocked(const grpc::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (finished_) return;
    finished_ = true;
    Finish(status);
  }

  HealthService& service_;
  const bool known_;
  absl::Mutex mu_;
  HealthCheckResponse response_ ABSL_GUARDED_BY(mu_);  // gRPC reads it while writing_
  // UNKNOWN is never a status the service sends, so the first real status always goes out.
  ServingStatus sent_ ABSL_GUARDED_BY(mu_) = HealthCheckResponse::UNKNOWN;
  std::optional<ServingStatus> pending_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool ending_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
};

HealthService::HealthService(const std::vector<std::string>& service_names) {
  statuses_[""] = HealthCheckResponse::NOT_SERVING;
  for (const std::string& name : service_names) statuses_[name] = HealthCheckResponse::NOT_SERVING;
}

HealthService::~HealthService() = default;

void HealthService::SetServing(bool serving) {
  const ServingStatus status =
      serving ? HealthCheckResponse::SERVING : HealthCheckResponse::NOT_SERVING;
  absl::MutexLock lock(&mu_);
  if (shut_down_) return;
  for (auto& [name, service_status] : statuses_) service_status = status;
  // A service the server does not know was told SERVICE_UNKNOWN and stays so.
  for (Watcher* watcher : watchers_) {
    if (watcher->known()) watcher->Update(status, /*last=*/false);
  }
}

void HealthService::Shutdown() {
  absl::MutexLock lock(&mu_);
  shut_down_ = true;
  for (auto& [name, service_status] : statuses_) service_status = HealthCheckResponse::NOT_SERVING;
  for (Watcher* watcher : watchers_) {
    watcher->Update(
        watcher->known() ? HealthCheckResponse::NOT_SERVING : HealthCheckResponse::SERVICE_UNKNOWN,
        /*last=*/true);
  }
}

HealthService::ServingStatus HealthService::StatusLocked(const std::string& service) const {
  auto it = statuses_.find(service);
  return it == statuses_.end() ? HealthCheckResponse::SERVICE_UNKNOWN : it->second;
}

grpc::ServerUnaryReactor* HealthService::Check(grpc::CallbackServerContext* context,
                                               const HealthCheckRequest* request,
                                               HealthCheckResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  ServingStatus status;
  {
    absl::ReaderMutexLock lock(&mu_);
    status = StatusLocked(request->service());
  }
  if (status == HealthCheckResponse::SERVICE_UNKNOWN) {
    reactor->Finish(grpc::Status(grpc::StatusCode::NOT_FOUND, "unknown service"));
  } else {
    response->set_status(status);
    reactor->Finish(grpc::Status::OK);
  }
  return reactor;
}

grpc::ServerWriteReactor<HealthCheckResponse>* HealthService::Watch(
    grpc::CallbackServerContext* /*context*/, const HealthCheckRequest* request) {
  absl::MutexLock lock(&mu_);
  const ServingStatus status = StatusLocked(request->service());
  auto* watcher = new Watcher(*this, status != HealthCheckResponse::SERVICE_UNKNOWN);
  watchers_.insert(watcher);
  watcher->Update(status, /*last=*/shut_down_);
  return watcher;
}

void HealthService::Forget(Watcher* watcher) {
  absl::MutexLock lock(&mu_);
  watchers_.erase(watcher);
}

}  // namespace verdict
