#include "decision/constraints.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "common/json.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

constexpr char kHeaderExample[] = R"({
  "time_window": {"start": "09:00", "end": "17:00", "time_zone": "Europe/Paris",
                  "days": ["mon", "tue", "wed", "thu", "fri"]},
  "ip_allowlist": ["10.0.0.0/8", "2001:db8::/32", "192.0.2.7"],
  "arguments": [{"path": "amount", "max": 100},
                {"path": "to", "glob": "*@example.com"},
                {"path": "env", "one_of": ["dev", "staging"]},
                {"path": "options.mode", "equals": "dry-run"}],
  "approval": {"quorum": 2, "ttl_seconds": 3600},
  "rate_limit": {"max_calls": 100, "window_seconds": 60}
})";

// ---------------------------------------------------------------------------------------------
// ParseConstraints

TEST(ParseConstraints, EmptyTextAndEmptyObjectMeanNoConstraint) {
  for (const char* json : {"", "{}", " { } "}) {
    absl::StatusOr<Constraints> constraints = ParseConstraints(json);
    ASSERT_TRUE(constraints.ok()) << constraints.status();
    EXPECT_TRUE(constraints->empty()) << json;
  }
}

TEST(ParseConstraints, ReadsEveryKindOfConstraint) {
  absl::StatusOr<Constraints> constraints = ParseConstraints(kHeaderExample);
  ASSERT_TRUE(constraints.ok()) << constraints.status();

  ASSERT_TRUE(constraints->time_window.has_value());
  EXPECT_EQ(constraints->time_window->start_minute, 9 * 60);
  EXPECT_EQ(constraints->time_window->end_minute, 17 * 60);
  EXPECT_EQ(constraints->time_window->time_zone_name, "Europe/Paris");
  EXPECT_EQ(constraints->time_window->time_zone.name(), "Europe/Paris");
  EXPECT_EQ(constraints->time_window->days_mask, 0x1f);  // Monday to Friday

  ASSERT_TRUE(constraints->ip_allowlist.has_value());
  ASSERT_EQ(constraints->ip_allowlist->size(), 3u);
  EXPECT_EQ((*constraints->ip_allowlist)[0].prefix_length, 96 + 8);
  EXPECT_EQ((*constraints->ip_allowlist)[1].prefix_length, 32);
  EXPECT_EQ((*constraints->ip_allowlist)[2].prefix_length, 128);

  ASSERT_EQ(constraints->arguments.size(), 4u);
  EXPECT_EQ(constraints->arguments[0].path, "amount");
  EXPECT_EQ(constraints->arguments[0].kind, ArgumentRule::Kind::kMax);
  EXPECT_EQ(constraints->arguments[0].operand, JsonValue::Number(100));
  EXPECT_EQ(constraints->arguments[1].kind, ArgumentRule::Kind::kGlob);
  EXPECT_EQ(constraints->arguments[2].kind, ArgumentRule::Kind::kOneOf);
  EXPECT_EQ(constraints->arguments[3].path, "options.mode");
  EXPECT_EQ(constraints->arguments[3].kind, ArgumentRule::Kind::kEquals);
  EXPECT_EQ(constraints->arguments[3].operand, JsonValue::String("dry-run"));

  ASSERT_TRUE(constraints->approval.has_value());
  EXPECT_EQ(constraints->approval->quorum, 2);
  EXPECT_EQ(constraints->approval->ttl, absl::Hours(1));

  ASSERT_TRUE(constraints->rate_limit.has_value());
  EXPECT_EQ(constraints->rate_limit->max_calls, 100);
  EXPECT_EQ(constraints->rate_limit->window_seconds, 60);
}

TEST(ParseConstraints, OptionalMembersTakeTheirDefaults) {
  absl::StatusOr<Constraints> constraints =
      ParseConstraints(R"({"time_window": {"start": "22:00", "end": "06:00"}, "approval": {}})");
  ASSERT_TRUE(constraints.ok()) << constraints.status();
  EXPECT_EQ(constraints->time_window->time_zone_name, "UTC");
  EXPECT_EQ(constraints->time_window->days_mask, 0x7f);
  EXPECT_EQ(constraints->approval->quorum, 1);
  EXPECT_EQ(constraints->approval->ttl, absl::Hours(1));
}

TEST(ParseConstraints, OneArgumentObjectMayHoldSeveralOperators) {
  absl::StatusOr<Constraints> constraints =
      ParseConstraints(R"({"arguments": [{"path": "amount", "min": 1, "max": 10}]})");
  ASSERT_TRUE(constraints.ok()) << constraints.status();
  ASSERT_EQ(constraints->arguments.size(), 2u);
  EXPECT_EQ(constraints->arguments[0].kind, ArgumentRule::Kind::kMin);
  EXPECT_EQ(constraints->arguments[1].kind, ArgumentRule::Kind::kMax);
  EXPECT_EQ(constraints->arguments[1].path, "amount");
}

