#include "store/decision_record.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "decision/resource_match.h"
#include "store/policy_encoding.h"
#include "store/row_readers.h"

namespace verdict {
namespace {

// Fields per record: the agent's nine columns; a permission's seq and its seven columns; a
// delegation's rowid and its eight columns.
constexpr size_t kAgentFields = 9;
constexpr size_t kPermissionFields = 8;
constexpr size_t kDelegationFields = 9;
constexpr size_t kMaxFields = 9;
// A permission's resource pattern: after its seq, id and agent_id.
constexpr size_t kPermissionResourceField = 3;

using Field = std::optional<absl::string_view>;  // nullopt: NULL

absl::Status Malformed(absl::string_view what, size_t offset) {
  return absl::InternalError(
      absl::StrCat("policy store: decision record of ", what, " is malformed at byte ", offset));
}

// The value of eight ASCII digits read as one little-endian word, or nullopt when any byte is
// not a digit: three multiplications instead of eight steps.
std::optional<uint64_t> EightDigits(const char* text) {
  uint64_t word;
  std::memcpy(&word, text, sizeof(word));
  // Every byte must be 0x30 to 0x39: its high nibble 3, and adding 6 must not carry into it.
  if ((word & 0xF0F0F0F0F0F0F0F0) != 0x3030303030303030 ||
      ((word + 0x0606060606060606) & 0xF0F0F0F0F0F0F0F0) != 0x3030303030303030) {
    return std::nullopt;
  }
  word -= 0x3030303030303030;
  word = (word * 10) + (word >> 8);  // pairs of digits in every other byte
  word = (((word & 0x000000FF000000FF) * (100 + (1000000ULL << 32))) +
          (((word >> 16) & 0x000000FF000000FF) * (1 + (10000ULL << 32)))) >>
         32;
  return word;
}

// The non-negative decimal number `digits` spells, without a sign, spaces or leading '+'; false
// when it is empty, holds anything else or overflows. Hand-written: a decision parses a few
// dozen of these (times have 16 digits), and absl::SimpleAtoi's generality cost a tenth of it.
bool ParseDecimal(absl::string_view digits, uint64_t& value) {
  if (digits.empty() || digits.size() > 19) return false;  // 19 digits always fit in 64 bits
  const char* p = digits.data();
  const char* const end = p + digits.size();
  uint64_t parsed = 0;
  for (; end - p >= 8; p += 8) {
    const std::optional<uint64_t> eight = EightDigits(p);
    if (!eight) return false;
    parsed = parsed * 100000000 + *eight;
  }
  for (; p != end; ++p) {
    const unsigned digit = static_cast<unsigned char>(*p) - unsigned{'0'};  // wraps for < '0'
    if (digit > 9) return false;
    parsed = parsed * 10 + digit;
  }
  value = parsed;
  return true;
}

// A field's integer, as SQLite spells one: decimal with an optional '-'.
bool ParseInt64(absl::string_view text, int64_t& value) {
  const bool negative = !text.empty() && text.front() == '-';
  if (negative) text.remove_prefix(1);
  uint64_t magnitude = 0;
  if (!ParseDecimal(text, magnitude)) return false;
  if (magnitude > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
  value = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

// Reads the fields of one column's text in order. Every field a decision reads passes through
// Next, so it walks raw pointers: a length of one or two digits, a colon, the bytes.
class FieldReader {
 public:
  explicit FieldReader(absl::string_view text)
      : begin_(text.data()), cursor_(text.data()), end_(text.data() + text.size()) {}

  bool done() const { return cursor_ == end_; }
  size_t position() const { return static_cast<size_t>(cursor_ - begin_); }

  // The next field; false when the text does not hold one.
  bool Next(Field& field) {
    const char* p = cursor_;
    if (p == end_) return false;
    if (*p == '-') {
      cursor_ = p + 1;
      field = std::nullopt;
      return true;
    }
    const char* const digits = p;
    size_t length = 0;
    for (; p != end_; ++p) {
      const unsigned digit = static_cast<unsigned char>(*p) - unsigned{'0'};  // wraps for < '0'
      if (digit > 9) break;
      length = length * 10 + digit;
    }
    // Nine digits at most, so the length cannot overflow on the way.
    if (p == digits || p - digits > 9 || p == end_ || *p != ':') return false;
    ++p;
    if (length > static_cast<size_t>(end_ - p)) return false;
    field = absl::string_view(p, length);
    cursor_ = p + length;
    return true;
  }

 private:
  const char* const begin_;
  const char* cursor_;
  const char* const end_;
};

// One record as a row for store/row_readers.h: column 0 is the first field after `skip`
// (a permission's seq, a delegation's rowid). A number that does not parse marks the row
// malformed, since the readers cannot return an error from Int64.
class RecordRow {
 public:
  RecordRow(const std::array<Field, kMaxFields>& fields, size_t skip)
      : fields_(fields), skip_(skip) {}

  absl::string_view Text(int column) const {
    const Field& field = fields_[skip_ + column];
    return field ? *field : absl::string_view();
  }

  int64_t Int64(int column) const {
    const Field& field = fields_[skip_ + column];
    int64_t value = 0;
    if (!field || !ParseInt64(*field, value)) malformed_ = true;
    return value;
  }

  // NULL reads as absl::InfiniteFuture(), as in the SQL rows.
  absl::Time Time(int column) const {
    if (!fields_[skip_ + column]) return absl::InfiniteFuture();
    return absl::FromUnixMicros(Int64(column));
  }

  bool malformed() const { return malformed_; }

 private:
  const std::array<Field, kMaxFields>& fields_;
  const size_t skip_;
  mutable bool malformed_ = false;
};

// Every record is kept.
struct KeepAll {
  bool operator()(const std::array<Field, kMaxFields>&) const { return true; }
};

// Decodes the records of `text` that `keep` accepts, judged on their raw fields, into `rows`
// with `read_into`, overwriting the rows already there and adding more when needed; the first
// field of each record is its creation order. Every record's framing and order are read, kept or
// not. Returns how many rows hold records.
template <typename T, typename ReadInto, typename Keep = KeepAll>
absl::StatusOr<size_t> DecodeOrderedRecords(absl::string_view what, absl::string_view text,
                                            size_t field_count, std::vector<T>& rows,
                                            ReadInto read_into, Keep keep = {}) {
  absl::InlinedVector<int64_t, 8> order;
  FieldReader reader(text);
  std::array<Field, kMaxFields> fields;
  bool in_order = true;
  size_t count = 0;
  while (!reader.done()) {
    const size_t start = reader.position();
    for (size_t i = 0; i < field_count; ++i) {
      if (!reader.Next(fields[i])) return Malformed(what, reader.position());
    }
    int64_t position = 0;
    if (!fields[0] || !ParseInt64(*fields[0], position)) return Malformed(what, start);
    if (!keep(fields)) continue;
    if (count == rows.size()) rows.emplace_back();
    RecordRow row(fields, /*skip=*/1);
    absl::Status read = read_into(row, rows[count]);
    if (!read.ok()) return read;
    if (row.malformed()) return Malformed(what, start);
    in_order = in_order && (order.empty() || order.back() < position);
    order.push_back(position);
    ++count;
  }
  // group_concat keeps the order of the ordered subquery it reads in practice, but SQLite does
  // not promise it: restore creation order when it was not kept.
  if (!in_order) {
    std::vector<size_t> by_order(count);
    for (size_t i = 0; i < count; ++i) by_order[i] = i;
    std::stable_sort(by_order.begin(), by_order.end(),
                     [&](size_t a, size_t b) { return order[a] < order[b]; });
    std::vector<T> sorted;
    sorted.reserve(count);
    for (size_t i : by_order) sorted.push_back(std::move(rows[i]));
    std::move(sorted.begin(), sorted.end(), rows.begin());
  }
  return count;
}

// Decodes the permissions of `text` that `keep` accepts into `rows`, as DecodeOrderedRecords.
template <typename Keep = KeepAll>
absl::StatusOr<size_t> DecodePermissionsInto(absl::string_view text, std::vector<Permission>& rows,
                                             Keep keep = {}) {
  return DecodeOrderedRecords("permissions", text, kPermissionFields, rows,
                              ReadPermissionColumnsInto<RecordRow>, keep);
}

// Whether a permission whose stored resource pattern is `pattern` may match `resource`:
// ResourceMatches says so, or the pattern is missing or empty, which only a damaged row holds, so
// that decoding it reports the damage (a deny read as matching nothing would stop denying). One
// whose pattern cannot match has no say in a decision about `resource`, whatever its other
// fields hold.
bool PatternMayMatch(const Field& pattern, absl::string_view resource) {
  return !pattern || pattern->empty() || ResourceMatches(*pattern, resource);
}

// Decodes the delegations and keeps, at the front, those active and unexpired at `now`, in
// order; returns how many.
absl::StatusOr<size_t> DecodeLiveDelegations(absl::string_view text, absl::Time now,
                                             std::vector<Delegation>& rows) {
  absl::StatusOr<size_t> count = DecodeOrderedRecords("delegations", text, kDelegationFields, rows,
                                                      ReadDelegationColumnsInto<RecordRow>);
  if (!count.ok()) return count;
  size_t live = 0;
  for (size_t i = 0; i < *count; ++i) {
    if (rows[i].status != DelegationStatus::kActive || rows[i].expires_at <= now) continue;
    if (i != live) std::swap(rows[live], rows[i]);  // a swap keeps both rows' memory
    ++live;
  }
  return live;
}

}  // namespace

absl::Status DecodeAgentRecordInto(absl::string_view text, Agent& agent) {
  FieldReader reader(text);
  std::array<Field, kMaxFields> fields;
  for (size_t i = 0; i < kAgentFields; ++i) {
    if (!reader.Next(fields[i])) return Malformed("an agent", reader.position());
  }
  if (!reader.done()) return Malformed("an agent", reader.position());
  RecordRow row(fields, /*skip=*/0);
  absl::Status read = ReadAgentColumnsInto(row, agent);
  if (read.ok() && row.malformed()) return Malformed("an agent", 0);
  return read;
}

absl::StatusOr<Agent> DecodeAgentRecord(absl::string_view text) {
  Agent agent;
  absl::Status decoded = DecodeAgentRecordInto(text, agent);
  if (!decoded.ok()) return decoded;
  return agent;
}

absl::StatusOr<std::vector<Permission>> DecodePermissionRecords(absl::string_view text) {
  std::vector<Permission> permissions;
  absl::StatusOr<size_t> count = DecodePermissionsInto(text, permissions);
  if (!count.ok()) return count.status();
  permissions.resize(*count);
  return permissions;
}

absl::StatusOr<bool> AnyAllowPermissionRecord(absl::string_view text) {
  constexpr size_t kEffectField = 6;  // after seq, id, agent_id, resource and actions
  FieldReader reader(text);
  Field field;
  bool any_allow = false;
  // The whole list is framed, an allow found or not: text damaged after an allow is damaged.
  while (!reader.done()) {
    const size_t start = reader.position();
    for (size_t i = 1; i <= kPermissionFields; ++i) {
      if (!reader.Next(field)) return Malformed("permissions", reader.position());
      if (i != kEffectField) continue;
      absl::StatusOr<Effect> effect =
          field ? ParseEffect(*field) : absl::InvalidArgumentError("NULL effect");
      if (!effect.ok()) return Malformed("permissions", start);
      any_allow = any_allow || *effect == Effect::kAllow;
    }
  }
  return any_allow;
}

absl::StatusOr<std::vector<Delegation>> DecodeDelegationRecords(absl::string_view text,
                                                                absl::Time now) {
  std::vector<Delegation> delegations;
  absl::StatusOr<size_t> live = DecodeLiveDelegations(text, now, delegations);
  if (!live.ok()) return live.status();
  delegations.resize(*live);
  return delegations;
}

void DecodedRecords::Reset() {
  kept_used_ = 0;
  permission_lists_used_ = 0;
  delegation_lists_used_ = 0;
}

const DecodedRecords::Kept* DecodedRecords::Find(absl::string_view agent_id) const {
  for (size_t i = 0; i < kept_used_; ++i) {
    if (kept_[i].agent_id == agent_id) return &kept_[i];
  }
  return nullptr;
}

DecodedRecords::Kept& DecodedRecords::Add(absl::string_view agent_id) {
  if (kept_used_ == kept_.size()) kept_.emplace_back();
  Kept& slot = kept_[kept_used_++];
  slot.agent_id.assign(agent_id.data(), agent_id.size());
  slot.exists = false;
  return slot;
}

void DecodedRecords::ForgetLast() {
  if (kept_used_ > 0) --kept_used_;
}

std::vector<Permission>& DecodedRecords::NextPermissionList() {
  if (permission_lists_used_ == permission_lists_.size()) permission_lists_.emplace_back();
  return permission_lists_[permission_lists_used_++];
}

absl::StatusOr<absl::Span<const Permission>> DecodedRecords::Permissions(absl::string_view text) {
  std::vector<Permission>& rows = NextPermissionList();
  absl::StatusOr<size_t> count = DecodePermissionsInto(text, rows);
  if (!count.ok()) return count.status();
  return absl::MakeConstSpan(rows.data(), *count);
}

absl::StatusOr<absl::Span<const Permission>> DecodedRecords::PermissionsThatMayMatch(
    absl::string_view text, absl::string_view resource) {
  std::vector<Permission>& rows = NextPermissionList();
  absl::StatusOr<size_t> count =
      DecodePermissionsInto(text, rows, [resource](const std::array<Field, kMaxFields>& fields) {
        return PatternMayMatch(fields[kPermissionResourceField], resource);
      });
  if (!count.ok()) return count.status();
  return absl::MakeConstSpan(rows.data(), *count);
}

absl::StatusOr<absl::Span<const Delegation>> DecodedRecords::Delegations(absl::string_view text,
                                                                         absl::Time now) {
  if (delegation_lists_used_ == delegation_lists_.size()) delegation_lists_.emplace_back();
  std::vector<Delegation>& rows = delegation_lists_[delegation_lists_used_++];
  absl::StatusOr<size_t> live = DecodeLiveDelegations(text, now, rows);
  if (!live.ok()) return live.status();
  return absl::MakeConstSpan(rows.data(), *live);
}

}  // namespace verdict
