#include "server/http_mapping.h"

#include <map>
#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::Contains;
using ::testing::Pair;

const std::string kToken = "vdt_" + std::string(43, 'A');
// A compact JWS (header.payload.signature): the shape of a JWT access token.
const std::string kJwt = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhZ3RfcmVhZGVyIn0.c2lnbmF0dXJl";

// An Envoy-shaped request: lower-case header names, the path with its query string.
struct FakeHttpRequest {
  std::string method = "GET";
  std::string path = "/docs/7?page=2";
  std::string scheme = "https";
  std::string host = "docs.example";
  std::string request_id = "3f2a9c1e-8d7b-4e6f-9a0b-1c2d3e4f5a6b";
  std::string source_ip = "10.1.2.3";
  std::map<std::string, std::string> headers = {{"authorization", "Bearer " + kToken},
                                                {"user-agent", "curl/8.0"}};
  std::map<std::string, std::string> extensions;

  HttpRequestAttributes Attributes() const {
    HttpRequestAttributes attributes;
    attributes.method = method;
    attributes.path = path;
    attributes.scheme = scheme;
    attributes.host = host;
    attributes.request_id = request_id;
    attributes.source_ip = source_ip;
    attributes.header = [this](absl::string_view name) { return Find(headers, name); };
    attributes.context_extension = [this](absl::string_view name) {
      return Find(extensions, name);
    };
    return attributes;
  }

  static std::optional<absl::string_view> Find(const std::map<std::string, std::string>& map,
                                               absl::string_view name) {
    auto it = map.find(std::string(name));
    if (it == map.end()) return std::nullopt;
    return absl::string_view(it->second);
  }
};

Request MapOrFail(const HttpMappingConfig& config, const FakeHttpRequest& http) {
  std::variant<Request, HttpAnswer> mapped = MapHttpRequest(config, http.Attributes());
  if (const HttpAnswer* answer = std::get_if<HttpAnswer>(&mapped)) {
    ADD_FAILURE() << "answered " << answer->http_status << " " << answer->body;
    return Request();
  }
  return std::get<Request>(mapped);
}

HttpAnswer AnswerOrFail(const HttpMappingConfig& config, const FakeHttpRequest& http) {
  std::variant<Request, HttpAnswer> mapped = MapHttpRequest(config, http.Attributes());
  if (std::holds_alternative<Request>(mapped)) {
    ADD_FAILURE() << "mapped to a request for " << http.method << " " << http.path;
    return HttpAnswer();
  }
  return std::get<HttpAnswer>(mapped);
}

std::string HeaderOf(const HttpAnswer& answer, absl::string_view name) {
  for (const auto& [key, value] : answer.headers) {
    if (key == name) return value;
  }
  return "<absent>";
}

TEST(MapHttpRequestTest, DefaultsLowerCaseTheMethodDropTheQueryAndTakeTheBearerToken) {
  Request request = MapOrFail(HttpMappingConfig(), FakeHttpRequest());
  EXPECT_EQ(request.action, "get");
  EXPECT_EQ(request.resource, "/docs/7");
  EXPECT_EQ(request.subject.token, kToken);
  EXPECT_EQ(request.subject.agent_id, "");
  EXPECT_EQ(request.client_ip, "10.1.2.3");
  EXPECT_EQ(request.request_id, "3f2a9c1e-8d7b-4e6f-9a0b-1c2d3e4f5a6b");
}

TEST(MapHttpRequestTest, FragmentIsNotPartOfTheResource) {
  FakeHttpRequest http;
  http.path = "/docs/7#section-2";
  EXPECT_EQ(MapOrFail(HttpMappingConfig(), http).resource, "/docs/7");
}

TEST(MapHttpRequestTest, MethodActionTableOverridesLowerCasing) {
  HttpMappingConfig config;
  config.method_actions["GET"] = "read";
  FakeHttpRequest get;
  EXPECT_EQ(MapOrFail(config, get).action, "read");
  FakeHttpRequest del;
  del.method = "DELETE";
  EXPECT_EQ(MapOrFail(config, del).action, "delete");
  // Methods are looked up in upper case, as the table's keys are stored.
  FakeHttpRequest lower_case_get;
  lower_case_get.method = "get";
  EXPECT_EQ(MapOrFail(config, lower_case_get).action, "read");
}

TEST(MapHttpRequestTest, RouteContextExtensionsNameActionAndResource) {
  FakeHttpRequest http;
  http.extensions = {{"verdict_action", "orders.list"}, {"verdict_resource", "orders:eu:*"}};
  Request request = MapOrFail(HttpMappingConfig(), http);
  EXPECT_EQ(request.action, "orders.list");
  EXPECT_EQ(request.resource, "orders:eu:*");
}

