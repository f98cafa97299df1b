#include "decision/constraint_cache.h"

#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"

namespace verdict {

absl::StatusOr<std::shared_ptr<const Constraints>> ParsedConstraints(absl::string_view json) {
  constexpr size_t kMaxEntries = 256;
  thread_local absl::flat_hash_map<std::string, std::shared_ptr<const Constraints>> parsed;
  auto it = parsed.find(json);
  if (it != parsed.end()) return it->second;
  absl::StatusOr<Constraints> constraints = ParseConstraints(json);
  if (!constraints.ok()) return constraints.status();
  if (parsed.size() >= kMaxEntries) parsed.clear();
  auto shared = std::make_shared<const Constraints>(*std::move(constraints));
  parsed.emplace(json, shared);
  return shared;
}

}  // namespace verdict
