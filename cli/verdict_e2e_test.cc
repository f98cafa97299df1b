// The built `verdict` binary against a running verdictd: every command group, the exit codes
// scripts rely on, --json output, and the decision log written by real decisions.
#include <SQLiteCpp/SQLiteCpp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cli/e2e_test_support.h"
#include "common/json.h"
#include "decision/access_token_test_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/verdictd_process.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kSecret[] = "e2e-admin-secret-0123456789";
// Relative to the test's working directory (TEST_TMPDIR): a Unix socket path must stay short.
constexpr char kAdminSocket[] = "unix:admin.sock";

class VerdictCliTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(chdir(std::getenv("TEST_TMPDIR")), 0);
    std::ofstream("admin-secret") << kSecret << "\n";
    absl::StatusOr<std::unique_ptr<VerdictdProcess>> server = VerdictdProcess::Start(
        {"--db=e2e.db", absl::StrCat("--admin_listen=", kAdminSocket),
         "--admin_secret_file=admin-secret", "--decision_log", "--test_only_weak_admin_hash"});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = server->release();
  }

  static void TearDownTestSuite() {
    if (server_ == nullptr) return;
    server_->Signal(SIGTERM);
    absl::StatusOr<int> exit_code = server_->AwaitExit(absl::Seconds(20));
    EXPECT_TRUE(exit_code.ok()) << exit_code.status();
    EXPECT_EQ(exit_code.value_or(-1), 0);
    delete server_;
    server_ = nullptr;
  }

  // Runs `verdict args...` with `secret` in VERDICT_ADMIN_SECRET ("" to leave it unset).
  // `principal`, when not empty, goes in VERDICT_PRINCIPAL.
  static Outcome Verdict(const std::vector<std::string>& args, absl::string_view secret = kSecret,
                         absl::string_view principal = "") {
    std::string env = secret.empty()
                          ? "unset VERDICT_ADMIN_SECRET; "
                          : absl::StrCat("VERDICT_ADMIN_SECRET=", ShellQuote(secret), " ");
    if (!principal.empty()) {
      absl::StrAppend(&env, "VERDICT_PRINCIPAL=", ShellQuote(principal), " ");
    }
    return RunCommand(absl::StrCat(env, VerdictCommandLine(args)), "cli-stderr.txt");
  }

  static Outcome Admin(std::vector<std::string> args, absl::string_view secret = kSecret,
                       absl::string_view principal = "") {
    args.push_back(absl::StrCat("--admin_addr=", kAdminSocket));
    return Verdict(args, secret, principal);
  }

  // The secret `verdict principals create` gives `name` from a file, and the principal created
  // with `roles`.
  static std::string SecretOf(absl::string_view name) {
    return absl::StrCat("e2e-secret-of-", name, "-0123456789");
  }
  static void CreatePrincipal(const std::string& name, const std::string& roles) {
    const std::string file = absl::StrCat(name, "-secret");
    std::ofstream(file) << SecretOf(name) << "\n";
    Outcome created =
        Admin({"principals", "create", absl::StrCat("--name=", name),
               absl::StrCat("--roles=", roles), absl::StrCat("--secret_file=", file)});
    ASSERT_EQ(created.exit_code, 0) << created.err;
    EXPECT_THAT(created.out, Not(HasSubstr("secret:")));
  }
  // `verdict args...` as the principal `name`, by --principal.
  static Outcome As(const std::string& name, std::vector<std::string> args) {
    args.push_back(absl::StrCat("--principal=", name));
    return Admin(args, SecretOf(name));
  }

  static Outcome Check(std::vector<std::string> args) {
    args.insert(args.begin(), "check");
    args.push_back(absl::StrCat("--addr=", server_->address()));
    return Verdict(args);
  }

  static JsonValue ParseOutput(const Outcome& outcome) {
    absl::StatusOr<JsonValue> json = ParseJson(outcome.out);
    EXPECT_TRUE(json.ok()) << json.status() << "\n" << outcome.out;
    return json.ok() ? *json : JsonValue();
  }

  static std::string Member(const JsonValue& object, absl::string_view key) {
    const JsonValue* value = object.Find(key);
    return value != nullptr && value->is_string() ? value->as_string() : "";
  }

  // Creates an agent of alice's named `name`; returns `agents create --json`'s answer: the agent
  // and its token.
  static JsonValue CreateAgent(absl::string_view name) {
    Outcome created =
        Admin({"agents", "create", "--owner=alice", absl::StrCat("--name=", name), "--json"});
    EXPECT_EQ(created.exit_code, 0) << created.err;
    return ParseOutput(created);
  }

  // The same, returning the new agent's id.
  static std::string CreateAgentId(absl::string_view name) {
    const JsonValue created = CreateAgent(name);
    const JsonValue* agent = created.Find("agent");
    return agent == nullptr ? "" : Member(*agent, "id");
  }

  // Creates an agent allowed to read docs:*; returns {id, token}.
  static std::pair<std::string, std::string> ReaderAgent(absl::string_view name) {
    const JsonValue json = CreateAgent(name);
    const std::string id = Member(*json.Find("agent"), "id");
    Outcome granted =
        Admin({"permissions", "grant", "--agent", id, "--resource=docs:*", "--actions=read"});
    EXPECT_EQ(granted.exit_code, 0) << granted.err;
    return {id, Member(json, "token")};
  }

  static VerdictdProcess* server_;
};

VerdictdProcess* VerdictCliTest::server_ = nullptr;

TEST_F(VerdictCliTest, EverySubcommandExplainsItselfWithHelp) {
  for (const char* command :
       {"agents create",        "agents get",         "agents list",        "agents suspend",
        "agents reactivate",    "agents revoke",      "agents rotate",      "permissions grant",
        "permissions revoke",   "delegations create", "delegations revoke", "approvals list",
        "approvals approve",    "approvals deny",     "log query",          "log verify",
        "policy export",        "policy import",      "tokens revoke-jti",  "keys add",
        "keys rotate",          "keys retire",        "keys list",          "check",
        "audit query",          "policy apply",       "policy diff",        "agents permissions",
        "agents delegations",   "agents effective",   "policy test",        "principals create",
        "principals list",      "principals disable", "principals enable",  "principals set-roles",
        "principals set-secret"}) {
    std::vector<std::string> args = absl::StrSplit(command, ' ');
    args.push_back("--help");
    Outcome help = Verdict(args);
    EXPECT_EQ(help.exit_code, 0) << command;
    EXPECT_THAT(help.out, StartsWith(absl::StrCat("Usage: verdict ", command))) << command;
    EXPECT_THAT(help.out, HasSubstr("Exit codes:")) << command;
  }
  EXPECT_EQ(Verdict({"--help"}).exit_code, 0);
}

