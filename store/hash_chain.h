// The hash chain the decision log and the admin audit log share: each row carries its position
// (seq, from 1), the previous row's hash and its own, the SHA-256 of the canonical JSON
// (common/json.h) of all of its fields including seq and the previous hash, so editing,
// deleting or reordering a row breaks the chain at that row. Each log names its own fields;
// the numbering, the linking and the check are written once, here.
//
//   ChainRows(last_seq + 1, last_hash, rows, [](const Row& row) { return ChainHash(row); });
//   ChainLinks links(pruned_seq, pruned_hash);
//   for (const Row& row : rows) if (!links.Add(row.seq, row.prev_hash, row.hash, ChainHash(row)))
//   ...
#ifndef VERDICT_STORE_HASH_CHAIN_H_
#define VERDICT_STORE_HASH_CHAIN_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "common/json.h"

namespace verdict {

// The previous hash of the first row: 64 hex zeros.
extern const char kGenesisHash[];

// Lower-case hex SHA-256 of the canonical JSON of `fields`.
std::string ChainHashOfFields(JsonValue::Object fields);

// A JSON number for an integer field: the logs' integers (microseconds since 1970, latencies,
// seqs) stay far below 2^53, so a JSON number holds them exactly.
JsonValue ChainInteger(int64_t n);

// Numbers `rows` from `first_seq` and chains them after `previous_hash` (the last stored row's,
// or kGenesisHash): fills each row's seq, prev_hash and then hash = hash_of(row).
template <typename Row, typename HashOf>
void ChainRows(int64_t first_seq, absl::string_view previous_hash, std::vector<Row>& rows,
               HashOf hash_of) {
  std::string previous(previous_hash);
  int64_t seq = first_seq;
  for (Row& row : rows) {
    row.seq = seq++;
    row.prev_hash = std::move(previous);
    row.hash = hash_of(row);
    previous = row.hash;
  }
}

// Checks rows in seq order: each follows the one before (seq + 1), links to its hash, and
// matches its own recomputed hash. Stops at the first that does not.
class ChainLinks {
 public:
  // The chain starts after row `after_seq` whose hash is `after_hash` (0 and kGenesisHash for a
  // log that starts at its first row; the last pruned row's for a log whose start was pruned).
  explicit ChainLinks(int64_t after_seq = 0, std::string after_hash = kGenesisHash)
      : previous_seq_(after_seq), previous_hash_(std::move(after_hash)) {}

  // False (and problem() says why) at the first row that breaks the chain; later rows must not
  // be added.
  bool Add(int64_t seq, absl::string_view prev_hash, absl::string_view hash,
           absl::string_view recomputed_hash);
  // Rows that linked; the seq of the last of them (after_seq when none).
  int64_t rows_checked() const { return rows_checked_; }
  int64_t last_seq() const { return previous_seq_; }
  // 0 while intact; the first seq at which the stored rows differ from what was written.
  int64_t first_bad_seq() const { return first_bad_seq_; }
  const std::string& problem() const { return problem_; }
  // When the chain holds so far, checks that no row after last_seq() up to `high_water_seq`
  // (the highest seq the log has assigned) is missing; false and a problem otherwise.
  bool CheckEnd(int64_t high_water_seq, absl::string_view log_name);

 private:
  int64_t previous_seq_;
  std::string previous_hash_;
  int64_t rows_checked_ = 0;
  int64_t first_bad_seq_ = 0;
  std::string problem_;
};

}  // namespace verdict

#endif  // VERDICT_STORE_HASH_CHAIN_H_