TEST(MapHttpRequestTest, BearerSchemeIsCaseInsensitiveAndSpacesAreTolerated) {
  FakeHttpRequest http;
  http.headers["authorization"] = "bearer   " + kToken + " ";
  EXPECT_EQ(MapOrFail(HttpMappingConfig(), http).subject.token, kToken);
}

TEST(MapHttpRequestTest, JwtAccessTokenIsTheSubjectWithoutProofWhenNoneIsSent) {
  FakeHttpRequest http;
  http.headers["authorization"] = "Bearer " + kJwt;
  Request request = MapOrFail(HttpMappingConfig(), http);
  EXPECT_EQ(request.subject.token, kJwt);
  EXPECT_EQ(request.subject.dpop.proof, "");
}

TEST(MapHttpRequestTest, DpopSchemeCarriesTheProofAndTheRequestItWasMadeFor) {
  FakeHttpRequest http;
  http.method = "POST";
  http.path = "/docs/7/comments?draft=1#top";
  http.headers["authorization"] = "DPoP " + kJwt;
  http.headers["dpop"] = "eyJ0eXAiOiJkcG9wK2p3dCJ9.e30.cHJvb2Y";
  Request request = MapOrFail(HttpMappingConfig(), http);
  EXPECT_EQ(request.subject.token, kJwt);
  EXPECT_EQ(request.subject.dpop.proof, "eyJ0eXAiOiJkcG9wK2p3dCJ9.e30.cHJvb2Y");
  EXPECT_EQ(request.subject.dpop.http_method, "POST");
  EXPECT_EQ(request.subject.dpop.http_uri, "https://docs.example/docs/7/comments");
}

TEST(MapHttpRequestTest, TokenHeaderIsConfigurable) {
  HttpMappingConfig config;
  config.token_header = "x-agent-authorization";
  FakeHttpRequest http;
  http.headers = {{"x-agent-authorization", "Bearer " + kToken}};
  EXPECT_EQ(MapOrFail(config, http).subject.token, kToken);
}

TEST(MapHttpRequestTest, MissingOrEmptyCredentialIsUnauthorizedTokenMissing) {
  for (const char* value : {"<absent>", ""}) {
    SCOPED_TRACE(value);
    FakeHttpRequest http;
    if (std::string(value) == "<absent>") {
      http.headers.erase("authorization");
    } else {
      http.headers["authorization"] = value;
    }
    HttpAnswer answer = AnswerOrFail(HttpMappingConfig(), http);
    EXPECT_FALSE(answer.allowed);
    EXPECT_EQ(answer.http_status, 401);
    EXPECT_EQ(answer.rpc_code, 16);  // UNAUTHENTICATED
    EXPECT_EQ(HeaderOf(answer, "x-verdict-reason"), "TOKEN_MISSING");
    EXPECT_EQ(HeaderOf(answer, "www-authenticate"), "Bearer");
  }
}

TEST(MapHttpRequestTest, MalformedCredentialIsUnauthorizedTokenInvalid) {
  const std::string cases[] = {
      "Basic dXNlcjpwYXNz",
      "Bearer",
      "Bearer ",
      "Bearer" + kToken,
      "Bearer not-a-token",
      "Bearer vdt_short",
      "Bearer " + kToken + "A",
      "Bearer " + kToken.substr(0, kToken.size() - 1) + "!",
      "Token " + kToken,
      "Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhIn0",
      "Bearer eyJhbGciOiJFUzI1NiJ9..c2ln",
      "Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln!",
      "Bearer " + kJwt + "." + kJwt,
      "Bearer " + std::string(9000, 'a') + "." + "b.c",
  };
  for (const std::string& credential : cases) {
    SCOPED_TRACE(credential);
    FakeHttpRequest http;
    http.headers["authorization"] = credential;
    HttpAnswer answer = AnswerOrFail(HttpMappingConfig(), http);
    EXPECT_FALSE(answer.allowed);
    EXPECT_EQ(answer.http_status, 401);
    EXPECT_EQ(HeaderOf(answer, "x-verdict-reason"), "TOKEN_INVALID");
    EXPECT_EQ(HeaderOf(answer, "www-authenticate"), "Bearer error=\"invalid_token\"");
    EXPECT_EQ(answer.body.find(kToken), std::string::npos);
  }
}

