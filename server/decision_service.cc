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

// A call the DecisionRunner plans inline and finishes on a worker when its plan says so.
template <typename T, typename GaveUp>
void Start(DecisionRunner& runner, DecisionCall<T> call, DecisionRunner::Answer<T> answer,
           GaveUp gave_up) {
  runner.Run<T>(std::move(call), std::move(answer), std::move(gave_up));
}

// A call made on a worker whatever it reads (Simulate).
template <typename T, typename GaveUp>
void Start(DecisionRunner& runner, DecisionRunner::Decide<T> decide,
           DecisionRunner::Answer<T> answer, GaveUp gave_up) {
  runner.RunOnWorker<T>(std::move(decide), std::move(answer), std::move(gave_up));
}

// Parses the request on gRPC's thread; `prepare` turns it into the call to make (or an error):
// a DecisionCall, which the DecisionRunner plans inline or on a worker, or a Decide, which it
// makes on a worker. `to_wire` turns its outcome into the response. The call is timed and counted
// as `method`. `prepare` is handed the call's "should stop" (cancelled, or past its deadline) to
// give the Authorizer.
template <typename WireRequest, typename WireResponse, typename T, typename Prepare,
          typename ToWire>
grpc::ServerUnaryReactor* ServeUnary(grpc::CallbackServerContext* context,
                                     const grpc::ByteBuffer* request_bytes,
                                     grpc::ByteBuffer* response_bytes, DecisionRunner& runner,
                                     const TimedUnaryMethod& method, Prepare prepare,
                                     ToWire to_wire) {
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
  auto call = prepare(request, StopWhenCallEnds(context));
  if (!call.ok()) {
    reactor->Finish(ToGrpcStatus(call.status()));
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
  Start<T>(runner, *std::move(call), std::move(answer),
           [context] { return context->IsCancelled(); });
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
      [](const v1::AuthorizeRequest& wire_request,
         Authorizer::ShouldStop should_stop) -> absl::StatusOr<DecisionCall<Decision>> {
        absl::StatusOr<Request> parsed = RequestFromProto(wire_request);
        if (!parsed.ok()) return parsed.status();
        auto request = std::make_shared<const Request>(*std::move(parsed));
        return DecisionCall<Decision>{
            [request, should_stop](Authorizer& authorizer, Venue venue) {
              return authorizer.PlanAuthorize(*request, venue, should_stop);
            },
            [request, should_stop](Authorizer& authorizer, Planned<Decision> plan) {
              return authorizer.FinishAuthorize(*request, std::move(plan), should_stop);
            }};
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
      [](const v1::BatchAuthorizeRequest& wire_request, Authorizer::ShouldStop should_stop)
          -> absl::StatusOr<DecisionCall<std::vector<Decision>>> {
        absl::StatusOr<BatchRequest> parsed = BatchRequestFromProto(wire_request);
        if (!parsed.ok()) return parsed.status();
        auto batch = std::make_shared<const BatchRequest>(*std::move(parsed));
        return DecisionCall<std::vector<Decision>>{
            [batch, should_stop](Authorizer& authorizer, Venue venue) {
              return authorizer.PlanBatchAuthorize(*batch, venue, should_stop);
            },
            [batch, should_stop](Authorizer& authorizer, Planned<std::vector<Decision>> plan) {
              return authorizer.FinishBatchAuthorize(*batch, std::move(plan), should_stop);
            }};
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
      [](const v1::ValidateTokenRequest& wire_request,
         Authorizer::ShouldStop should_stop) -> absl::StatusOr<DecisionCall<TokenValidation>> {
        auto token = std::make_shared<const std::string>(wire_request.token());
        auto dpop = std::make_shared<const DpopEvidence>(DpopEvidenceFromProto(wire_request));
        const bool list_permissions = !wire_request.omit_permissions();
        return DecisionCall<TokenValidation>{
            [token, dpop, list_permissions, should_stop](Authorizer& authorizer, Venue venue) {
              return authorizer.PlanValidateToken(*token, *dpop, list_permissions, venue,
                                                  should_stop);
            },
            [token, dpop, list_permissions, should_stop](Authorizer& authorizer,
                                                         Planned<TokenValidation> plan) {
              return authorizer.FinishValidateToken(*token, *dpop, list_permissions,
                                                    std::move(plan), should_stop);
            }};
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
      [](const v1::SimulateRequest& wire_request,
         Authorizer::ShouldStop should_stop) -> absl::StatusOr<DecisionRunner::Decide<Simulation>> {
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
      });
}

}  // namespace verdict
