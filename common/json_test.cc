#include "common/json.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

JsonLimits DepthLimit(int max_depth) {
  JsonLimits limits;
  limits.max_depth = max_depth;
  return limits;
}

JsonLimits SizeLimit(size_t max_bytes) {
  JsonLimits limits;
  limits.max_bytes = max_bytes;
  return limits;
}

struct CanonicalCase {
  const char* input;
  const char* canonical;
};

TEST(ParseJsonTest, ValidDocumentsHaveTheirCanonicalForm) {
  const CanonicalCase kCases[] = {
      {"null", "null"},
      {"true", "true"},
      {"false", "false"},
      {"0", "0"},
      {"-0", "0"},
      {"-0.0", "0"},
      {"12", "12"},
      {"-12", "-12"},
      {"1.5", "1.5"},
      {"1.50", "1.5"},
      {"1e2", "100"},
      {"1E+2", "100"},
      {"2.5e-3", "0.0025"},
      {"0.1", "0.1"},
      {"1e21", "1e+21"},
      {"9007199254740991", "9007199254740991"},
      {"-9007199254740991", "-9007199254740991"},
      {"9007199254740992", "9007199254740992"},
      {"123456789012345678901234567890", "1.2345678901234568e+29"},
      {"4.9e-324", "5e-324"},
      {"1.7976931348623157e308", "1.7976931348623157e+308"},
      {"\"\"", "\"\""},
      {"\"abc\"", "\"abc\""},
      {R"("\"\\\/\b\f\n\r\t")", R"("\"\\/\b\f\n\r\t")"},
      {R"("\u0000\u001F\u007f")", "\"\\u0000\\u001f\x7f\""},
      {R"("\u00e9\u20AC")", "\"\xC3\xA9\xE2\x82\xAC\""},
      {R"("\ud83d\ude00")", "\"\xF0\x9F\x98\x80\""},
      {"\"\xF0\x9F\x98\x80 raw\"", "\"\xF0\x9F\x98\x80 raw\""},
      {"[]", "[]"},
      {"{}", "{}"},
      {" \t\r\n[ 1 , \"a\" , null ]\n ", "[1,\"a\",null]"},
      {R"({"b":1,"a":[true,null],"c":{"z":{},"y":[]}})",
       R"({"a":[true,null],"b":1,"c":{"y":[],"z":{}}})"},
      {R"({"a\u0062":1})", R"({"ab":1})"},
  };
  for (const CanonicalCase& c : kCases) {
    absl::StatusOr<JsonValue> value = ParseJson(c.input);
    ASSERT_TRUE(value.ok()) << c.input << ": " << value.status();
    EXPECT_EQ(CanonicalJson(*value), c.canonical) << c.input;
  }
}

struct InvalidCase {
  const char* input;
  size_t offset;        // the byte the error must name
  const char* message;  // a fragment the error must contain
};

