// Row ids drawn at random: a kind prefix and random hex ("agt_3f9a0c1b2d4e5f60"). The prefixes
// and the rule an id must follow are decision/admin/row_ids.h's.
//
//   std::string id = NewId(kAgentIdPrefix);
#ifndef VERDICT_STORE_IDS_H_
#define VERDICT_STORE_IDS_H_

#include <string>

#include "absl/strings/string_view.h"
#include "decision/admin/row_ids.h"

namespace verdict {

// `prefix` followed by 16 lower-case hex characters from the CSPRNG.
std::string NewId(absl::string_view prefix);

// A delegation's lent permissions count their rate limits as "<delegation id>#<index>"
// (decision/engine.cc): every such id sorts from `first` up to, not including, `past_last`.
struct LentPermissionIdRange {
  std::string first;      // "<delegation id>#"
  std::string past_last;  // "<delegation id>$", '$' following '#'
};
LentPermissionIdRange LentPermissionIdsOf(absl::string_view delegation_id);

}  // namespace verdict

#endif  // VERDICT_STORE_IDS_H_
