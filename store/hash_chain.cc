#include "store/hash_chain.h"

#include "absl/strings/str_cat.h"
#include "crypto/sha256.h"

namespace verdict {

const char kGenesisHash[] = "0000000000000000000000000000000000000000000000000000000000000000";

std::string ChainHashOfFields(JsonValue::Object fields) {
  return HexEncode(Sha256(CanonicalJson(JsonValue::MakeObject(std::move(fields)))));
}

JsonValue ChainInteger(int64_t n) { return JsonValue::Number(static_cast<double>(n)); }

bool ChainLinks::Add(int64_t seq, absl::string_view prev_hash, absl::string_view hash,
                     absl::string_view recomputed_hash) {
  if (!problem_.empty()) return false;
  if (seq != previous_seq_ + 1) {
    problem_ = absl::StrCat("row ", previous_seq_ + 1, " is missing: row ", seq, " follows row ",
                            previous_seq_);
  } else if (prev_hash != previous_hash_) {
    problem_ = absl::StrCat("row ", seq, " does not link to the hash of row ", previous_seq_);
  } else if (hash != recomputed_hash) {
    problem_ = absl::StrCat("row ", seq, " does not match its hash: it was edited");
  }
  if (!problem_.empty()) {
    first_bad_seq_ = previous_seq_ + 1;
    return false;
  }
  ++rows_checked_;
  previous_seq_ = seq;
  previous_hash_ = std::string(hash);
  return true;
}

bool ChainLinks::CheckEnd(int64_t high_water_seq, absl::string_view log_name) {
  if (!problem_.empty()) return false;
  if (high_water_seq <= previous_seq_) return true;
  first_bad_seq_ = previous_seq_ + 1;
  problem_ = absl::StrCat("rows ", previous_seq_ + 1, " to ", high_water_seq,
                          " are missing from the end of the ", log_name);
  return false;
}

}  // namespace verdict
