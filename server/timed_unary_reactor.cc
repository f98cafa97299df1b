#include "server/timed_unary_reactor.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace verdict {

TimedUnaryReactor::TimedUnaryReactor(Metrics& metrics, RpcSeries& series)
    : metrics_(metrics), series_(series), start_(std::chrono::steady_clock::now()) {
  series_.Started();
}

void TimedUnaryReactor::Finish(grpc::Status status) {
  // Before answering: once answered, OnDone may run on another thread and delete this.
  RecordOnce(status.error_code());
  grpc::ServerUnaryReactor::Finish(std::move(status));
}

void TimedUnaryReactor::OnCancel() { RecordOnce(grpc::StatusCode::CANCELLED); }

// gRPC ends a call only after Finish, cancelled or not: by now the call has been counted.
void TimedUnaryReactor::OnDone() { delete this; }

void TimedUnaryReactor::RecordOnce(grpc::StatusCode code) {
  // Finish may run on a worker while OnCancel runs on a gRPC thread.
  if (recorded_.exchange(true, std::memory_order_acq_rel)) return;
  if (code == grpc::StatusCode::UNAVAILABLE) metrics_.RecordStoreError();
  series_.Finished(code, absl::FromChrono(std::chrono::steady_clock::now() - start_));
}

TimedUnaryMethod::TimedUnaryMethod(Metrics& metrics, absl::string_view service_full_name,
                                   absl::string_view method)
    : metrics_(metrics),
      series_(*metrics.RpcSeriesFor(absl::StrCat("/", service_full_name, "/", method))) {}

}  // namespace verdict
