#include "decision/time_window.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/civil_time.h"
#include "decision/constraint_schema.h"
#include "decision/text_checks.h"

namespace verdict {
namespace {

using constraint_schema::Invalid;
using constraint_schema::Quoted;
using constraint_schema::RequireKnownKeys;
using constraint_schema::RequireType;

constexpr absl::string_view kDayNames[] = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"};

// "HH:MM", 00:00 to 23:59, exactly five characters.
absl::StatusOr<int> ParseTimeOfDay(const JsonValue& value, absl::string_view key) {
  if (absl::Status status = RequireType(value, JsonValue::Type::kString, key); !status.ok()) {
    return status;
  }
  const std::string& text = value.as_string();
  const auto digit = [&](size_t i) { return text[i] - '0'; };
  const auto is_digit = [&](size_t i) { return text[i] >= '0' && text[i] <= '9'; };
  if (text.size() == 5 && is_digit(0) && is_digit(1) && text[2] == ':' && is_digit(3) &&
      is_digit(4)) {
    const int hour = digit(0) * 10 + digit(1);
    const int minute = digit(3) * 10 + digit(4);
    if (hour < 24 && minute < 60) return hour * 60 + minute;
  }
  return Invalid(key, absl::StrCat(Quoted(text), " is not a time of day (HH:MM, 00:00 to 23:59)"));
}

// IANA names only: a leading '/' or a ".." would make the zone loader read an arbitrary file,
// and "localtime" would depend on the machine.
bool LooksLikeIanaName(absl::string_view name) {
  if (name.empty() || name.front() == '/' || absl::StrContains(name, "..") || name == "localtime") {
    return false;
  }
  for (char c : name) {
    const bool allowed = IsAsciiAlphanumeric(c) || c == '/' || c == '_' || c == '-' || c == '+';
    if (!allowed) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<TimeWindow> ParseTimeWindow(const JsonValue& value) {
  constexpr absl::string_view kKey = "time_window";
  if (absl::Status status = RequireType(value, JsonValue::Type::kObject, kKey); !status.ok()) {
    return status;
  }
  if (absl::Status status =
          RequireKnownKeys(value.as_object(), kKey, {"start", "end", "time_zone", "days"});
      !status.ok()) {
    return status;
  }
  TimeWindow window;
  for (const auto& [name, minute] :
       {std::make_pair("start", &window.start_minute), std::make_pair("end", &window.end_minute)}) {
    const std::string key = absl::StrCat(kKey, ".", name);
    const JsonValue* time = value.Find(name);
    if (time == nullptr) return Invalid(key, "is required");
    absl::StatusOr<int> parsed = ParseTimeOfDay(*time, key);
    if (!parsed.ok()) return parsed.status();
    *minute = *parsed;
  }
  if (const JsonValue* zone = value.Find("time_zone")) {
    constexpr absl::string_view kZoneKey = "time_window.time_zone";
    if (absl::Status status = RequireType(*zone, JsonValue::Type::kString, kZoneKey);
        !status.ok()) {
      return status;
    }
    window.time_zone_name = zone->as_string();
  }
  if (!LooksLikeIanaName(window.time_zone_name) ||
      !absl::LoadTimeZone(window.time_zone_name, &window.time_zone)) {
    return Invalid("time_window.time_zone",
                   absl::StrCat("unknown time zone ", Quoted(window.time_zone_name)));
  }
  if (const JsonValue* days = value.Find("days")) {
    constexpr absl::string_view kDaysKey = "time_window.days";
    if (absl::Status status = RequireType(*days, JsonValue::Type::kArray, kDaysKey); !status.ok()) {
      return status;
    }
    if (days->as_array().empty()) {
      return Invalid(kDaysKey, "must name at least one day (an empty list would never open)");
    }
    window.days_mask = 0;
    for (size_t i = 0; i < days->as_array().size(); ++i) {
      const JsonValue& day = days->as_array()[i];
      const std::string key = absl::StrCat(kDaysKey, "[", i, "]");
      if (absl::Status status = RequireType(day, JsonValue::Type::kString, key); !status.ok()) {
        return status;
      }
      int index = 0;
      while (index < 7 && kDayNames[index] != day.as_string()) ++index;
      if (index == 7) {
        return Invalid(key, absl::StrCat(Quoted(day.as_string()), " is not a day (",
                                         absl::StrJoin(kDayNames, ", "), ")"));
      }
      window.days_mask |= static_cast<uint8_t>(1 << index);
    }
  }
  return window;
}

bool WithinTimeWindow(const TimeWindow& window, absl::Time now) {
  // Local civil time, so a window follows the zone's clock across DST changes.
  const absl::CivilMinute local = absl::ToCivilMinute(now, window.time_zone);
  const int minute_of_day = local.hour() * 60 + local.minute();
  const auto opens_on = [&](absl::CivilDay day) {
    return (window.days_mask >> static_cast<int>(absl::GetWeekday(day)) & 1) != 0;
  };
  const absl::CivilDay today(local);
  if (window.start_minute == window.end_minute) return opens_on(today);
  if (window.start_minute < window.end_minute) {
    return minute_of_day >= window.start_minute && minute_of_day < window.end_minute &&
           opens_on(today);
  }
  // A window that wraps midnight: after the start it opened today; before the end, yesterday.
  if (minute_of_day >= window.start_minute) return opens_on(today);
  if (minute_of_day < window.end_minute) return opens_on(today - 1);
  return false;
}

}  // namespace verdict
