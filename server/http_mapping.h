// How an HTTP request that a mesh proxy asks about (Envoy ext_authz) becomes a decision request,
// and how the decision becomes the HTTP answer the proxy gives. Pure: no protobuf, no I/O.
//
//   By default: method "GET" -> action "get"; path "/docs/7?x=1" -> resource "/docs/7";
//   header "authorization: Bearer vdt_..." -> the subject's token (an agent token, or a JWT
//   access token, also as "DPoP <jwt>" with its "dpop" proof header); the source address Envoy
//   reports -> the client IP. An ALLOW lets the request through with the header
//   x-verdict-agent-id; a DENY answers 403, a missing or invalid credential 401, a store that
//   cannot be read 503, always with the header x-verdict-reason.
//
//   absl::StatusOr<HttpMappingConfig> config = ParseHttpMappingConfig(json_text);
//   HttpAnswer answer = AnswerHttpRequest(*config, attributes, [&](const Request& request) {
//     return authorizer.Authorize(request);
//   });
#ifndef VERDICT_SERVER_HTTP_MAPPING_H_
#define VERDICT_SERVER_HTTP_MAPPING_H_

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "decision/types.h"

namespace verdict {

inline constexpr absl::string_view kAgentIdHeader = "x-verdict-agent-id";
inline constexpr absl::string_view kReasonHeader = "x-verdict-reason";
inline constexpr absl::string_view kApprovalRequestIdHeader = "x-verdict-approval-request-id";
// RFC 9449: the proof of possession that goes with a DPoP-bound access token.
inline constexpr absl::string_view kDpopHeader = "dpop";

// Keys of Envoy's per-route context_extensions that name the action or the resource instead of
// the method and the path (set in the proxy's configuration, never by the client).
inline constexpr absl::string_view kActionExtension = "verdict_action";
inline constexpr absl::string_view kResourceExtension = "verdict_resource";

struct HttpMappingConfig {
  // Upper-case method -> action. A method not listed becomes its lower-cased name.
  absl::flat_hash_map<std::string, std::string> method_actions;
  // The lower-case header that carries "Bearer <token>" (or "DPoP <token>").
  std::string token_header = "authorization";
  // When set (for example "x-forwarded-for"), the client IP is the first address listed in this
  // lower-case header. Only safe when the proxy in front rewrites the header; by default the
  // client IP is the source address of the connection, as Envoy reports it.
  std::string client_ip_header;
};

// The configuration from its JSON form; every key is optional and an unknown key is an error:
//   {"method_actions": {"GET": "read", "POST": "create"}, "token_header": "authorization",
//    "client_ip_header": "x-forwarded-for"}
// INVALID_ARGUMENT naming what is wrong.
absl::StatusOr<HttpMappingConfig> ParseHttpMappingConfig(absl::string_view json_text);

// The configuration in the file at `path`; "" gives the defaults.
absl::StatusOr<HttpMappingConfig> LoadHttpMappingConfig(const std::string& path);

// A lower-case name -> its value, or nullopt when absent.
using HeaderLookup = std::function<std::optional<absl::string_view>(absl::string_view name)>;

// What the proxy tells about the request. The views must outlive the mapping.
struct HttpRequestAttributes {
  absl::string_view method;
  absl::string_view path;    // as sent: path and query string, not decoded
  absl::string_view scheme;  // "http", "https"
  absl::string_view host;    // the :authority
  absl::string_view request_id;
  absl::string_view source_ip;  // "" when the peer has no IP address (a Unix socket)
  HeaderLookup header;
  HeaderLookup context_extension;
};

// The answer the proxy gives. allowed: forward the request upstream with `headers` added.
// Otherwise answer the client with http_status, `headers` and `body` instead.
struct HttpAnswer {
  bool allowed = false;
  int http_status = 403;
  // A google.rpc.Code: OK, PERMISSION_DENIED, UNAUTHENTICATED, INVALID_ARGUMENT, UNAVAILABLE or
  // INTERNAL. Envoy denies whenever it is not OK.
  int rpc_code = 7;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

// The decision request, or the answer already known without asking (no token, a malformed
// token, a path that is not normalised).
std::variant<Request, HttpAnswer> MapHttpRequest(const HttpMappingConfig& config,
                                                 const HttpRequestAttributes& attributes);

// The Authorization scheme a request used, which a 401's challenge answers in.
enum class AuthScheme { kBearer, kDpop };

// The answer for a decision, or for the error that stopped it: never an allow on error.
HttpAnswer AnswerForDecision(const absl::StatusOr<Decision>& decision,
                             AuthScheme scheme = AuthScheme::kBearer);

// The scheme of the credential a request that maps carried (kBearer when it names none).
AuthScheme AuthSchemeOf(const HttpMappingConfig& config, const HttpRequestAttributes& attributes);

// MapHttpRequest, then `authorize` when the request maps, then AnswerForDecision.
HttpAnswer AnswerHttpRequest(const HttpMappingConfig& config,
                             const HttpRequestAttributes& attributes,
                             absl::FunctionRef<absl::StatusOr<Decision>(const Request&)> authorize);

}  // namespace verdict

#endif  // VERDICT_SERVER_HTTP_MAPPING_H_