TEST(ParseJsonTest, InvalidDocumentsAreRejectedAtTheirOffset) {
  const InvalidCase kCases[] = {
      {"", 0, "end of input"},
      {"   ", 3, "end of input"},
      {"nul", 0, "expected 'null'"},
      {"True", 0, "expected a value"},
      {"NaN", 0, "expected a value"},
      {"Infinity", 0, "expected a value"},
      {"-Infinity", 1, "expected a digit"},
      {"+1", 0, "expected a value"},
      {"01", 1, "leading zero"},
      {"-01", 2, "leading zero"},
      {"1.", 2, "after the decimal point"},
      {".5", 0, "expected a value"},
      {"1e", 2, "exponent"},
      {"1e+", 3, "exponent"},
      {"0x10", 1, "after the JSON value"},
      {"1e400", 0, "out of the range"},
      {"-1e400", 0, "out of the range"},
      {"1e-400", 0, "out of the range"},
      {"[1,]", 3, "expected a value"},
      {"[1 2]", 3, "expected ',' or ']'"},
      {"[1", 2, "end of input in an array"},
      {"{\"a\":1,}", 7, "object key"},
      {"{\"a\" 1}", 5, "expected ':'"},
      {"{a:1}", 1, "object key"},
      {"{\"a\":1", 6, "end of input in an object"},
      {"{\"a\":1 \"b\":2}", 7, "expected ',' or '}'"},
      {R"({"a":1,"a":2})", 7, "duplicate object key \"a\""},
      {R"({"a":1,"\u0061":2})", 7, "duplicate object key \"a\""},
      {"1 2", 2, "after the JSON value"},
      {"{} x", 3, "after the JSON value"},
      {"\xEF\xBB\xBF{}", 0, "expected a value"},  // a byte order mark is not white space
      {"\"abc", 4, "unterminated string"},
      {"\"a\tb\"", 2, "control character"},
      {"\"a\nb\"", 2, "control character"},
      {R"("\x")", 1, "invalid escape"},
      {"\"\\", 1, "unterminated escape"},
      {R"("\u12")", 5, "invalid hex digit"},
      {"\"\\u12", 5, "unterminated \\u escape"},
      {R"("\u12G4")", 5, "invalid hex digit"},
      {R"("\ud800")", 1, "high surrogate not followed"},
      {R"("\ud800x")", 1, "high surrogate not followed"},
      {R"("\ud800\u0041")", 1, "high surrogate not followed"},
      {R"("\ud800\ud800")", 1, "high surrogate not followed"},
      {R"("ab\udc00")", 3, "lone low surrogate"},
      {"\"\xC0\xAF\"", 1, "invalid UTF-8"},          // overlong '/'
      {"\"\xE0\x80\xAF\"", 1, "invalid UTF-8"},      // overlong '/'
      {"\"\xF0\x80\x80\xAF\"", 1, "invalid UTF-8"},  // overlong '/'
      {"\"\xED\xA0\x80\"", 1, "invalid UTF-8"},      // surrogate U+D800 in UTF-8
      {"\"\xF4\x90\x80\x80\"", 1, "invalid UTF-8"},  // U+110000
      {"\"a\x80\"", 2, "invalid UTF-8"},             // stray continuation byte
      {"\"\xC3\"", 1, "invalid UTF-8"},              // truncated sequence
      {"\"\xFF\"", 1, "invalid UTF-8"},
  };
  for (const InvalidCase& c : kCases) {
    absl::StatusOr<JsonValue> value = ParseJson(c.input);
    ASSERT_FALSE(value.ok()) << "accepted: " << c.input;
    EXPECT_EQ(value.status().code(), absl::StatusCode::kInvalidArgument) << c.input;
    EXPECT_THAT(std::string(value.status().message()),
                HasSubstr(absl::StrCat("at byte ", c.offset, ":")))
        << c.input << ": " << value.status();
    EXPECT_THAT(std::string(value.status().message()), HasSubstr(c.message)) << c.input;
  }
}

TEST(ParseJsonTest, NulEscapeIsKeptInsideTheString) {
  absl::StatusOr<JsonValue> value = ParseJson(R"("a\u0000b")");
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(value->as_string(), std::string("a\0b", 3));
}

TEST(ParseJsonTest, NestingUpToTheDepthLimitIsAccepted) {
  const std::string at_limit = std::string(32, '[') + std::string(32, ']');
  EXPECT_TRUE(ParseJson(at_limit).ok());
  const std::string objects = R"({"a":{"a":{"a":1}}})";
  EXPECT_TRUE(ParseJson(objects, DepthLimit(3)).ok());
}

TEST(ParseJsonTest, NestingBeyondTheDepthLimitIsRejected) {
  const std::string too_deep = std::string(33, '[') + std::string(33, ']');
  absl::StatusOr<JsonValue> value = ParseJson(too_deep);
  ASSERT_FALSE(value.ok());
  EXPECT_EQ(value.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(value.status().message()),
              HasSubstr("at byte 32: nesting deeper than the limit"));

  absl::StatusOr<JsonValue> objects = ParseJson(R"([{"a":[1]}])", DepthLimit(2));
  ASSERT_FALSE(objects.ok());
  EXPECT_THAT(std::string(objects.status().message()), HasSubstr("at byte 6:"));
}

