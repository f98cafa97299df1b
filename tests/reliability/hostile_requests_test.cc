// Hostile requests (issue 5.4): one table of malformed, oversized and malicious calls, each sent
// as wire bytes to a real verdictd. Every one must get INVALID_ARGUMENT or a refusal with a
// reason (DENY, or valid=false from ValidateToken) -- never an ALLOW -- and verdictd must still
// be up and deciding correctly afterwards.
//
// Most cases change one field of a call that is allowed as it stands (the reader reads
// docs:guide:1), so the change alone is what must turn it down. The one exception to the two
// outcomes: a message beyond gRPC's 4 MiB receive limit, refused by gRPC itself with
// RESOURCE_EXHAUSTED before verdict sees it.
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/grpc_probes.h"
#include "tests/verdictd_process.h"
#include "verdict/v1/decision.grpc.pb.h"

namespace verdict {
namespace {

// From tests/reliability/testdata/hostile-policy.json.
constexpr char kReader[] = "agt_reader";
constexpr char kReaderToken[] = "vdt_M5hwIYE5vAXm0pPRBRsyIvcyYmg_pnll04u8cx7plPM";

enum class Expect {
  kInvalidArgument,
  kRefused,  // OK, with a DENY (or valid=false) that carries a reason
  kInvalidArgumentOrRefused,
  kTooLarge,  // RESOURCE_EXHAUSTED from gRPC's message size limit
};

struct HostileCase {
  std::string name;
  std::string method;  // of verdict.v1.DecisionService
  std::string request_bytes;
  Expect expect;
};

void PrintTo(const HostileCase& hostile, std::ostream* out) {
  *out << hostile.method << " " << hostile.name;
}

// --- Building the table ----------------------------------------------------------------------

v1::AuthorizeRequest AllowedCall() {
  v1::AuthorizeRequest request;
  request.mutable_subject()->set_agent_id(kReader);
  request.set_action("read");
  request.set_resource("docs:guide:1");
  return request;
}

std::string Nested(int depth) {
  std::string json;
  for (int i = 0; i < depth; ++i) json += "{\"a\":";
  json += "1";
  for (int i = 0; i < depth; ++i) json += "}";
  return json;
}

std::string Base64Url(absl::string_view text) {
  std::string encoded;
  absl::WebSafeBase64Escape(text, &encoded);
  return encoded;
}

class Table {
 public:
  // The allowed call with one change.
  void Authorize(std::string name, const std::function<void(v1::AuthorizeRequest&)>& change,
                 Expect expect) {
    v1::AuthorizeRequest request = AllowedCall();
    change(request);
    Add(std::move(name), "Authorize", request.SerializeAsString(), expect);
  }

  void Subject(std::string name, const std::string& agent_id, Expect expect) {
    Authorize(
        std::move(name), [&](auto& r) { r.mutable_subject()->set_agent_id(agent_id); }, expect);
  }
  void Token(const std::string& name, const std::string& token, Expect expect) {
    Authorize(
        name, [&](auto& r) { r.mutable_subject()->set_token(token); }, expect);
    v1::ValidateTokenRequest validate;
    validate.set_token(token);
    Add(name + "_Validated", "ValidateToken", validate.SerializeAsString(), expect);
  }
  void Action(std::string name, const std::string& action, Expect expect) {
    Authorize(
        std::move(name), [&](auto& r) { r.set_action(action); }, expect);
  }
  void Resource(std::string name, const std::string& resource, Expect expect) {
    Authorize(
        std::move(name), [&](auto& r) { r.set_resource(resource); }, expect);
  }
  // Arguments to the argument-constrained grant: reports:* may run with {"mode": "dry-run"}.
  void Arguments(std::string name, const std::string& arguments_json, Expect expect) {
    Authorize(
        std::move(name),
        [&](auto& r) {
          r.set_action("run");
          r.set_resource("reports:weekly");
          r.mutable_context()->set_arguments_json(arguments_json);
        },
        expect);
  }
  void Simulate(std::string name, const std::function<void(v1::SimulateRequest&)>& change,
                Expect expect) {
    v1::SimulateRequest request;
    *request.mutable_request() = AllowedCall();
    change(request);
    Add(std::move(name), "Simulate", request.SerializeAsString(), expect);
  }
  void Raw(std::string name, std::string method, std::string bytes, Expect expect) {
    Add(std::move(name), std::move(method), std::move(bytes), expect);
  }

