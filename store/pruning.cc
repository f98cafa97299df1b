#include "store/pruning.h"

#include "absl/strings/str_cat.h"

namespace verdict {

absl::Status CheckPruneLimits(const PruneLimits& limits) {
  if (limits.max_rows < 1 || limits.max_rows > kMaxPruneBatch) {
    return absl::InvalidArgumentError(
        absl::StrCat("pruning: max_rows must be 1 to ", kMaxPruneBatch, ", not ", limits.max_rows));
  }
  if (limits.approval_retention < absl::ZeroDuration() ||
      limits.approval_retention == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        "pruning: approval_retention must be a finite duration, not negative");
  }
  return absl::OkStatus();
}

}  // namespace verdict
