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

std::array<uint8_t, 16> Address(absl::string_view text) {
  absl::StatusOr<std::array<uint8_t, 16>> address = ParseIpAddress(text);
  EXPECT_TRUE(address.ok()) << text << ": " << address.status();
  return address.ok() ? *address : std::array<uint8_t, 16>{};
}

IpNetwork Network(absl::string_view text) {
  absl::StatusOr<IpNetwork> network = ParseIpNetwork(text);
  EXPECT_TRUE(network.ok()) << text << ": " << network.status();
  return network.ok() ? *network : IpNetwork{};
}

JsonValue Json(absl::string_view text) {
  absl::StatusOr<JsonValue> value = ParseJson(text);
  EXPECT_TRUE(value.ok()) << text << ": " << value.status();
  return value.ok() ? *value : JsonValue();
}

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
// WithinTimeWindow

TimeWindow Window(absl::string_view start_end_zone_days) {
  absl::StatusOr<Constraints> constraints =
      ParseConstraints(absl::StrCat("{\"time_window\": ", start_end_zone_days, "}"));
  EXPECT_TRUE(constraints.ok()) << constraints.status();
  return constraints.ok() ? *constraints->time_window : TimeWindow{};
}

absl::Time At(const char* zone_name, int year, int month, int day, int hour, int minute) {
  absl::TimeZone zone;
  EXPECT_TRUE(absl::LoadTimeZone(zone_name, &zone)) << zone_name;
  return absl::FromCivil(absl::CivilMinute(year, month, day, hour, minute), zone);
}

struct WindowCase {
  absl::Time now;
  bool within;
  const char* why;
};

void ExpectWithin(const TimeWindow& window, const std::vector<WindowCase>& cases) {
  for (const WindowCase& c : cases) {
    EXPECT_EQ(WithinTimeWindow(window, c.now), c.within) << c.why;
  }
}

TEST(WithinTimeWindow, StartIsInclusiveEndIsExclusive) {
  const TimeWindow window = Window(R"({"start": "09:00", "end": "17:00"})");
  ExpectWithin(window, {
                           {At("UTC", 2024, 7, 1, 8, 59), false, "08:59"},
                           {At("UTC", 2024, 7, 1, 9, 0), true, "09:00"},
                           {At("UTC", 2024, 7, 1, 16, 59), true, "16:59"},
                           {At("UTC", 2024, 7, 1, 17, 0), false, "17:00"},
                           {At("UTC", 2024, 7, 1, 23, 0), false, "23:00"},
                       });
}

TEST(WithinTimeWindow, WrapsMidnightAndCountsTheDayTheWindowOpened) {
  // Opens Monday 22:00 only, so it holds until Tuesday 06:00.
  const TimeWindow window = Window(R"({"start": "22:00", "end": "06:00", "days": ["mon"]})");
  ExpectWithin(window, {
                           {At("UTC", 2024, 7, 1, 21, 59), false, "Mon 21:59, not yet open"},
                           {At("UTC", 2024, 7, 1, 22, 0), true, "Mon 22:00, opens"},
                           {At("UTC", 2024, 7, 1, 23, 59), true, "Mon 23:59"},
                           {At("UTC", 2024, 7, 2, 0, 0), true, "Tue 00:00, opened Monday"},
                           {At("UTC", 2024, 7, 2, 5, 59), true, "Tue 05:59, opened Monday"},
                           {At("UTC", 2024, 7, 2, 6, 0), false, "Tue 06:00, closed"},
                           {At("UTC", 2024, 7, 2, 22, 0), false, "Tue 22:00, not a Monday"},
                           {At("UTC", 2024, 7, 1, 1, 0), false, "Mon 01:00, opened Sunday"},
                           {At("UTC", 2024, 7, 1, 12, 0), false, "Mon noon, between"},
                       });
}