TEST(MapHttpRequestTest, PathsTheUpstreamCouldReadDifferentlyAreBadRequests) {
  const char* paths[] = {
      "/docs/../admin",
      "/docs/%2e%2E/admin",
      "/docs/./7",
      "/docs/.",
      "/docs/%2E",
      "/docs%2Fadmin",
      "/docs%5cadmin",
      "/docs\\admin",
      "*",
      "docs/7",
      "",
      // Read as /docs/secret/1 by servers that merge slashes or strip path parameters.
      "/docs//secret/1",
      "//docs/secret/1",
      "/docs/secret;x/1",
      "/docs/x/..;/secret/1",
      "/docs/secret%3Bx/1",
      // A second spelling of a character (every server reads "%73" as "s", "%40" as "@"),
      // lowercase hex, an escaped percent sign (read twice, "%2573" is "s"), control
      // characters, malformed escapes.
      "/docs/%73ecret/1",
      "/users/%40me/settings",
      "/v1/docs/123%3Aexport",
      "/%7Ealice/x",
      "/docs/caf%c3%a9/menu",
      "/docs/%2573ecret/1",
      "/docs/secret%00/1",
      "/docs/secret%0A/1",
      "/docs/secret%",
      "/docs/secret%4",
      "/docs/secret%zz/1",
      // A character a path must escape, sent as it is; escapes that are no UTF-8 (an overlong
      // "%C0%AE" is a '.' to a lenient server).
      "/docs/caf\xc3\xa9/menu",
      "/files/a b/x",
      "/a{}/x",
      "/x/%C0%AE%C0%AE/admin",
      "/docs/%FF",
  };
  for (const char* path : paths) {
    SCOPED_TRACE(path);
    FakeHttpRequest http;
    http.path = path;
    HttpAnswer answer = AnswerOrFail(HttpMappingConfig(), http);
    EXPECT_FALSE(answer.allowed);
    EXPECT_EQ(answer.http_status, 400);
    EXPECT_EQ(HeaderOf(answer, "x-verdict-reason"), "INVALID_REQUEST");
  }
}

// An escape of a character a path cannot carry as it is has one spelling, uppercase: the
// path is matched as sent (a pattern is written the same way, "/docs/caf%C3%A9/**").
TEST(MapHttpRequestTest, EscapesOfCharactersAPathMustEncodeAreMatchedAsSent) {
  for (const char* path : {"/docs/caf%C3%A9/menu", "/files/annual%20report%3F.pdf"}) {
    FakeHttpRequest http;
    http.path = path;
    EXPECT_EQ(MapOrFail(HttpMappingConfig(), http).resource, path);
  }
}

TEST(MapHttpRequestTest, DotsInsideSegmentsAndInTheQueryAreFine) {
  FakeHttpRequest http;
  http.path = "/files/report..v2.pdf?next=/../x";
  EXPECT_EQ(MapOrFail(HttpMappingConfig(), http).resource, "/files/report..v2.pdf");
}

TEST(MapHttpRequestTest, ClientIpComesFromTheSourceAddressByDefault) {
  FakeHttpRequest http;
  http.headers["x-forwarded-for"] = "203.0.113.9";
  EXPECT_EQ(MapOrFail(HttpMappingConfig(), http).client_ip, "10.1.2.3");
}

TEST(MapHttpRequestTest, ClientIpIsTheFirstHopOfTheConfiguredHeader) {
  HttpMappingConfig config;
  config.client_ip_header = "x-forwarded-for";
  struct Case {
    const char* forwarded_for;  // nullptr: absent
    const char* client_ip;
  };
  const Case cases[] = {
      {" 203.0.113.9 , 10.0.0.1", "203.0.113.9"},
      {"2001:db8::7,10.0.0.1", "2001:db8::7"},
      {"unknown, 10.0.0.1", ""},  // not an address: unknown, so IP allowlists refuse
      {nullptr, "10.1.2.3"},      // absent: the source address
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.forwarded_for ? c.forwarded_for : "<absent>");
    FakeHttpRequest http;
    if (c.forwarded_for != nullptr) http.headers["x-forwarded-for"] = c.forwarded_for;
    EXPECT_EQ(MapOrFail(config, http).client_ip, c.client_ip);
  }
}

TEST(MapHttpRequestTest, PeerWithoutAnIpAddressLeavesTheClientIpUnknown) {
  FakeHttpRequest http;
  http.source_ip = "";
  EXPECT_EQ(MapOrFail(HttpMappingConfig(), http).client_ip, "");
}