TEST(ParseJsonTest, ScalarsHaveNoDepth) {
  EXPECT_TRUE(ParseJson("1", DepthLimit(0)).ok());
  EXPECT_FALSE(ParseJson("[]", DepthLimit(0)).ok());
}

TEST(ParseJsonTest, InputAboveTheSizeLimitIsRejected) {
  const std::string text = "\"" + std::string(98, 'x') + "\"";  // 100 bytes
  EXPECT_TRUE(ParseJson(text, SizeLimit(100)).ok());
  absl::StatusOr<JsonValue> value = ParseJson(text, SizeLimit(99));
  ASSERT_FALSE(value.ok());
  EXPECT_EQ(value.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(value.status().message()), HasSubstr("100 bytes, above the limit of 99"));
}

TEST(ParseJsonTest, SizeLimitCountsWhiteSpace) {
  EXPECT_FALSE(ParseJson("1" + std::string(10, ' '), SizeLimit(10)).ok());
}

// Numbers of 15 significant digits or fewer always read as distinct doubles; longer ones may
// not (1234567890123456789 and 1234567890123456800 read as one), so where numbers must be told
// apart exactly, longer ones are refused.
TEST(ParseJsonTest, ExactNumbersRefusesNumbersADoubleCannotTellApart) {
  JsonLimits exact;
  exact.exact_numbers = true;
  for (const char* accepted :
       {"123456789012345", "-123456789012345", "0.000123456789012345", "1.50000000000000000000",
        "1e300", "0", "-0.0", "100000000000000", "12345678901234.5"}) {
    EXPECT_TRUE(ParseJson(accepted, exact).ok()) << accepted;
  }
  for (const char* refused : {"1234567890123456789", "9007199254740993", "1000000000000000",
                              "0.1234567890123456", "1234567890.1234567", "1.234567890123456e10",
                              // Subnormal: fewer digits than 15 fit (h40).
                              "1.00000000000001e-315", "-4e-320"}) {
    const absl::StatusOr<JsonValue> parsed = ParseJson(refused, exact);
    EXPECT_FALSE(parsed.ok()) << refused;
    EXPECT_TRUE(ParseJson(refused).ok()) << refused << ": only when asked";
  }
  EXPECT_EQ(ParseJson("1234567890123456789").value(), ParseJson("1234567890123456800").value())
      << "why: the two read as one double";
}

TEST(JsonValueTest, FindReturnsMembersOfObjectsOnly) {
  absl::StatusOr<JsonValue> value = ParseJson(R"({"amount":12,"to":"bob"})");
  ASSERT_TRUE(value.ok());
  ASSERT_NE(value->Find("amount"), nullptr);
  EXPECT_EQ(value->Find("amount")->as_number(), 12);
  EXPECT_EQ(value->Find("to")->as_string(), "bob");
  EXPECT_EQ(value->Find("missing"), nullptr);
  EXPECT_EQ(JsonValue::MakeArray({JsonValue()}).Find("0"), nullptr);
}

TEST(JsonValueTest, EqualityComparesTypeAndContent) {
  EXPECT_EQ(JsonValue(), JsonValue());
  EXPECT_NE(JsonValue(), JsonValue::Bool(false));
  EXPECT_NE(JsonValue::Number(0), JsonValue::Bool(false));
  EXPECT_NE(JsonValue::String("1"), JsonValue::Number(1));
  EXPECT_EQ(JsonValue::Number(0), JsonValue::Number(-0.0));
  EXPECT_NE(JsonValue::MakeArray({JsonValue::Number(1)}),
            JsonValue::MakeArray({JsonValue::Number(2)}));
  EXPECT_NE(JsonValue::MakeObject({{"a", JsonValue()}}),
            JsonValue::MakeObject({{"b", JsonValue()}}));
  EXPECT_EQ(*ParseJson(R"({"b":[1,{"c":null}],"a":"x"})"),
            *ParseJson(R"({ "a" : "x" , "b" : [ 1.0 , { "c" : null } ] })"));
}

