#include "decision/admin/row_ids.h"

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/redaction.h"
#include "crypto/token.h"

namespace verdict {
namespace {

constexpr size_t kMaxIdSuffixLength = 64;

bool IsIdCharacter(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
}

// A whole agent token ("vdt_" and 43 base64url characters) or a compact JWS anywhere in `id`.
bool HoldsAToken(absl::string_view id) {
  for (size_t at = id.find(kAgentTokenPrefix); at != absl::string_view::npos;
       at = id.find(kAgentTokenPrefix, at + 1)) {
    if (id.size() - at >= kAgentTokenLength &&
        CheckAgentTokenShape(id.substr(at, kAgentTokenLength)).ok()) {
      return true;
    }
  }
  return absl::StrContains(id, "eyJ") && RedactTokens(id) != id;
}

}  // namespace

absl::Status CheckId(absl::string_view field, absl::string_view id, absl::string_view prefix) {
  // A token pasted where an id belongs would be quoted back below, and by every "does not exist".
  // Only a whole agent token or a JWS is refused here, so that an id such as "agt_vdt_migration"
  // stays usable; the admin plane's errors redact any longer run after "vdt_" as well.
  if (HoldsAToken(id)) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": holds a token (not repeated here), not an id"));
  }
  if (!absl::StartsWith(id, prefix)) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": \"", absl::CHexEscape(id), "\" must start with \"", prefix, "\""));
  }
  const absl::string_view suffix = id.substr(prefix.size());
  if (suffix.empty() || suffix.size() > kMaxIdSuffixLength) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": \"", prefix, "\" must be followed by 1 to ", kMaxIdSuffixLength, " characters"));
  }
  for (size_t i = 0; i < suffix.size(); ++i) {
    if (!IsIdCharacter(suffix[i])) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ": character at byte ", prefix.size() + i, " is not one of A-Z a-z 0-9 _ . -"));
    }
  }
  return absl::OkStatus();
}

}  // namespace verdict
