#include "decision/time_window.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "common/json.h"
#include "decision/constraints.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

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

}  // namespace
}  // namespace verdict
