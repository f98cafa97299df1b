// Parsed constraints by their JSON text, shared by every call a thread makes (design section 3
// allows it: the text is the key, so a grant whose constraints change is parsed afresh, never
// answered from a stale entry).
//
//   absl::StatusOr<std::shared_ptr<const Constraints>> c = ParsedConstraints(grant_json);
#ifndef VERDICT_DECISION_CONSTRAINT_CACHE_H_
#define VERDICT_DECISION_CONSTRAINT_CACHE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "decision/constraints.h"

namespace verdict {

// ParseConstraints(json), from this thread's cache when it parsed the same text before. When
// full the cache starts again empty; callers hold their own references to what they use. Text
// that does not parse is not kept.
absl::StatusOr<std::shared_ptr<const Constraints>> ParsedConstraints(absl::string_view json);

}  // namespace verdict

#endif  // VERDICT_DECISION_CONSTRAINT_CACHE_H_