TEST(WithinTimeWindow, EqualStartAndEndIsTheWholeDayOfTheListedDays) {
  const TimeWindow window = Window(R"({"start": "00:00", "end": "00:00", "days": ["sat", "sun"]})");
  ExpectWithin(window, {
                           {At("UTC", 2024, 3, 30, 0, 0), true, "Sat 00:00"},
                           {At("UTC", 2024, 3, 31, 23, 59), true, "Sun 23:59"},
                           {At("UTC", 2024, 7, 1, 12, 0), false, "Mon noon"},
                       });
}

TEST(WithinTimeWindow, FollowsTheZonesClockAcrossDaylightSaving) {
  const TimeWindow paris =
      Window(R"({"start": "09:00", "end": "10:00", "time_zone": "Europe/Paris"})");
  ExpectWithin(paris, {
                          {At("UTC", 2024, 7, 1, 7, 30), true, "summer: 07:30 UTC is 09:30 CEST"},
                          {At("UTC", 2024, 1, 15, 7, 30), false, "winter: 07:30 UTC is 08:30 CET"},
                          {At("UTC", 2024, 1, 15, 8, 30), true, "winter: 08:30 UTC is 09:30 CET"},
                      });
  // Spring forward on 2024-03-31: 02:00 CET jumps to 03:00 CEST at 01:00 UTC.
  const TimeWindow paris_night =
      Window(R"({"start": "03:00", "end": "04:00", "time_zone": "Europe/Paris"})");
  ExpectWithin(paris_night, {
                                {At("UTC", 2024, 3, 31, 0, 59), false, "01:59 CET"},
                                {At("UTC", 2024, 3, 31, 1, 0), true, "03:00 CEST"},
                            });
  // Fall back on 2024-11-03 in New York: 01:30 happens twice, and both are inside.
  const TimeWindow new_york =
      Window(R"({"start": "01:00", "end": "02:00", "time_zone": "America/New_York"})");
  ExpectWithin(new_york, {
                             {At("UTC", 2024, 11, 3, 5, 30), true, "01:30 EDT"},
                             {At("UTC", 2024, 11, 3, 6, 30), true, "01:30 EST"},
                             {At("UTC", 2024, 11, 3, 7, 0), false, "02:00 EST"},
                         });
}

TEST(WithinTimeWindow, DaysAreLocalDaysNotUtcDays) {
  const TimeWindow window = Window(
      R"({"start": "22:00", "end": "23:00", "time_zone": "America/New_York", "days": ["mon"]})");
  ExpectWithin(window, {
                           // Monday 22:30 EDT is already Tuesday 02:30 in UTC.
                           {At("America/New_York", 2024, 7, 1, 22, 30), true, "Mon 22:30 EDT"},
                           {At("America/New_York", 2024, 7, 2, 22, 30), false, "Tue 22:30 EDT"},
                       });
}

// ---------------------------------------------------------------------------------------------
// ParseIpAddress, ParseIpNetwork, IpAllowed

TEST(ParseIpAddress, HoldsIpv4AsMappedIpv6) {
  const std::array<uint8_t, 16> expected = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 7};
  EXPECT_EQ(Address("192.0.2.7"), expected);
  EXPECT_EQ(Address("::ffff:192.0.2.7"), expected);
  EXPECT_EQ(Address("::ffff:c000:207"), expected);
}

TEST(ParseIpAddress, ReadsIpv6TextForms) {
  const std::array<uint8_t, 16> loopback = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  EXPECT_EQ(Address("::1"), loopback);
  EXPECT_EQ(Address("0:0:0:0:0:0:0:1"), loopback);
  EXPECT_EQ(Address("::"), (std::array<uint8_t, 16>{}));
  EXPECT_EQ(Address("2001:DB8::1"), Address("2001:db8:0:0:0:0:0:1"));
  const std::array<uint8_t, 16> full = {0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8};
  EXPECT_EQ(Address("1:2:3:4:5:6:7:8"), full);
  const std::array<uint8_t, 16> embedded = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
                                            0,    0,    0,    0,    1, 2, 3, 4};
  EXPECT_EQ(Address("2001:db8::1.2.3.4"), embedded);
}

