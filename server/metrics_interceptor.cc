#include "server/metrics_interceptor.h"

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace verdict {
namespace {

class MetricsInterceptor : public grpc::experimental::Interceptor {
 public:
  MetricsInterceptor(Metrics& metrics, RpcSeries* series)
      : metrics_(metrics), series_(series), start_(absl::Now()) {
    series_->Started();
  }

  // A call that ends without sending a status (the client went away) still ends here.
  ~MetricsInterceptor() override {
    if (!finished_) series_->Finished(grpc::StatusCode::CANCELLED, absl::Now() - start_);
  }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (!finished_ && methods->QueryInterceptionHookPoint(
                          grpc::experimental::InterceptionHookPoints::PRE_SEND_STATUS)) {
      finished_ = true;
      const grpc::StatusCode code = methods->GetSendStatus().error_code();
      if (code == grpc::StatusCode::UNAVAILABLE) metrics_.RecordStoreError();
      series_->Finished(code, absl::Now() - start_);
    }
    methods->Proceed();
  }

 private:
  Metrics& metrics_;
  RpcSeries* const series_;
  const absl::Time start_;
  bool finished_ = false;
};

}  // namespace

grpc::experimental::Interceptor* MetricsInterceptorFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo* info) {
  return new MetricsInterceptor(metrics_, metrics_.RpcSeriesFor(info->method()));
}

}  // namespace verdict
