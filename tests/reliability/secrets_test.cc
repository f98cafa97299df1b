// Secrets (issue 5.7): a full run of verdictd with every output on (stdout and stderr, the JSON
// decision log, the decision log table, metrics, the admin plane through the `verdict` CLI),
// driven with every secret this test creates: the admin secret, a wrong admin secret, agent
// tokens (seeded, created, rotated), tokens that match no agent, a JWT-shaped token,
// secret-named call arguments, and tokens sent in other fields (an argument's key, the resource,
// the action, the request id, an admin call's agent id). Then every byte of every output, every
// error message a client got, and the database files themselves are searched for each secret: none
// may appear.
//
// The one place a secret belongs is the CLI's answer to the command that created it (shown
// once); the test checks it is there, which also proves the search can find what it looks for.
#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cli/e2e_test_support.h"
#include "common/json.h"
#include "gtest/gtest.h"
#include "tests/verdictd_process.h"
#include "verdict/v1/decision.grpc.pb.h"

extern char** environ;

namespace verdict {
namespace {

// From deploy/demo-policy.json: seeded tokens are secrets too.
constexpr char kReader[] = "agt_demo_reader";
constexpr char kReaderToken[] = "vdt_M5hwIYE5vAXm0pPRBRsyIvcyYmg_pnll04u8cx7plPM";
constexpr char kAssistantToken[] = "vdt_AKrIXsq46a5XhUn77VdkJO08c2XYK1uW6zXQvRdYXrw";

// A secret-looking value nobody else can have picked.
std::string RandomSecret(absl::string_view prefix) {
  std::string secret(prefix);
  std::ifstream urandom("/dev/urandom", std::ios::binary);
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  for (int i = 0; i < 43; ++i) secret.push_back(kAlphabet[urandom.get() % 64]);
  return secret;
}

class SecretsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(chdir(std::getenv("TEST_TMPDIR")), 0);  // Unix socket paths must stay short
    admin_secret_ = RandomSecret("admin-");
    std::ofstream("admin-secret") << admin_secret_ << "\n";
  }

