#include "server/ext_authz_service.h"

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "server/grpc_status.h"

namespace verdict {
namespace {

using ::envoy::config::core::v3::HeaderValue;
using ::envoy::config::core::v3::HeaderValueOption;
using ::envoy::service::auth::v3::AttributeContext;
using ::envoy::service::auth::v3::CheckRequest;
using ::envoy::service::auth::v3::CheckResponse;

std::optional<absl::string_view> FindInMap(
    const google::protobuf::Map<std::string, std::string>& map, absl::string_view name) {
  auto it = map.find(std::string(name));
  if (it == map.end()) return std::nullopt;
  return absl::string_view(it->second);
}

// A header's value. Envoy's `headers` map holds a repeated header's values joined with commas
// (RFC 9110 section 5.3); from the raw `header_map` they are joined the same way, into
// `joined`, so that a request with two credentials (two authorization or dpop headers, which
// RFC 9449 section 4.3 refuses) is read as the malformed value it is, not as whichever came
// first.
std::optional<absl::string_view> FindHeader(const AttributeContext::HttpRequest& http,
                                            absl::string_view name,
                                            std::deque<std::string>& joined) {
  if (!http.headers().empty()) return FindInMap(http.headers(), name);
  std::optional<absl::string_view> found;
  std::string* all = nullptr;
  for (const HeaderValue& header : http.header_map().headers()) {
    if (!absl::EqualsIgnoreCase(header.key(), name)) continue;
    const absl::string_view value = header.value().empty() ? absl::string_view(header.raw_value())
                                                           : absl::string_view(header.value());
    if (!found.has_value()) {
      found = value;
      continue;
    }
    if (all == nullptr) all = &joined.emplace_back(*found);
    absl::StrAppend(all, ",", value);
    found = *all;
  }
  return found;
}

void AddHeaders(const HttpAnswer& answer,
                google::protobuf::RepeatedPtrField<HeaderValueOption>* headers) {
  for (const auto& [key, value] : answer.headers) {
    HeaderValueOption* option = headers->Add();
    option->mutable_header()->set_key(key);
    option->mutable_header()->set_value(value);
    // Replace what the client sent: an upstream must be able to trust x-verdict-agent-id.
    option->set_append_action(HeaderValueOption::OVERWRITE_IF_EXISTS_OR_ADD);
  }
}

}  // namespace

HttpRequestAttributes AttributesFromCheckRequest(const CheckRequest& request) {
  const AttributeContext& context = request.attributes();
  const AttributeContext::HttpRequest& http = context.request().http();
  HttpRequestAttributes attributes;
  attributes.method = http.method();
  attributes.path = http.path();
  attributes.scheme = http.scheme();
  attributes.host = http.host();
  attributes.request_id = http.id();
  attributes.source_ip = context.source().address().socket_address().address();
  // Joined values live as long as the lookup: the attributes' views into them stay valid.
  attributes.header = [&http, joined = std::make_shared<std::deque<std::string>>()](
                          absl::string_view name) { return FindHeader(http, name, *joined); };
  attributes.context_extension = [&context](absl::string_view name) {
    return FindInMap(context.context_extensions(), name);
  };
  return attributes;
}

void AnswerToCheckResponse(const HttpAnswer& answer, CheckResponse* response) {
  response->mutable_status()->set_code(answer.rpc_code);
  if (answer.allowed) {
    AddHeaders(answer, response->mutable_ok_response()->mutable_headers());
    return;
  }
  const std::string* reason = nullptr;
  for (const auto& [key, value] : answer.headers) {
    if (key == kReasonHeader) reason = &value;
  }
  if (reason != nullptr) response->mutable_status()->set_message(*reason);
  auto* denied = response->mutable_denied_response();
  // The enum is open: every HTTP status travels, named in the trimmed proto or not.
  denied->mutable_status()->set_code(static_cast<envoy::type::v3::StatusCode>(answer.http_status));
  AddHeaders(answer, denied->mutable_headers());
  denied->set_body(answer.body);
}

grpc::ServerUnaryReactor* ExtAuthzService::Check(grpc::CallbackServerContext* context,
                                                 const grpc::ByteBuffer* request_bytes,
                                                 grpc::ByteBuffer* response_bytes) {
  TimedUnaryReactor* reactor = check_.StartCall();
  auto finish = [reactor, response_bytes](const HttpAnswer& answer) {
    CheckResponse response;
    AnswerToCheckResponse(answer, &response);
    bool own_buffer = false;
    reactor->Finish(
        grpc::SerializationTraits<CheckResponse>::Serialize(response, response_bytes, &own_buffer));
  };
  // Lives until the decision is made, wherever the runner makes it.
  auto request = std::make_shared<CheckRequest>();
  // Deserialize consumes its buffer; the copy shares the slices and costs no bytes.
  grpc::ByteBuffer owned_bytes(*request_bytes);
  if (!grpc::SerializationTraits<CheckRequest>::Deserialize(&owned_bytes, request.get()).ok()) {
    // Bytes that do not parse are a malformed request: 400, as a path verdict cannot match is.
    finish(AnswerForDecision(absl::InvalidArgumentError("not a valid CheckRequest")));
    return reactor;
  }
  // A request that does not map (no credential, a path verdict cannot match) is answered here;
  // the others are decided where the runner says.
  const HttpRequestAttributes attributes = AttributesFromCheckRequest(*request);
  std::variant<Request, HttpAnswer> mapped = MapHttpRequest(config_, attributes);
  if (const HttpAnswer* known = std::get_if<HttpAnswer>(&mapped)) {
    finish(*known);
    return reactor;
  }
  auto decision_request = std::make_shared<const Request>(std::get<Request>(std::move(mapped)));
  auto should_stop = StopWhenCallEnds(context);
  runner_.Run<Decision>(
      {[decision_request, should_stop](Authorizer& authorizer, Venue venue) {
         return authorizer.PlanAuthorize(*decision_request, venue, should_stop);
       },
       [decision_request, should_stop](Authorizer& authorizer, Planned<Decision> plan) {
         return authorizer.FinishAuthorize(*decision_request, std::move(plan), should_stop);
       }},
      [this, reactor, finish,
       scheme = AuthSchemeOf(config_, attributes)](absl::StatusOr<Decision> decision) {
        if (decision.status().code() == absl::StatusCode::kCancelled) {
          reactor->Finish(ToGrpcStatus(decision.status()));  // nobody is waiting for an answer
          return;
        }
        if (decision.status().code() == absl::StatusCode::kUnavailable) {
          metrics_.RecordStoreError();
        }
        finish(AnswerForDecision(decision, scheme));
      },
      [context] { return context->IsCancelled(); });
  return reactor;
}

}  // namespace verdict
