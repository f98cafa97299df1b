#include "common/redaction.h"

#include <string>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

struct RedactionCase {
  std::string name;
  std::string arguments;
  std::string logged;
};

class RedactSecretsTest : public testing::TestWithParam<RedactionCase> {};

TEST_P(RedactSecretsTest, LogsOnlyWhatIsNotSecret) {
  EXPECT_EQ(RedactSecrets(GetParam().arguments), GetParam().logged);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, RedactSecretsTest,
    testing::Values(
        RedactionCase{"NothingSecret", R"({"b":1,"a":"x"})", R"({"a":"x","b":1})"},
        RedactionCase{"EmptyIsAnEmptyObject", "", "{}"},
        RedactionCase{"TopLevelToken", R"({"token":"vdt_abc","user":"ann"})",
                      R"({"token":"[REDACTED]","user":"ann"})"},
        RedactionCase{"KeyCaseIgnored", R"({"PassWord":"hunter2"})",
                      R"({"PassWord":"[REDACTED]"})"},
        RedactionCase{
            "SeparatorsIgnored", R"({"x-api-key":"k","api_key":"k","private.key":"k"})",
            R"({"api_key":"[REDACTED]","private.key":"[REDACTED]","x-api-key":"[REDACTED]"})"},
        RedactionCase{
            "MarkerInsideALongerKey",
            R"({"access_token":"a","client_secret":"b","Set-Cookie":"c"})",
            R"({"Set-Cookie":"[REDACTED]","access_token":"[REDACTED]","client_secret":"[REDACTED]"})"},
        RedactionCase{"NestedObjects",
                      R"({"http":{"headers":{"Authorization":"Bearer x","Accept":"*/*"}}})",
                      R"({"http":{"headers":{"Accept":"*/*","Authorization":"[REDACTED]"}}})"},
        RedactionCase{"InsideArrays", R"({"calls":[{"password":"p","n":1},{"n":2}]})",
                      R"({"calls":[{"n":1,"password":"[REDACTED]"},{"n":2}]})"},
        RedactionCase{
            "WholeValueOfAnyType",
            R"({"credentials":{"user":"u","pin":1234},"secrets":["a","b"],"token":7})",
            R"({"credentials":"[REDACTED]","secrets":"[REDACTED]","token":"[REDACTED]"})"},
        RedactionCase{"UnparseableIsRedactedWhole", R"({"password": "p")", R"("[REDACTED]")"},
        RedactionCase{"SecretLookingValuesUnderPlainKeysStay", R"({"note":"my password is p"})",
                      R"({"note":"my password is p"})"},
        // Credentials of a known shape, under any key.
        RedactionCase{
            "AuthorizationSchemes",
            R"({"auth":"Bearer vdt_x","h":[["Authorization","DPoP Zm9vYmFyMTIz"]],"b":"basic dXNlcg=="})",
            R"({"auth":"[REDACTED]","b":"[REDACTED]","h":[["Authorization","[REDACTED]"]]})"},
        RedactionCase{"CompactJwsAnywhere",
                      R"({"id":"x eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhIn0.c2ln y"})",
                      R"({"id":"[REDACTED]"})"},
        RedactionCase{"AgentToken", R"({"cfg":{"t":"vdt_AAAAAAAAAAAA"}})",
                      R"({"cfg":{"t":"[REDACTED]"}})"},
        RedactionCase{"AdminSessionToken", R"({"cfg":{"t":"vas_AAAAAAAAAAAA"}})",
                      R"({"cfg":{"t":"[REDACTED]"}})"},
        RedactionCase{"TokenInAQueryString",
                      R"({"url":"https://x.example/cb?code=1&access_token=abc"})",
                      R"({"url":"[REDACTED]"})"},
        RedactionCase{
            "ValueNamedBySibling",
            R"({"env":[{"name":"DB_PASSWORD","value":"hunter2"},{"name":"HOME","value":"/h"}]})",
            R"({"env":[{"name":"DB_PASSWORD","value":"[REDACTED]"},{"name":"HOME","value":"/h"}]})"},
        RedactionCase{"DottedTextIsNoJws", R"({"v":"eyJ.but not a token","w":"1.2.3"})",
                      R"({"v":"eyJ.but not a token","w":"1.2.3"})"},
        RedactionCase{
            "SchemeWordsInProseStay",
            R"({"q":"basic income","p":"Basic tier","n":"the bearer of bad news","d":"dpop hmm"})",
            R"({"d":"dpop hmm","n":"the bearer of bad news","p":"Basic tier","q":"basic income"})"},
        RedactionCase{"SchemeWithACredential", R"({"h":"x Bearer abc123def456 y"})",
                      R"({"h":"[REDACTED]"})"},
        // Shapes review h41 found logged in clear.
        RedactionCase{"SchemeAfterATabOrSpaces",
                      R"({"a":"Bearer\tTABSEP-1a2b3c4d","b":"Bearer  TWOSP-1a2b3c4d"})",
                      R"({"a":"[REDACTED]","b":"[REDACTED]"})"},
        RedactionCase{
            "AnyCredentialParameterInAQueryString",
            R"({"a":"https://h/x?token=QS1","b":"/p?apikey=K&x=1","c":"/s3?X-Amz-Signature=ab","d":"/cb?code=xyz","e":"/p?sig=9"})",
            R"({"a":"[REDACTED]","b":"[REDACTED]","c":"[REDACTED]","d":"[REDACTED]","e":"[REDACTED]"})"},
        RedactionCase{"PasswordInAUrl",
                      R"({"dsn":"postgres://user:DBPASS-1a2b@db/x","u":"https://u:p@h/"})",
                      R"({"dsn":"[REDACTED]","u":"[REDACTED]"})"},
        // A key is written as it is, so a credential sent as a key is no key at all (issue 15).
        RedactionCase{
            "CredentialsAsKeys",
            R"({"vdt_M5hwIYE5vAXm0pPRBRsyIvcyYmg_pnll04u8cx7plPM":1,"n":{"eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhIn0.c2ln":[2]},"Bearer abc123def456":3,"ok":4})",
            R"({"[REDACTED]":"[REDACTED]","n":{"[REDACTED]":"[REDACTED]"},"ok":4})"},
        RedactionCase{
            "UrlsWithoutCredentialsStay",
            R"({"u":"https://ann@example.com/docs?page=2","m":"mailto:ann@example.com"})",
            R"({"m":"mailto:ann@example.com","u":"https://ann@example.com/docs?page=2"})"}),
    [](const testing::TestParamInfo<RedactionCase>& info) { return info.param.name; });

TEST(IsSecretKeyTest, RecognisesSecretBearingNames) {
  for (const char* key : {"token",      "TOKEN",         "refresh_token",
                          "secret",     "password",      "passwd",
                          "passphrase", "authorization", "Proxy-Authorization",
                          "cookie",     "apiKey",        "private_key",
                          "credential", "session_id",    "id_jwt",
                          "db_pwd",     "bearer",        "access_key",
                          "signature",  "passcode"}) {
    EXPECT_TRUE(IsSecretKey(key)) << key;
  }
  for (const char* key : {"user", "resource", "author", "amount", "path", "session"}) {
    EXPECT_FALSE(IsSecretKey(key)) << key;
  }
}

TEST(RedactTokensTest, ReplacesEveryTokenShapedRunAndKeepsTheRest) {
  const std::string agent_token = "vdt_M5hwIYE5vAXm0pPRBRsyIvcyYmg_pnll04u8cx7plPM";
  const std::string jwt = "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhIn0.c2ln";
  EXPECT_EQ(RedactTokens("docs:" + agent_token + ":1"), "docs:[REDACTED]:1");
  EXPECT_EQ(RedactTokens("/verify/" + jwt + "/done"), "/verify/[REDACTED]/done");
  EXPECT_EQ(RedactTokens("a " + agent_token + " b " + jwt), "a [REDACTED] b [REDACTED]");
  // Part of a token is a secret too, beyond what its display prefix shows; case is no disguise.
  EXPECT_EQ(RedactTokens("x:" + agent_token.substr(0, 20)), "x:[REDACTED]");
  EXPECT_EQ(RedactTokens("x:VDT_" + agent_token.substr(4)), "x:[REDACTED]");
  // A JWS with its signature cut off still carries its claims.
  EXPECT_EQ(RedactTokens("eyJhbGciOiJub25lIn0.eyJzdWIiOiJhIn0."), "[REDACTED]");
}

// RedactTokens runs on every argument key of every request (decision/request_validation.cc),
// which may be 64 KiB: near-misses of both markers must not cost a scan of the rest each. Took
// seconds for 128 KiB before (each "eyJ" rescanned its run, each candidate rescanned the text).
TEST(RedactTokensTest, NearMissesCostLinearTime) {
  for (const std::string unit : {"eyJ", "e_!eyJ!", "vdt_!e", "eyJ.", "vdt_abcdefghij!"}) {
    std::string text;
    while (text.size() < (128 << 10)) text += unit;
    const absl::Time start = absl::Now();
    const std::string redacted = RedactTokens(text);
    EXPECT_LT(absl::Now() - start, absl::Milliseconds(500)) << unit;
  }
  // Near-misses left as they are, and the tokens among them still found.
  EXPECT_EQ(RedactTokens("eyJeyJ.eyJ"), "eyJeyJ.eyJ");
  EXPECT_EQ(RedactTokens("eyJeyJ.eyJ.x"), "[REDACTED]");
  EXPECT_EQ(RedactTokens("vdt_!vdt_abcdefgh!eyJ"), "vdt_!vdt_abcdefgh!eyJ");
  EXPECT_EQ(RedactTokens("vdt_!vdt_abcdefghi!eyJ"), "vdt_![REDACTED]!eyJ");
  EXPECT_EQ(RedactTokens("eyJa vdt_abcdefghij.eyJ"), "eyJa [REDACTED].eyJ");
  EXPECT_EQ(RedactTokens("xeyJ.eyJvdt_abcdefghijk.z!"), "x[REDACTED]!");
}

TEST(RedactTokensTest, LeavesTextWithoutTokensAsItIs) {
  for (const char* text : {"docs:guide:1", "/api/v1/items/7", "read", "req-42", "",
                           "vdt_AbCdEfGh",  // a display prefix, meant to be shown
                           "agt_vdt_bot", "eyJ.but not a token", "under_score"}) {
    EXPECT_EQ(RedactTokens(text), text);
  }
}

TEST(RedactOccurrencesTest, RemovesEveryCopyOfTheSecret) {
  EXPECT_EQ(RedactOccurrences("token vdt_x and vdt_x again", "vdt_x"),
            "token [REDACTED] and [REDACTED] again");
  EXPECT_EQ(RedactOccurrences("nothing to hide", ""), "nothing to hide");
}

}  // namespace
}  // namespace verdict
