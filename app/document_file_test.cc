// The one reader of YAML and JSON files people write: the format their name says, each value's
// line, and bounds on what a file may cost (no anchors or aliases, no explicit tags, one
// document, distinct keys, size, nesting and value count capped).
#include "app/document_file.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

const DocumentLimits kLimits{
    .kind = "a notes file", .max_bytes = 4096, .max_depth = 8, .max_nodes = 100};

std::string Message(const absl::StatusOr<DocumentFile>& file) {
  return std::string(file.status().message());
}

TEST(DocumentFileTest, YamlBecomesJsonWithEachValuesLine) {
  absl::StatusOr<DocumentFile> file = ReadDocumentFile(
      "notes:\n  - title: \"true\"\n    done: true\n    count: 3\n    tags: [a, b]\n    none:\n",
      "n.yaml", kLimits);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(CanonicalJson(file->root),
            R"({"notes":[{"count":3,"done":true,"none":null,"tags":["a","b"],"title":"true"}]})");
  EXPECT_EQ(file->lines.at("notes[0]"), 2);
  EXPECT_EQ(file->lines.at("notes[0].tags[1]"), 5);
  EXPECT_EQ(file->LineOf("notes[0].tags"), 5);
  EXPECT_EQ(file->LineOf("notes[0].missing.deeper"), 2);  // the nearest enclosing value's
  EXPECT_EQ(file->Invalid("notes[0].count", "too many").message(),
            "n.yaml:4: notes[0].count: too many");
  EXPECT_EQ(file->Invalid("", "not notes").message(), "n.yaml:1: not notes");
}

// A YAML flow mapping starts with '{' as JSON does; the name says which one a file is.
TEST(DocumentFileTest, TheNameSaysTheFormatAndAnyOtherNameReadsYamlOrJson) {
  constexpr char kFlowYaml[] = "{title: a, # not JSON\n count: 2}\n";
  for (const char* name : {"n.yaml", "n.YML", "stdin", "notes.txt"}) {
    absl::StatusOr<DocumentFile> file = ReadDocumentFile(kFlowYaml, name, kLimits);
    ASSERT_TRUE(file.ok()) << name << ": " << file.status();
    EXPECT_EQ(CanonicalJson(file->root), R"({"count":2,"title":"a"})") << name;
    EXPECT_EQ(file->lines.at("count"), 2) << name;
  }
  absl::StatusOr<DocumentFile> not_json = ReadDocumentFile(kFlowYaml, "n.json", kLimits);
  EXPECT_EQ(not_json.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(not_json), StartsWith("n.json: "));

  constexpr char kJson[] = "{\"title\": \"a\",\n \"count\": 2}";
  for (const char* name : {"n.json", "n.yaml", "stdin"}) {
    absl::StatusOr<DocumentFile> file = ReadDocumentFile(kJson, name, kLimits);
    ASSERT_TRUE(file.ok()) << name << ": " << file.status();
    EXPECT_EQ(CanonicalJson(file->root), R"({"count":2,"title":"a"})") << name;
    EXPECT_EQ(file->lines.at("count"), 2) << name;
  }
}

TEST(DocumentFileTest, AnchorsAliasesAndTagsAreRefusedNamingTheKindOfFileAndTheLine) {
  absl::StatusOr<DocumentFile> anchor =
      ReadDocumentFile("a: 1\nb: &x [lol]\nc: *x\n", "n.yaml", kLimits);
  EXPECT_EQ(anchor.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Message(anchor), "n.yaml:2: YAML anchors are not accepted in a notes file");
  absl::StatusOr<DocumentFile> alias = ReadDocumentFile("a: 1\nc: *x\n", "n.yaml", kLimits);
  EXPECT_EQ(alias.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(alias), StartsWith("n.yaml:2: "));
  absl::StatusOr<DocumentFile> tag = ReadDocumentFile("a: !!binary aGk=\n", "n.yaml", kLimits);
  EXPECT_THAT(Message(tag), StartsWith("n.yaml:1: YAML tags are not accepted"));
}

TEST(DocumentFileTest, SizeNestingValuesDocumentsAndKeysAreBounded) {
  EXPECT_EQ(Message(ReadDocumentFile(std::string(4097, '#'), "n.yaml", kLimits)),
            "n.yaml: a notes file holds at most 4096 bytes");
  EXPECT_THAT(Message(ReadDocumentFile("a: [[[[[[[[[1]]]]]]]]]\n", "n.yaml", kLimits)),
              StartsWith("n.yaml:1: nested deeper than 8 levels"));
  std::string many = "[";
  for (int i = 0; i < 100; ++i) absl::StrAppend(&many, i, ", ");
  many += "1]";
  EXPECT_THAT(Message(ReadDocumentFile(many, "n.yaml", kLimits)),
              HasSubstr("more than 100 values"));
  EXPECT_THAT(Message(ReadDocumentFile("a: 1\n---\na: 2\n", "n.yaml", kLimits)),
              HasSubstr("a notes file holds one document"));
  EXPECT_EQ(Message(ReadDocumentFile("a: 1\na: 2\n", "n.yaml", kLimits)),
            "n.yaml:2: key \"a\" appears twice");
  EXPECT_THAT(Message(ReadDocumentFile("", "n.yaml", kLimits)), HasSubstr("no document"));
  EXPECT_THAT(Message(ReadDocumentFile("a: [1\n", "n.yaml", kLimits)), StartsWith("n.yaml:"));
}

}  // namespace
}  // namespace verdict
