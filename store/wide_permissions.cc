#include "store/wide_permissions.h"

#include <algorithm>
#include <utility>

#include "absl/status/statusor.h"
#include "store/decision_record.h"

namespace verdict {

absl::Status WidePermissions::MayMatch(absl::string_view agent_id, absl::string_view text,
                                       absl::string_view action, absl::string_view resource,
                                       std::vector<Permission>& out) {
  ++uses_;
  auto kept = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& entry) {
    return entry.index != nullptr && entry.agent_id == agent_id && entry.text == text;
  });
  if (kept == entries_.end()) {
    absl::StatusOr<std::vector<Permission>> permissions = DecodePermissionRecords(text);
    if (!permissions.ok()) return permissions.status();
    kept = std::min_element(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
      return a.last_used < b.last_used;
    });
    kept->index = nullptr;  // never left holding another text's index
    kept->agent_id.assign(agent_id.data(), agent_id.size());
    kept->text.assign(text.data(), text.size());
    kept->index = std::make_unique<PermissionIndex>(*std::move(permissions));
  }
  kept->last_used = uses_;
  kept->index->MayMatch(action, resource, out);
  return absl::OkStatus();
}

}  // namespace verdict