TEST(MapHttpRequestTest, UnusableRequestIdIsDroppedNotRefused) {
  FakeHttpRequest http;
  http.request_id = std::string("id\n2");
  EXPECT_EQ(MapOrFail(HttpMappingConfig(), http).request_id, "");
  http.request_id = std::string(129, 'a');
  EXPECT_EQ(MapOrFail(HttpMappingConfig(), http).request_id, "");
}

Decision MakeDecision(Verdict verdict, ReasonCode reason) {
  Decision decision;
  decision.verdict = verdict;
  decision.reason = reason;
  decision.agent_id = "agt_reader";
  decision.message = "internal policy detail";
  return decision;
}

TEST(AnswerForDecisionTest, AllowForwardsTheRequestNamingTheAgent) {
  HttpAnswer answer = AnswerForDecision(MakeDecision(Verdict::kAllow, ReasonCode::kAllowed));
  EXPECT_TRUE(answer.allowed);
  EXPECT_EQ(answer.rpc_code, 0);
  EXPECT_THAT(answer.headers, Contains(Pair("x-verdict-agent-id", "agt_reader")));
}

TEST(AnswerForDecisionTest, DenialsMapToHttpStatusesWithTheReason) {
  struct Case {
    ReasonCode reason;
    int http_status;
    int rpc_code;
  };
  const Case cases[] = {
      {ReasonCode::kDeniedByPolicy, 403, 7},
      {ReasonCode::kNoMatchingPermission, 403, 7},
      {ReasonCode::kOutsideTimeWindow, 403, 7},
      {ReasonCode::kIpNotAllowed, 403, 7},
      {ReasonCode::kArgumentsRejected, 403, 7},
      {ReasonCode::kApprovalDenied, 403, 7},
      {ReasonCode::kRateLimited, 403, 7},
      {ReasonCode::kTokenInvalid, 401, 16},
      {ReasonCode::kAgentNotFound, 401, 16},
      {ReasonCode::kAgentSuspended, 401, 16},
      {ReasonCode::kAgentRevoked, 401, 16},
      {ReasonCode::kAgentExpired, 401, 16},
      {ReasonCode::kTooManyPendingApprovals, 403, 7},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(ReasonCodeName(c.reason));
    HttpAnswer answer = AnswerForDecision(MakeDecision(Verdict::kDeny, c.reason));
    EXPECT_FALSE(answer.allowed);
    EXPECT_EQ(answer.http_status, c.http_status);
    EXPECT_EQ(answer.rpc_code, c.rpc_code);
    EXPECT_EQ(HeaderOf(answer, "x-verdict-reason"), ReasonCodeName(c.reason));
    EXPECT_EQ(answer.body, std::string("{\"reason\":\"") + ReasonCodeName(c.reason) + "\"}\n");
    EXPECT_EQ(HeaderOf(answer, "x-verdict-agent-id"), "<absent>");
  }
}

TEST(AnswerForDecisionTest, NeedsApprovalIsForbiddenAndNamesThePendingRequest) {
  Decision decision = MakeDecision(Verdict::kNeedsApproval, ReasonCode::kApprovalRequired);
  decision.approval_request_id = "apr_42";
  HttpAnswer answer = AnswerForDecision(decision);
  EXPECT_FALSE(answer.allowed);
  EXPECT_EQ(answer.http_status, 403);
  EXPECT_EQ(HeaderOf(answer, "x-verdict-reason"), "APPROVAL_REQUIRED");
  EXPECT_EQ(HeaderOf(answer, "x-verdict-approval-request-id"), "apr_42");
}

TEST(AnswerForDecisionTest, ErrorsFailClosed) {
  struct Case {
    absl::Status status;
    int http_status;
    int rpc_code;
    const char* reason;
  };
  const Case cases[] = {
      {absl::UnavailableError("database is locked"), 503, 14, "STORE_UNAVAILABLE"},
      {absl::InvalidArgumentError("resource too long"), 400, 3, "INVALID_REQUEST"},
      {absl::InternalError("bug"), 500, 13, "INTERNAL_ERROR"},
      {absl::DeadlineExceededError("slow"), 500, 13, "INTERNAL_ERROR"},
      {absl::UnknownError("?"), 500, 13, "INTERNAL_ERROR"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.status.ToString());
    HttpAnswer answer = AnswerForDecision(c.status);
    EXPECT_FALSE(answer.allowed);
    EXPECT_EQ(answer.http_status, c.http_status);
    EXPECT_EQ(answer.rpc_code, c.rpc_code);
    EXPECT_EQ(HeaderOf(answer, "x-verdict-reason"), c.reason);
    EXPECT_EQ(answer.body.find(std::string(c.status.message())), std::string::npos);
  }
}

