#include "server/seed.h"

#include "absl/status/statusor.h"
#include "store/policy_json.h"

namespace verdict {

absl::Status SeedIfEmpty(PolicyAdmin& admin, absl::string_view policy_json) {
  absl::StatusOr<bool> empty = admin.IsEmpty();
  if (!empty.ok()) return empty.status();
  if (!*empty) return absl::OkStatus();
  absl::Status imported = ImportPolicyJson(admin, policy_json).status();
  if (imported.code() == absl::StatusCode::kFailedPrecondition) {
    // Import refuses a store that is not empty: another process seeded it in between.
    absl::StatusOr<bool> still_empty = admin.IsEmpty();
    if (still_empty.ok() && !*still_empty) return absl::OkStatus();
  }
  return imported;
}

}  // namespace verdict
