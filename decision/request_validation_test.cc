#include "decision/request_validation.h"

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "crypto/token.h"
#include "decision/types.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

Request WellFormed() {
  Request request;
  request.subject.agent_id = "agent-1";
  request.action = "read";
  request.resource = "docs:read:123";
  request.client_ip = "192.0.2.7";
  request.arguments_json = R"({"amount": 5})";
  request.request_id = "req-42";
  return request;
}

// JSON objects nested `depth` deep: {"a":{"a":...{}}}.
std::string NestedObjects(int depth) {
  std::string json;
  for (int i = 1; i < depth; ++i) json += "{\"a\":";
  json += "{}";
  json += std::string(depth - 1, '}');
  return json;
}

struct Mutation {
  const char* what;
  std::function<void(Request&)> apply;
};

TEST(ValidateRequest, AcceptsWellFormedRequests) {
  const Mutation kAccepted[] = {
      {"as built", [](Request&) {}},
      {"token subject",
       [](Request& r) {
         r.subject.agent_id.clear();
         r.subject.token = NewAgentToken();
       }},
      {"longest agent id", [](Request& r) { r.subject.agent_id = std::string(kMaxIdLength, 'a'); }},
      {"agent id alphabet", [](Request& r) { r.subject.agent_id = "Az09_.:-"; }},
      // Three dotted segments, yet no JWS: none is a header (h42).
      {"agent id with two dots", [](Request& r) { r.subject.agent_id = "agt_acme.billing.bot"; }},
      {"agent id that mentions the token prefix",
       [](Request& r) { r.subject.agent_id = "agt_vdt_migration"; }},
      {"wildcard action", [](Request& r) { r.action = "*"; }},
      {"path resource", [](Request& r) { r.resource = "/api/v1/items/7"; }},
      {"path resource with an escape", [](Request& r) { r.resource = "/docs/caf%C3%A9/menu"; }},
      {"path resource with characters a path carries as they are",
       [](Request& r) { r.resource = "/users/@me/~alice/v1:export"; }},
      {"unicode resource", [](Request& r) { r.resource = "docs:\xe6\x96\x87\xe4\xbb\xb6"; }},
      {"longest resource", [](Request& r) { r.resource = std::string(kMaxResourceLength, 'r'); }},
      {"no client ip", [](Request& r) { r.client_ip.clear(); }},
      {"ipv6 client ip", [](Request& r) { r.client_ip = "2001:db8::1"; }},
      {"mapped client ip", [](Request& r) { r.client_ip = "::ffff:192.0.2.7"; }},
      {"no arguments", [](Request& r) { r.arguments_json.clear(); }},
      {"empty arguments", [](Request& r) { r.arguments_json = "{}"; }},
      {"arguments with numbers of 15 significant digits",
       [](Request& r) {
         r.arguments_json =
             R"({"id": 123456789012345, "amount": 0.00012345678901234500, "big": 1e300, "z": 0})";
       }},
      {"deepest arguments",
       [](Request& r) { r.arguments_json = NestedObjects(kMaxArgumentsDepth); }},
      {"arguments with text beyond ASCII, escaped or not",
       [](Request& r) {
         r.arguments_json = R"({"to": "caf\u00e9@example.com", "n": "\u00a0", "e": "✓"})";
       }},
      {"no request id", [](Request& r) { r.request_id.clear(); }},
      {"printable request id",
       [](Request& r) { r.request_id = std::string(kMaxRequestIdLength - 2, '~') + " !"; }},
  };
  for (const Mutation& m : kAccepted) {
    Request request = WellFormed();
    m.apply(request);
    EXPECT_TRUE(ValidateRequest(request).ok()) << m.what << ": " << ValidateRequest(request);
  }
}

