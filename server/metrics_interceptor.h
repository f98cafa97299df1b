// A gRPC server interceptor that times every call and counts it by status code and in flight,
// into server/metrics.h. An UNAVAILABLE status also counts as a store error: by
// server/grpc_status.h it means the policy store could not be read.
//
//   std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> creators;
//   creators.push_back(std::make_unique<MetricsInterceptorFactory>(metrics));
//   builder.experimental().SetInterceptorCreators(std::move(creators));
#ifndef VERDICT_SERVER_METRICS_INTERCEPTOR_H_
#define VERDICT_SERVER_METRICS_INTERCEPTOR_H_

#include <grpcpp/support/server_interceptor.h>

#include "server/metrics.h"

namespace verdict {

class MetricsInterceptorFactory : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  // `metrics` must outlive the server.
  explicit MetricsInterceptorFactory(Metrics& metrics) : metrics_(metrics) {}

  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override;

 private:
  Metrics& metrics_;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_METRICS_INTERCEPTOR_H_