TEST(ParseConstraints, RefusesWhatItCannotEnforceNamingTheKey) {
  const struct {
    const char* json;
    const char* message;
  } kCases[] = {
      // Shape of the document.
      {"[]", "constraints: must be an object, got an array"},
      {R"({"rate_limt": {}})",
       "constraints: unknown key \"rate_limt\" (known: time_window, ip_allowlist, arguments, "
       "approval, rate_limit)"},
      // time_window
      {R"({"time_window": "9-5"})", "time_window: must be an object, got a string"},
      {R"({"time_window": {"stat": "09:00", "start": "09:00", "end": "17:00"}})",
       "time_window: unknown key \"stat\" (known: start, end, time_zone, days)"},
      {R"({"time_window": {"end": "17:00"}})", "time_window.start: is required"},
      {R"({"time_window": {"start": "09:00"}})", "time_window.end: is required"},
      {R"({"time_window": {"start": "25:00", "end": "17:00"}})",
       "time_window.start: \"25:00\" is not a time of day (HH:MM, 00:00 to 23:59)"},
      {R"({"time_window": {"start": "09:00", "end": "24:00"}})",
       "time_window.end: \"24:00\" is not a time of day (HH:MM, 00:00 to 23:59)"},
      {R"({"time_window": {"start": "09:60", "end": "17:00"}})",
       "time_window.start: \"09:60\" is not a time of day (HH:MM, 00:00 to 23:59)"},
      {R"({"time_window": {"start": "9:00", "end": "17:00"}})",
       "time_window.start: \"9:00\" is not a time of day (HH:MM, 00:00 to 23:59)"},
      {R"({"time_window": {"start": 900, "end": "17:00"}})",
       "time_window.start: must be a string, got a number"},
      {R"({"time_window": {"start": "09:00", "end": "17:00", "time_zone": "Mars/Olympus"}})",
       "time_window.time_zone: unknown time zone \"Mars/Olympus\""},
      {R"({"time_window": {"start": "09:00", "end": "17:00", "time_zone": "/etc/passwd"}})",
       "time_window.time_zone: unknown time zone \"/etc/passwd\""},
      {R"({"time_window": {"start": "09:00", "end": "17:00", "time_zone": "localtime"}})",
       "time_window.time_zone: unknown time zone \"localtime\""},
      {R"({"time_window": {"start": "09:00", "end": "17:00", "time_zone": ""}})",
       "time_window.time_zone: unknown time zone \"\""},
      {R"({"time_window": {"start": "09:00", "end": "17:00", "days": ["mon", "Tue"]}})",
       "time_window.days[1]: \"Tue\" is not a day (mon, tue, wed, thu, fri, sat, sun)"},
      {R"({"time_window": {"start": "09:00", "end": "17:00", "days": []}})",
       "time_window.days: must name at least one day (an empty list would never open)"},
      {R"({"time_window": {"start": "09:00", "end": "17:00", "days": "mon"}})",
       "time_window.days: must be an array, got a string"},
      // ip_allowlist
      {R"({"ip_allowlist": "10.0.0.0/8"})", "ip_allowlist: must be an array, got a string"},
      {R"({"ip_allowlist": []})",
       "ip_allowlist: must list at least one network (an empty list would allow no address)"},
      {R"({"ip_allowlist": ["10.0.0.0/8", 10]})",
       "ip_allowlist[1]: must be a string, got a number"},
      {R"({"ip_allowlist": ["10.0.0.0/33"]})",
       "ip_allowlist[0]: \"10.0.0.0/33\" has a bad prefix length (0 to 32)"},
      {R"({"ip_allowlist": ["10.0.0.1/8"]})",
       "ip_allowlist[0]: \"10.0.0.1/8\" has address bits set after the /8 prefix"},
      {R"({"ip_allowlist": ["10.0.0"]})",
       "ip_allowlist[0]: \"10.0.0\" is not an IPv4 or IPv6 address"},
      // arguments
      {R"({"arguments": {"path": "a", "max": 1}})", "arguments: must be an array, got an object"},
      {R"({"arguments": [{"max": 1}]})", "arguments[0].path: is required"},
      {R"({"arguments": [{"path": 7, "max": 1}]})",
       "arguments[0].path: must be a string, got a number"},
      {R"({"arguments": [{"path": "a..b", "max": 1}]})",
       "arguments[0].path: \"a..b\" is not a dotted path (an empty component)"},
      {R"({"arguments": [{"path": "", "max": 1}]})",
       "arguments[0].path: \"\" is not a dotted path (an empty component)"},
      {R"({"arguments": [{"path": "a", "max": 1}, {"path": "b"}]})",
       "arguments[1]: needs one of equals, one_of, glob, min, max, email_domain"},
      {R"({"arguments": [{"path": "a", "maximum": 1}]})",
       "arguments[0]: unknown key \"maximum\" (known: path, equals, one_of, glob, min, max, "
       "email_domain)"},
      {R"({"arguments": [{"path": "to", "email_domain": 7}]})",
       "arguments[0].email_domain: must be a string, got a number"},
      {R"({"arguments": [{"path": "to", "email_domain": "@example.com"}]})",
       "arguments[0].email_domain: \"@example.com\" is not a domain name (example.com)"},
      {R"({"arguments": [{"path": "to", "email_domain": "example..com"}]})",
       "arguments[0].email_domain: \"example..com\" is not a domain name (example.com)"},
      {R"({"arguments": [{"path": "to", "email_domain": "*.example.com"}]})",
       "arguments[0].email_domain: \"*.example.com\" is not a domain name (example.com)"},
      {R"({"arguments": [{"path": "to", "email_domain": ""}]})",
       "arguments[0].email_domain: \"\" is not a domain name (example.com)"},
      {R"({"arguments": [{"path": "a", "one_of": "x"}]})",
       "arguments[0].one_of: must be an array, got a string"},
      {R"({"arguments": [{"path": "a", "one_of": []}]})",
       "arguments[0].one_of: must list at least one value"},
      {R"({"arguments": [{"path": "a", "glob": 5}]})",
       "arguments[0].glob: must be a string, got a number"},
      {R"({"arguments": [{"path": "a", "min": "1"}]})",
       "arguments[0].min: must be a number, got a string"},
      {R"({"arguments": [{"path": "a", "max": null}]})",
       "arguments[0].max: must be a number, got null"},
      {R"({"arguments": [{"path": "a", "min": 10, "max": 5}]})",
       "arguments[0]: min 10 is above max 5 (no value could pass)"},
      // approval
      {R"({"approval": true})", "approval: must be an object, got a boolean"},
      {R"({"approval": {"quorum": 0}})", "approval.quorum: must be from 1 to 2147483647, got 0"},
      {R"({"approval": {"quorum": -3}})", "approval.quorum: must be from 1 to 2147483647, got -3"},
      {R"({"approval": {"quorum": 1.5}})", "approval.quorum: must be an integer, got a fraction"},
      {R"({"approval": {"quorum": "2"}})", "approval.quorum: must be an integer, got a string"},
      {R"({"approval": {"ttl_seconds": 0}})",
       "approval.ttl_seconds: must be from 1 to 9007199254740992, got 0"},
      {R"({"approval": {"quorum": 2, "ttl": 60}})",
       "approval: unknown key \"ttl\" (known: quorum, ttl_seconds)"},
      // rate_limit
      {R"({"rate_limit": {"max_calls": 0, "window_seconds": 60}})",
       "rate_limit.max_calls: must be from 1 to 9007199254740992, got 0"},
      {R"({"rate_limit": {"max_calls": 10, "window_seconds": 0}})",
       "rate_limit.window_seconds: must be from 1 to 9007199254740992, got 0"},
      {R"({"rate_limit": {"window_seconds": 60}})", "rate_limit.max_calls: is required"},
      {R"({"rate_limit": {"max_calls": 10}})", "rate_limit.window_seconds: is required"},
      {R"({"rate_limit": {"max_calls": 10, "window_seconds": 60, "burst": 5}})",
       "rate_limit: unknown key \"burst\" (known: max_calls, window_seconds)"},
  };
  for (const auto& c : kCases) {
    absl::StatusOr<Constraints> constraints = ParseConstraints(c.json);
    EXPECT_EQ(constraints.status().code(), absl::StatusCode::kInvalidArgument) << c.json;
    EXPECT_EQ(constraints.status().message(), c.message) << c.json;
  }
}