  void TearDown() override {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  // verdictd with everything it can write turned on; stdout and stderr into verdictd.out.
  void StartVerdictd() {
    const std::vector<std::string> argv = {RunfilePath("server/verdictd"),
                                           "--listen=127.0.0.1:0",
                                           "--db=secrets.db",
                                           "--seed=" + RunfilePath("deploy/demo-policy.json"),
                                           "--admin_listen=unix:admin.sock",
                                           "--admin_secret_file=admin-secret",
                                           "--test_only_weak_admin_hash",
                                           "--decision_log",
                                           "--decision_json_log=decisions.jsonl",
                                           "--metrics_listen=127.0.0.1:0"};
    std::vector<char*> c_argv;
    for (const std::string& arg : argv) c_argv.push_back(const_cast<char*>(arg.c_str()));
    c_argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "verdictd.out",
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    ASSERT_EQ(posix_spawn(&pid_, c_argv[0], &actions, nullptr, c_argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);

    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (absl::Now() < deadline) {
      const std::string out = ReadFile("verdictd.out");
      const size_t serving = out.find("verdictd serving on ");
      const size_t metrics = out.find("verdictd metrics on ");
      if (serving != std::string::npos && metrics != std::string::npos) {
        const size_t start = serving + std::string("verdictd serving on ").size();
        address_ = out.substr(start, out.find(' ', start) - start);
        const size_t metrics_start = metrics + std::string("verdictd metrics on ").size();
        metrics_address_ = out.substr(metrics_start, out.find('/', metrics_start) - metrics_start);
        return;
      }
      absl::SleepFor(absl::Milliseconds(50));
    }
    FAIL() << "verdictd did not start:\n" << ReadFile("verdictd.out");
  }

  // `verdict ARGS --admin_addr=unix:admin.sock` with `secret` as the admin secret.
  Outcome Admin(std::vector<std::string> args, absl::string_view secret) {
    args.push_back("--admin_addr=unix:admin.sock");
    return RunCommand(
        absl::StrCat("VERDICT_ADMIN_SECRET=", ShellQuote(secret), " ", VerdictCommandLine(args)),
        "cli-stderr.txt");
  }

  // Everything the run wrote or answered, by where it came from.
  void Record(const std::string& where, const std::string& text) { outputs_[where] += text; }

  // Every output, error and stored byte is free of every secret.
  void ExpectNoSecretAnywhere(const std::vector<std::string>& secrets) {
    for (const auto& [where, text] : outputs_) {
      for (const std::string& secret : secrets) {
        EXPECT_EQ(text.find(secret), std::string::npos) << "a secret in " << where;
      }
    }
  }

  std::string admin_secret_;
  pid_t pid_ = -1;
  std::string address_;
  std::string metrics_address_;
  std::map<std::string, std::string> outputs_;
};

std::string ScrapeMetrics(const std::string& host_port) {
  const std::string command = absl::StrCat(
      "/usr/bin/python3 -c 'import sys, urllib.request; "
      "sys.stdout.write(urllib.request.urlopen(\"http://",
      host_port, "/metrics\").read().decode())'");
  return RunCommand(command).out;
}

TEST_F(SecretsTest, NoSecretAppearsInAnyOutputOfAFullRun) {
  ASSERT_NO_FATAL_FAILURE(StartVerdictd());
  const std::string wrong_admin_secret = RandomSecret("wrong-admin-");
  const std::string unknown_token = RandomSecret("vdt_");
  const std::string password = RandomSecret("password-");
  const std::string jwt_like =
      absl::StrCat("eyJhbGciOiJIUzI1NiJ9.", RandomSecret("eyJzdWIi"), ".", RandomSecret("sig"));

  // The admin plane, through the CLI: an agent with a token, a grant, a rotation with grace.
  Outcome created =
      Admin({"agents", "create", "--owner=ann", "--name=secrets", "--json"}, admin_secret_);
  ASSERT_EQ(created.exit_code, 0) << created.err;
  absl::StatusOr<JsonValue> created_json = ParseJson(created.out);
  ASSERT_TRUE(created_json.ok()) << created.out;
  const std::string agent_id = created_json->Find("agent")->Find("id")->as_string();
  const std::string first_token = created_json->Find("token")->as_string();
  Record("cli stderr", created.err);
  Outcome granted =
      Admin({"permissions", "grant", "--agent", agent_id, "--resource=docs:*", "--actions=read"},
            admin_secret_);
  ASSERT_EQ(granted.exit_code, 0) << granted.err;
  Record("cli output", granted.out + granted.err);
  Outcome rotated =
      Admin({"agents", "rotate", "--id", agent_id, "--grace=1h", "--json"}, admin_secret_);
  ASSERT_EQ(rotated.exit_code, 0) << rotated.err;
  absl::StatusOr<JsonValue> rotated_json = ParseJson(rotated.out);
  ASSERT_TRUE(rotated_json.ok()) << rotated.out;
  const std::string second_token = rotated_json->Find("token")->as_string();
  Record("cli stderr", rotated.err);
  // The control: the secret is where it belongs, so the search does find what it looks for.
  EXPECT_NE(created.out.find(first_token), std::string::npos);
  EXPECT_NE(rotated.out.find(second_token), std::string::npos);

  // Refused admin calls: a wrong secret, and no secret at all.
  for (const std::string& secret : {wrong_admin_secret, std::string()}) {
    Outcome refused = Admin({"agents", "list"}, secret);
    EXPECT_NE(refused.exit_code, 0);
    Record("cli output of a refused call", refused.out + refused.err);
  }

  // Decisions and token validations with every token, good and bad, and secret arguments.
  auto channel = grpc::CreateChannel(address_, grpc::InsecureChannelCredentials());
  auto stub = v1::DecisionService::NewStub(channel);
  const std::vector<std::string> tokens = {first_token,     second_token,  kReaderToken,
                                           kAssistantToken, unknown_token, jwt_like};
  for (const std::string& token : tokens) {
    for (const char* resource : {"docs:guide:1", "docs:secret:1", "bad\x01resource"}) {
      v1::AuthorizeRequest request;
      request.mutable_subject()->set_token(token);
      request.set_action("read");
      request.set_resource(resource);
      request.mutable_context()->set_arguments_json(absl::StrCat(
          R"({"password":")", password, R"(","access_token":")", token, R"(","n":1})"));
      request.mutable_context()->set_request_id("secrets-test");
      v1::AuthorizeResponse decision;
      grpc::ClientContext context;
      const grpc::Status status = stub->Authorize(&context, request, &decision);
      Record("Authorize answers", status.error_message() + decision.DebugString());
    }
    v1::ValidateTokenRequest validate;
    validate.set_token(token);
    v1::ValidateTokenResponse validation;
    grpc::ClientContext context;
    const grpc::Status status = stub->ValidateToken(&context, validate, &validation);
    Record("ValidateToken answers", status.error_message() + validation.DebugString());
  }
  {
    // A token given where an agent id belongs, with well-formed arguments so that the call
    // would be decided and logged were the token taken for an id (it once was: review h41).
    v1::AuthorizeRequest request;
    request.mutable_subject()->set_agent_id(second_token);
    request.set_action("read");
    request.set_resource("docs:guide:1");
    v1::AuthorizeResponse decision;
    grpc::ClientContext context;
    const grpc::Status status = stub->Authorize(&context, request, &decision);
    Record("Authorize answers", status.error_message() + decision.DebugString());
  }
  {
    // Malformed arguments around a secret.
    v1::AuthorizeRequest request;
    request.mutable_subject()->set_agent_id("agt_demo_reader");
    request.set_action("read");
    request.set_resource("docs:guide:1");
    request.mutable_context()->set_arguments_json(absl::StrCat(R"({"password": )", password));
    v1::AuthorizeResponse decision;
    grpc::ClientContext context;
    const grpc::Status status = stub->Authorize(&context, request, &decision);
    Record("Authorize answers", status.error_message() + decision.DebugString());
  }

  // Tokens sent in other fields (issue 15): as an argument's key, inside a colon resource and a
  // path, inside the action and as the request id. Each call is well-formed, so it is decided
  // and logged; the logs must keep none of these tokens. The answers go back to the caller that
  // sent the token, and a decision's message may quote its resource: they are not searched.
  const struct {
    std::string action;
    std::string resource;
    std::string arguments_json;
    std::string request_id;
  } kTokensElsewhere[] = {
      {"read", "docs:guide:1", absl::StrCat(R"({")", first_token, R"(":1,"n":2})"), "keys"},
      {"read", "docs:guide:1", absl::StrCat(R"({"a":{")", jwt_like, R"(":[1]}})"), "nested-key"},
      {"read", absl::StrCat("docs:", second_token, ":1"), "", "in-colon-resource"},
      {"read", absl::StrCat("docs:secret:", kReaderToken), "", "in-denied-resource"},
      {"get", absl::StrCat("/verify/", jwt_like), "", "in-path"},
      {"get", absl::StrCat("/users/", unknown_token, "/x"), "", "in-unmatched-path"},
      {absl::StrCat("read-", kAssistantToken), "docs:guide:1", "", "in-action"},
      {"read", "docs:guide:1", "", jwt_like},
  };
  for (const auto& call : kTokensElsewhere) {
    v1::AuthorizeRequest request;
    request.mutable_subject()->set_agent_id(kReader);
    request.set_action(call.action);
    request.set_resource(call.resource);
    request.mutable_context()->set_arguments_json(call.arguments_json);
    request.mutable_context()->set_request_id(call.request_id);
    v1::AuthorizeResponse decision;
    grpc::ClientContext context;
    const grpc::Status status = stub->Authorize(&context, request, &decision);
    EXPECT_TRUE(status.ok()) << call.request_id << ": " << status.error_message();
  }

  // Tokens sent where the admin plane expects an agent id: its errors never quote them.
  for (const std::string& token : {first_token, jwt_like}) {
    for (const std::vector<std::string>& command :
         {std::vector<std::string>{"agents", "get", "--id", token},
          std::vector<std::string>{"agents", "suspend", "--id", "agt_" + token},
          std::vector<std::string>{"permissions", "grant", "--agent", token, "--resource=docs:*",
                                   "--actions=read"},
          std::vector<std::string>{"permissions", "grant", "--agent", "agt_x:" + token,
                                   "--resource=docs:*", "--actions=read"}}) {
      Outcome refused = Admin(command, admin_secret_);
      EXPECT_NE(refused.exit_code, 0) << absl::StrJoin(command, " ");
      Record("cli output of a refused call", refused.out + refused.err);
    }
  }

  // The decision log as operators read it, and the metrics.
  // The decision log writes in batches, off the decision path: the rows come when their batch is
  // committed, so the query is asked again until they are there (bounded).
  Outcome log;
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  do {
    log = Admin({"log", "query", "--json", "--page_size=1000"}, admin_secret_);
    if (log.exit_code != 0 || log.out.find(agent_id) != std::string::npos) break;
    absl::SleepFor(absl::Milliseconds(100));
  } while (absl::Now() < give_up);
  EXPECT_EQ(log.exit_code, 0) << log.err;
  EXPECT_NE(log.out.find(agent_id), std::string::npos) << "the decision log has no row to search";
  Record("verdict log query", log.out + log.err);
  const std::string metrics = ScrapeMetrics(metrics_address_);
  EXPECT_NE(metrics.find("verdict_"), std::string::npos) << "no metrics scraped";
  Record("metrics", metrics);

  kill(pid_, SIGTERM);
  int status = 0;
  ASSERT_EQ(waitpid(pid_, &status, 0), pid_);
  pid_ = -1;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

  Record("verdictd stdout and stderr", ReadFile("verdictd.out"));
  Record("JSON decision log", ReadFile("decisions.jsonl"));
  // Only hashes of tokens and of the admin secret are ever stored.
  for (const char* suffix : {"", "-wal", "-shm"}) {
    Record(absl::StrCat("database file secrets.db", suffix),
           ReadFile(absl::StrCat("secrets.db", suffix)));
  }
  EXPECT_NE(outputs_["JSON decision log"].find(kReader), std::string::npos)
      << "the run wrote no decisions to search";

  std::vector<std::string> secrets = {admin_secret_, wrong_admin_secret, password, jwt_like};
  for (const std::string& token : tokens) {
    secrets.push_back(token);
    // The part after the prefix alone is the secret; the prefix is meant to be shown.
    secrets.push_back(token.substr(4));
  }
  ExpectNoSecretAnywhere(secrets);
}

}  // namespace
}  // namespace verdict
