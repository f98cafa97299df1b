#include "server/http_mapping.h"

#include <arpa/inet.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/json.h"
#include "crypto/token.h"
#include "decision/path_escapes.h"
#include "decision/request_validation.h"

namespace verdict {
namespace {

// google.rpc.Code values.
constexpr int kRpcOk = 0;
constexpr int kRpcInvalidArgument = 3;
constexpr int kRpcPermissionDenied = 7;
constexpr int kRpcInternal = 13;
constexpr int kRpcUnavailable = 14;
constexpr int kRpcUnauthenticated = 16;

// Reasons that are not decisions: the request never reached the engine.
constexpr absl::string_view kTokenMissing = "TOKEN_MISSING";
constexpr absl::string_view kTokenInvalid = "TOKEN_INVALID";
constexpr absl::string_view kInvalidRequest = "INVALID_REQUEST";
constexpr absl::string_view kStoreUnavailable = "STORE_UNAVAILABLE";
constexpr absl::string_view kInternalError = "INTERNAL_ERROR";

HttpAnswer Denied(int http_status, int rpc_code, absl::string_view reason) {
  HttpAnswer answer;
  answer.allowed = false;
  answer.http_status = http_status;
  answer.rpc_code = rpc_code;
  answer.headers.emplace_back(std::string(kReasonHeader), std::string(reason));
  answer.headers.emplace_back("content-type", "application/json");
  // The reason only: a decision's message may describe the policy, which is not the client's.
  answer.body = absl::StrCat("{\"reason\":", JsonQuote(reason), "}\n");
  return answer;
}

// RFC 6750 section 3: a 401 names the scheme, and says when the token given was refused. A
// request that used the DPoP scheme is answered in it (RFC 9449 section 7.1), naming the proof
// algorithms verdict verifies (crypto/dpop.h: no shared-secret proofs).
HttpAnswer Unauthenticated(absl::string_view reason, bool token_given,
                           AuthScheme scheme = AuthScheme::kBearer) {
  HttpAnswer answer = Denied(401, kRpcUnauthenticated, reason);
  absl::string_view challenge;
  if (scheme == AuthScheme::kDpop) {
    challenge = token_given ? "DPoP error=\"invalid_token\", algs=\"EdDSA ES256\""
                            : "DPoP algs=\"EdDSA ES256\"";
  } else {
    challenge = token_given ? "Bearer error=\"invalid_token\"" : "Bearer";
  }
  answer.headers.emplace_back("www-authenticate", std::string(challenge));
  return answer;
}

// The scheme of the credential header, if it names one verdict accepts. RFC 7235: the scheme
// is case-insensitive; one or more spaces separate it from the token.
std::optional<AuthScheme> SchemeOf(absl::string_view credential, absl::string_view& token) {
  credential = absl::StripAsciiWhitespace(credential);
  const size_t scheme_length = credential.find(' ');
  if (scheme_length == absl::string_view::npos) return std::nullopt;
  const absl::string_view scheme = credential.substr(0, scheme_length);
  token = absl::StripLeadingAsciiWhitespace(credential.substr(scheme_length + 1));
  if (absl::EqualsIgnoreCase(scheme, "bearer")) return AuthScheme::kBearer;
  // RFC 9449: a token bound to a key; the engine checks the binding whatever the scheme.
  if (absl::EqualsIgnoreCase(scheme, "dpop")) return AuthScheme::kDpop;
  return std::nullopt;
}

HttpAnswer BadRequest() { return Denied(400, kRpcInvalidArgument, kInvalidRequest); }

bool IsIpAddress(absl::string_view text) {
  std::string address(text);
  unsigned char buffer[sizeof(struct in6_addr)];
  return inet_pton(AF_INET, address.c_str(), buffer) == 1 ||
         inet_pton(AF_INET6, address.c_str(), buffer) == 1;
}

absl::string_view PathWithoutQuery(absl::string_view target) {
  size_t end = target.find_first_of("?#");
  return end == absl::string_view::npos ? target : target.substr(0, end);
}

std::string ClientIp(const HttpMappingConfig& config, const HttpRequestAttributes& attributes) {
  if (!config.client_ip_header.empty() && attributes.header) {
    std::optional<absl::string_view> listed = attributes.header(config.client_ip_header);
    if (listed.has_value()) {
      absl::string_view first =
          absl::StripAsciiWhitespace(*absl::StrSplit(*listed, absl::MaxSplits(',', 1)).begin());
      // An address the header cannot vouch for is unknown: IP allowlists then refuse.
      return IsIpAddress(first) ? std::string(first) : std::string();
    }
  }
  return IsIpAddress(attributes.source_ip) ? std::string(attributes.source_ip) : std::string();
}

bool IsUsableRequestId(absl::string_view id) {
  if (id.size() > kMaxRequestIdLength) return false;
  for (char c : id) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

std::optional<absl::string_view> Lookup(const HeaderLookup& lookup, absl::string_view name) {
  if (!lookup) return std::nullopt;
  std::optional<absl::string_view> value = lookup(name);
  if (value.has_value() && value->empty()) return std::nullopt;
  return value;
}

absl::StatusOr<std::string> StringMember(const JsonValue& value, absl::string_view key) {
  if (!value.is_string()) {
    return absl::InvalidArgumentError(
        absl::StrCat("ext_authz config: \"", key, "\" must be a string"));
  }
  return value.as_string();
}

}  // namespace

absl::StatusOr<HttpMappingConfig> ParseHttpMappingConfig(absl::string_view json_text) {
  absl::StatusOr<JsonValue> json = ParseJson(json_text);
  if (!json.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("ext_authz config is not valid JSON: ", json.status().message()));
  }
  if (!json->is_object()) {
    return absl::InvalidArgumentError("ext_authz config must be a JSON object");
  }
  HttpMappingConfig config;
  for (const auto& [key, value] : json->as_object()) {
    if (key == "method_actions") {
      if (!value.is_object()) {
        return absl::InvalidArgumentError(
            "ext_authz config: \"method_actions\" must map methods to actions");
      }
      for (const auto& [method, action] : value.as_object()) {
        absl::StatusOr<std::string> name = StringMember(action, method);
        if (!name.ok()) return name.status();
        config.method_actions[absl::AsciiStrToUpper(method)] = *std::move(name);
      }
    } else if (key == "token_header" || key == "client_ip_header") {
      absl::StatusOr<std::string> header = StringMember(value, key);
      if (!header.ok()) return header.status();
      // Envoy lower-cases every header name it sends.
      std::string name = absl::AsciiStrToLower(*header);
      if (key == "token_header") {
        if (name.empty()) {
          return absl::InvalidArgumentError("ext_authz config: \"token_header\" is empty");
        }
        config.token_header = std::move(name);
      } else {
        config.client_ip_header = std::move(name);
      }
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("ext_authz config: unknown key \"", key,
                       "\" (known: method_actions, token_header, client_ip_header)"));
    }
  }
  return config;
}

