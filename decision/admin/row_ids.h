// The rule of row ids: a kind prefix and then 1 to 64 characters of [A-Za-z0-9_.-]
// ("agt_3f9a0c1b2d4e5f60", "agt_demo_reader"). Drawing a random one is the caller's
// (store/ids.h's NewId): this layer does no I/O.
//
//   absl::Status ok = CheckId("id", "agt_demo_reader", kAgentIdPrefix);
#ifndef VERDICT_DECISION_ADMIN_ROW_IDS_H_
#define VERDICT_DECISION_ADMIN_ROW_IDS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace verdict {

inline constexpr absl::string_view kAgentIdPrefix = "agt_";
inline constexpr absl::string_view kPermissionIdPrefix = "perm_";
inline constexpr absl::string_view kDelegationIdPrefix = "dlg_";
inline constexpr absl::string_view kApprovalIdPrefix = "apr_";

// INVALID_ARGUMENT, naming `field`, unless `id` is `prefix` followed by 1 to 64 characters
// of [A-Za-z0-9_.-] and holds no agent token or JWS, which the message never repeats.
absl::Status CheckId(absl::string_view field, absl::string_view id, absl::string_view prefix);

}  // namespace verdict

#endif  // VERDICT_DECISION_ADMIN_ROW_IDS_H_