  std::vector<HostileCase> cases;

 private:
  void Add(std::string name, std::string method, std::string bytes, Expect expect) {
    cases.push_back({std::move(name), std::move(method), std::move(bytes), expect});
  }
};

std::vector<HostileCase> HostileCases() {
  using E = Expect;
  Table t;
  const std::string nul("\0", 1);
  const std::string mib(1 << 20, 'a');

  // Subjects.
  t.Authorize(
      "NoSubject", [](auto& r) { r.clear_subject(); }, E::kInvalidArgument);
  t.Subject("EmptyAgentId", "", E::kInvalidArgument);
  t.Subject("AgentIdOf129Bytes", "agt_" + std::string(125, 'r'), E::kInvalidArgument);
  t.Subject("AgentIdOfOneMiB", mib, E::kInvalidArgument);
  t.Subject("AgentIdWithNul", kReader + nul, E::kInvalidArgument);
  t.Subject("AgentIdWithNulInside", "agt_" + nul + "reader", E::kInvalidArgument);
  t.Subject("AgentIdSqlTautology", "agt_reader' OR '1'='1", E::kInvalidArgument);
  t.Subject("AgentIdSqlComment", "agt_reader'--", E::kInvalidArgument);
  t.Subject("AgentIdSqlLikeWildcard", "agt_%", E::kInvalidArgument);
  t.Subject("AgentIdWildcard", "*", E::kInvalidArgument);
  t.Subject("AgentIdWithNewline", "agt_reader\n", E::kInvalidArgument);
  t.Subject("AgentIdCyrillicHomoglyph",
            "agt_re\xd0\xb0"
            "der",
            E::kInvalidArgument);
  t.Subject("AgentIdInvalidUtf8", "agt_\xff\xfe", E::kInvalidArgument);
  t.Subject("UnknownAgent", "agt_nobody", E::kRefused);
  t.Subject("AgentIdOtherCase", "AGT_READER", E::kRefused);

  // Tokens of every wrong shape (each also sent to ValidateToken).
  t.Token("EmptyToken", "", E::kInvalidArgumentOrRefused);
  t.Token("PrefixOnlyToken", "vdt_", E::kInvalidArgumentOrRefused);
  t.Token("TokenOneCharacterShort", std::string(kReaderToken).substr(1),
          E::kInvalidArgumentOrRefused);
  t.Token("TokenOneCharacterLong", std::string(kReaderToken) + "A", E::kInvalidArgumentOrRefused);
  t.Token("TokenLastCharacterChanged",
          std::string(kReaderToken).substr(0, sizeof kReaderToken - 2) + "Q",
          E::kInvalidArgumentOrRefused);
  t.Token("TokenOfRightShapeUnknown", "vdt_" + std::string(43, 'A'), E::kInvalidArgumentOrRefused);
  t.Token("TokenNotBase64url", "vdt_" + std::string(43, '!'), E::kInvalidArgumentOrRefused);
  t.Token("TokenWithNul", kReaderToken + nul, E::kInvalidArgumentOrRefused);
  t.Token("TokenWithBearerPrefix", absl::StrCat("Bearer ", kReaderToken),
          E::kInvalidArgumentOrRefused);
  t.Token("TokenIsAnAgentId", kReader, E::kInvalidArgumentOrRefused);
  t.Token("TokenOfOneMiB", "vdt_" + mib, E::kInvalidArgumentOrRefused);
  t.Token("JwtGarbage", "a.b.c", E::kInvalidArgumentOrRefused);
  t.Token("JwtAlgNone",
          absl::StrCat(Base64Url(R"({"alg":"none","typ":"JWT"})"), ".",
                       Base64Url(R"({"sub":"agt_reader","exp":9999999999})"), "."),
          E::kInvalidArgumentOrRefused);
  t.Token("JwtWithManyDots", std::string(1000, '.'), E::kInvalidArgumentOrRefused);

  // Actions.
  t.Action("EmptyAction", "", E::kInvalidArgument);
  t.Action("ActionOf129Bytes", std::string(129, 'r'), E::kInvalidArgument);
  t.Action("ActionWithNul", "read" + nul, E::kInvalidArgument);
  t.Action("ActionSqlTautology", "read' OR 1=1--", E::kInvalidArgument);
  t.Action("ActionWithControlCharacter",
           "re\x01"
           "ad",
           E::kInvalidArgument);
  t.Action("ActionOtherCase", "READ", E::kRefused);
  t.Action("ActionWildcardIsNotAWildcardInARequest", "*", E::kInvalidArgumentOrRefused);

  // Resources.
  t.Resource("EmptyResource", "", E::kInvalidArgument);
  t.Resource("ResourceOf1025Bytes", "docs:" + std::string(1020, 'x'), E::kInvalidArgument);
  t.Resource("ResourceWithNul", "docs:guide" + nul + ":1", E::kInvalidArgument);
  t.Resource("ResourceInvalidUtf8", "docs:\xff", E::kInvalidArgument);
  t.Resource("ResourceOverlongUtf8Slash", "/api/docs/\xc0\xaf", E::kInvalidArgument);
  t.Resource("ResourceUtf16Surrogate", "docs:\xed\xa0\x80", E::kInvalidArgument);
  t.Resource("ResourceWithEscapeSequence", "docs:\x1b[31m", E::kInvalidArgument);
  t.Resource("ResourceWithNewline", "docs:guide:1\n", E::kInvalidArgument);
  t.Resource("DeniedSecret", "docs:secret:1", E::kRefused);
  t.Resource("SecretWithSqlTail", "docs:secret:1' OR '1'='1", E::kRefused);
  t.Resource("WildcardResourceIsLiteral", "*", E::kRefused);
  t.Resource("SecretWildcardIsLiteral", "docs:secret:*", E::kRefused);
  // A path has one spelling, the one ext_authz lets through (decision/path_escapes.h).
  t.Resource("PathTraversal", "/api/docs/../admin", E::kInvalidArgument);
  t.Resource("PathEmptySegment", "/api/docs//admin", E::kInvalidArgument);
  t.Resource("PathParameter", "/api/docs/x;/admin", E::kInvalidArgument);
  t.Resource("PathSecondSpelling", "/api/docs/%61dmin", E::kInvalidArgument);
  t.Resource("OtherCase", "DOCS:guide:1", E::kRefused);

  // Arguments.
  t.Arguments("ArgumentsNotJson", "mode=dry-run", E::kInvalidArgument);
  t.Arguments("ArgumentsNotAnObject", R"(["dry-run"])", E::kInvalidArgument);
  t.Arguments("ArgumentsTooDeep", Nested(17), E::kInvalidArgument);
  t.Arguments("ArgumentsDeepEnoughToOverflowAStack", Nested(100000), E::kInvalidArgument);
  t.Arguments("ArgumentsOver64KiB",
              R"({"mode":"dry-run","pad":")" + std::string(70000, 'p') + "\"}",
              E::kInvalidArgument);
  t.Arguments("ArgumentsDuplicateKey", R"({"mode":"dry-run","mode":"live"})",
              E::kInvalidArgumentOrRefused);
  t.Arguments("ArgumentsInvalidUtf8", "{\"mode\":\"dry-run\xff\"}", E::kInvalidArgument);
  t.Arguments("ArgumentsLoneSurrogate", R"({"mode":"dry-run\ud800"})",
              E::kInvalidArgumentOrRefused);
  t.Arguments("ArgumentsNulInsideString", R"({"mode":"dry-run\u0000"})",
              E::kInvalidArgumentOrRefused);
  t.Arguments("ArgumentsRawNul", "{\"mode\":\"dry-run\"}" + nul, E::kInvalidArgument);
  t.Arguments("ArgumentsTrailingGarbage", R"({"mode":"dry-run"} {"mode":"live"})",
              E::kInvalidArgument);
  t.Arguments("ArgumentsHugeNumber", R"({"mode":"dry-run","n":1e99999})",
              E::kInvalidArgumentOrRefused);
  t.Arguments("ArgumentsWrongType", R"({"mode":["dry-run"]})", E::kRefused);
  t.Arguments("ArgumentsOtherCase", R"({"mode":"DRY-RUN"})", E::kRefused);
  t.Arguments("ArgumentsMissing", "", E::kRefused);