TEST(ValidateRequest, RefusesMalformedRequestsNamingTheField) {
  const struct {
    Mutation mutation;
    std::string message;  // exact, or a prefix when it ends in "..."
  } kRefused[] = {
      {{"both subjects", [](Request& r) { r.subject.token = NewAgentToken(); }},
       "subject: set exactly one of agent_id and token, not both"},
      {{"no subject", [](Request& r) { r.subject.agent_id.clear(); }},
       "subject: set one of agent_id and token"},
      {{"agent id with a space", [](Request& r) { r.subject.agent_id = "agent 1"; }},
       "subject.agent_id: byte 5 (' ') is not allowed; use A-Z a-z 0-9 _ . : -"},
      {{"agent id with a slash", [](Request& r) { r.subject.agent_id = "a/b"; }},
       "subject.agent_id: byte 1 ('/') is not allowed; use A-Z a-z 0-9 _ . : -"},
      // Never logged or echoed as an id (review h41).
      {{"an agent token as the agent id", [](Request& r) { r.subject.agent_id = NewAgentToken(); }},
       "subject.agent_id: holds a token (not repeated here); send it as subject.token"},
      {{"an agent token inside the agent id",
        [](Request& r) { r.subject.agent_id = "agt_acme.bot:" + NewAgentToken() + "."; }},
       "subject.agent_id: holds a token (not repeated here); send it as subject.token"},
      {{"a JWT as the agent id",
        [](Request& r) { r.subject.agent_id = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln"; }},
       "subject.agent_id: holds a token (not repeated here); send it as subject.token"},
      {{"agent id too long",
        [](Request& r) { r.subject.agent_id = std::string(kMaxIdLength + 1, 'a'); }},
       "subject.agent_id: is 129 bytes, longer than the limit of 128"},
      {{"token of the wrong shape",
        [](Request& r) {
          r.subject.agent_id.clear();
          r.subject.token = "vdt_short";
        }},
       "subject.token: ..."},
      {{"a JWT of two segments",
        [](Request& r) {
          r.subject.agent_id.clear();
          r.subject.token = "eyJhbGciOiJIUzI1NiJ9.e30";
        }},
       "subject.token: ..."},
      {{"empty action", [](Request& r) { r.action.clear(); }}, "action: must not be empty"},
      {{"action with a space", [](Request& r) { r.action = "re ad"; }}, "action: byte 2 ..."},
      {{"empty resource", [](Request& r) { r.resource.clear(); }}, "resource: must not be empty"},
      {{"control character in resource", [](Request& r) { r.resource = "doc\x01s"; }},
       "resource: contains a control character at byte 3"},
      {{"resource not utf-8", [](Request& r) { r.resource = "doc\xff"; }},
       "resource: is not valid UTF-8"},
      {{"resource too long",
        [](Request& r) { r.resource = std::string(kMaxResourceLength + 1, 'r'); }},
       "resource: is 1025 bytes, longer than the limit of 1024"},
      // A path is matched as sent: one that another server reads as a different path would slip
      // past a deny written the usual way (decision/path_escapes.h).
      {{"path with a dot segment", [](Request& r) { r.resource = "/docs/7/../secret/1"; }},
       "resource: the dot segment \"..\" makes a server read another path"},
      {{"path with a current-directory segment",
        [](Request& r) { r.resource = "/docs/./secret/1"; }},
       "resource: the dot segment \".\" makes a server read another path"},
      {{"path with an empty segment", [](Request& r) { r.resource = "/docs//secret/1"; }},
       "resource: an empty segment (\"//\") is read as one slash by many servers"},
      {{"path with a parameter", [](Request& r) { r.resource = "/docs/secret;x/1"; }},
       "resource: ';' at byte 12 starts a path parameter, which servers strip before routing"},
      {{"path with a second spelling of a letter",
        [](Request& r) { r.resource = "/docs/%73ecret/1"; }},
       "resource: \"%73\" escapes 's', which a path carries as it is"},
      {{"path with an escaped slash", [](Request& r) { r.resource = "/docs/secret%2F1"; }},
       "resource: \"%2F\" would make a server read another path than the one matched"},
      {{"path with raw non-ASCII", [](Request& r) { r.resource = "/docs/caf\xc3\xa9"; }},
       "resource: 'byte 0xc3' at byte 9 must be written as an escape"},
      // A colon resource too: "docs::secret:1" must not pass a deny on "docs:secret:*" (issue 15).
      {{"colon resource with a doubled colon", [](Request& r) { r.resource = "docs::secret:1"; }},
       "resource: an empty segment (\"::\" at byte 4), and no resource has one"},
      {{"colon resource with a leading colon", [](Request& r) { r.resource = ":docs:secret:1"; }},
       "resource: an empty segment (a leading ':'), and no resource has one"},
      {{"colon resource with a trailing colon", [](Request& r) { r.resource = "docs:secret:"; }},
       "resource: an empty segment (a trailing ':'), and no resource has one"},
      {{"a colon alone", [](Request& r) { r.resource = ":"; }},
       "resource: an empty segment (a leading ':'), and no resource has one"},
      {{"client ip out of range", [](Request& r) { r.client_ip = "999.1.1.1"; }},
       "client_ip: \"999.1.1.1\" is not an IPv4 or IPv6 address"},
      {{"client ip a host name", [](Request& r) { r.client_ip = "localhost"; }},
       "client_ip: \"localhost\" is not an IPv4 or IPv6 address"},
      {{"client ip with a zone", [](Request& r) { r.client_ip = "fe80::1%eth0"; }},
       "client_ip: \"fe80::1%eth0\" is not an IPv4 or IPv6 address"},
      {{"client ip with a port", [](Request& r) { r.client_ip = "192.0.2.7:443"; }},
       "client_ip: \"192.0.2.7:443\" is not an IPv4 or IPv6 address"},
      {{"request id too long",
        [](Request& r) { r.request_id = std::string(kMaxRequestIdLength + 1, 'q'); }},
       "request_id: is 129 bytes, longer than the limit of 128"},
      {{"request id with a newline", [](Request& r) { r.request_id = "req\n42"; }},
       "request_id: byte 3 (0x0a) is not allowed; use printable ASCII"},
      {{"request id not ascii", [](Request& r) { r.request_id = "r\xc3\xa9q"; }},
       "request_id: byte 1 (0xc3) is not allowed; use printable ASCII"},
      {{"arguments an array", [](Request& r) { r.arguments_json = "[1, 2]"; }},
       "arguments_json: must be a JSON object"},
      {{"arguments a string", [](Request& r) { r.arguments_json = "\"x\""; }},
       "arguments_json: must be a JSON object"},
      {{"arguments null", [](Request& r) { r.arguments_json = "null"; }},
       "arguments_json: must be a JSON object"},
      {{"arguments malformed", [](Request& r) { r.arguments_json = "{\"a\":"; }},
       "arguments_json: ..."},
      {{"arguments with a duplicate key",
        [](Request& r) { r.arguments_json = R"({"a":1,"a":2})"; }},
       "arguments_json: ..."},
      // 1234567890123456789 and 1234567890123456800 read as one double: an approval of one
      // would allow the other.
      {{"arguments with an integer beyond what a double tells apart",
        [](Request& r) { r.arguments_json = R"({"to_account": 1234567890123456789})"; }},
       "arguments_json: ..."},
      {{"arguments with a fraction of 16 significant digits",
        [](Request& r) { r.arguments_json = R"({"amount": 0.1234567890123456})"; }},
       "arguments_json: ..."},
      // A rule compares the whole value: "*@example.com" matched "evil@evil.net\n@example.com"
      // (issue 15). Arguments carry no control character anywhere, escaped or not.
      {{"a newline in an argument",
        [](Request& r) { r.arguments_json = R"({"to": "evil@evil.net\n@example.com"})"; }},
       "arguments_json: the string at \"to\" holds the control character U+000A; argument "
       "strings carry none"},
      {{"a NUL in an argument",
        [](Request& r) { r.arguments_json = R"({"to": "evil@evil.net\u0000@example.com"})"; }},
       "arguments_json: the string at \"to\" holds the control character U+0000; argument "
       "strings carry none"},
      {{"a C1 control deep in the arguments",
        [](Request& r) { r.arguments_json = R"({"mail": {"cc": ["a@x", "b\u0085@x"]}})"; }},
       "arguments_json: the string at \"mail.cc[1]\" holds the control character U+0085; "
       "argument strings carry none"},
      {{"a tab in an argument", [](Request& r) { r.arguments_json = R"({"q": "a\tb"})"; }},
       "arguments_json: the string at \"q\" holds the control character U+0009; argument "
       "strings carry none"},
      {{"DEL in an argument", [](Request& r) { r.arguments_json = R"({"q": "a\u007f"})"; }},
       "arguments_json: the string at \"q\" holds the control character U+007F; argument "
       "strings carry none"},
      {{"a control character in a key",
        [](Request& r) { r.arguments_json = R"({"o": {"t\no": "x"}})"; }},
       "arguments_json: the key \"o.t\\no\" holds the control character U+000A; argument "
       "strings carry none"},
      {{"arguments too deep",
        [](Request& r) { r.arguments_json = NestedObjects(kMaxArgumentsDepth + 1); }},
       "arguments_json: ..."},
      {{"arguments too big",
        [](Request& r) {
          r.arguments_json = "{\"a\":\"" + std::string(kMaxArgumentsBytes, 'x') + "\"}";
        }},
       "arguments_json: ..."},
  };
  for (const auto& c : kRefused) {
    Request request = WellFormed();
    c.mutation.apply(request);
    const absl::Status status = ValidateRequest(request);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.mutation.what;
    if (absl::EndsWith(c.message, "...")) {
      EXPECT_TRUE(absl::StartsWith(status.message(), c.message.substr(0, c.message.size() - 3)))
          << c.mutation.what << ": " << status;
    } else {
      EXPECT_EQ(status.message(), c.message) << c.mutation.what;
    }
  }
}

TEST(ValidateRequest, ATokenNeverAppearsInTheMessage) {
  Request request = WellFormed();
  request.subject.agent_id.clear();
  request.subject.token = NewAgentToken() + "x";  // a real secret, one character too long
  const absl::Status status = ValidateRequest(request);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(absl::StrContains(status.message(), request.subject.token.substr(4, 20))) << status;
}

}  // namespace
}  // namespace verdict
