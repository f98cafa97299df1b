// envoy.service.auth.v3.Authorization/Check, so that Envoy (or Istio, as a CUSTOM provider)
// asks verdict about every HTTP request. It only translates: the CheckRequest becomes a
// decision request (server/http_mapping.h), the Authorizer decides, the answer becomes a
// CheckResponse. Decisions run where the DecisionRunner says (server/decision_runner.h), as
// DecisionService's do, and every call is timed and counted (server/timed_unary_reactor.h).
//
// Every call answers gRPC OK with a CheckResponse, even when the store cannot be read (the
// response then denies, 503) or the request does not parse (400). A gRPC error would leave the
// outcome to Envoy's failure_mode_allow setting, and verdict never lets a configuration flag turn
// an error into an allow.
//
//   ExtAuthzService ext_authz(runner, *LoadHttpMappingConfig(path), metrics);
//   builder.RegisterService(&ext_authz);
#ifndef VERDICT_SERVER_EXT_AUTHZ_SERVICE_H_
#define VERDICT_SERVER_EXT_AUTHZ_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include <utility>

#include "envoy/service/auth/v3/external_auth.grpc.pb.h"
#include "server/decision_runner.h"
#include "server/http_mapping.h"
#include "server/metrics.h"
#include "server/timed_unary_reactor.h"

namespace verdict {

// What Envoy tells about the request, as views into `request` (which must outlive them).
// Headers are read from the headers map, or from header_map when Envoy sends raw headers.
HttpRequestAttributes AttributesFromCheckRequest(
    const envoy::service::auth::v3::CheckRequest& request);

void AnswerToCheckResponse(const HttpAnswer& answer,
                           envoy::service::auth::v3::CheckResponse* response);

// Check reads its own request bytes (a raw callback method), so that bytes that do not parse, a
// header value that is not UTF-8 say, are answered like every other request verdict cannot
// decide: a 400 denial, not a gRPC error.
using RawCallbackAuthorization =
    envoy::service::auth::v3::Authorization::WithRawCallbackMethod_Check<
        envoy::service::auth::v3::Authorization::Service>;

class ExtAuthzService final : public RawCallbackAuthorization {
 public:
  // `runner` and `metrics` must outlive the service and every call it serves.
  ExtAuthzService(DecisionRunner& runner, HttpMappingConfig config, Metrics& metrics)
      : runner_(runner),
        config_(std::move(config)),
        metrics_(metrics),
        check_(metrics, envoy::service::auth::v3::Authorization::service_full_name(), "Check") {}

  grpc::ServerUnaryReactor* Check(grpc::CallbackServerContext* context,
                                  const grpc::ByteBuffer* request,
                                  grpc::ByteBuffer* response) override;

 private:
  DecisionRunner& runner_;
  const HttpMappingConfig config_;
  Metrics& metrics_;
  const TimedUnaryMethod check_;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_EXT_AUTHZ_SERVICE_H_
