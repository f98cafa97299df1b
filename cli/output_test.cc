// What `verdict` prints, in each format: the same values, times in RFC 3339, enum values by
// their short upper-case names, and documents that their own parsers read back.
#include "cli/output.h"

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "verdict/v1/admin.pb.h"

namespace verdict {
namespace cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

v1::Agent AnAgent() {
  v1::Agent agent;
  agent.set_id("agt_1");
  agent.set_owner("alice");
  agent.set_name("true");  // a name a YAML reader would take for a bool, unquoted
  agent.set_kind(v1::AGENT_KIND_SERVICE);
  agent.set_status(v1::AGENT_STATUS_SUSPENDED);
  agent.mutable_created_at()->set_seconds(1893456000);  // 2030-01-01T00:00:00Z
  agent.set_description("two\nlines");
  agent.mutable_details()->set_contact("ops@example.com");
  return agent;
}

TEST(OutputTest, FormatsAreNamedTableJsonAndYaml) {
  OutputFormat format;
  ASSERT_TRUE(ParseOutputFormat("yaml", &format));
  EXPECT_EQ(format, OutputFormat::kYaml);
  ASSERT_TRUE(ParseOutputFormat("table", &format));
  EXPECT_EQ(format, OutputFormat::kTable);
  ASSERT_TRUE(ParseOutputFormat("json", &format));
  EXPECT_EQ(format, OutputFormat::kJson);
  EXPECT_FALSE(ParseOutputFormat("xml", &format));
  EXPECT_FALSE(ParseOutputFormat("JSON", &format));
}

TEST(OutputTest, JsonHoldsEveryFieldWithShortEnumNamesAndRfc3339Times) {
  const std::string json = Render(OutputOf(AnAgent()), OutputFormat::kJson);
  ASSERT_THAT(json, Not(HasSubstr("\n ")));  // one line per document
  absl::StatusOr<JsonValue> parsed = ParseJson(json);
  ASSERT_TRUE(parsed.ok()) << parsed.status() << json;
  EXPECT_EQ(parsed->Find("status")->as_string(), "SUSPENDED");
  EXPECT_EQ(parsed->Find("kind")->as_string(), "SERVICE");
  EXPECT_EQ(parsed->Find("created_at")->as_string(), "2030-01-01T00:00:00Z");
  EXPECT_EQ(parsed->Find("name")->as_string(), "true");
  EXPECT_EQ(parsed->Find("description")->as_string(), "two\nlines");
  EXPECT_EQ(parsed->Find("details")->Find("contact")->as_string(), "ops@example.com");
  EXPECT_EQ(parsed->Find("token_prefix")->as_string(), "");  // empty scalars are kept
  EXPECT_EQ(parsed->Find("expires_at"), nullptr);            // unset messages are not
}

TEST(OutputTest, SixtyFourBitIntegersAreTextAndDurationsSeconds) {
  v1::DecisionLogEntry entry;
  entry.set_seq(9007199254740993u);  // 2^53 + 1: no double holds it
  entry.set_verdict(v1::VERDICT_NEEDS_APPROVAL);
  entry.mutable_latency()->set_nanos(1500000);
  absl::StatusOr<JsonValue> parsed = ParseJson(Render(OutputOf(entry), OutputFormat::kJson));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->Find("seq")->as_string(), "9007199254740993");
  EXPECT_EQ(parsed->Find("verdict")->as_string(), "NEEDS_APPROVAL");
  EXPECT_EQ(parsed->Find("latency")->as_string(), "0.001500s");
  EXPECT_TRUE(parsed->Find("delegation_path")->as_array().empty());
}

TEST(OutputTest, YamlReadsBackAsTheSameValuesWithYamlCpp) {
  const std::string yaml = Render(OutputOf(AnAgent()), OutputFormat::kYaml);
  YAML::Node node = YAML::Load(yaml);
  ASSERT_TRUE(node.IsMap()) << yaml;
  EXPECT_EQ(node["id"].as<std::string>(), "agt_1");
  EXPECT_EQ(node["status"].as<std::string>(), "SUSPENDED");
  EXPECT_EQ(node["created_at"].as<std::string>(), "2030-01-01T00:00:00Z");
  EXPECT_EQ(node["details"]["contact"].as<std::string>(), "ops@example.com");
  EXPECT_EQ(node["description"].as<std::string>(), "two\nlines");
  // Quoted, so a reader that resolves plain scalars sees the string "true", not a bool.
  EXPECT_EQ(node["name"].Tag(), "!");
  EXPECT_EQ(node["token_prefix"].as<std::string>(), "");
}

TEST(OutputTest, ARecordAsATableIsOneFieldPerLineWithNestedFieldsNamedByTheirPath) {
  const std::string table = Render(OutputOf(AnAgent()), OutputFormat::kTable);
  EXPECT_THAT(table, StartsWith("id:              agt_1\n"));
  EXPECT_THAT(table, HasSubstr("\nstatus:          SUSPENDED\n"));
  EXPECT_THAT(table, HasSubstr("\ncreated_at:      2030-01-01T00:00:00Z\n"));
  EXPECT_THAT(table, HasSubstr("\ndetails.contact: ops@example.com\n"));
  EXPECT_THAT(table, HasSubstr("\ndescription:     two\\nlines\n"));  // one line per field
}

TEST(OutputTest, RecordsAsATableHaveAHeaderAndAlignedColumns) {
  v1::Agent second = AnAgent();
  second.set_id("agt_22");
  second.set_status(v1::AGENT_STATUS_ACTIVE);
  const std::string table = RenderTable({OutputOf(AnAgent()), OutputOf(second)});
  const std::vector<std::string> lines = absl::StrSplit(table, '\n');
  ASSERT_EQ(lines.size(), 4u) << table;  // header, two rows, and the final newline
  EXPECT_THAT(lines[0], StartsWith("ID      OWNER  NAME  KIND     STATUS     "));
  EXPECT_THAT(lines[1], StartsWith("agt_1   alice  true  SERVICE  SUSPENDED  "));
  EXPECT_THAT(lines[2], StartsWith("agt_22  alice  true  SERVICE  ACTIVE     "));
  EXPECT_THAT(lines[0], HasSubstr("CREATED_AT"));
  EXPECT_THAT(lines[1], HasSubstr("2030-01-01T00:00:00Z"));
  EXPECT_THAT(lines[0], HasSubstr("DETAILS.CONTACT"));
  EXPECT_EQ(RenderTable({}), "");
}

TEST(OutputTest, ListsInACellAreJoinedOrWrittenAsJson) {
  OutputValue row = OutputValue::Record();
  row.Add("actions", OutputValue::List({OutputValue::Text("read"), OutputValue::Text("write")}));
  OutputValue hop = OutputValue::Record();
  hop.Add("delegation_id", OutputValue::Text("dlg_1"));
  row.Add("via", OutputValue::List({hop}));
  const std::string table = RenderTable({row});
  EXPECT_THAT(table, HasSubstr("read, write"));
  EXPECT_THAT(table, HasSubstr(R"([{"delegation_id":"dlg_1"}])"));
}

}  // namespace
}  // namespace cli
}  // namespace verdict
