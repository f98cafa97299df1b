// What one connection keeps of the agents that hold many permissions: their decoded and indexed
// list (decision/permission_index.h), keyed by the exact stored text it came from. A decision
// still reads the agent's record in its own transaction (design section 3); only when that text
// is byte for byte the text kept does it skip decoding thousands of permissions, and it then
// looks at the few that may match its request (issue 16: an agent with 10,000 permissions).
//
//   WidePermissions& wide = connection.wide_permissions();
//   if (text.size() >= WidePermissions::kMinBytes) {
//     absl::Status s = wide.MayMatch("agt_1", text, "read", "docs:12:page", out);
//   }
#ifndef VERDICT_STORE_WIDE_PERMISSIONS_H_
#define VERDICT_STORE_WIDE_PERMISSIONS_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "decision/permission_index.h"
#include "decision/types.h"

namespace verdict {

class WidePermissions {
 public:
  // Lists shorter than this (about 200 permissions) are decoded per call, as before: decoding
  // them costs less than comparing and keeping their text.
  static constexpr size_t kMinBytes = 16 * 1024;

  // Replaces `out` with the permissions of `text` (agent `agent_id`'s encoded list, store/
  // decision_record.h) that may match `action` on `resource`, in creation order. Decodes and
  // indexes `text` unless it is the text kept for the agent. INTERNAL when it does not decode.
  absl::Status MayMatch(absl::string_view agent_id, absl::string_view text,
                        absl::string_view action, absl::string_view resource,
                        std::vector<Permission>& out);

 private:
  struct Entry {
    std::string agent_id;
    std::string text;
    std::unique_ptr<PermissionIndex> index;
    uint64_t last_used = 0;
  };
  // Two agents per connection: enough for a wide subject and a wide delegator, and a bound on
  // the memory (about 4 MB per 10,000 permissions).
  std::array<Entry, 2> entries_;
  uint64_t uses_ = 0;
};

}  // namespace verdict

#endif  // VERDICT_STORE_WIDE_PERMISSIONS_H_