  // Context.
  t.Authorize(
      "ClientIpNotAnAddress", [](auto& r) { r.mutable_context()->set_client_ip("999.1.1.1"); },
      E::kInvalidArgument);
  t.Authorize(
      "ClientIpWithSql",
      [](auto& r) { r.mutable_context()->set_client_ip("127.0.0.1'; DROP TABLE agents;--"); },
      E::kInvalidArgument);
  t.Authorize(
      "ClientIpWithZone", [](auto& r) { r.mutable_context()->set_client_ip("fe80::1%eth0"); },
      E::kInvalidArgument);
  t.Authorize(
      "RequestIdOf129Bytes",
      [](auto& r) { r.mutable_context()->set_request_id(std::string(129, 'i')); },
      E::kInvalidArgument);
  t.Authorize(
      "RequestIdForgingALogLine",
      [](auto& r) { r.mutable_context()->set_request_id("r1\nALLOW agt_admin"); },
      E::kInvalidArgument);

  // Simulate: times out of range, unknown enum values, what-ifs that could never be stored.
  t.Simulate(
      "WhatIfTimeBeforeYearOne",
      [](auto& r) { r.mutable_what_if()->mutable_at()->set_seconds(-62135596801); },
      E::kInvalidArgument);
  t.Simulate(
      "WhatIfTimeAfterYear9999",
      [](auto& r) { r.mutable_what_if()->mutable_at()->set_seconds(253402300800); },
      E::kInvalidArgument);
  t.Simulate(
      "WhatIfTimeNegativeNanos", [](auto& r) { r.mutable_what_if()->mutable_at()->set_nanos(-1); },
      E::kInvalidArgument);
  t.Simulate(
      "WhatIfTimeMaxInt64",
      [](auto& r) { r.mutable_what_if()->mutable_at()->set_seconds(INT64_MAX); },
      E::kInvalidArgument);
  t.Simulate(
      "WhatIfUnknownEffect",
      [](auto& r) {
        v1::PermissionSpec* extra = r.mutable_what_if()->add_extra_permissions();
        extra->set_resource("admin:*");
        extra->add_actions("read");
        extra->set_effect(static_cast<v1::Effect>(7));
      },
      E::kInvalidArgument);
  t.Simulate(
      "WhatIfBadPattern",
      [](auto& r) {
        v1::PermissionSpec* extra = r.mutable_what_if()->add_extra_permissions();
        extra->set_resource("docs:\x01");
        extra->add_actions("read");
        extra->set_effect(v1::EFFECT_ALLOW);
      },
      E::kInvalidArgument);
  t.Simulate(
      "WhatIfTooManyPermissions",
      [](auto& r) {
        for (int i = 0; i < 257; ++i) {
          v1::PermissionSpec* extra = r.mutable_what_if()->add_extra_permissions();
          extra->set_resource("docs:*");
          extra->add_actions("read");
          extra->set_effect(v1::EFFECT_ALLOW);
        }
      },
      E::kInvalidArgument);
  t.Simulate(
      "WhatIfDelegationTooDeep",
      [](auto& r) {
        v1::DelegationSpec* extra = r.mutable_what_if()->add_extra_delegations();
        extra->set_from_agent_id(kReader);
        extra->set_to_agent_id("agt_other");
        extra->set_max_depth(1000);
        v1::PermissionSpec* lent = extra->add_permissions();
        lent->set_resource("docs:*");
        lent->add_actions("read");
      },
      E::kInvalidArgument);
  t.Simulate(
      "SimulateWithoutRequest", [](auto& r) { r.clear_request(); }, E::kInvalidArgument);

