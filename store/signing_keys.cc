#include "store/signing_keys.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/json.h"

namespace verdict {

std::string JoinAlgorithms(const std::vector<std::string>& algorithms) {
  return absl::StrJoin(algorithms, ",");
}

std::vector<std::string> SplitAlgorithms(absl::string_view joined) {
  return absl::StrSplit(joined, ',', absl::SkipEmpty());
}

absl::string_view SigningKeyStatusName(SigningKeyStatus status) {
  switch (status) {
    case SigningKeyStatus::kActive:
      return "active";
    case SigningKeyStatus::kRetired:
      return "retired";
  }
  return "";
}

absl::StatusOr<SigningKeyStatus> ParseSigningKeyStatus(absl::string_view name) {
  if (name == "active") return SigningKeyStatus::kActive;
  if (name == "retired") return SigningKeyStatus::kRetired;
  return absl::InvalidArgumentError(absl::StrCat("unknown signing key status ", JsonQuote(name)));
}

}  // namespace verdict
