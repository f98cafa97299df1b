// What-if inputs for Simulate: a view that lays extra or removed policy over a snapshot,
// for one call, without writing anything.
#ifndef VERDICT_DECISION_WHAT_IF_H_
#define VERDICT_DECISION_WHAT_IF_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "decision/types.h"

namespace verdict {

// What one Simulate may add or remove (design section 8): enough to try any change an operator
// means to make, few enough that no what-if costs more than a stored policy of that size.
// Simulate refuses more with INVALID_ARGUMENT naming the cap.
inline constexpr size_t kMaxWhatIfPermissions = 64;
inline constexpr size_t kMaxWhatIfDelegations = 64;
inline constexpr size_t kMaxWhatIfLentPermissions = 256;  // over all extra delegations together
inline constexpr size_t kMaxWhatIfRemovedDelegations = 256;

struct WhatIf {
  std::optional<absl::Time> at;               // decide as of this time
  std::optional<std::string> client_ip;       // instead of the request's
  std::vector<Permission> extra_permissions;  // added to the subject's own (ids may be empty)
  std::vector<Delegation> extra_delegations;  // treated as active links
  std::vector<std::string> removed_delegation_ids;

  bool empty() const {
    return !at && !client_ip && extra_permissions.empty() && extra_delegations.empty() &&
           removed_delegation_ids.empty();
  }
};

}  // namespace verdict

#endif  // VERDICT_DECISION_WHAT_IF_H_