TEST(ParseConstraints, MalformedJsonIsRefusedAsConstraints) {
  for (const char* json : {"{", "{\"approval\": }", "not json", "{\"a\": 1, \"a\": 2}"}) {
    absl::StatusOr<Constraints> constraints = ParseConstraints(json);
    EXPECT_EQ(constraints.status().code(), absl::StatusCode::kInvalidArgument) << json;
    EXPECT_TRUE(absl::StartsWith(constraints.status().message(), "constraints: "))
        << constraints.status();
  }
}

// ---------------------------------------------------------------------------------------------
// RateWindowStart

TEST(RateWindowStart, FloorsToTheStartOfTheFixedWindow) {
  const struct {
    int64_t window_seconds;
    absl::Time now;
    int64_t start;
  } kCases[] = {
      {60, absl::FromUnixSeconds(0), 0},
      {60, absl::FromUnixSeconds(59), 0},
      {60, absl::FromUnixMillis(59999), 0},
      {60, absl::FromUnixSeconds(60), 60},
      {60, absl::FromUnixSeconds(119), 60},
      {60, absl::FromUnixSeconds(-1), -60},  // before the epoch: floor, not truncation
      {60, absl::FromUnixMillis(-1), -60},
      {60, absl::FromUnixSeconds(-60), -60},
      {60, absl::FromUnixSeconds(-61), -120},
      {3600, absl::FromUnixSeconds(1700000123), 1699999200},
      {1, absl::FromUnixSeconds(1700000123), 1700000123},
  };
  for (const auto& c : kCases) {
    RateLimit limit;
    limit.max_calls = 10;
    limit.window_seconds = c.window_seconds;
    EXPECT_EQ(RateWindowStart(limit, c.now), c.start) << c.now;
  }
}

}  // namespace
}  // namespace verdict
