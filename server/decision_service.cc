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

// Parses the request here, on gRPC's thread, then decides on a worker: runs `handle` (wire
// request -> wire response, or an error) and finishes the call from there.
template <typename WireRequest, typename WireResponse, typename Handler>
grpc::ServerUnaryReactor* ServeUnary(grpc::CallbackServerContext* context,
                                     const grpc::ByteBuffer* request_bytes,
                                     grpc::ByteBuffer* response_bytes, WorkerPool& workers,
                                     Handler handle) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  auto request = std::make_unique<WireRequest>();
  // Deserialize consumes its buffer; the copy shares the slices and costs no bytes.
  grpc::ByteBuffer owned_bytes(*request_bytes);
  if (!grpc::SerializationTraits<WireRequest>::Deserialize(&owned_bytes, request.get()).ok()) {
    reactor->Finish(
        grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                     absl::StrCat("not a valid ", WireRequest::descriptor()->full_name(),
                                  " message (string fields must be valid UTF-8)")));
    return reactor;
  }
  workers.Schedule([context, reactor, response_bytes, request = std::move(request), handle] {
    // A caller that gave up while the call waited for a worker gets nothing decided for it.
    if (context->IsCancelled()) {
      reactor->Finish(grpc::Status(grpc::StatusCode::CANCELLED, "cancelled before decided"));
      return;
    }
    WireResponse response;
    if (absl::Status status = handle(*request, &response); !status.ok()) {
      reactor->Finish(ToGrpcStatus(status));
      return;
    }
    bool own_buffer = false;
    reactor->Finish(
        grpc::SerializationTraits<WireResponse>::Serialize(response, response_bytes, &own_buffer));
  });
  return reactor;
}

}  // namespace

grpc::ServerUnaryReactor* GrpcDecisionService::Authorize(grpc::CallbackServerContext* context,
                                                         const grpc::ByteBuffer* request,
                                                         grpc::ByteBuffer* response) {
  return ServeUnary<v1::AuthorizeRequest, v1::AuthorizeResponse>(
      context, request, response, workers_,
      [this](const v1::AuthorizeRequest& wire_request,
             v1::AuthorizeResponse* wire_response) -> absl::Status {
        absl::StatusOr<Request> request = RequestFromProto(wire_request);
        if (!request.ok()) return request.status();
        absl::StatusOr<Decision> decision = authorizer_.Authorize(*request);
        if (!decision.ok()) return decision.status();
        DecisionToProto(*decision, wire_response);
        return absl::OkStatus();
      });
}

grpc::ServerUnaryReactor* GrpcDecisionService::BatchAuthorize(grpc::CallbackServerContext* context,
                                                              const grpc::ByteBuffer* request,
                                                              grpc::ByteBuffer* response) {
  return ServeUnary<v1::BatchAuthorizeRequest, v1::BatchAuthorizeResponse>(
      context, request, response, workers_,
      [this](const v1::BatchAuthorizeRequest& wire_request,
             v1::BatchAuthorizeResponse* wire_response) -> absl::Status {
        absl::StatusOr<std::vector<Request>> requests = BatchRequestsFromProto(wire_request);
        if (!requests.ok()) return requests.status();
        absl::StatusOr<std::vector<Decision>> decisions = authorizer_.BatchAuthorize(*requests);
        if (!decisions.ok()) return decisions.status();
        wire_response->mutable_results()->Reserve(static_cast<int>(decisions->size()));
        for (const Decision& decision : *decisions) {
          DecisionToProto(decision, wire_response->add_results());
        }
        return absl::OkStatus();
      });
}

grpc::ServerUnaryReactor* GrpcDecisionService::ValidateToken(grpc::CallbackServerContext* context,
                                                             const grpc::ByteBuffer* request,
                                                             grpc::ByteBuffer* response) {
  return ServeUnary<v1::ValidateTokenRequest, v1::ValidateTokenResponse>(
      context, request, response, workers_,
      [this](const v1::ValidateTokenRequest& wire_request,
             v1::ValidateTokenResponse* wire_response) -> absl::Status {
        absl::StatusOr<TokenValidation> validation =
            authorizer_.ValidateToken(wire_request.token(), DpopEvidenceFromProto(wire_request));
        if (!validation.ok()) return validation.status();
        TokenValidationToProto(*validation, wire_response);
        return absl::OkStatus();
      });
}

grpc::ServerUnaryReactor* GrpcDecisionService::Simulate(grpc::CallbackServerContext* context,
                                                        const grpc::ByteBuffer* request,
                                                        grpc::ByteBuffer* response) {
  return ServeUnary<v1::SimulateRequest, v1::SimulateResponse>(
      context, request, response, workers_,
      [this](const v1::SimulateRequest& wire_request,
             v1::SimulateResponse* wire_response) -> absl::Status {
        if (!wire_request.has_request()) {
          return absl::InvalidArgumentError("request: required");
        }
        absl::StatusOr<Request> request = RequestFromProto(wire_request.request());
        if (!request.ok()) return request.status();
        absl::StatusOr<WhatIf> what_if = WhatIfFromProto(wire_request.what_if());
        if (!what_if.ok()) return what_if.status();
        absl::StatusOr<Simulation> simulation = authorizer_.Simulate(*request, *what_if);
        if (!simulation.ok()) return simulation.status();
        SimulationToProto(*simulation, wire_response);
        return absl::OkStatus();
      });
}

}  // namespace verdict