TEST(ParseIpAddress, RefusesAnythingButOneStrictAddress) {
  const std::string kRefused[] = {
      "",
      "010.0.0.1",  // a leading zero could mean octal elsewhere
      "1.2.3.04",
      "1.2.3",
      "1.2.3.4.5",
      "256.1.1.1",
      "0x1.2.3.4",
      "1.2.3.4 ",
      " 1.2.3.4",
      "[::1]",
      "fe80::1%eth0",
      "1::2::3",
      "12345::",
      "1:2:3:4:5:6:7:8:9",
      "::ffff:01.2.3.4",
      "localhost",
      std::string(1000, '1'),
      std::string("1.2.3.4\0", 8),
  };
  for (const std::string& text : kRefused) {
    EXPECT_EQ(ParseIpAddress(text).status().code(), absl::StatusCode::kInvalidArgument) << text;
  }
}

TEST(ParseIpNetwork, CountsAnIpv4PrefixWithinTheMappedForm) {
  const struct {
    const char* text;
    int prefix_length;
  } kCases[] = {
      {"10.0.0.0/8", 104},  {"192.0.2.7", 128},           {"192.0.2.7/32", 128},
      {"0.0.0.0/0", 96},    {"2001:db8::/32", 32},        {"::/0", 0},
      {"2001:db8::1", 128}, {"::ffff:10.0.0.0/104", 104},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(Network(c.text).prefix_length, c.prefix_length) << c.text;
  }
  EXPECT_EQ(Network("10.0.0.0/8").address, Address("10.0.0.0"));
}

TEST(ParseIpNetwork, RefusesBadPrefixesAndHostBits) {
  const char* kRefused[] = {
      "10.0.0.0/33", "2001:db8::/129", "10.0.0.0/",     "10.0.0.0/08",
      "10.0.0.0/-1", "10.0.0.0/+8",    "10.0.0.0/8/8",  "/8",
      "10.0.0.1/8",  "2001:db8::1/32", "10.0.0.0/1000",
  };
  for (const char* text : kRefused) {
    EXPECT_EQ(ParseIpNetwork(text).status().code(), absl::StatusCode::kInvalidArgument) << text;
  }
}

TEST(IpAllowed, AllowsAddressesInsideAnyListedNetwork) {
  const std::vector<IpNetwork> allowlist = {Network("10.0.0.0/9"), Network("2001:db8::/32"),
                                            Network("192.0.2.7")};
  const struct {
    const char* client_ip;
    bool allowed;
  } kCases[] = {
      {"10.1.2.3", true},
      {"10.127.255.255", true},  // the last address of a prefix that ends mid-byte
      {"10.128.0.0", false},
      {"11.0.0.0", false},
      {"::ffff:10.1.2.3", true},  // an IPv4-mapped address is the IPv4 address
      {"2001:db8:1::5", true},
      {"2001:db9::", false},
      {"192.0.2.7", true},
      {"192.0.2.8", false},
      {"", false},
      {"not an address", false},
      {"010.1.2.3", false},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(IpAllowed(allowlist, c.client_ip), c.allowed) << c.client_ip;
  }
}

TEST(IpAllowed, AnIpv4NetworkNeverMatchesAnIpv6Address) {
  EXPECT_TRUE(IpAllowed({Network("0.0.0.0/0")}, "203.0.113.9"));
  EXPECT_FALSE(IpAllowed({Network("0.0.0.0/0")}, "2001:db8::1"));
  EXPECT_TRUE(IpAllowed({Network("::/0")}, "2001:db8::1"));
  EXPECT_TRUE(IpAllowed({Network("::/0")}, "203.0.113.9"));
  EXPECT_FALSE(IpAllowed({}, "203.0.113.9"));
}

// ---------------------------------------------------------------------------------------------
// ArgumentsPass

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
