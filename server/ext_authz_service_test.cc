// Envoy's ext_authz over a real gRPC channel: a client built from the same definitions sends
// CheckRequests shaped like Envoy's (lower-case header names, the path with its query string,
// the peer's socket address, fields verdict does not read), and the byte layout of requests and
// responses is checked against the field numbers of Envoy's public API.
#include "server/ext_authz_service.h"

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "crypto/sha256.h"
#include "gmock/gmock.h"
#include "google/protobuf/unknown_field_set.h"
#include "gtest/gtest.h"
#include "server/fan_out_observer.h"
#include "server/worker_pool.h"
#include "store/decision_log.h"
#include "store/decision_log_writer.h"
#include "testing/memory_store.h"

namespace verdict {
namespace {

using ::envoy::config::core::v3::HeaderValueOption;
using ::envoy::service::auth::v3::Authorization;
using ::envoy::service::auth::v3::CheckRequest;
using ::envoy::service::auth::v3::CheckResponse;
using ::google::protobuf::UnknownField;
using ::google::protobuf::UnknownFieldSet;

const std::string kReaderToken = "vdt_" + std::string(42, 'R') + "A";
const std::string kUnknownToken = "vdt_" + std::string(42, 'U') + "A";

// The store fails every read: a database that cannot be opened or is locked too long.
class UnavailableStore : public PolicyStore {
 public:
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> BeginRead() override {
    return absl::UnavailableError("database is locked");
  }
  absl::StatusOr<std::unique_ptr<WriteTransaction>> BeginWrite() override {
    return absl::UnavailableError("database is locked");
  }
};

// A CheckRequest as Envoy's HTTP ext_authz filter sends it.
CheckRequest EnvoyCheckRequest(const std::string& method, const std::string& path,
                               const std::string& authorization) {
  CheckRequest request;
  auto* attributes = request.mutable_attributes();
  auto* source = attributes->mutable_source()->mutable_address()->mutable_socket_address();
  source->set_address("10.244.0.17");
  source->set_port_value(53124);
  auto* destination =
      attributes->mutable_destination()->mutable_address()->mutable_socket_address();
  destination->set_address("10.244.0.9");
  destination->set_port_value(8080);
  attributes->mutable_request()->mutable_time()->set_seconds(1764460800);
  auto* http = attributes->mutable_request()->mutable_http();
  http->set_id("5e1f2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b");
  http->set_method(method);
  http->set_path(path);
  http->set_host("docs.example.svc:8080");
  http->set_scheme("http");
  http->set_protocol("HTTP/1.1");
  auto& headers = *http->mutable_headers();
  headers[":authority"] = "docs.example.svc:8080";
  headers[":method"] = method;
  headers[":path"] = path;
  headers["user-agent"] = "curl/8.5.0";
  headers["x-forwarded-proto"] = "http";
  headers["x-request-id"] = http->id();
  if (!authorization.empty()) headers["authorization"] = authorization;
  return request;
}

std::string HeaderOf(const google::protobuf::RepeatedPtrField<HeaderValueOption>& headers,
                     absl::string_view key) {
  for (const HeaderValueOption& option : headers) {
    if (option.header().key() == key) return option.header().value();
  }
  return "<absent>";
}

class ExtAuthzServiceTest : public testing::Test {
 protected:
  void SetUp() override {
    Agent reader;
    reader.id = "agt_reader";
    ASSERT_TRUE(store_.AddAgent(reader).ok());
    ASSERT_TRUE(store_.SetAgentToken("agt_reader", Sha256(kReaderToken)).ok());
    Permission read_api;
    read_api.id = "perm_read_api";
    read_api.agent_id = "agt_reader";
    read_api.resource = "/api/**";
    read_api.actions = {"get"};
    ASSERT_TRUE(store_.AddPermission(read_api).ok());
    Permission deny_admin;
    deny_admin.agent_id = "agt_reader";
    deny_admin.resource = "/api/admin/**";
    deny_admin.actions = {"*"};
    deny_admin.effect = Effect::kDeny;
    ASSERT_TRUE(store_.AddPermission(deny_admin).ok());
    StartServer(store_);
  }

  // Who is told of the decisions: the metrics.
  virtual DecisionObserver* Observer() { return &metrics_; }