  // Batches.
  {
    v1::BatchAuthorizeRequest batch;
    batch.mutable_subject()->set_agent_id(kReader);
    for (int i = 0; i < 257; ++i) {
      v1::BatchCheck* check = batch.add_checks();
      check->set_action("read");
      check->set_resource("docs:guide:1");
    }
    t.Raw("BatchOf257Checks", "BatchAuthorize", batch.SerializeAsString(), E::kInvalidArgument);
    batch.mutable_checks()->DeleteSubrange(1, 256);
    batch.mutable_checks(0)->set_arguments_json(Nested(20));
    t.Raw("BatchCheckArgumentsTooDeep", "BatchAuthorize", batch.SerializeAsString(),
          E::kInvalidArgument);
  }

  // Wire bytes that are no message, or too big a one.
  t.Raw("GarbageBytes", "Authorize", "\xff\xff\xff\xff", E::kInvalidArgument);
  t.Raw("TruncatedMessage", "Authorize", AllowedCall().SerializeAsString().substr(0, 10),
        E::kInvalidArgument);
  t.Raw("LengthBeyondTheMessage", "Authorize",
        "\x1a\xff\xff\xff\x0f"
        "docs",
        E::kInvalidArgument);
  t.Raw("GroupNeverClosed", "Authorize", "\x0b", E::kInvalidArgument);
  t.Raw("ValidateTokenGarbage", "ValidateToken", "\x0a\x05\xff\xfe\xfd\xfc\xfb",
        E::kInvalidArgument);
  {
    v1::AuthorizeRequest huge = AllowedCall();
    huge.set_resource(std::string(5 << 20, 'x'));
    t.Raw("MessageOver4MiB", "Authorize", huge.SerializeAsString(), E::kTooLarge);
  }
  return t.cases;
}

// --- Running it --------------------------------------------------------------------------------

struct RawAnswer {
  grpc::Status status;
  std::string response_bytes;
};

RawAnswer CallRaw(const std::shared_ptr<grpc::Channel>& channel, const std::string& method,
                  const std::string& request_bytes) {
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  grpc::Slice slice(request_bytes);
  const grpc::ByteBuffer request(&slice, 1);
  grpc::CompletionQueue queue;
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> call = stub.PrepareUnaryCall(
      &context, absl::StrCat("/verdict.v1.DecisionService/", method), request, &queue);
  call->StartCall();
  grpc::ByteBuffer response;
  RawAnswer answer;
  int tag = 0;
  call->Finish(&response, &answer.status, &tag);
  void* got = nullptr;
  bool ok = false;
  queue.Next(&got, &ok);
  queue.Shutdown();
  while (queue.Next(&got, &ok)) {
  }
  std::vector<grpc::Slice> slices;
  if (answer.status.ok() && response.Dump(&slices).ok()) {
    for (const grpc::Slice& piece : slices) {
      answer.response_bytes.append(reinterpret_cast<const char*>(piece.begin()), piece.size());
    }
  }
  return answer;
}

// The refusals in an OK answer: every decision it carries, or the token validation.
void ExpectRefusal(const std::string& method, const std::string& response_bytes) {
  auto expect_denied = [](const v1::AuthorizeResponse& decision) {
    EXPECT_EQ(decision.verdict(), v1::VERDICT_DENY) << decision.ShortDebugString();
    EXPECT_NE(decision.reason(), v1::REASON_CODE_UNSPECIFIED);
    EXPECT_NE(decision.reason(), v1::REASON_CODE_ALLOWED);
    EXPECT_FALSE(decision.message().empty());
  };
  if (method == "Authorize") {
    v1::AuthorizeResponse decision;
    ASSERT_TRUE(decision.ParseFromString(response_bytes));
    expect_denied(decision);
  } else if (method == "BatchAuthorize") {
    v1::BatchAuthorizeResponse batch;
    ASSERT_TRUE(batch.ParseFromString(response_bytes));
    for (const v1::AuthorizeResponse& decision : batch.results()) expect_denied(decision);
  } else if (method == "Simulate") {
    v1::SimulateResponse simulation;
    ASSERT_TRUE(simulation.ParseFromString(response_bytes));
    expect_denied(simulation.decision());
  } else {
    v1::ValidateTokenResponse validation;
    ASSERT_TRUE(validation.ParseFromString(response_bytes));
    EXPECT_FALSE(validation.valid());
    EXPECT_NE(validation.reason(), v1::REASON_CODE_UNSPECIFIED) << validation.ShortDebugString();
    EXPECT_FALSE(validation.message().empty());
  }
}

class HostileRequestTest : public ::testing::TestWithParam<HostileCase> {
 protected:
  static void SetUpTestSuite() {
    absl::StatusOr<std::unique_ptr<VerdictdProcess>> server = VerdictdProcess::Start(
        {"--db=" + TestDirectory("hostile") + "/verdict.db",
         "--seed=" + RunfilePath("tests/reliability/testdata/hostile-policy.json"),
         "--admin_listen=off"});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = server->release();
    channel_ = new std::shared_ptr<grpc::Channel>(
        grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials()));
  }
  // The control, after the whole table: the unchanged call is allowed, so each refusal was the
  // change's doing, and verdictd is still up with its policy intact.
  static void TearDownTestSuite() {
    if (server_ != nullptr) {
      const RawAnswer answer = CallRaw(*channel_, "Authorize", AllowedCall().SerializeAsString());
      EXPECT_TRUE(answer.status.ok()) << answer.status.error_message();
      v1::AuthorizeResponse decision;
      EXPECT_TRUE(decision.ParseFromString(answer.response_bytes));
      EXPECT_EQ(decision.verdict(), v1::VERDICT_ALLOW);
      absl::StatusOr<HealthStatus> health = CheckHealth(*channel_, "");
      EXPECT_TRUE(health.ok() && *health == HealthStatus::kServing) << health.status();
    }
    delete channel_;
    delete server_;
  }