absl::StatusOr<HttpMappingConfig> LoadHttpMappingConfig(const std::string& path) {
  if (path.empty()) return HttpMappingConfig();
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::NotFoundError(
        absl::StrCat("cannot read the ext_authz config ", path, ": ", std::strerror(errno)));
  }
  std::stringstream text;
  text << file.rdbuf();
  return ParseHttpMappingConfig(text.str());
}

std::variant<Request, HttpAnswer> MapHttpRequest(const HttpMappingConfig& config,
                                                 const HttpRequestAttributes& attributes) {
  std::optional<absl::string_view> credential = Lookup(attributes.header, config.token_header);
  if (!credential.has_value()) return Unauthenticated(kTokenMissing, /*token_given=*/false);
  absl::string_view token;
  const std::optional<AuthScheme> scheme = SchemeOf(*credential, token);
  if (!scheme.has_value()) return Unauthenticated(kTokenInvalid, /*token_given=*/true);
  const bool token_shaped = LooksLikeCompactJws(token) ? CheckCompactJwsShape(token).ok()
                                                       : CheckAgentTokenShape(token).ok();
  if (!token_shaped) return Unauthenticated(kTokenInvalid, /*token_given=*/true, *scheme);

  if (attributes.method.empty() || !CheckMatchablePath(PathWithoutQuery(attributes.path)).ok()) {
    return BadRequest();
  }

  Request request;
  request.subject.token = std::string(token);
  if (std::optional<absl::string_view> proof = Lookup(attributes.header, kDpopHeader)) {
    // RFC 9449 section 4.3: one proof. Repeated headers arrive joined with commas, which no
    // compact JWS contains; refused whatever the token, never read first come first served.
    if (absl::StrContains(*proof, ',')) {
      return Unauthenticated(kTokenInvalid, /*token_given=*/true, *scheme);
    }
    request.subject.dpop.proof = std::string(*proof);
    request.subject.dpop.http_method = std::string(attributes.method);
    // RFC 9449 section 4.2: the URI without its query and fragment.
    request.subject.dpop.http_uri =
        absl::StrCat(attributes.scheme, "://", attributes.host, PathWithoutQuery(attributes.path));
  }
  if (std::optional<absl::string_view> action =
          Lookup(attributes.context_extension, kActionExtension)) {
    request.action = std::string(*action);
  } else if (auto named = config.method_actions.find(absl::AsciiStrToUpper(attributes.method));
             named != config.method_actions.end()) {
    // Looked up as the table's keys are written: an upstream that accepts "get" as GET must not
    // see it decided as some other action.
    request.action = named->second;
  } else {
    request.action = absl::AsciiStrToLower(attributes.method);
  }
  if (std::optional<absl::string_view> resource =
          Lookup(attributes.context_extension, kResourceExtension)) {
    request.resource = std::string(*resource);
  } else {
    request.resource = std::string(PathWithoutQuery(attributes.path));
  }
  request.client_ip = ClientIp(config, attributes);
  // The id only names the call in logs; one the client made unusable is dropped, not refused.
  if (IsUsableRequestId(attributes.request_id)) {
    request.request_id = std::string(attributes.request_id);
  }
  return request;
}

