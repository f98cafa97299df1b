#include "server/seed.h"

#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "app/admin_input.h"
#include "app/policy_json.h"

namespace verdict {

absl::StatusOr<SeedOutcome> SeedIfEmpty(PolicyAdmin& admin, absl::string_view policy_json,
                                        ImportCounts* imported_counts) {
  absl::StatusOr<PolicyContents> policy = PolicyFromJson(policy_json);
  if (!policy.ok()) return policy.status();
  if (absl::Status valid = PreparePolicyImport(*policy, absl::Now()).status(); !valid.ok()) {
    return valid;
  }
  absl::StatusOr<bool> empty = admin.IsEmpty();
  if (!empty.ok()) return empty.status();
  if (!*empty) return SeedOutcome::kStoreHeldAPolicy;
  absl::Status imported = admin.ImportPolicy(*policy);
  if (imported.ok()) {
    if (imported_counts != nullptr) {
      imported_counts->agents = static_cast<int>(policy->agents.size());
      imported_counts->permissions = static_cast<int>(policy->permissions.size());
      imported_counts->delegations = static_cast<int>(policy->delegations.size());
      imported_counts->revoked_token_ids = static_cast<int>(policy->revoked_token_ids.size());
    }
    return SeedOutcome::kImported;
  }
  if (imported.code() == absl::StatusCode::kFailedPrecondition) {
    // Import refuses a store that is not empty: another process seeded it in between.
    absl::StatusOr<bool> still_empty = admin.IsEmpty();
    if (still_empty.ok() && !*still_empty) return SeedOutcome::kStoreHeldAPolicy;
  }
  return imported;
}

}  // namespace verdict