TEST(CanonicalJsonTest, NumbersPrintAsIntegersOnlyBelowTwoToThe53) {
  const struct {
    double number;
    const char* canonical;
  } kCases[] = {
      {-0.0, "0"},
      {42, "42"},
      {-42, "-42"},
      {1e15, "1000000000000000"},
      {9007199254740991.0, "9007199254740991"},
      {-9007199254740991.0, "-9007199254740991"},
      {9007199254740992.0, "9007199254740992"},
      {1e16, "1e+16"},
      {-1e300, "-1e+300"},
      {0.5, "0.5"},
      {1.0 / 3, "0.3333333333333333"},
      {std::numeric_limits<double>::quiet_NaN(), "null"},
      {std::numeric_limits<double>::infinity(), "null"},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(CanonicalJson(JsonValue::Number(c.number)), c.canonical) << c.number;
  }
}

TEST(CanonicalJsonTest, KeysAreOrderedByUtf16CodeUnits) {
  // U+FF61 is after U+1F600 in UTF-16 (a surrogate pair starts with D83D), before it in UTF-8.
  JsonValue::Object members;
  members.emplace("\xEF\xBD\xA1", JsonValue::Number(1));      // U+FF61
  members.emplace("\xF0\x9F\x98\x80", JsonValue::Number(2));  // U+1F600
  members.emplace("\xC3\xA9", JsonValue::Number(3));          // U+00E9
  members.emplace("b", JsonValue::Number(4));
  members.emplace("B", JsonValue::Number(5));
  members.emplace("ba", JsonValue::Number(6));
  EXPECT_EQ(CanonicalJson(JsonValue::MakeObject(std::move(members))),
            "{\"B\":5,\"b\":4,\"ba\":6,\"\xC3\xA9\":3,\"\xF0\x9F\x98\x80\":2,\"\xEF\xBD\xA1\":1}");
}

TEST(CanonicalJsonTest, EqualArgumentsHaveEqualCanonicalForms) {
  absl::StatusOr<JsonValue> a = ParseJson(R"({"to":"bob","amount":1e2,"tags":["x"]})");
  absl::StatusOr<JsonValue> b = ParseJson(
      "{\n  \"amount\": 100,\n  \"tags\": [\"\\u0078\"],\n"
      "  \"to\": \"bob\"\n}");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(CanonicalJson(*a), CanonicalJson(*b));
  EXPECT_EQ(CanonicalJson(*a), R"({"amount":100,"tags":["x"],"to":"bob"})");
}

TEST(CanonicalJsonTest, ParsingTheCanonicalFormGivesBackTheValue) {
  const char* kDocuments[] = {
      R"({"b":[1,2.5,-3e-7,{"x":null}],"a":"\u00e9\ud83d\ude00\n\u0001","":false})",
      R"([[[]],{},"",0,-0,1e308,5e-324,0.1,123456.789])",
      "\"\xE2\x80\xA8 line separator and \x7F\"",
      R"({"\uffff":1,"\ud800\udc00":2,"\u0080":3})",
  };
  for (const char* document : kDocuments) {
    absl::StatusOr<JsonValue> value = ParseJson(document);
    ASSERT_TRUE(value.ok()) << document << ": " << value.status();
    const std::string canonical = CanonicalJson(*value);
    absl::StatusOr<JsonValue> reparsed = ParseJson(canonical);
    ASSERT_TRUE(reparsed.ok()) << canonical << ": " << reparsed.status();
    EXPECT_EQ(*reparsed, *value) << canonical;
    EXPECT_EQ(CanonicalJson(*reparsed), canonical);
  }
}