TEST_F(VerdictCliTest, UsageErrorsExitOne) {
  EXPECT_EQ(Verdict({}).exit_code, 1);
  EXPECT_EQ(Verdict({"agents", "fly"}).exit_code, 1);
  EXPECT_EQ(Admin({"agents", "get"}).exit_code, 1);  // --id missing
  EXPECT_EQ(Admin({"agents", "get", "--id=x", "--colour=red"}).exit_code, 1);
  // On TCP a call without any credential is not sent; on a unix: socket it is (verdictd may know
  // the caller by its uid, --admin_peer_uids) and refused, saying how to give one.
  Outcome no_secret =
      Verdict({"agents", "list", "--admin_addr=127.0.0.1:1", "--timeout=2s"}, /*secret=*/"");
  EXPECT_EQ(no_secret.exit_code, 1);
  EXPECT_THAT(no_secret.err, HasSubstr("VERDICT_ADMIN_SECRET"));
  Outcome no_credential = Admin({"agents", "list"}, /*secret=*/"");
  EXPECT_EQ(no_credential.exit_code, 4);
  EXPECT_THAT(no_credential.err, HasSubstr("verdict login"));
  // A secret the server could never accept is refused here, not counted against the socket.
  EXPECT_EQ(Admin({"agents", "list"}, /*secret=*/"   ").exit_code, 1);
  Outcome short_secret = Admin({"agents", "list"}, /*secret=*/"short");
  EXPECT_EQ(short_secret.exit_code, 1);
  EXPECT_THAT(short_secret.err, HasSubstr("at least 16"));
  // A forgotten value never takes the next option as the value.
  Outcome no_name = Admin({"agents", "create", "--owner=ops", "--name", "--kind=service"});
  EXPECT_EQ(no_name.exit_code, 1);
  EXPECT_THAT(no_name.err, HasSubstr("the value is missing"));
  // absl's special values are no times or durations.
  EXPECT_EQ(Admin({"agents", "create", "--owner=o", "--name=n", "--expires_at=infinite-future"})
                .exit_code,
            1);
  EXPECT_EQ(Admin({"agents", "rotate", "--id=agt_x", "--grace=inf"}).exit_code, 1);
  EXPECT_EQ(Admin({"agents", "list", "--timeout=inf"}).exit_code, 1);
  // A directory is not a document.
  Outcome directory = Admin({"policy", "import", "--file=."});
  EXPECT_EQ(directory.exit_code, 1);
  EXPECT_THAT(directory.err, HasSubstr("is a directory"));
  // A device or a pipe (<(...), /dev/stdin) is read like a file: here the server refuses what
  // /dev/null holds, which is no policy.
  EXPECT_EQ(Admin({"policy", "import", "--file=/dev/null"}).exit_code, 3);
  // A log query that could match nothing, or a page size the admin plane does not serve (h41);
  // a range ending past 2262 is no inverted range (h42).
  Outcome inverted =
      Admin({"log", "query", "--since=2026-11-30T15:00:00Z", "--until=2026-11-30T14:00:00Z"});
  EXPECT_EQ(inverted.exit_code, 1);
  EXPECT_THAT(inverted.err, HasSubstr("--until: must be later than --since"));
  for (const char* page_size : {"--page_size=-5", "--page_size=0", "--page_size=4294967297"}) {
    Outcome refused = Admin({"log", "query", page_size});
    EXPECT_EQ(refused.exit_code, 1) << page_size;
    EXPECT_THAT(refused.err, HasSubstr("a number from 1 to 1000")) << page_size;
  }
  EXPECT_EQ(Admin({"log", "query", "--since=2020-01-01T00:00:00Z", "--until=2300-01-01T00:00:00Z"})
                .exit_code,
            0);
  // Every list reads its page options alike, and both history queries their time window.
  for (const char* list :
       {"agents list", "approvals list --status=pending", "audit query", "log query"}) {
    std::vector<std::string> args = absl::StrSplit(list, ' ');
    args.push_back("--page_size=1001");
    Outcome refused = Admin(args);
    EXPECT_EQ(refused.exit_code, 1) << list;
    EXPECT_THAT(refused.err, HasSubstr("--page_size: a number from 1 to 1000")) << list;
  }
  Outcome audit_inverted =
      Admin({"audit", "query", "--since=2026-11-30T15:00:00Z", "--until=2026-11-30T14:00:00Z"});
  EXPECT_EQ(audit_inverted.exit_code, 1);
  EXPECT_THAT(audit_inverted.err, HasSubstr("--until: must be later than --since"));
}

TEST_F(VerdictCliTest, AWrongSecretOrNoServerExitsFour) {
  Outcome wrong = Admin({"agents", "list"}, "not-the-admin-secret");
  EXPECT_EQ(wrong.exit_code, 4);
  EXPECT_THAT(wrong.err, HasSubstr("unauthenticated"));
  Outcome nobody = Verdict({"agents", "list", "--admin_addr=unix:nobody.sock", "--timeout=2s"});
  EXPECT_EQ(nobody.exit_code, 4);
}

TEST_F(VerdictCliTest, TheAdminServiceIsNotServedOnTheDecisionPort) {
  Outcome on_decision_port =
      Verdict({"agents", "list", absl::StrCat("--admin_addr=", server_->address())});
  EXPECT_EQ(on_decision_port.exit_code, 3);
  EXPECT_THAT(on_decision_port.err, HasSubstr("not served here"));
}

TEST_F(VerdictCliTest, ManageAnAgentAndSeeEachChangeDecide) {
  const auto [id, token] = ReaderAgent("reader");
  ASSERT_THAT(token, StartsWith("vdt_"));

  Outcome allowed = Check({"--agent", id, "--action=read", "--resource=docs:1"});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  EXPECT_THAT(allowed.out, StartsWith("ALLOW ALLOWED"));
  EXPECT_EQ(Check({"--token", token, "--action=read", "--resource=docs:1"}).exit_code, 0);
  Outcome denied = Check({"--agent", id, "--action=write", "--resource=docs:1"});
  EXPECT_EQ(denied.exit_code, 2);
  EXPECT_THAT(denied.out, StartsWith("DENY NO_MATCHING_PERMISSION"));

  EXPECT_EQ(Admin({"agents", "suspend", "--id", id}).exit_code, 0);
  Outcome suspended = Check({"--agent", id, "--action=read", "--resource=docs:1", "--json"});
  EXPECT_EQ(suspended.exit_code, 2);
  EXPECT_EQ(Member(ParseOutput(suspended), "reason"), "AGENT_SUSPENDED");
  EXPECT_EQ(Admin({"agents", "reactivate", "--id", id}).exit_code, 0);
  EXPECT_EQ(Check({"--agent", id, "--action=read", "--resource=docs:1"}).exit_code, 0);

  Outcome rotated = Admin({"agents", "rotate", "--id", id, "--grace=0s", "--json"});
  ASSERT_EQ(rotated.exit_code, 0) << rotated.err;
  const std::string new_token = Member(ParseOutput(rotated), "token");
  EXPECT_EQ(Check({"--token", token, "--action=read", "--resource=docs:1"}).exit_code, 2);
  EXPECT_EQ(Check({"--token", new_token, "--action=read", "--resource=docs:1"}).exit_code, 0);

  // A grace under a second is kept, not rounded down to none: the previous token expires 900 ms
  // after the rotation, which verdictd made between `before` and `after`. It works until then
  // (checked when the check is over before then: on a loaded machine starting the CLI alone can
  // take longer) and not after.
  const absl::Time before = absl::FromUnixMicros(absl::ToUnixMicros(absl::Now()));  // as kept
  Outcome briefly = Admin({"agents", "rotate", "--id", id, "--grace=900ms", "--json"});
  const absl::Time after = absl::Now();
  ASSERT_EQ(briefly.exit_code, 0) << briefly.err;
  const JsonValue briefly_rotated = ParseOutput(briefly);
  const std::string briefly_token = Member(briefly_rotated, "token");
  absl::Time expires;
  std::string unparsed;
  ASSERT_TRUE(absl::ParseTime(absl::RFC3339_full,
                              Member(briefly_rotated, "previous_token_expires_at"), &expires,
                              &unparsed))
      << unparsed << "\n"
      << briefly.out;
  EXPECT_GE(expires, before + absl::Milliseconds(900)) << briefly.out;
  EXPECT_LE(expires, after + absl::Milliseconds(900)) << briefly.out;
  const int in_grace =
      Check({"--token", new_token, "--action=read", "--resource=docs:1"}).exit_code;
  if (absl::Now() < expires) {
    EXPECT_EQ(in_grace, 0) << "the previous token works for 900 ms";
  }
  while (absl::Now() <= expires) absl::SleepFor(expires - absl::Now() + absl::Milliseconds(1));
  EXPECT_EQ(Check({"--token", new_token, "--action=read", "--resource=docs:1"}).exit_code, 2);
  EXPECT_EQ(Check({"--token", briefly_token, "--action=read", "--resource=docs:1"}).exit_code, 0);

  Outcome got = Admin({"agents", "get", "--id", id, "--json"});
  EXPECT_EQ(got.exit_code, 0);
  EXPECT_EQ(Member(ParseOutput(got), "status"), "ACTIVE");
  EXPECT_THAT(got.out, Not(HasSubstr(new_token)));

  EXPECT_EQ(Admin({"agents", "revoke", "--id", id}).exit_code, 0);
  Outcome reactivate_revoked = Admin({"agents", "reactivate", "--id", id});
  EXPECT_EQ(reactivate_revoked.exit_code, 3);
  EXPECT_EQ(Admin({"agents", "get", "--id=agt_nobody"}).exit_code, 3);
}

