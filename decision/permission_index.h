// One agent's own permissions indexed by the part of their resource pattern a request must
// repeat literally, so that a decision for an agent holding thousands of permissions looks at
// the few that may match instead of all of them (issue 16).
//
// A colon pattern's head is its segments before the first "*" segment ("docs:12:*" -> "docs:12",
// "*" -> ""); a path pattern's is its segments before the first one holding a '*'
// ("/api/v1/*/edit" -> "/api/v1"); a pattern without wildcards is its own head. Any resource a
// pattern matches starts with the pattern's head followed by a segment boundary (or ends there),
// so the candidates for a request are the permissions whose head is one of its boundary
// prefixes: at most one hash lookup per distinct head length.
//
//   PermissionIndex index(std::move(permissions));            // once per stored record
//   std::vector<Permission> may_match;
//   index.MayMatch("read", "docs:12:page", may_match);         // per decision
#ifndef VERDICT_DECISION_PERMISSION_INDEX_H_
#define VERDICT_DECISION_PERMISSION_INDEX_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "decision/types.h"

namespace verdict {

// The literal head of a resource pattern (see above); a view into `pattern`.
absl::string_view LiteralHeadOf(absl::string_view pattern);

class PermissionIndex {
 public:
  explicit PermissionIndex(std::vector<Permission> permissions);

  // Every permission, in creation order.
  const std::vector<Permission>& permissions() const { return permissions_; }

  // Replaces `out` with the permissions that may match `action` on `resource`, in creation
  // order: every one that ActionMatches and ResourceMatches (decision/resource_match.h), and
  // possibly others, which the engine then turns down as it would have.
  void MayMatch(absl::string_view action, absl::string_view resource,
                std::vector<Permission>& out) const;

 private:
  std::vector<Permission> permissions_;
  absl::flat_hash_map<std::string, std::vector<uint32_t>> by_head_;
  std::vector<size_t> head_lengths_;  // distinct, ascending
};

}  // namespace verdict

#endif  // VERDICT_DECISION_PERMISSION_INDEX_H_
