// Row ids: a kind prefix and random hex ("agt_3f9a0c1b2d4e5f60"), or an id a caller chose with
// the same prefix (imports, demo seeds).
//
//   std::string id = NewId(kAgentIdPrefix);
//   absl::Status ok = CheckId("id", "agt_demo_reader", kAgentIdPrefix);
#ifndef VERDICT_STORE_IDS_H_
#define VERDICT_STORE_IDS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace verdict {

inline constexpr absl::string_view kAgentIdPrefix = "agt_";
inline constexpr absl::string_view kPermissionIdPrefix = "perm_";
inline constexpr absl::string_view kDelegationIdPrefix = "dlg_";
inline constexpr absl::string_view kApprovalIdPrefix = "apr_";

// `prefix` followed by 16 lower-case hex characters from the CSPRNG.
std::string NewId(absl::string_view prefix);

// INVALID_ARGUMENT, naming `field`, unless `id` is `prefix` followed by 1 to 64 characters
// of [A-Za-z0-9_.-] and holds no agent token or JWS, which the message never repeats.
absl::Status CheckId(absl::string_view field, absl::string_view id, absl::string_view prefix);

// A delegation's lent permissions count their rate limits as "<delegation id>#<index>"
// (decision/engine.cc): every such id sorts from `first` up to, not including, `past_last`.
struct LentPermissionIdRange {
  std::string first;      // "<delegation id>#"
  std::string past_last;  // "<delegation id>$", '$' following '#'
};
LentPermissionIdRange LentPermissionIdsOf(absl::string_view delegation_id);

}  // namespace verdict

#endif  // VERDICT_STORE_IDS_H_