TEST_F(VerdictCliTest, TextOutputShowsUtf8AsIs) {
  Outcome created = Admin({"agents", "create", "--owner=josé@exemple.fr", "--name=Büro"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_THAT(created.out, HasSubstr("josé@exemple.fr"));
  EXPECT_THAT(created.out, HasSubstr("Büro"));
}

// The agents' descriptive columns (decision/types.h) are flags of `agents create`, listed by its
// help, and shown by `agents get`; a control character is refused and nothing is created.
TEST_F(VerdictCliTest, AnAgentsDescriptiveColumnsAreFlagsOfCreateAndShownByGet) {
  Outcome help = Verdict({"agents", "create", "--help"});
  EXPECT_THAT(help.out, HasSubstr("--description=TEXT"));
  EXPECT_THAT(help.out, HasSubstr("what the agent is for, for operators"));
  EXPECT_THAT(help.out, HasSubstr("--contact=TEXT"));
  Outcome created =
      Admin({"agents", "create", "--owner=alice", "--name=described",
             "--description=files the weekly report", "--contact=reports@example.com", "--json"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const std::string id = Member(*ParseOutput(created).Find("agent"), "id");
  Outcome shown = Admin({"agents", "get", "--id", id, "--json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  const JsonValue agent = ParseOutput(shown);
  EXPECT_EQ(Member(agent, "description"), "files the weekly report");
  ASSERT_NE(agent.Find("details"), nullptr) << shown.out;
  EXPECT_EQ(Member(*agent.Find("details"), "contact"), "reports@example.com");
  Outcome refused = Admin({"agents", "create", "--owner=alice", "--name=refused",
                           "--id=agt_refused", "--description=two\nlines"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.err, HasSubstr("description"));
  EXPECT_NE(Admin({"agents", "get", "--id=agt_refused"}).exit_code, 0);
}

TEST_F(VerdictCliTest, ListAgentsPagesWithTokens) {
  ReaderAgent("lister-1");
  ReaderAgent("lister-2");
  Outcome page = Admin({"agents", "list", "--page_size=1", "--json"});
  ASSERT_EQ(page.exit_code, 0) << page.err;
  const JsonValue json = ParseOutput(page);
  EXPECT_EQ(json.Find("agents")->as_array().size(), 1u);
  const std::string next = Member(json, "next_page_token");
  ASSERT_FALSE(next.empty());
  Outcome second = Admin({"agents", "list", "--page_size=1", "--page_token", next});
  EXPECT_EQ(second.exit_code, 0);
  EXPECT_THAT(second.out, StartsWith("ID "));
  EXPECT_THAT(second.out, HasSubstr("\nagt_"));
}

// -o table (the default), json and yaml print the same answer: JSON that parses, YAML that
// yaml-cpp reads, a table with a header and RFC 3339 times; enum values read the same in all.
TEST_F(VerdictCliTest, EveryCommandPrintsATableJsonOrYaml) {
  const auto [id, token] = ReaderAgent("formats");
  const std::regex rfc3339(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z)");

  Outcome table = Admin({"agents", "get", "--id", id});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, StartsWith(absl::StrCat("id:")));
  EXPECT_THAT(table.out, testing::ContainsRegex("\nstatus: +ACTIVE\n"));
  std::smatch when;
  EXPECT_TRUE(std::regex_search(table.out, when, std::regex(R"(created_at: +(\S+))")));
  EXPECT_TRUE(std::regex_match(when[1].str(), rfc3339)) << table.out;

  Outcome listed = Admin({"agents", "list", "--page_size=1000"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_THAT(listed.out, StartsWith("ID "));
  EXPECT_THAT(listed.out,
              testing::ContainsRegex("\n" + id + " +alice +formats +AUTONOMOUS +ACTIVE "));
  EXPECT_TRUE(std::regex_search(listed.out, rfc3339)) << listed.out;

  for (const std::vector<std::string>& json_option :
       {std::vector<std::string>{"-o", "json"}, {"-ojson"}, {"--output=json"}, {"--json"}}) {
    std::vector<std::string> args = {"agents", "get", "--id", id};
    args.insert(args.end(), json_option.begin(), json_option.end());
    Outcome json = Admin(args);
    ASSERT_EQ(json.exit_code, 0) << json.err;
    EXPECT_EQ(Member(ParseOutput(json), "status"), "ACTIVE") << absl::StrJoin(json_option, " ");
    EXPECT_TRUE(std::regex_match(Member(ParseOutput(json), "created_at"), rfc3339));
  }

  Outcome yaml = Admin({"agents", "list", "--page_size=1000", "-o", "yaml"});
  ASSERT_EQ(yaml.exit_code, 0) << yaml.err;
  const YAML::Node page = YAML::Load(yaml.out);
  ASSERT_TRUE(page["agents"].IsSequence()) << yaml.out;
  bool found = false;
  for (const YAML::Node& agent : page["agents"]) {
    if (agent["id"].as<std::string>() != id) continue;
    found = true;
    EXPECT_EQ(agent["status"].as<std::string>(), "ACTIVE");
    EXPECT_EQ(agent["kind"].as<std::string>(), "AUTONOMOUS");
    EXPECT_TRUE(std::regex_match(agent["created_at"].as<std::string>(), rfc3339));
  }
  EXPECT_TRUE(found) << yaml.out;

  // check prints its line, or the answer in JSON or YAML, with the same names.
  Outcome allowed = Check({"--agent", id, "--action=read", "--resource=docs:1", "-o", "yaml"});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  EXPECT_EQ(YAML::Load(allowed.out)["verdict"].as<std::string>(), "ALLOW") << allowed.out;
  EXPECT_EQ(YAML::Load(allowed.out)["reason"].as<std::string>(), "ALLOWED");

  Outcome unknown = Admin({"agents", "get", "--id", id, "-o", "xml"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_THAT(unknown.err, HasSubstr("table, json or yaml"));
  EXPECT_EQ(Admin({"agents", "get", "--id", id, "--json", "-o", "yaml"}).exit_code, 1);
}

TEST_F(VerdictCliTest, PermissionsAndDelegations) {
  const auto [lender, lender_token] = ReaderAgent("lender");
  const std::string borrower = CreateAgentId("borrower");

  Outcome too_much = Admin({"delegations", "create", "--from", lender, "--to", borrower,
                            "--resource=docs:*", "--actions=write"});
  EXPECT_EQ(too_much.exit_code, 3);
  EXPECT_THAT(too_much.err, HasSubstr("cannot lend"));

  Outcome lent = Admin({"delegations", "create", "--from", lender, "--to", borrower,
                        "--resource=docs:public:*", "--actions=read", "--json"});
  ASSERT_EQ(lent.exit_code, 0) << lent.err;
  const std::string delegation = Member(ParseOutput(lent), "id");
  EXPECT_EQ(Check({"--agent", borrower, "--action=read", "--resource=docs:public:1"}).exit_code, 0);
  Outcome cycle = Admin({"delegations", "create", "--from", borrower, "--to", lender,
                         "--resource=docs:public:*", "--actions=read"});
  EXPECT_EQ(cycle.exit_code, 3);
  EXPECT_THAT(cycle.err, HasSubstr("cycle"));

  Outcome revoked = Admin({"delegations", "revoke", "--id", delegation});
  EXPECT_EQ(revoked.exit_code, 0);
  EXPECT_EQ(revoked.out, absl::StrCat("revoked ", delegation, "\n"));
  EXPECT_EQ(Check({"--agent", borrower, "--action=read", "--resource=docs:public:1"}).exit_code, 2);

  Outcome granted = Admin({"permissions", "grant", "--agent", borrower, "--resource=docs:*",
                           "--actions=read", "--effect=deny", "--json"});
  ASSERT_EQ(granted.exit_code, 0);
  const std::string permission = Member(ParseOutput(granted), "id");
  EXPECT_EQ(Admin({"permissions", "revoke", "--id", permission}).exit_code, 0);
  EXPECT_EQ(Admin({"permissions", "revoke", "--id", permission}).exit_code, 3);
  EXPECT_EQ(Admin({"permissions", "grant", "--agent", borrower, "--resource=docs:*",
                   "--actions=read", "--constraints={\"no_such_constraint\":1}"})
                .exit_code,
            3);
}

// What an agent may do: its permissions, its delegations in and out, and what it holds now.
TEST_F(VerdictCliTest, AnAgentsPermissionsDelegationsAndWhatItHoldsAreListed) {
  const auto [lender, lender_token] = ReaderAgent("view-lender");
  const std::string borrower = CreateAgentId("view-borrower");
  Outcome lent = Admin({"delegations", "create", "--from", lender, "--to", borrower,
                        "--resource=docs:public:*", "--actions=read", "--json"});
  ASSERT_EQ(lent.exit_code, 0) << lent.err;
  const std::string delegation = Member(ParseOutput(lent), "id");

  Outcome permissions = Admin({"agents", "permissions", "--id", lender});
  ASSERT_EQ(permissions.exit_code, 0) << permissions.err;
  EXPECT_THAT(permissions.out, StartsWith("ID "));
  EXPECT_THAT(permissions.out,
              testing::ContainsRegex("\nperm_[^ ]+ +" + lender + " +docs:\\* +read +ALLOW "));

  Outcome delegations = Admin({"agents", "delegations", "--id", borrower});
  ASSERT_EQ(delegations.exit_code, 0) << delegations.err;
  EXPECT_THAT(delegations.out, StartsWith("DIRECTION "));
  EXPECT_THAT(delegations.out, testing::ContainsRegex("\nin +" + delegation + " +" + lender));
  Outcome out_of_lender = Admin({"agents", "delegations", "--id", lender, "--json"});
  ASSERT_EQ(out_of_lender.exit_code, 0) << out_of_lender.err;
  const JsonValue lender_links = ParseOutput(out_of_lender);
  ASSERT_EQ(lender_links.Find("delegations_out")->as_array().size(), 1u) << out_of_lender.out;
  EXPECT_EQ(Member(lender_links.Find("delegations_out")->as_array()[0], "id"), delegation);

  Outcome held = Admin({"agents", "effective", "--id", borrower});
  ASSERT_EQ(held.exit_code, 0) << held.err;
  EXPECT_THAT(held.out, StartsWith("EFFECT "));
  EXPECT_THAT(held.out, HasSubstr(absl::StrCat(lender, " -> ", borrower, " via ", delegation)));
  EXPECT_THAT(held.out, HasSubstr("docs:public:*"));
  Outcome held_json = Admin({"agents", "effective", "--id", borrower, "-o", "json"});
  ASSERT_EQ(held_json.exit_code, 0) << held_json.err;
  EXPECT_EQ(Member(ParseOutput(held_json), "liveness"), "ALLOWED");
  EXPECT_EQ(ParseOutput(held_json).Find("permissions")->as_array().size(), 1u);

  ASSERT_EQ(Admin({"agents", "suspend", "--id", borrower}).exit_code, 0);
  Outcome suspended = Admin({"agents", "effective", "--id", borrower});
  EXPECT_EQ(suspended.exit_code, 0) << suspended.err;
  EXPECT_EQ(suspended.out, absl::StrCat(borrower, " holds nothing now: AGENT_SUSPENDED\n"));
  EXPECT_EQ(Admin({"agents", "effective", "--id=agt_nobody"}).exit_code, 3);
  Outcome none = Admin({"agents", "delegations", "--id", ReaderAgent("alone").first});
  EXPECT_EQ(none.out, "(none)\n");
}

// check --explain decides by Simulate and prints each step: the stages, every grant tried and
// why it matched or not, and the delegation path a lent grant came through.
TEST_F(VerdictCliTest, CheckExplainPrintsEachStepOfTheDecision) {
  const auto [lender, token] = ReaderAgent("explained");
  Outcome denier = Admin({"permissions", "grant", "--agent", lender, "--resource=docs:secret:*",
                          "--actions=read", "--effect=deny", "--json"});
  ASSERT_EQ(denier.exit_code, 0) << denier.err;
  const std::string deny_id = Member(ParseOutput(denier), "id");

  Outcome allowed = Check({"--agent", lender, "--action=read", "--resource=docs:1", "--explain"});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  EXPECT_THAT(allowed.out, StartsWith("ALLOW ALLOWED: "));
  EXPECT_THAT(allowed.out, HasSubstr("\n  stages:\n    pass  subject "));
  EXPECT_THAT(allowed.out, HasSubstr("\n    pass  constraints "));
  EXPECT_THAT(allowed.out, testing::ContainsRegex(
                               "\n    ALLOWED  perm_[^ ]+ \\(own\\)  allow read on docs:\\*"));

  Outcome denied =
      Check({"--agent", lender, "--action=read", "--resource=docs:secret:1", "--explain"});
  EXPECT_EQ(denied.exit_code, 2);
  EXPECT_THAT(denied.out, StartsWith("DENY DENIED_BY_POLICY: "));
  EXPECT_THAT(denied.out, HasSubstr(absl::StrCat("FAIL  effects     deny ", deny_id)));
  EXPECT_THAT(denied.out, HasSubstr(absl::StrCat(deny_id, " (own)  deny read on docs:secret:*")));

  Outcome unmatched =
      Check({"--agent", lender, "--action=write", "--resource=docs:1", "--explain"});
  EXPECT_EQ(unmatched.exit_code, 2);
  EXPECT_THAT(unmatched.out, StartsWith("DENY NO_MATCHING_PERMISSION: "));
  EXPECT_THAT(unmatched.out, HasSubstr("action write is not in [read]"));

  const std::string borrower = CreateAgentId("explained-borrower");
  Outcome lent = Admin({"delegations", "create", "--from", lender, "--to", borrower,
                        "--resource=docs:*", "--actions=read", "--json"});
  ASSERT_EQ(lent.exit_code, 0) << lent.err;
  const std::string delegation = Member(ParseOutput(lent), "id");
  Outcome via = Check({"--agent", borrower, "--action=read", "--resource=docs:2", "--explain"});
  EXPECT_EQ(via.exit_code, 0) << via.err;
  // The origin's permission matched, through the delegation.
  EXPECT_THAT(via.out,
              testing::ContainsRegex(absl::StrCat("\n  matched: perm_[^ ]+ \\(", lender, " -> ",
                                                  borrower, " via ", delegation, "\\)\n")));

  // In JSON: Simulate's whole answer.
  Outcome json =
      Check({"--agent", lender, "--action=read", "--resource=docs:1", "--explain", "-o", "json"});
  EXPECT_EQ(json.exit_code, 0);
  const JsonValue simulation = ParseOutput(json);
  EXPECT_EQ(Member(*simulation.Find("decision"), "verdict"), "ALLOW");
  EXPECT_FALSE(simulation.Find("trace")->Find("stages")->as_array().empty());
}

// policy test needs no server: exit 0 when every case passes, 1 when one fails (printing what
// differed and the decision's trace), 2 when a file cannot be used (naming file and line).
TEST_F(VerdictCliTest, PolicyTestRunsExpectedDecisionsWithNoServer) {
  const std::string policy = absl::StrCat("--policy=", RunfilePath("deploy/demo-policy.json"));
  Outcome passing =
      Verdict({"policy", "test", policy,
               absl::StrCat("--tests=", RunfilePath("deploy/demo-policy.tests.yaml"))});
  EXPECT_EQ(passing.exit_code, 0) << passing.out << passing.err;
  EXPECT_EQ(passing.out, "9 passed, 0 failed\n");

  std::ofstream("wrong.yaml") << "tests:\n"
                                 "  - name: the guide is readable\n"
                                 "    agent: agt_demo_reader\n"
                                 "    action: read\n"
                                 "    resource: docs:guide:1\n"
                                 "    expect: {verdict: allow}\n"
                                 "  - name: secrets are readable\n"
                                 "    agent: agt_demo_reader\n"
                                 "    action: read\n"
                                 "    resource: docs:secret:1\n"
                                 "    expect: {verdict: allow}\n";
  Outcome failing = Verdict({"policy", "test", policy, "--tests=wrong.yaml"});
  EXPECT_EQ(failing.exit_code, 1);
  EXPECT_THAT(failing.out,
              StartsWith("FAIL secrets are readable (wrong.yaml:7)\n"
                         "  expected ALLOW, got DENY DENIED_BY_POLICY\n"
                         "    DENY DENIED_BY_POLICY: denied by perm_demo_secret_deny\n"));
  EXPECT_THAT(failing.out, HasSubstr("\n      stages:\n        pass  subject "));
  EXPECT_THAT(failing.out, HasSubstr("\n        FAIL  effects "));
  EXPECT_THAT(failing.out, testing::EndsWith("\n1 passed, 1 failed\n"));

  Outcome json = Verdict({"policy", "test", policy, "--tests=wrong.yaml", "-o", "json"});
  EXPECT_EQ(json.exit_code, 1);
  const JsonValue summary = ParseOutput(json);
  EXPECT_EQ(summary.Find("passed")->as_number(), 1);
  EXPECT_EQ(summary.Find("failed")->as_number(), 1);
  EXPECT_EQ(Member(*summary.Find("cases")->as_array()[1].Find("decision"), "reason"),
            "DENIED_BY_POLICY");

  std::ofstream("malformed.yaml") << "tests:\n  - name: x\n    agent: agt_demo_reader\n"
                                     "    action: read\n    resource: docs:1\n"
                                     "    expect: {verdict: allow, colour: red}\n";
  Outcome malformed = Verdict({"policy", "test", policy, "--tests=malformed.yaml"});
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_EQ(malformed.out, "");
  EXPECT_THAT(malformed.err,
              HasSubstr("malformed.yaml:6: tests[0].expect: unknown key \"colour\""));
  Outcome no_policy = Verdict({"policy", "test", "--policy=missing.json", "--tests=wrong.yaml"});
  EXPECT_EQ(no_policy.exit_code, 2);
  EXPECT_THAT(no_policy.err, HasSubstr("missing.json"));
}

TEST_F(VerdictCliTest, ApprovalsFromAGatedCallToItsUse) {
  const std::string id = CreateAgentId("deployer");
  ASSERT_EQ(Admin({"permissions", "grant", "--agent", id, "--resource=svc:*", "--actions=deploy",
                   R"(--constraints={"approval":{"quorum":2}})"})
                .exit_code,
            0);
  Outcome gated = Check({"--agent", id, "--action=deploy", "--resource=svc:web", "--json"});
  EXPECT_EQ(gated.exit_code, 2);
  const std::string approval = Member(ParseOutput(gated), "approval_request_id");
  ASSERT_THAT(approval, StartsWith("apr_"));

  Outcome pending = Admin({"approvals", "list", "--json"});
  EXPECT_EQ(pending.exit_code, 0);
  EXPECT_THAT(pending.out, HasSubstr(approval));
  for (const char* approver : {"carol", "dave", "erin"}) CreatePrincipal(approver, "approver");
  EXPECT_EQ(As("carol", {"approvals", "approve", "--id", approval}).exit_code, 0);
  Outcome twice = As("carol", {"approvals", "approve", "--id", approval});
  EXPECT_EQ(twice.exit_code, 3);
  EXPECT_THAT(twice.err, HasSubstr("already voted"));
  // A vote is the caller's: carol cannot vote as dave.
  Outcome as_dave = As("carol", {"approvals", "approve", "--id", approval, "--approver=dave"});
  EXPECT_EQ(as_dave.exit_code, 3);
  EXPECT_THAT(as_dave.err, HasSubstr("not the caller"));
  EXPECT_EQ(As("dave", {"approvals", "approve", "--id", approval, "--approver=dave"}).exit_code, 0);
  EXPECT_EQ(Check({"--agent", id, "--action=deploy", "--resource=svc:web"}).exit_code, 0);
  // Used: the next identical call needs a new approval.
  EXPECT_EQ(Check({"--agent", id, "--action=deploy", "--resource=svc:web"}).exit_code, 2);

  Outcome denial = Check({"--agent", id, "--action=deploy", "--resource=svc:db", "--json"});
  const std::string second = Member(ParseOutput(denial), "approval_request_id");
  EXPECT_EQ(As("erin", {"approvals", "deny", "--id", second}).exit_code, 0);
  Outcome denied = Admin({"approvals", "list", "--status=denied"});
  EXPECT_THAT(denied.out, HasSubstr(second));
}

TEST_F(VerdictCliTest, PrincipalsAreManagedByAdminAndActByTheirRoles) {
  // A generated secret is printed once, on its own line.
  Outcome created = Admin({"principals", "create", "--name=ci", "--roles=operator"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const size_t at = created.out.find("secret: ");
  ASSERT_NE(at, std::string::npos) << created.out;
  const std::string ci_secret(
      absl::StripAsciiWhitespace(created.out.substr(at + std::string("secret: ").size())));
  EXPECT_THAT(ci_secret, StartsWith("vdp_"));
  EXPECT_THAT(created.err, HasSubstr("shown only this once"));
  // The principal named by VERDICT_PRINCIPAL, with its secret.
  EXPECT_EQ(Admin({"agents", "create", "--owner=alice", "--name=built"}, ci_secret, "ci").exit_code,
            0);
  // An operator does not manage principals: PERMISSION_DENIED names the role it needs.
  Outcome denied = Admin({"principals", "list"}, ci_secret, "ci");
  EXPECT_EQ(denied.exit_code, 3);
  EXPECT_THAT(denied.err, HasSubstr("permission denied"));
  EXPECT_THAT(denied.err, HasSubstr("ListPrincipals needs the role auditor or admin"));

  // The secret from standard input; never on the command line.
  Outcome from_stdin = Verdict({"principals", "create", "--name=aud", "--roles=auditor",
                                "--secret_file=-", absl::StrCat("--admin_addr=", kAdminSocket)});
  // Standard input is empty here: refused before anything is sent.
  EXPECT_EQ(from_stdin.exit_code, 1);
  EXPECT_THAT(from_stdin.err, HasSubstr("--secret_file"));
  CreatePrincipal("aud", "auditor");
  Outcome listed = As("aud", {"principals", "list", "--json"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_THAT(listed.out, HasSubstr("\"ci\""));
  EXPECT_THAT(listed.out, Not(HasSubstr("argon2")));

  ASSERT_EQ(Admin({"principals", "set-roles", "--name=ci", "--roles=auditor"}).exit_code, 0);
  EXPECT_NE(Admin({"agents", "create", "--owner=a", "--name=b"}, ci_secret, "ci").exit_code, 0);
  ASSERT_EQ(Admin({"principals", "disable", "--name=ci"}).exit_code, 0);
  Outcome disabled = Admin({"agents", "list"}, ci_secret, "ci");
  EXPECT_THAT(disabled.err, HasSubstr("\"ci\" is disabled"));
  ASSERT_EQ(Admin({"principals", "enable", "--name=ci"}).exit_code, 0);
  EXPECT_EQ(Admin({"agents", "list"}, ci_secret, "ci").exit_code, 0);

  Outcome last = Admin({"principals", "disable", "--name=admin"});
  EXPECT_NE(last.exit_code, 0);
  EXPECT_THAT(last.err, HasSubstr("last enabled admin"));
}

TEST_F(VerdictCliTest, DecisionLogRecordsRedactsAndVerifies) {
  const auto [id, token] = ReaderAgent("logged");
  ASSERT_EQ(Check({"--agent", id, "--action=read", "--resource=docs:7",
                   R"(--args={"password":"hunter2","page":3})"})
                .exit_code,
            0);
  ASSERT_EQ(Check({"--agent", id, "--action=write", "--resource=docs:7"}).exit_code, 2);

  // The log is written off the decision path: wait for the writer to catch up.
  JsonValue entries;
  for (absl::Time deadline = absl::Now() + absl::Seconds(10); absl::Now() < deadline;) {
    Outcome query = Admin({"log", "query", "--agent", id, "--json"});
    ASSERT_EQ(query.exit_code, 0) << query.err;
    const JsonValue page = ParseOutput(query);
    const JsonValue* found = page.Find("entries");
    if (found != nullptr && found->as_array().size() >= 2) {
      entries = *found;
      break;
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
  ASSERT_TRUE(entries.is_array());
  ASSERT_EQ(entries.as_array().size(), 2u);
  const JsonValue& first = entries.as_array()[0];
  EXPECT_EQ(Member(first, "verdict"), "ALLOW");
  EXPECT_EQ(Member(first, "arguments_json"), R"({"page":3,"password":"[REDACTED]"})");
  EXPECT_EQ(Member(entries.as_array()[1], "reason"), "NO_MATCHING_PERMISSION");
  Outcome denials = Admin({"log", "query", "--agent", id, "--verdict=deny"});
  EXPECT_THAT(denials.out, HasSubstr("NO_MATCHING_PERMISSION"));
  EXPECT_THAT(denials.out, Not(HasSubstr("ALLOWED")));

  Outcome intact = Admin({"log", "verify"});
  EXPECT_EQ(intact.exit_code, 0) << intact.err;
  EXPECT_THAT(intact.out, StartsWith("intact: "));

  const std::string seq = Member(first, "seq");  // a uint64: a string in protobuf's JSON
  ASSERT_FALSE(seq.empty());
  {
    SQLite::Database db("e2e.db", SQLite::OPEN_READWRITE);
    db.exec(absl::StrCat("UPDATE decision_log SET verdict = 'DENY' WHERE seq = ", seq));
  }
  Outcome broken = Admin({"log", "verify", "--json"});
  EXPECT_EQ(broken.exit_code, 2);
  const JsonValue both = ParseOutput(broken);
  ASSERT_NE(both.Find("decision_log"), nullptr);
  const JsonValue& report = *both.Find("decision_log");
  EXPECT_EQ(report.Find("intact")->as_bool(), false);
  EXPECT_EQ(Member(report, "first_bad_seq"), seq);
  EXPECT_EQ(both.Find("admin_audit")->Find("intact")->as_bool(), true);
  {
    SQLite::Database db("e2e.db", SQLite::OPEN_READWRITE);
    db.exec(absl::StrCat("UPDATE decision_log SET verdict = 'ALLOW' WHERE seq = ", seq));
  }
  EXPECT_EQ(Admin({"log", "verify"}).exit_code, 0);
}

// A `verdict` left running, whose standard output is read line by line as it comes.
class RunningVerdict {
 public:
  explicit RunningVerdict(const std::vector<std::string>& args) {
    int fds[2];
    if (pipe(fds) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    posix_spawn_file_actions_addclose(&actions, fds[1]);
    std::vector<std::string> argv_strings = {RunfilePath("cli/verdict")};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& arg : argv_strings) argv.push_back(arg.data());
    argv.push_back(nullptr);
    std::string secret = absl::StrCat("VERDICT_ADMIN_SECRET=", kSecret);
    char* envp[] = {secret.data(), nullptr};
    if (posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), envp) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    out_ = fds[0];
  }
  ~RunningVerdict() {
    Interrupt();
    if (out_ >= 0) close(out_);
  }

  // The next line it prints, or "" when none comes within `timeout` (or it ended).
  std::string NextLine(absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    for (;;) {
      if (const size_t end = buffered_.find('\n'); end != std::string::npos) {
        std::string line = buffered_.substr(0, end);
        buffered_.erase(0, end + 1);
        return line;
      }
      const absl::Duration left = deadline - absl::Now();
      if (left <= absl::ZeroDuration()) return "";
      pollfd readable = {out_, POLLIN, 0};
      if (poll(&readable, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1) <= 0) continue;
      char chunk[4096];
      const ssize_t n = read(out_, chunk, sizeof chunk);
      if (n <= 0) return "";
      buffered_.append(chunk, static_cast<size_t>(n));
    }
  }

  // Ctrl-C; true when it then ended.
  bool Interrupt() {
    if (pid_ <= 0) return false;
    kill(pid_, SIGINT);
    int status = 0;
    const bool ended = waitpid(pid_, &status, 0) == pid_;
    pid_ = -1;
    return ended;
  }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  std::string buffered_;
};

// log query --follow prints the rows there are, then each new one as it is written (here, a
// decision made after the follower printed the first), until Ctrl-C.
TEST_F(VerdictCliTest, LogQueryFollowStreamsNewRows) {
  const auto [id, token] = ReaderAgent("followed");
  ASSERT_EQ(Check({"--agent", id, "--action=read", "--resource=docs:before"}).exit_code, 0);
  RunningVerdict follower({"log", "query", "--follow", "--interval=100ms", "--agent", id, "-o",
                           "json", absl::StrCat("--admin_addr=", kAdminSocket)});
  const std::string first = follower.NextLine(absl::Seconds(30));
  absl::StatusOr<JsonValue> before = ParseJson(first);
  ASSERT_TRUE(before.ok()) << before.status() << ": \"" << first << "\"";
  EXPECT_EQ(Member(*before, "resource"), "docs:before");

  // Written after the follower printed what there was.
  ASSERT_EQ(Check({"--agent", id, "--action=write", "--resource=docs:after"}).exit_code, 2);
  const std::string second = follower.NextLine(absl::Seconds(30));
  absl::StatusOr<JsonValue> after = ParseJson(second);
  ASSERT_TRUE(after.ok()) << after.status() << ": \"" << second << "\"";
  EXPECT_EQ(Member(*after, "resource"), "docs:after");
  EXPECT_EQ(Member(*after, "verdict"), "DENY");
  EXPECT_GT(std::stoull(Member(*after, "seq")), std::stoull(Member(*before, "seq")));
  EXPECT_TRUE(follower.Interrupt());

  Outcome refused = Admin({"log", "query", "--follow", "--interval=10ms"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr("--interval: a duration from 100ms to 1m"));
}

TEST_F(VerdictCliTest, PolicyExportsAndRefusesImportIntoAFullStore) {
  ReaderAgent("exported");
  Outcome exported = Admin({"policy", "export", "--out=policy.json"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const std::string policy = ReadFile("policy.json");
  EXPECT_THAT(policy, HasSubstr("\"agents\""));
  EXPECT_THAT(policy, Not(HasSubstr("\"token\"")));
  Outcome into_full = Admin({"policy", "import", "--file=policy.json"});
  EXPECT_EQ(into_full.exit_code, 3);
  EXPECT_THAT(exported.err, Not(HasSubstr("JSON")));
  EXPECT_EQ(Admin({"policy", "import", "--file=missing.json"}).exit_code, 1);
}

// A policy travels whole in one admin message: one over gRPC's default 4 MiB imports and
// exports, and one over the 64 MiB a policy document may have is refused before it is sent.
TEST_F(VerdictCliTest, APolicyOverFourMebibytesImportsAndExports) {
  absl::StatusOr<std::unique_ptr<VerdictdProcess>> empty_store =
      VerdictdProcess::Start({"--db=big.db", "--admin_listen=unix:big-admin.sock",
                              "--admin_secret_file=admin-secret", "--test_only_weak_admin_hash"});
  ASSERT_TRUE(empty_store.ok()) << empty_store.status();
  std::string policy = R"({"version": 1, "agents": [)";
  const std::string long_name(250, 'n');
  for (int i = 0; i < 14000; ++i) {
    absl::StrAppend(&policy, i == 0 ? "" : ",", R"({"id": "agt_big)", i,
                    R"(", "owner": "o", "name": ")", long_name, R"(", "token_sha256": ")",
                    absl::StrFormat("%064x", i), R"("})");
  }
  policy += "]}";
  ASSERT_GT(policy.size(), size_t{5} << 20);
  std::ofstream("big-policy.json") << policy;

  Outcome imported = Verdict({"policy", "import", "--file=big-policy.json",
                              "--admin_addr=unix:big-admin.sock", "--timeout=60s"});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_THAT(imported.out, HasSubstr("imported 14000 agents"));
  Outcome exported = Verdict({"policy", "export", "--out=big-export.json",
                              "--admin_addr=unix:big-admin.sock", "--timeout=60s"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_GT(ReadFile("big-export.json").size(), size_t{4} << 20);

  std::ofstream("huge-policy.json") << std::string((64 << 20) + 1, ' ');
  Outcome huge =
      Verdict({"policy", "import", "--file=huge-policy.json", "--admin_addr=unix:big-admin.sock"});
  EXPECT_EQ(huge.exit_code, 1);
  EXPECT_THAT(huge.err, HasSubstr("64 MiB"));
  (*empty_store)->Signal(SIGTERM);
  EXPECT_TRUE((*empty_store)->AwaitExit(absl::Seconds(20)).ok());
}

TEST_F(VerdictCliTest, SigningKeysAndRevokedTokenIds) {
  const TestSigningKey key = TestSigningKey::NewEd25519("cli-ed");
  std::ofstream("cli-ed.json") << key.public_jwk_json;
  Outcome added = Admin({"keys", "add", "--jwk=cli-ed.json", "--alg=EdDSA", "--json"});
  ASSERT_EQ(added.exit_code, 0) << added.err;
  EXPECT_EQ(Member(ParseOutput(added), "kid"), "cli-ed");
  EXPECT_EQ(Member(ParseOutput(added), "status"), "ACTIVE");

  // A kid is taken once; a private key is refused.
  EXPECT_EQ(Admin({"keys", "add", "--jwk=cli-ed.json", "--alg=EdDSA"}).exit_code, 3);
  std::ofstream("cli-private.json") << TestSigningKey::NewEd25519("cli-private").private_jwk_json;
  Outcome refused = Admin({"keys", "add", "--jwk=cli-private.json", "--alg=EdDSA"});
  EXPECT_EQ(refused.exit_code, 3);
  EXPECT_THAT(refused.err, HasSubstr("public key only"));
  EXPECT_EQ(Admin({"keys", "add", "--jwk=missing.json", "--alg=EdDSA"}).exit_code, 1);

  std::ofstream("cli-ed-2.json") << TestSigningKey::NewEd25519("cli-ed").public_jwk_json;
  EXPECT_EQ(Admin({"keys", "rotate", "--jwk=cli-ed-2.json", "--alg=EdDSA"}).exit_code, 0);
  EXPECT_EQ(Admin({"keys", "retire", "--kid=cli-ed"}).exit_code, 0);
  Outcome listed = Admin({"keys", "list"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_THAT(listed.out, HasSubstr("\ncli-ed "));
  EXPECT_THAT(listed.out, HasSubstr(" RETIRED "));

  Outcome revoked =
      Admin({"tokens", "revoke-jti", "--jti=jti-cli", "--expires_at=2030-01-01T00:00:00Z"});
  EXPECT_EQ(revoked.exit_code, 0) << revoked.err;
  EXPECT_THAT(revoked.out, HasSubstr("revoked token id jti-cli"));
  EXPECT_EQ(Admin({"tokens", "revoke-jti", "--jti=jti-cli", "--expires_at=tomorrow"}).exit_code, 1);
}

TEST_F(VerdictCliTest, AuditQueryTracesARevokeToItsAuthorAndLogVerifyChecksTheAuditChain) {
  const auto [id, token] = ReaderAgent("audited");
  ASSERT_EQ(Admin({"agents", "revoke", "--id", id}).exit_code, 0);
  EXPECT_EQ(Admin({"agents", "revoke", "--id", "agt_missing"}).exit_code, 3);

  Outcome traced = Admin({"audit", "query", "--object", id, "--json"});
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  const JsonValue page = ParseOutput(traced);
  const JsonValue* entries = page.Find("entries");
  ASSERT_TRUE(entries != nullptr && entries->is_array()) << traced.out;
  std::vector<std::string> calls;
  for (const JsonValue& entry : entries->as_array()) {
    calls.push_back(absl::StrCat(Member(entry, "call"), " by ", Member(entry, "principal")));
  }
  EXPECT_THAT(calls, testing::Contains("RevokeAgent by admin"));
  EXPECT_EQ(calls.front(), "CreateAgent by admin");
  EXPECT_THAT(traced.out, Not(HasSubstr(token)));
  Outcome refused = Admin({"audit", "query", "--object", "agt_missing"});
  EXPECT_THAT(refused.out, HasSubstr("NOT_FOUND"));
  EXPECT_EQ(Admin({"audit", "query", "--since", "yesterday"}).exit_code, 1);

  Outcome intact = Admin({"log", "verify"});
  EXPECT_EQ(intact.exit_code, 0) << intact.err;
  EXPECT_THAT(intact.out, HasSubstr("admin audit log: intact: "));
  std::string author;
  {
    SQLite::Database db("e2e.db", SQLite::OPEN_READWRITE);
    author = db.execAndGet("SELECT principal FROM admin_audit_log WHERE seq = 2").getString();
    db.exec("UPDATE admin_audit_log SET principal = 'someone-else' WHERE seq = 2");
  }
  Outcome broken = Admin({"log", "verify"});
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_THAT(broken.out, HasSubstr("admin audit log: broken at seq 2"));
  // The row as it was: the chain is whole again, for the tests that share this store.
  {
    SQLite::Database db("e2e.db", SQLite::OPEN_READWRITE);
    SQLite::Statement restore(db, "UPDATE admin_audit_log SET principal = ? WHERE seq = 2");
    restore.bind(1, author);
    restore.exec();
  }
  EXPECT_EQ(Admin({"log", "verify"}).exit_code, 0);
}

// Policy as code (issue 19): apply and diff a YAML file against the running server, and see the
// next decision follow it.
TEST_F(VerdictCliTest, PolicyApplyPrintsThePlanAndTheNextDecisionFollowsTheFile) {
  constexpr char kPolicy[] = R"(version: 1
name: e2e-apply
agents:
  - {id: agt_pac_reader, owner: alice, name: reader}
permissions:
  - {id: perm_pac_read, agent_id: agt_pac_reader, resource: "wiki:*", actions: [read]}
)";
  std::ofstream("policy.yaml") << kPolicy;
  Outcome diff = Admin({"policy", "diff", "--file=policy.yaml"});
  ASSERT_EQ(diff.exit_code, 0) << diff.err;
  EXPECT_EQ(diff.out, "+ create agent agt_pac_reader\n+ create permission perm_pac_read\n");
  // As every command's, the answer prints as YAML or JSON when asked (cli/output.h).
  EXPECT_THAT(Admin({"policy", "diff", "--file=policy.yaml", "--output=yaml"}).out,
              HasSubstr("plan_text: "));
  EXPECT_EQ(Check({"--agent=agt_pac_reader", "--action=read", "--resource=wiki:1"}).exit_code, 2);

  Outcome applied = Admin({"policy", "apply", "--file=policy.yaml"});
  ASSERT_EQ(applied.exit_code, 0) << applied.err;
  EXPECT_THAT(applied.out, StartsWith("+ create agent agt_pac_reader\n"));
  EXPECT_THAT(applied.out, HasSubstr("applied policy \"e2e-apply\""));
  EXPECT_EQ(Check({"--agent=agt_pac_reader", "--action=read", "--resource=wiki:1"}).exit_code, 0);
  EXPECT_EQ(Admin({"policy", "apply", "--file=policy.yaml"}).out, "no changes\n");

  std::ofstream("policy.yaml") << absl::StrReplaceAll(kPolicy, {{"[read]", "[write]"}});
  // The issue's spelling `--dry-run`, absl's `--dry_run`: one flag, the plan and no write.
  Outcome planned = Admin({"policy", "apply", "--file=policy.yaml", "--dry-run"});
  EXPECT_EQ(planned.out, "~ change permission perm_pac_read: actions [read] -> [write]\n");
  planned = Verdict({"policy", "apply", "--dry_run", "--file", "policy.yaml",
                     absl::StrCat("--admin-addr=", kAdminSocket)});
  EXPECT_EQ(planned.out, "~ change permission perm_pac_read: actions [read] -> [write]\n");
  EXPECT_EQ(Check({"--agent=agt_pac_reader", "--action=read", "--resource=wiki:1"}).exit_code, 0);
  EXPECT_EQ(Admin({"policy", "apply", "--file=policy.yaml"}).exit_code, 0);
  EXPECT_EQ(Check({"--agent=agt_pac_reader", "--action=read", "--resource=wiki:1"}).exit_code, 2);

  // Refused, naming the file, line and field; the store keeps what it had.
  std::ofstream("policy.yaml") << absl::StrReplaceAll(kPolicy, {{"owner: alice", "owner: 7"}});
  Outcome refused = Admin({"policy", "apply", "--file=policy.yaml"});
  EXPECT_EQ(refused.exit_code, 3) << refused.out;  // refused by the server
  EXPECT_THAT(refused.err, HasSubstr("policy.yaml:4: agents[0].owner: must be a string"));
  std::ofstream("policy.yaml") << absl::StrReplaceAll(kPolicy, {{"[read]", "[]"}});
  refused = Admin({"policy", "apply", "--file=policy.yaml"});
  EXPECT_THAT(refused.err, HasSubstr("policy.yaml:6: permissions[0].actions"));
  EXPECT_EQ(Admin({"policy", "diff", "--file=policy.yaml"}).exit_code, refused.exit_code);
  EXPECT_EQ(Check({"--agent=agt_pac_reader", "--action=write", "--resource=wiki:1"}).exit_code, 0);
}

// The decision log names who let a gated call through: the principals who approved the
// request it used, in every output format, covered by the chain.
TEST_F(VerdictCliTest, TheLogNamesThePrincipalsWhoApprovedACallItAllowed) {
  const std::string id = CreateAgentId("gated");
  ASSERT_EQ(Admin({"permissions", "grant", "--agent", id, "--resource=svc:*", "--actions=deploy",
                   R"(--constraints={"approval":{"quorum":2}})"})
                .exit_code,
            0);
  Outcome gated = Check({"--agent", id, "--action=deploy", "--resource=svc:api", "--json"});
  const std::string approval = Member(ParseOutput(gated), "approval_request_id");
  ASSERT_THAT(approval, StartsWith("apr_"));
  for (const char* approver : {"walt", "vera"}) {
    CreatePrincipal(approver, "approver");
    ASSERT_EQ(As(approver, {"approvals", "approve", "--id", approval}).exit_code, 0);
  }
  ASSERT_EQ(Check({"--agent", id, "--action=deploy", "--resource=svc:api"}).exit_code, 0);

  // The log is written off the decision path: wait for the writer to catch up.
  JsonValue allowed;
  Outcome query;
  for (absl::Time deadline = absl::Now() + absl::Seconds(10); absl::Now() < deadline;) {
    query = Admin({"log", "query", "--agent", id, "--verdict=allow", "--json"});
    ASSERT_EQ(query.exit_code, 0) << query.err;
    const JsonValue page = ParseOutput(query);
    const JsonValue* entries = page.Find("entries");
    if (entries != nullptr && entries->is_array() && !entries->as_array().empty()) {
      allowed = entries->as_array()[0];
      break;
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
  ASSERT_TRUE(allowed.is_object()) << "no ALLOW in the log: " << query.out << query.err
                                   << Admin({"log", "query", "--agent", id, "--json"}).out;
  ASSERT_NE(allowed.Find("approved_by"), nullptr) << "the ALLOW names no approver";
  ASSERT_TRUE(allowed.Find("approved_by")->is_array());
  const JsonValue::Array& approvers = allowed.Find("approved_by")->as_array();
  ASSERT_EQ(approvers.size(), 2u);
  EXPECT_EQ(approvers[0].as_string(), "vera");
  EXPECT_EQ(approvers[1].as_string(), "walt");
  EXPECT_EQ(Member(allowed, "approval_request_id"), approval);

  Outcome table = Admin({"log", "query", "--agent", id, "--verdict=allow"});
  EXPECT_THAT(table.out, HasSubstr("APPROVED_BY"));
  EXPECT_THAT(table.out, HasSubstr("vera, walt"));
  Outcome yaml = Admin({"log", "query", "--agent", id, "--verdict=allow", "-o", "yaml"});
  EXPECT_THAT(yaml.out, HasSubstr("approved_by:\n      - vera\n      - walt"));
  // The gated call that opened the request names nobody.
  Outcome gated_row = Admin({"log", "query", "--agent", id, "--verdict=needs_approval", "--json"});
  EXPECT_THAT(gated_row.out, HasSubstr(R"("approved_by":[])"));

  Outcome intact = Admin({"log", "verify"});
  EXPECT_EQ(intact.exit_code, 0) << intact.out << intact.err;
  {
    SQLite::Database db("e2e.db", SQLite::OPEN_READWRITE);
    db.exec(absl::StrCat(R"(UPDATE decision_log SET approved_by = '["vera"]' WHERE seq = )",
                         Member(allowed, "seq")));
  }
  Outcome broken = Admin({"log", "verify"});
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_THAT(broken.out, HasSubstr(absl::StrCat("broken at seq ", Member(allowed, "seq"))));
  {
    SQLite::Database db("e2e.db", SQLite::OPEN_READWRITE);
    db.exec(absl::StrCat(R"(UPDATE decision_log SET approved_by = '["vera","walt"]' WHERE seq = )",
                         Member(allowed, "seq")));
  }
  EXPECT_EQ(Admin({"log", "verify"}).exit_code, 0);
}

}  // namespace
}  // namespace verdict
