// verdictd --seed: a policy JSON document (app/policy_json.h) imported into an empty store,
// so a demo or a test starts with a known policy. A store that already holds a policy is left
// as it is: restarting with the same flags never duplicates or overwrites anything.
//
//   absl::StatusOr<SeedOutcome> seeded = SeedIfEmpty(store.admin(), policy_json);
#ifndef VERDICT_SERVER_SEED_H_
#define VERDICT_SERVER_SEED_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "app/policy_admin.h"
#include "app/policy_json.h"

namespace verdict {

enum class SeedOutcome {
  kImported,
  kStoreHeldAPolicy,  // left as it was
};

// What happened to `policy_json`. INVALID_ARGUMENT when the document is not a valid policy,
// whether or not the store is empty: a seed file broken since the first start is reported at
// every start, not first when the database is new. The store's status (UNAVAILABLE...) when it
// cannot be used. Safe when several processes seed one new database at once: one imports, the
// others find it seeded.
// With kImported, `imported` (when given) receives what the policy held.
absl::StatusOr<SeedOutcome> SeedIfEmpty(PolicyAdmin& admin, absl::string_view policy_json,
                                        ImportCounts* imported = nullptr);

}  // namespace verdict

#endif  // VERDICT_SERVER_SEED_H_
