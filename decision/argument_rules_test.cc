#include "decision/argument_rules.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "common/json.h"
#include "decision/constraint_redaction.h"
#include "decision/constraints.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

JsonValue Json(absl::string_view text) {
  absl::StatusOr<JsonValue> value = ParseJson(text);
  EXPECT_TRUE(value.ok()) << text << ": " << value.status();
  return value.ok() ? *value : JsonValue();
}

std::vector<ArgumentRule> Rules(absl::string_view arguments_json) {
  absl::StatusOr<Constraints> constraints =
      ParseConstraints(absl::StrCat("{\"arguments\": ", arguments_json, "}"));
  EXPECT_TRUE(constraints.ok()) << constraints.status();
  return constraints.ok() ? constraints->arguments : std::vector<ArgumentRule>{};
}

struct ArgumentsCase {
  const char* arguments;
  const char* why;  // "" when the arguments pass
};

void ExpectArguments(const std::vector<ArgumentRule>& rules,
                     const std::vector<ArgumentsCase>& cases) {
  for (const ArgumentsCase& c : cases) {
    std::string why = "unchanged";
    const bool passed = ArgumentsPass(rules, Json(c.arguments), &why);
    EXPECT_EQ(passed, std::string(c.why).empty()) << c.arguments;
    if (!passed) {
      EXPECT_EQ(why, c.why) << c.arguments;
    }
  }
}

TEST(ArgumentsPass, EveryRuleMustPassAndTheFirstFailureIsNamed) {
  const std::vector<ArgumentRule> rules = Rules(R"([
      {"path": "amount", "max": 100},
      {"path": "to", "glob": "*@example.com"},
      {"path": "env", "one_of": ["dev", "staging"]},
      {"path": "options.mode", "equals": "dry-run"}])");
  ExpectArguments(
      rules,
      {
          {R"({"amount": 50, "to": "a@example.com", "env": "dev", "options": {"mode": "dry-run"}})",
           ""},
          {R"({"amount": 100, "to": "@example.com", "env": "staging", "options": {"mode": "dry-run"},
               "extra": true})",
           ""},
          {R"({"amount": 101, "to": "a@example.com", "env": "dev", "options": {"mode": "dry-run"}})",
           "argument \"amount\" must be at most 100"},
          {R"({"amount": 1, "to": "a@evil.com", "env": "dev", "options": {"mode": "dry-run"}})",
           "argument \"to\" does not match \"*@example.com\""},
          {R"({"amount": 1, "to": "a@example.com", "env": "prod", "options": {"mode": "dry-run"}})",
           "argument \"env\" must be one of [\"dev\",\"staging\"]"},
          {R"({"amount": 1, "to": "a@example.com", "env": "dev", "options": {"mode": "live"}})",
           "argument \"options.mode\" must equal \"dry-run\""},
          {R"({"amount": 1, "to": "a@example.com", "env": "dev", "options": {}})",
           "argument \"options.mode\" is missing"},
          {R"({"amount": 1, "to": "a@example.com", "env": "dev", "options": "dry-run"})",
           "argument \"options.mode\" is missing"},
          {R"({"to": "a@example.com", "env": "dev", "options": {"mode": "dry-run"}})",
           "argument \"amount\" is missing"},
          {R"({})", "argument \"amount\" is missing"},
      });
}

// The rule's operand would tell the caller the secret it guards (review h41).
TEST(ArgumentsPass, ARuleOnASecretNamedArgumentNeverShowsItsOperand) {
  ExpectArguments(
      Rules(R"([{"path": "api_key", "equals": "EXPECTED-Secret-Value-7781"},
                {"path": "auth.password", "one_of": ["p1", "p2"]}])"),
      {
          {R"({"api_key": "EXPECTED-Secret-Value-7781", "auth": {"password": "p1"}})", ""},
          {R"({"api_key": "wrong-guess", "auth": {"password": "p1"}})",
           "argument \"api_key\" must equal a value not shown (it guards a secret)"},
          {R"({"api_key": "EXPECTED-Secret-Value-7781", "auth": {"password": "p3"}})",
           "argument \"auth.password\" must be one of a value not shown (it guards a secret)"},
      });
}