TEST(CanonicalJsonTest, EveryFiniteDoubleRoundTrips) {
  std::mt19937_64 random(20240601);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t bits = random();
    double number;
    std::memcpy(&number, &bits, sizeof(number));
    if (!std::isfinite(number)) continue;
    const std::string canonical = CanonicalJson(JsonValue::Number(number));
    absl::StatusOr<JsonValue> reparsed = ParseJson(canonical);
    ASSERT_TRUE(reparsed.ok()) << canonical << ": " << reparsed.status();
    ASSERT_EQ(reparsed->as_number(), number) << canonical;
  }
}

TEST(JsonQuoteTest, EscapesOnlyWhatJsonRequires) {
  const struct {
    std::string raw;
    const char* quoted;
  } kCases[] = {
      {"", "\"\""},
      {"a\"b", R"("a\"b")"},
      {"back\\slash", R"("back\\slash")"},
      {"/", "\"/\""},
      {"\b\f\n\r\t", R"("\b\f\n\r\t")"},
      {std::string("\0\x01\x1f", 3), R"("\u0000\u0001\u001f")"},
      {"\x7F", "\"\x7F\""},
      {"caf\xC3\xA9 \xF0\x9F\x98\x80", "\"caf\xC3\xA9 \xF0\x9F\x98\x80\""},
      {"bad \xC0\xAF end", "\"bad \xEF\xBF\xBD\xEF\xBF\xBD end\""},
      {"cut \xE2\x82", "\"cut \xEF\xBF\xBD\xEF\xBF\xBD\""},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(JsonQuote(c.raw), c.quoted) << c.raw;
  }
}

TEST(JsonQuoteTest, OutputIsAlwaysValidJson) {
  std::string every_byte;
  for (int b = 0; b < 256; ++b) every_byte.push_back(static_cast<char>(b));
  absl::StatusOr<JsonValue> value = ParseJson(JsonQuote(every_byte));
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(value->as_string().substr(0, 128), every_byte.substr(0, 128));
}

TEST(IsValidUtf8Test, AcceptsWellFormedAndRejectsIllFormedSequences) {
  const struct {
    std::string text;
    bool valid;
  } kCases[] = {
      {"", true},
      {"plain ascii", true},
      {std::string("\0", 1), true},
      {"\xC2\x80", true},           // U+0080, the first two-byte character
      {"\xDF\xBF", true},           // U+07FF
      {"\xE0\xA0\x80", true},       // U+0800
      {"\xED\x9F\xBF", true},       // U+D7FF, just below the surrogates
      {"\xEE\x80\x80", true},       // U+E000, just above them
      {"\xEF\xBF\xBF", true},       // U+FFFF
      {"\xF0\x90\x80\x80", true},   // U+10000
      {"\xF4\x8F\xBF\xBF", true},   // U+10FFFF, the last code point
      {"\x80", false},              // continuation byte without a lead
      {"\xC0\x80", false},          // overlong NUL
      {"\xC1\xBF", false},          // overlong U+007F
      {"\xE0\x9F\xBF", false},      // overlong U+07FF
      {"\xF0\x8F\xBF\xBF", false},  // overlong U+FFFF
      {"\xED\xA0\x80", false},      // U+D800
      {"\xED\xBF\xBF", false},      // U+DFFF
      {"\xF4\x90\x80\x80", false},  // U+110000
      {"\xF5\x80\x80\x80", false},
      {"\xFE", false},
      {"\xFF", false},
      {"\xC3", false},          // truncated
      {"\xE2\x82", false},      // truncated
      {"\xE2\x28\xA1", false},  // bad continuation
      {"\xF0\x9F\x98", false},  // truncated four-byte sequence
      {"ok \xC3\xA9 then \x80", false},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(IsValidUtf8(c.text), c.valid) << absl::CEscape(c.text);
  }
}

}  // namespace
}  // namespace verdict
