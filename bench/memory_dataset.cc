#include "bench/memory_dataset.h"

#include "bench/dataset.h"
#include "crypto/sha256.h"

namespace verdict::bench {

absl::Status LoadDataset(int64_t agents, MemoryPolicyStore& store) {
  for (int64_t agent = 0; agent < agents; ++agent) {
    if (absl::Status added = store.AddAgent(AgentRow(agent)); !added.ok()) return added;
    absl::Status token = store.SetAgentToken(AgentId(agent), Sha256(AgentToken(agent)));
    if (!token.ok()) return token;
    for (const Permission& permission : PermissionsOf(agent)) {
      if (absl::StatusOr<std::string> id = store.AddPermission(permission); !id.ok()) {
        return id.status();
      }
    }
  }
  for (int64_t chain = 0; chain < ChainCount(agents); ++chain) {
    for (const Delegation& link : ChainLinks(chain)) {
      if (absl::StatusOr<std::string> id = store.AddDelegation(link); !id.ok()) {
        return id.status();
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace verdict::bench