// An operand that is itself a credential is never shown either, whatever the argument's name (h42).
TEST(ArgumentsPass, ARuleWhoseOperandIsACredentialNeverShowsIt) {
  ExpectArguments(
      Rules(R"([{"path": "dsn", "equals": "postgres://app:Pw0rdXyz@db/x"}])"),
      {
          {R"({"dsn": "x"})", "argument \"dsn\" must equal a value not shown (it guards a secret)"},
      });
}

// What a caller sees of a grant's constraints: every rule, but no secret it compares against.
TEST(ConstraintsForCaller, HidesTheOperandsOfRulesThatGuardASecret) {
  EXPECT_EQ(
      ConstraintsForCaller(
          R"({"arguments":[{"path":"api_key","equals":"sk-live-SECRET123"},)"
          R"({"path":"dsn","one_of":["postgres://app:pw@db/x","sqlite"]},)"
          R"({"path":"amount","max":100}],"rate_limit":{"max_calls":5,"window_seconds":60}})"),
      R"({"arguments":[{"equals":"[REDACTED]","path":"api_key"},)"
      R"({"one_of":"[REDACTED]","path":"dsn"},{"max":100,"path":"amount"}],)"
      R"("rate_limit":{"max_calls":5,"window_seconds":60}})");
  EXPECT_EQ(ConstraintsForCaller(""), "");
  EXPECT_EQ(ConstraintsForCaller("{}"), "{}");
}

TEST(ArgumentsPass, TypesAreCheckedNotCoerced) {
  ExpectArguments(Rules(R"([{"path": "n", "min": 1, "max": 10}])"),
                  {
                      {R"({"n": 1})", ""},
                      {R"({"n": 10})", ""},
                      {R"({"n": 5.5})", ""},
                      {R"({"n": 0.99})", "argument \"n\" must be at least 1"},
                      {R"({"n": 10.01})", "argument \"n\" must be at most 10"},
                      {R"({"n": "5"})", "argument \"n\" must be a number"},
                      {R"({"n": null})", "argument \"n\" must be a number"},
                  });
  ExpectArguments(Rules(R"([{"path": "s", "glob": "*"}])"),
                  {
                      {R"({"s": ""})", ""},
                      {R"({"s": 5})", "argument \"s\" must be a string matching \"*\""},
                      {R"({"s": ["x"]})", "argument \"s\" must be a string matching \"*\""},
                  });
  ExpectArguments(Rules(R"([{"path": "v", "equals": 1}])"),
                  {
                      {R"({"v": 1})", ""},
                      {R"({"v": 1.0})", ""},
                      {R"({"v": "1"})", "argument \"v\" must equal 1"},
                      {R"({"v": true})", "argument \"v\" must equal 1"},
                  });
}

TEST(ArgumentsPass, EqualsAndOneOfCompareWholeJsonValues) {
  ExpectArguments(
      Rules(R"([{"path": "tags", "equals": ["a", {"b": null}]}])"),
      {
          {R"({"tags": ["a", {"b": null}]})", ""},
          {R"({"tags": [{"b": null}, "a"]})", "argument \"tags\" must equal [\"a\",{\"b\":null}]"},
      });
  ExpectArguments(Rules(R"([{"path": "p", "one_of": [1, "one", {"n": 1}, null]}])"),
                  {
                      {R"({"p": 1})", ""},
                      {R"({"p": "one"})", ""},
                      {R"({"p": {"n": 1}})", ""},
                      {R"({"p": null})", ""},
                      {R"({"p": 2})", "argument \"p\" must be one of [1,\"one\",{\"n\":1},null]"},
                  });
}

TEST(ArgumentsPass, GlobStarMatchesAnyRunAndQuestionMarkOneCharacter) {
  const struct {
    const char* glob;
    const char* value;
    bool matches;
  } kCases[] = {
      {"*@example.com", "ops@example.com", true},
      {"*@example.com", "ops@example.com.evil", false},
      {"report-????.pdf", "report-2024.pdf", true},
      {"report-????.pdf", "report-24.pdf", false},
      {"caf?", "caf\xc3\xa9", true},  // '?' is one character, even a two-byte one
      {"caf??", "caf\xc3\xa9", false},
      {"a*b*c", "a-b-b-c", true},
      {"", "", true},
      {"", "x", false},
      {"Prod", "prod", false},
  };
  for (const auto& c : kCases) {
    const std::vector<ArgumentRule> rules = {
        ArgumentRule{"s", ArgumentRule::Kind::kGlob, JsonValue::String(c.glob)}};
    JsonValue::Object arguments;
    arguments["s"] = JsonValue::String(c.value);
    EXPECT_EQ(ArgumentsPass(rules, JsonValue::MakeObject(arguments), nullptr), c.matches)
        << c.glob << " vs " << c.value;
  }
}

// What the README says '*' matches, exactly: every character, list separators and '@' included.
// That is why a glob cannot pin an address to a domain (issue 15), and email_domain exists.
TEST(ArgumentsPass, GlobStarMatchesEveryCharacterSoItCannotPinADomain) {
  ExpectArguments(Rules(R"([{"path": "to", "glob": "*@example.com"}])"),
                  {
                      {R"({"to": "evil@evil.net,bob@example.com"})", ""},
                      {R"({"to": "evil@evil.net bob@example.com"})", ""},
                      {R"({"to": "Evil <evil@evil.net>;@example.com"})", ""},
                  });
}

TEST(ArgumentsPass, EmailDomainAllowsOneAddressAtExactlyThatDomain) {
  ExpectArguments(Rules(R"([{"path": "to", "email_domain": "example.com"}])"),
                  {
                      {R"({"to": "bob@example.com"})", ""},
                      {R"({"to": "Bob.Smith+news_2@EXAMPLE.com"})", ""},
                      {R"({"to": "a-b@Example.Com"})", ""},
                      // Another address, or more than one, however written.
                      {R"({"to": "evil@evil.net,bob@example.com"})",
                       "argument \"to\" must be one e-mail address at \"example.com\""},
                      {R"({"to": "evil@evil.net bob@example.com"})",
                       "argument \"to\" must be one e-mail address at \"example.com\""},
                      {R"({"to": "evil@evil.net;bob@example.com"})",
                       "argument \"to\" must be one e-mail address at \"example.com\""},
                      {R"({"to": "evil@evil.net@example.com"})",
                       "argument \"to\" must be one e-mail address at \"example.com\""},
                      {R"({"to": "bob%evil.net@example.com"})",
                       "argument \"to\" must be one e-mail address at \"example.com\""},
                      {R"({"to": "\"evil@evil.net\"@example.com"})",
                       "argument \"to\" must be one e-mail address at \"example.com\""},
                      {R"({"to": "Bob <bob@example.com>"})",
                       "argument \"to\" must be one e-mail address at \"example.com\""},
                      {R"({"to": "bob@example.com.evil.net"})",
                       "argument \"to\" must be one e-mail address at \"example.com\""},
                      {R"({"to": "bob@mail.example.com"})",
                       "argument \"to\" must be one e-mail address at \"example.com\""},
                      {R"({"to": "bob@example.com "})",
                       "argument \"to\" must be one e-mail address at \"example.com\""},
                      {R"({"to": "@example.com"})",
                       "argument \"to\" must be one e-mail address at \"example.com\""},
                      {R"({"to": ".bob@example.com"})",
                       "argument \"to\" must be one e-mail address at \"example.com\""},
                      {R"({"to": "b..ob@example.com"})",
                       "argument \"to\" must be one e-mail address at \"example.com\""},
                      {R"({"to": "example.com"})",
                       "argument \"to\" must be one e-mail address at \"example.com\""},
                      {R"({"to": ["bob@example.com"]})",
                       "argument \"to\" must be one e-mail address at \"example.com\""},
                      {R"({})", "argument \"to\" is missing"},
                  });
}

TEST(ArgumentsPass, GlobOnALongValueFinishesFast) {
  const std::vector<ArgumentRule> rules = {ArgumentRule{
      "s", ArgumentRule::Kind::kGlob, JsonValue::String("*a*a*a*a*a*a*a*a*a*a*a*a*b")}};
  JsonValue::Object arguments;
  arguments["s"] = JsonValue::String(std::string(64 * 1024, 'a'));
  const absl::Time start = absl::Now();
  EXPECT_FALSE(ArgumentsPass(rules, JsonValue::MakeObject(arguments), nullptr));
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
}

TEST(ArgumentsPass, NoRulesPassAnything) {
  std::string why;
  EXPECT_TRUE(ArgumentsPass({}, JsonValue(), &why));
  EXPECT_TRUE(why.empty());
}

}  // namespace
}  // namespace verdict
