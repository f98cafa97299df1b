#include "store/ids.h"

#include "absl/strings/str_cat.h"
#include "crypto/sha256.h"
#include "crypto/token.h"

namespace verdict {

std::string NewId(absl::string_view prefix) {
  return absl::StrCat(prefix, HexEncode(RandomBytes(8)));
}

LentPermissionIdRange LentPermissionIdsOf(absl::string_view delegation_id) {
  return {absl::StrCat(delegation_id, "#"), absl::StrCat(delegation_id, "$")};
}

}  // namespace verdict
