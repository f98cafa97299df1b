// The time window of a grant (decision/constraints.h): the hours, and optionally the days, in
// which it holds, in a time zone.
//
//   {"start": "09:00", "end": "17:00", "time_zone": "Europe/Paris",
//    "days": ["mon", "tue", "wed", "thu", "fri"]}
//
// A window with start > end wraps midnight ("22:00" to "06:00"); start == end is the whole day.
// "days" names the days on which the window opens (a wrapped window opened on Monday 22:00 still
// holds at Tuesday 01:00); no "days" means every day. Times are local to time_zone (an IANA name;
// default "UTC").
#ifndef VERDICT_DECISION_TIME_WINDOW_H_
#define VERDICT_DECISION_TIME_WINDOW_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/json.h"

namespace verdict {

struct TimeWindow {
  int start_minute = 0;  // minutes after local midnight, 0..1439
  int end_minute = 0;
  std::string time_zone_name = "UTC";
  absl::TimeZone time_zone;
  // Bit d set: the window opens on that weekday (0 = Monday ... 6 = Sunday).
  uint8_t days_mask = 0x7f;
};

// The "time_window" member of a grant's constraints; INVALID_ARGUMENT naming the key otherwise.
// The time zone is loaded here (an IANA name only, never a path).
absl::StatusOr<TimeWindow> ParseTimeWindow(const JsonValue& value);

// True when `now` falls inside the window.
bool WithinTimeWindow(const TimeWindow& window, absl::Time now);

}  // namespace verdict

#endif  // VERDICT_DECISION_TIME_WINDOW_H_