TEST(AnswerHttpRequestTest, AsksTheAuthorizerOnlyForMappedRequests) {
  int calls = 0;
  auto authorize = [&](const Request& request) -> absl::StatusOr<Decision> {
    ++calls;
    EXPECT_EQ(request.resource, "/docs/7");
    return MakeDecision(Verdict::kAllow, ReasonCode::kAllowed);
  };
  EXPECT_TRUE(
      AnswerHttpRequest(HttpMappingConfig(), FakeHttpRequest().Attributes(), authorize).allowed);
  EXPECT_EQ(calls, 1);

  FakeHttpRequest anonymous;
  anonymous.headers.clear();
  EXPECT_EQ(AnswerHttpRequest(HttpMappingConfig(), anonymous.Attributes(), authorize).http_status,
            401);
  EXPECT_EQ(calls, 1);
}

TEST(ParseHttpMappingConfigTest, ReadsEveryKey) {
  absl::StatusOr<HttpMappingConfig> config = ParseHttpMappingConfig(
      R"({"method_actions":{"get":"read","POST":"create"},"token_header":"X-Agent-Auth",)"
      R"("client_ip_header":"X-Forwarded-For"})");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->method_actions.at("GET"), "read");
  EXPECT_EQ(config->method_actions.at("POST"), "create");
  EXPECT_EQ(config->token_header, "x-agent-auth");
  EXPECT_EQ(config->client_ip_header, "x-forwarded-for");
}

TEST(ParseHttpMappingConfigTest, EmptyObjectGivesTheDefaults) {
  absl::StatusOr<HttpMappingConfig> config = ParseHttpMappingConfig("{}");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_TRUE(config->method_actions.empty());
  EXPECT_EQ(config->token_header, "authorization");
  EXPECT_EQ(config->client_ip_header, "");
}

TEST(ParseHttpMappingConfigTest, RefusesWhatItCannotUse) {
  const char* cases[] = {
      "",
      "[]",
      R"({"token_hedaer":"authorization"})",
      R"({"method_actions":{"GET":1}})",
      R"({"method_actions":["read"]})",
      R"({"token_header":""})",
      R"({"client_ip_header":true})",
  };
  for (const char* text : cases) {
    SCOPED_TRACE(text);
    EXPECT_EQ(ParseHttpMappingConfig(text).status().code(), absl::StatusCode::kInvalidArgument);
  }
}

TEST(LoadHttpMappingConfigTest, NoPathGivesTheDefaultsAndAMissingFileIsNotFound) {
  absl::StatusOr<HttpMappingConfig> defaults = LoadHttpMappingConfig("");
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->token_header, "authorization");
  EXPECT_EQ(LoadHttpMappingConfig("/nonexistent/ext_authz.json").status().code(),
            absl::StatusCode::kNotFound);
}

// RFC 9449 section 7.1: a request made in the DPoP scheme is told what a DPoP client needs to
// know, in that scheme: the proof algorithms verdict verifies.
TEST(MapHttpRequestTest, ARefusedDpopRequestIsChallengedInTheDpopScheme) {
  FakeHttpRequest http;
  http.headers["authorization"] = "DPoP vdt_short";
  HttpAnswer malformed = AnswerOrFail(HttpMappingConfig(), http);
  EXPECT_EQ(malformed.http_status, 401);
  EXPECT_EQ(HeaderOf(malformed, "www-authenticate"),
            "DPoP error=\"invalid_token\", algs=\"EdDSA ES256\"");

  // A token the engine refuses (bound to a key, and no proof came with it, say).
  http.headers["authorization"] = "dpop " + kJwt;
  HttpAnswer refused =
      AnswerHttpRequest(HttpMappingConfig(), http.Attributes(), [](const Request& request) {
        EXPECT_EQ(request.subject.token, kJwt);
        return absl::StatusOr<Decision>(MakeDecision(Verdict::kDeny, ReasonCode::kTokenInvalid));
      });
  EXPECT_EQ(refused.http_status, 401);
  EXPECT_EQ(HeaderOf(refused, "www-authenticate"),
            "DPoP error=\"invalid_token\", algs=\"EdDSA ES256\"");

  http.headers["authorization"] = "Bearer " + kJwt;
  HttpAnswer bearer = AnswerHttpRequest(HttpMappingConfig(), http.Attributes(), [](const Request&) {
    return absl::StatusOr<Decision>(MakeDecision(Verdict::kDeny, ReasonCode::kTokenInvalid));
  });
  EXPECT_EQ(HeaderOf(bearer, "www-authenticate"), "Bearer error=\"invalid_token\"");
}

}  // namespace
}  // namespace verdict
