#include "server/decision_service.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "server/grpc_status.h"
#include "server/proto_convert.h"

namespace verdict {
namespace {

// Parses the request on gRPC's thread; `prepare` turns it into the decision to make (or an
// error), which the DecisionRunner runs inline or on a worker; `to_wire` turns its outcome into
// the response. The call is timed and counted as `method`.
// `prepare` is handed the call's "should stop" (cancelled, or past its deadline) to give the
// Authorizer. `on_worker` runs the decision on a worker whatever it reads (Simulate).
template <typename WireRequest, typename WireResponse, typename T, typename Prepare,
          typename ToWire>
grpc::ServerUnaryReactor* ServeUnary(grpc::CallbackServerContext* context,
                                     const grpc::ByteBuffer* request_bytes,
                                     grpc::ByteBuffer* response_bytes, DecisionRunner& runner,
                                     const TimedUnaryMethod& method, Prepare prepare,
                                     ToWire to_wire, bool on_worker = false) {
  TimedUnaryReactor* reactor = method.StartCall();
  WireRequest request;
  // Deserialize consumes its buffer; the copy shares the slices and costs no bytes.
  grpc::ByteBuffer owned_bytes(*request_bytes);
  if (!grpc::SerializationTraits<WireRequest>::Deserialize(&owned_bytes, &request).ok()) {
    reactor->Finish(
        grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                     absl::StrCat("not a valid ", WireRequest::descriptor()->full_name(),
                                  " message: malformed or truncated, or a string field that is "
                                  "not valid UTF-8")));
    return reactor;
  }
  absl::StatusOr<DecisionRunner::Decide<T>> decide = prepare(request, StopWhenCallEnds(context));
  if (!decide.ok()) {
    reactor->Finish(ToGrpcStatus(decide.status()));
    return reactor;
  }
  auto answer = [reactor, response_bytes, to_wire](absl::StatusOr<T> outcome) {
    if (!outcome.ok()) {
      reactor->Finish(ToGrpcStatus(outcome.status()));
      return;
    }
    WireResponse response;
    to_wire(*outcome, &response);
    bool own_buffer = false;
    reactor->Finish(
        grpc::SerializationTraits<WireResponse>::Serialize(response, response_bytes, &own_buffer));
  };
  auto gave_up = [context] { return context->IsCancelled(); };
  if (on_worker) {
    runner.RunOnWorker<T>(*std::move(decide), std::move(answer), gave_up);
  } else {
    runner.Run<T>(*std::move(decide), std::move(answer), gave_up);
  }
  return reactor;
}

}  // namespace

GrpcDecisionService::GrpcDecisionService(DecisionRunner& runner, Metrics& metrics)
    : runner_(runner),
      authorize_(metrics, v1::DecisionService::service_full_name(), "Authorize"),
      batch_authorize_(metrics, v1::DecisionService::service_full_name(), "BatchAuthorize"),
      validate_token_(metrics, v1::DecisionService::service_full_name(), "ValidateToken"),
      simulate_(metrics, v1::DecisionService::service_full_name(), "Simulate") {}

grpc::ServerUnaryReactor* GrpcDecisionService::Authorize(grpc::CallbackServerContext* context,
                                                         const grpc::ByteBuffer* request,
                                                         grpc::ByteBuffer* response) {
  return ServeUnary<v1::AuthorizeRequest, v1::AuthorizeResponse, Decision>(
      context, request, response, runner_, authorize_,
      [](const v1::AuthorizeRequest& wire_request, DecisionBudget::ShouldStop should_stop)
          -> absl::StatusOr<DecisionRunner::Decide<Decision>> {
        absl::StatusOr<Request> request = RequestFromProto(wire_request);
        if (!request.ok()) return request.status();
        return [request = *std::move(request), should_stop = std::move(should_stop)](
                   Authorizer& authorizer) { return authorizer.Authorize(request, should_stop); };
      },
      [](const Decision& decision, v1::AuthorizeResponse* wire_response) {
        DecisionToProto(decision, wire_response);
      });
}

grpc::ServerUnaryReactor* GrpcDecisionService::BatchAuthorize(grpc::CallbackServerContext* context,
                                                              const grpc::ByteBuffer* request,
                                                              grpc::ByteBuffer* response) {
  return ServeUnary<v1::BatchAuthorizeRequest, v1::BatchAuthorizeResponse, std::vector<Decision>>(
      context, request, response, runner_, batch_authorize_,
      [](const v1::BatchAuthorizeRequest& wire_request, DecisionBudget::ShouldStop should_stop)
          -> absl::StatusOr<DecisionRunner::Decide<std::vector<Decision>>> {
        absl::StatusOr<std::vector<Request>> requests = BatchRequestsFromProto(wire_request);
        if (!requests.ok()) return requests.status();
        return [requests = *std::move(requests),
                should_stop = std::move(should_stop)](Authorizer& authorizer) {
          return authorizer.BatchAuthorize(requests, should_stop);
        };
      },
      [](const std::vector<Decision>& decisions, v1::BatchAuthorizeResponse* wire_response) {
        wire_response->mutable_results()->Reserve(static_cast<int>(decisions.size()));
        for (const Decision& decision : decisions) {
          DecisionToProto(decision, wire_response->add_results());
        }
      });
}

grpc::ServerUnaryReactor* GrpcDecisionService::ValidateToken(grpc::CallbackServerContext* context,
                                                             const grpc::ByteBuffer* request,
                                                             grpc::ByteBuffer* response) {
  return ServeUnary<v1::ValidateTokenRequest, v1::ValidateTokenResponse, TokenValidation>(
      context, request, response, runner_, validate_token_,
      [](const v1::ValidateTokenRequest& wire_request, DecisionBudget::ShouldStop should_stop)
          -> absl::StatusOr<DecisionRunner::Decide<TokenValidation>> {
        return [token = wire_request.token(), dpop = DpopEvidenceFromProto(wire_request),
                list_permissions = !wire_request.omit_permissions(),
                should_stop = std::move(should_stop)](Authorizer& authorizer) {
          return authorizer.ValidateToken(token, dpop, should_stop, list_permissions);
        };
      },
      [](const TokenValidation& validation, v1::ValidateTokenResponse* wire_response) {
        TokenValidationToProto(validation, wire_response);
      });
}

grpc::ServerUnaryReactor* GrpcDecisionService::Simulate(grpc::CallbackServerContext* context,
                                                        const grpc::ByteBuffer* request,
                                                        grpc::ByteBuffer* response) {
  return ServeUnary<v1::SimulateRequest, v1::SimulateResponse, Simulation>(
      context, request, response, runner_, simulate_,
      [](const v1::SimulateRequest& wire_request, DecisionBudget::ShouldStop should_stop)
          -> absl::StatusOr<DecisionRunner::Decide<Simulation>> {
        if (!wire_request.has_request()) {
          return absl::InvalidArgumentError("request: required");
        }
        absl::StatusOr<Request> request = RequestFromProto(wire_request.request());
        if (!request.ok()) return request.status();
        absl::StatusOr<WhatIf> what_if = WhatIfFromProto(wire_request.what_if());
        if (!what_if.ok()) return what_if.status();
        return [request = *std::move(request), what_if = *std::move(what_if),
                should_stop = std::move(should_stop)](Authorizer& authorizer) {
          return authorizer.Simulate(request, what_if, should_stop);
        };
      },
      [](const Simulation& simulation, v1::SimulateResponse* wire_response) {
        SimulationToProto(simulation, wire_response);
      },
      /*on_worker=*/true);
}

}  // namespace verdict