HttpAnswer AnswerForDecision(const absl::StatusOr<Decision>& decision, AuthScheme scheme) {
  if (!decision.ok()) {
    switch (decision.status().code()) {
      case absl::StatusCode::kInvalidArgument:
        return BadRequest();
      case absl::StatusCode::kUnavailable:
        return Denied(503, kRpcUnavailable, kStoreUnavailable);
      default:
        return Denied(500, kRpcInternal, kInternalError);
    }
  }
  absl::string_view reason = ReasonCodeName(decision->reason);
  switch (decision->verdict) {
    case Verdict::kAllow: {
      HttpAnswer answer;
      answer.allowed = true;
      answer.http_status = 200;
      answer.rpc_code = kRpcOk;
      answer.headers.emplace_back(std::string(kAgentIdHeader), decision->agent_id);
      return answer;
    }
    case Verdict::kNeedsApproval: {
      HttpAnswer answer = Denied(403, kRpcPermissionDenied, reason);
      answer.headers.emplace_back(std::string(kApprovalRequestIdHeader),
                                  decision->approval_request_id);
      return answer;
    }
    case Verdict::kDeny:
      break;
  }
  switch (decision->reason) {
    // The token no longer names a live agent: the credential is what failed.
    case ReasonCode::kTokenInvalid:
    case ReasonCode::kAgentNotFound:
    case ReasonCode::kAgentSuspended:
    case ReasonCode::kAgentRevoked:
    case ReasonCode::kAgentExpired:
      return Unauthenticated(reason, /*token_given=*/true, scheme);
    default:
      return Denied(403, kRpcPermissionDenied, reason);
  }
}

HttpAnswer AnswerHttpRequest(
    const HttpMappingConfig& config, const HttpRequestAttributes& attributes,
    absl::FunctionRef<absl::StatusOr<Decision>(const Request&)> authorize) {
  std::variant<Request, HttpAnswer> mapped = MapHttpRequest(config, attributes);
  if (HttpAnswer* known = std::get_if<HttpAnswer>(&mapped)) return std::move(*known);
  return AnswerForDecision(authorize(std::get<Request>(mapped)), AuthSchemeOf(config, attributes));
}

AuthScheme AuthSchemeOf(const HttpMappingConfig& config, const HttpRequestAttributes& attributes) {
  std::optional<absl::string_view> credential = Lookup(attributes.header, config.token_header);
  if (!credential.has_value()) return AuthScheme::kBearer;
  absl::string_view token;
  return SchemeOf(*credential, token).value_or(AuthScheme::kBearer);
}

}  // namespace verdict
