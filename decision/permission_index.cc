#include "decision/permission_index.h"

#include <algorithm>
#include <utility>

#include "decision/resource_match.h"

namespace verdict {
namespace {

bool IsPath(absl::string_view s) { return !s.empty() && s.front() == '/'; }

}  // namespace

absl::string_view LiteralHeadOf(absl::string_view pattern) {
  const bool path = IsPath(pattern);
  const char separator = path ? '/' : ':';
  size_t start = 0;  // of the current segment
  while (true) {
    size_t end = pattern.find(separator, start);
    if (end == absl::string_view::npos) end = pattern.size();
    const absl::string_view segment = pattern.substr(start, end - start);
    const bool wildcard = path ? segment.find('*') != absl::string_view::npos : segment == "*";
    if (wildcard) return pattern.substr(0, start == 0 ? 0 : start - 1);
    if (end == pattern.size()) return pattern;
    start = end + 1;
  }
}

PermissionIndex::PermissionIndex(std::vector<Permission> permissions)
    : permissions_(std::move(permissions)) {
  for (uint32_t i = 0; i < permissions_.size(); ++i) {
    const absl::string_view head = LiteralHeadOf(permissions_[i].resource);
    by_head_[head].push_back(i);
    head_lengths_.push_back(head.size());
  }
  std::sort(head_lengths_.begin(), head_lengths_.end());
  head_lengths_.erase(std::unique(head_lengths_.begin(), head_lengths_.end()), head_lengths_.end());
}

void PermissionIndex::MayMatch(absl::string_view action, absl::string_view resource,
                               std::vector<Permission>& out) const {
  out.clear();
  // A request names a path or a colon resource; only "*" and path patterns match a path, and
  // their heads end where a path segment does.
  const char separator = IsPath(resource) ? '/' : ':';
  std::vector<uint32_t> found;
  for (size_t length : head_lengths_) {
    if (length > resource.size()) break;
    const bool boundary = length == 0 || length == resource.size() || resource[length] == separator;
    if (!boundary) continue;
    auto bucket = by_head_.find(resource.substr(0, length));
    if (bucket == by_head_.end()) continue;
    for (uint32_t i : bucket->second) {
      if (ActionMatches(permissions_[i].actions, action)) found.push_back(i);
    }
  }
  std::sort(found.begin(), found.end());
  out.reserve(found.size());
  for (uint32_t i : found) out.push_back(permissions_[i]);
}

}  // namespace verdict