  static VerdictdProcess* server_;
  static std::shared_ptr<grpc::Channel>* channel_;
};

VerdictdProcess* HostileRequestTest::server_ = nullptr;
std::shared_ptr<grpc::Channel>* HostileRequestTest::channel_ = nullptr;

TEST_P(HostileRequestTest, IsRefusedNeverAllowed) {
  ASSERT_NE(server_, nullptr);
  const HostileCase& hostile = GetParam();
  const RawAnswer answer = CallRaw(*channel_, hostile.method, hostile.request_bytes);
  const grpc::StatusCode code = answer.status.error_code();
  SCOPED_TRACE(
      absl::StrCat(hostile.method, " answered ", code, ": ", answer.status.error_message()));
  switch (hostile.expect) {
    case Expect::kInvalidArgument:
      EXPECT_EQ(code, grpc::StatusCode::INVALID_ARGUMENT);
      break;
    case Expect::kRefused:
      EXPECT_EQ(code, grpc::StatusCode::OK);
      break;
    case Expect::kInvalidArgumentOrRefused:
      EXPECT_TRUE(code == grpc::StatusCode::INVALID_ARGUMENT || code == grpc::StatusCode::OK);
      break;
    case Expect::kTooLarge:
      EXPECT_EQ(code, grpc::StatusCode::RESOURCE_EXHAUSTED);
      break;
  }
  if (code == grpc::StatusCode::OK) {
    ExpectRefusal(hostile.method, answer.response_bytes);
  } else {
    EXPECT_FALSE(answer.status.error_message().empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Table, HostileRequestTest, ::testing::ValuesIn(HostileCases()),
                         [](const ::testing::TestParamInfo<HostileCase>& info) {
                           return info.param.name;
                         });

// Request headers beyond the server's 16 KiB metadata limit: refused by gRPC, never decided.
TEST_F(HostileRequestTest, MetadataBeyondTheLimitIsRefused) {
  ASSERT_NE(server_, nullptr);
  // A channel of its own: the server answers oversized metadata by closing the connection, which
  // must not reach the suite's shared channel (the control call after the table uses it).
  auto stub = v1::DecisionService::NewStub(
      grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  context.AddMetadata("x-padding", std::string(32 << 10, 'p'));
  v1::AuthorizeResponse decision;
  const grpc::Status status = stub->Authorize(&context, AllowedCall(), &decision);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(decision.verdict(), v1::VERDICT_ALLOW);
}

TEST(HostileRequestTableTest, HasAtLeastFiftyCases) { EXPECT_GE(HostileCases().size(), 50u); }

}  // namespace
}  // namespace verdict