  void StartServer(PolicyStore& store) {
    runner_ = std::make_unique<DecisionRunner>(
        store, [] { return absl::Now(); }, Observer(), nullptr, workers_, /*inline_slots=*/1);
    service_ = std::make_unique<ExtAuthzService>(*runner_, HttpMappingConfig(), metrics_);
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(service_.get());
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    stub_ = Authorization::NewStub(grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                                       grpc::InsecureChannelCredentials()));
  }

  void TearDown() override { server_->Shutdown(); }

  CheckResponse Check(const CheckRequest& request) {
    CheckResponse response;
    grpc::ClientContext context;
    grpc::Status status = stub_->Check(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  MemoryPolicyStore store_;
  Metrics metrics_;
  WorkerPool workers_{1};
  std::unique_ptr<DecisionRunner> runner_;
  std::unique_ptr<ExtAuthzService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<Authorization::Stub> stub_;
};

TEST_F(ExtAuthzServiceTest, AllowedRequestIsOkAndNamesTheAgent) {
  CheckResponse response =
      Check(EnvoyCheckRequest("GET", "/api/docs/7?page=2&sort=asc", "Bearer " + kReaderToken));
  EXPECT_EQ(response.status().code(), 0);
  ASSERT_TRUE(response.has_ok_response());
  EXPECT_EQ(HeaderOf(response.ok_response().headers(), "x-verdict-agent-id"), "agt_reader");
  EXPECT_EQ(response.ok_response().headers(0).append_action(),
            HeaderValueOption::OVERWRITE_IF_EXISTS_OR_ADD);
}

TEST_F(ExtAuthzServiceTest, RateLimitSpendsASlotPerAllowedRequest) {
  // The decision writes (a rate slot), so it is decided on a worker, and still answered.
  Permission limited;
  limited.id = "perm_post_limited";
  limited.agent_id = "agt_reader";
  limited.resource = "/api/limited/**";
  limited.actions = {"post"};
  limited.constraints_json = R"({"rate_limit": {"max_calls": 1, "window_seconds": 3600}})";
  ASSERT_TRUE(store_.AddPermission(limited).ok());
  const CheckRequest post = EnvoyCheckRequest("POST", "/api/limited/1", "Bearer " + kReaderToken);
  EXPECT_TRUE(Check(post).has_ok_response());
  const CheckResponse second = Check(post);
  ASSERT_TRUE(second.has_denied_response());
  EXPECT_EQ(HeaderOf(second.denied_response().headers(), "x-verdict-reason"), "RATE_LIMITED");
}

TEST_F(ExtAuthzServiceTest, DenyPermissionIsForbiddenWithTheReason) {
  CheckResponse response =
      Check(EnvoyCheckRequest("GET", "/api/admin/users?all=1", "Bearer " + kReaderToken));
  EXPECT_EQ(response.status().code(), 7);  // PERMISSION_DENIED
  ASSERT_TRUE(response.has_denied_response());
  EXPECT_EQ(response.denied_response().status().code(), 403);
  EXPECT_EQ(HeaderOf(response.denied_response().headers(), "x-verdict-reason"), "DENIED_BY_POLICY");
}

TEST_F(ExtAuthzServiceTest, MethodWithoutPermissionIsForbidden) {
  CheckResponse response =
      Check(EnvoyCheckRequest("DELETE", "/api/docs/7", "Bearer " + kReaderToken));
  EXPECT_EQ(response.denied_response().status().code(), 403);
  EXPECT_EQ(HeaderOf(response.denied_response().headers(), "x-verdict-reason"),
            "NO_MATCHING_PERMISSION");
}

TEST_F(ExtAuthzServiceTest, MissingAndUnknownTokensAreUnauthorized) {
  struct Case {
    std::string authorization;
    std::string reason;
  };
  const Case cases[] = {
      {"", "TOKEN_MISSING"},
      {"Basic cmVhZGVyOnNlY3JldA==", "TOKEN_INVALID"},
      {"Bearer " + kUnknownToken, "TOKEN_INVALID"},
      // A JWT access token, and this Authorizer has no key to verify one with.
      {"Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhZ3RfcmVhZGVyIn0.c2lnbmF0dXJl", "TOKEN_INVALID"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.authorization);
    CheckResponse response = Check(EnvoyCheckRequest("GET", "/api/docs/7", c.authorization));
    EXPECT_EQ(response.status().code(), 16);  // UNAUTHENTICATED
    ASSERT_TRUE(response.has_denied_response());
    EXPECT_EQ(response.denied_response().status().code(), 401);
    EXPECT_EQ(HeaderOf(response.denied_response().headers(), "x-verdict-reason"), c.reason);
    EXPECT_NE(HeaderOf(response.denied_response().headers(), "www-authenticate"), "<absent>");
  }
}

// The walkthrough of deploy/README.md, in process: allowed, then revoked, then refused.
TEST_F(ExtAuthzServiceTest, RevokeTakesEffectOnTheNextRequest) {
  const CheckRequest request =
      EnvoyCheckRequest("GET", "/api/docs/7?page=2", "Bearer " + kReaderToken);
  EXPECT_TRUE(Check(request).has_ok_response());
  ASSERT_TRUE(store_.SetAgentStatus("agt_reader", AgentStatus::kRevoked).ok());
  CheckResponse response = Check(request);
  ASSERT_TRUE(response.has_denied_response());
  EXPECT_EQ(response.denied_response().status().code(), 401);
  EXPECT_EQ(HeaderOf(response.denied_response().headers(), "x-verdict-reason"), "AGENT_REVOKED");
}

TEST_F(ExtAuthzServiceTest, RevokedPermissionIsForbiddenOnTheNextRequest) {
  const CheckRequest request = EnvoyCheckRequest("GET", "/api/docs/7", "Bearer " + kReaderToken);
  EXPECT_TRUE(Check(request).has_ok_response());
  ASSERT_TRUE(store_.RemovePermission("perm_read_api").ok());
  CheckResponse response = Check(request);
  EXPECT_EQ(response.denied_response().status().code(), 403);
  EXPECT_EQ(HeaderOf(response.denied_response().headers(), "x-verdict-reason"),
            "NO_MATCHING_PERMISSION");
}

TEST_F(ExtAuthzServiceTest, DecisionsAreCountedInMetrics) {
  Check(EnvoyCheckRequest("GET", "/api/docs/7", "Bearer " + kReaderToken));
  Check(EnvoyCheckRequest("GET", "/api/admin/x", "Bearer " + kReaderToken));
  const std::string text = metrics_.RenderPrometheusText();
  EXPECT_THAT(text, testing::HasSubstr(
                        "verdict_decisions_total{verdict=\"ALLOW\",reason=\"ALLOWED\"} 1\n"));
  EXPECT_THAT(text, testing::HasSubstr("verdict_decisions_total{verdict=\"DENY\","
                                       "reason=\"DENIED_BY_POLICY\"} 1\n"));
  // A denied request is still a call answered OK: the denial travels in the CheckResponse.
  EXPECT_THAT(text, testing::HasSubstr(
                        "verdict_grpc_server_handled_total{grpc_service=\"envoy.service.auth.v3."
                        "Authorization\",grpc_method=\"Check\",grpc_code=\"OK\"} 2\n"));
  EXPECT_THAT(text, testing::HasSubstr("verdict_grpc_server_in_flight{grpc_service=\"envoy.service."
                                       "auth.v3.Authorization\",grpc_method=\"Check\"} 0\n"));
}

TEST_F(ExtAuthzServiceTest, RawHeaderMapIsReadWhenEnvoySendsNoHeaderMap) {
  CheckRequest request = EnvoyCheckRequest("GET", "/api/docs/7", "");
  auto* http = request.mutable_attributes()->mutable_request()->mutable_http();
  http->mutable_headers()->clear();
  auto* raw = http->mutable_header_map()->add_headers();
  raw->set_key("authorization");
  raw->set_raw_value("Bearer " + kReaderToken);
  EXPECT_TRUE(Check(request).has_ok_response());
}

TEST_F(ExtAuthzServiceTest, RepeatedCredentialHeadersAreRefusedNotReadFirstComeFirstServed) {
  for (const char* repeated : {"authorization", "dpop"}) {
    SCOPED_TRACE(repeated);
    CheckRequest request = EnvoyCheckRequest("GET", "/api/docs/7", "");
    auto* http = request.mutable_attributes()->mutable_request()->mutable_http();
    http->mutable_headers()->clear();
    auto add = [http](const std::string& key, const std::string& value) {
      auto* raw = http->mutable_header_map()->add_headers();
      raw->set_key(key);
      raw->set_raw_value(value);
    };
    add("authorization", "Bearer " + kReaderToken);
    add(repeated, std::string(repeated) == "dpop" ? "a.b.c" : "Bearer " + kReaderToken);
    add(repeated, std::string(repeated) == "dpop" ? "d.e.f" : "Bearer " + kUnknownToken);
    const CheckResponse response = Check(request);
    EXPECT_FALSE(response.has_ok_response());
    EXPECT_EQ(response.denied_response().status().code(), 401);
  }
}

// HTTP allows bytes beyond ASCII in a header value, and Envoy copies them into the headers map,
// a string field: such a request does not parse as proto3. It is answered like any request
// verdict cannot decide, a 400 denial, never a gRPC error for Envoy's failure mode to judge.
TEST_F(ExtAuthzServiceTest, RequestThatDoesNotParseIsABadRequestNotAnRpcError) {
  CheckRequest request = EnvoyCheckRequest("GET", "/api/docs/1", "Bearer " + kReaderToken);
  (*request.mutable_attributes()->mutable_request()->mutable_http()->mutable_headers())["x-note"] =
      "caf\xe9";  // Latin-1: not UTF-8 (the client's protobuf logs it and sends it anyway)
  const CheckResponse response = Check(request);
  EXPECT_EQ(response.status().code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(response.denied_response().status().code(), 400);
  EXPECT_EQ(response.status().message(), "INVALID_REQUEST");
}

// A route may name its resource (context_extensions): it is held to the rules of every request,
// so one with an empty colon segment, which no deny written the usual way names, is a 400
// (issue 15).
TEST_F(ExtAuthzServiceTest, ARouteResourceWithAnEmptyColonSegmentIsABadRequest) {
  for (const char* resource : {"docs::secret:1", ":docs:1", "docs:1:"}) {
    CheckRequest request = EnvoyCheckRequest("GET", "/api/docs/1", "Bearer " + kReaderToken);
    (*request.mutable_attributes()->mutable_context_extensions())["verdict_resource"] = resource;
    const CheckResponse response = Check(request);
    EXPECT_FALSE(response.has_ok_response()) << resource;
    EXPECT_EQ(response.denied_response().status().code(), 400) << resource;
  }
}

// verdictd with --decision_log and --decision_log_durability=sync, its decision log's database
// refusing every row (full, read-only): the logs first, then the metrics, as verdictd lists them.
class ExtAuthzWithARefusingSyncLogTest : public ExtAuthzServiceTest {
 protected:
  ExtAuthzWithARefusingSyncLogTest()
      : log_(
            std::make_unique<DecisionLog>("/nonexistent-dir/verdict.db"),
            [] { return absl::Now(); },
            DecisionLogWriterOptions{.durability = DecisionLogDurability::kSync,
                                     .max_batch_attempts = 1}) {
    observers_.Add(&log_);
    observers_.Add(&metrics_);
  }
  DecisionObserver* Observer() override { return &observers_; }

  DecisionLogWriter log_;
  FanOutObserver observers_;
};

// No decision goes out without its durable row: an ALLOW whose row is refused is denied as on a
// store fault (503, STORE_UNAVAILABLE), never let through, and counted.
TEST_F(ExtAuthzWithARefusingSyncLogTest, AnAllowWhoseRowIsRefusedIsDeniedNeverOk) {
  CheckResponse response = Check(EnvoyCheckRequest("GET", "/api/docs/7", "Bearer " + kReaderToken));
  EXPECT_EQ(response.status().code(), 14);  // UNAVAILABLE
  ASSERT_TRUE(response.has_denied_response());
  EXPECT_EQ(response.denied_response().status().code(), 503);
  EXPECT_EQ(HeaderOf(response.denied_response().headers(), "x-verdict-reason"),
            "STORE_UNAVAILABLE");
  const std::string metrics = metrics_.RenderPrometheusText();
  EXPECT_THAT(metrics, testing::HasSubstr("verdict_decision_log_withheld_total 1\n"));
  EXPECT_THAT(metrics, testing::HasSubstr("verdict_store_errors_total 1\n"));
  EXPECT_THAT(metrics, testing::Not(testing::HasSubstr("verdict_decisions_total{")))
      << "a decision not answered is not counted as answered";
  EXPECT_EQ(log_.counters().failed, 1u);
}

TEST(ExtAuthzServiceUnavailableTest, StoreThatCannotBeReadDeniesWith503NeverOk) {
  UnavailableStore store;
  Metrics metrics;
  WorkerPool workers(1);
  DecisionRunner runner(
      store, [] { return absl::Now(); }, &metrics, nullptr, workers, /*inline_slots=*/1);
  ExtAuthzService service(runner, HttpMappingConfig(), metrics);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  auto stub = Authorization::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  CheckResponse response;
  grpc::ClientContext context;
  ASSERT_TRUE(stub->Check(&context,
                          EnvoyCheckRequest("GET", "/api/docs/7", "Bearer " + kReaderToken),
                          &response)
                  .ok());
  EXPECT_EQ(response.status().code(), 14);  // UNAVAILABLE
  ASSERT_TRUE(response.has_denied_response());
  EXPECT_EQ(response.denied_response().status().code(), 503);
  EXPECT_EQ(HeaderOf(response.denied_response().headers(), "x-verdict-reason"),
            "STORE_UNAVAILABLE");
  // Counted once, by the decision: the call itself answers OK.
  EXPECT_THAT(metrics.RenderPrometheusText(), testing::HasSubstr("verdict_store_errors_total 1\n"));
  server->Shutdown();
}

// --- Wire compatibility: bytes laid out by Envoy's field numbers, written by hand ---

void AppendVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

std::string Field(int number, const std::string& bytes) {  // length-delimited
  std::string out;
  AppendVarint((static_cast<uint64_t>(number) << 3) | 2, &out);
  AppendVarint(bytes.size(), &out);
  return out + bytes;
}

std::string VarintField(int number, uint64_t value) {
  std::string out;
  AppendVarint(static_cast<uint64_t>(number) << 3, &out);
  AppendVarint(value, &out);
  return out;
}

TEST(ExtAuthzWireTest, RequestBytesWithEnvoysFieldNumbersParse) {
  // envoy.service.auth.v3: CheckRequest.attributes = 1; AttributeContext.source = 1,
  // request = 4, context_extensions = 10, tls_session = 12 (not in the trimmed proto);
  // Peer.address = 1; Address.socket_address = 1; SocketAddress.address = 2, port_value = 3;
  // Request.http = 2; HttpRequest.id = 1, method = 2, headers = 3 (map entry: key 1, value 2),
  // path = 4, host = 5, size = 9 and body = 11 (not in the trimmed proto).
  const std::string http =
      Field(1, "req-7") + Field(2, "GET") +
      Field(3, Field(1, "authorization") + Field(2, "Bearer " + kReaderToken)) +
      Field(4, "/api/docs/7?q=1") + Field(5, "docs.example") + VarintField(9, 42) +
      Field(11, "payload");
  const std::string socket_address = Field(2, "10.0.0.8") + VarintField(3, 40000);
  const std::string attributes =
      Field(1, Field(1, Field(1, socket_address))) + Field(4, Field(2, http)) +
      Field(10, Field(1, "verdict_action") + Field(2, "read")) + Field(12, Field(1, "sni.example"));
  CheckRequest request;
  ASSERT_TRUE(request.ParseFromString(Field(1, attributes)));
  const auto& parsed = request.attributes().request().http();
  EXPECT_EQ(parsed.id(), "req-7");
  EXPECT_EQ(parsed.method(), "GET");
  EXPECT_EQ(parsed.path(), "/api/docs/7?q=1");
  EXPECT_EQ(parsed.host(), "docs.example");
  EXPECT_EQ(parsed.headers().at("authorization"), "Bearer " + kReaderToken);
  EXPECT_EQ(request.attributes().source().address().socket_address().address(), "10.0.0.8");
  EXPECT_EQ(request.attributes().source().address().socket_address().port_value(), 40000u);
  EXPECT_EQ(request.attributes().context_extensions().at("verdict_action"), "read");

  std::variant<Request, HttpAnswer> mapped =
      MapHttpRequest(HttpMappingConfig(), AttributesFromCheckRequest(request));
  ASSERT_TRUE(std::holds_alternative<Request>(mapped));
  const Request& decision_request = std::get<Request>(mapped);
  EXPECT_EQ(decision_request.action, "read");
  EXPECT_EQ(decision_request.resource, "/api/docs/7");
  EXPECT_EQ(decision_request.client_ip, "10.0.0.8");
  EXPECT_EQ(decision_request.request_id, "req-7");
}

const UnknownFieldSet& Group(const UnknownFieldSet& set, int number, UnknownFieldSet* storage) {
  for (int i = 0; i < set.field_count(); ++i) {
    const UnknownField& field = set.field(i);
    if (field.number() == number && field.type() == UnknownField::TYPE_LENGTH_DELIMITED) {
      EXPECT_TRUE(storage->ParseFromString(field.length_delimited()));
      return *storage;
    }
  }
  ADD_FAILURE() << "no length-delimited field " << number;
  return *storage;
}

uint64_t VarintOf(const UnknownFieldSet& set, int number) {
  for (int i = 0; i < set.field_count(); ++i) {
    if (set.field(i).number() == number && set.field(i).type() == UnknownField::TYPE_VARINT) {
      return set.field(i).varint();
    }
  }
  return 0;
}

std::string BytesOf(const UnknownFieldSet& set, int number) {
  for (int i = 0; i < set.field_count(); ++i) {
    if (set.field(i).number() == number &&
        set.field(i).type() == UnknownField::TYPE_LENGTH_DELIMITED) {
      return set.field(i).length_delimited();
    }
  }
  return "<absent>";
}

TEST(ExtAuthzWireTest, DeniedResponseBytesUseEnvoysFieldNumbers) {
  CheckResponse response;
  AnswerToCheckResponse(AnswerForDecision(absl::UnavailableError("locked")), &response);
  UnknownFieldSet wire;
  ASSERT_TRUE(wire.ParseFromString(response.SerializeAsString()));
  // CheckResponse.status = 1 (google.rpc.Status.code = 1, message = 2).
  UnknownFieldSet status, denied, http_status, option, header;
  EXPECT_EQ(VarintOf(Group(wire, 1, &status), 1), 14u);
  EXPECT_EQ(BytesOf(status, 2), "STORE_UNAVAILABLE");
  // CheckResponse.denied_response = 2: status = 1 (HttpStatus.code = 1), headers = 2
  // (HeaderValueOption.header = 1: HeaderValue.key = 1, value = 2), body = 3.
  Group(wire, 2, &denied);
  EXPECT_EQ(VarintOf(Group(denied, 1, &http_status), 1), 503u);
  Group(Group(denied, 2, &option), 1, &header);
  EXPECT_EQ(BytesOf(header, 1), "x-verdict-reason");
  EXPECT_EQ(BytesOf(header, 2), "STORE_UNAVAILABLE");
  EXPECT_NE(BytesOf(denied, 3), "<absent>");
}

TEST(ExtAuthzWireTest, OkResponseBytesUseEnvoysFieldNumbers) {
  Decision decision;
  decision.verdict = Verdict::kAllow;
  decision.reason = ReasonCode::kAllowed;
  decision.agent_id = "agt_reader";
  CheckResponse response;
  AnswerToCheckResponse(AnswerForDecision(decision), &response);
  UnknownFieldSet wire;
  ASSERT_TRUE(wire.ParseFromString(response.SerializeAsString()));
  // CheckResponse.ok_response = 3: OkHttpResponse.headers = 2; HeaderValueOption.header = 1,
  // append_action = 3 (OVERWRITE_IF_EXISTS_OR_ADD = 2).
  UnknownFieldSet ok, option, header;
  Group(Group(wire, 3, &ok), 2, &option);
  Group(option, 1, &header);
  EXPECT_EQ(BytesOf(header, 1), "x-verdict-agent-id");
  EXPECT_EQ(BytesOf(header, 2), "agt_reader");
  EXPECT_EQ(VarintOf(option, 3), 2u);
}

}  // namespace
}  // namespace verdict
