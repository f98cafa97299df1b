#include "store/connection.h"

#include "absl/strings/numbers.h"
#include "store/policy_encoding.h"

namespace verdict {

Params& Params::Time(absl::Time time) {
  std::optional<int64_t> micros = TimeToMicros(time);
  return micros.has_value() ? Int64(*micros) : NullInt64();
}

bool ResultRow::IsNull(int column) const { return rows_.cell(row_, column).is_null; }

const std::string& ResultRow::Text(int column) const { return rows_.cell(row_, column).text; }

int64_t ResultRow::Int64(int column) const {
  const ResultRows::Cell& cell = rows_.cell(row_, column);
  int64_t value = cell.integer;
  if (!cell.is_null && !cell.text.empty()) absl::SimpleAtoi(cell.text, &value);
  return value;
}

absl::Time ResultRow::Time(int column) const {
  if (IsNull(column)) return absl::InfiniteFuture();
  return absl::FromUnixMicros(Int64(column));
}

}  // namespace verdict
