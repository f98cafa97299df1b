#include "decision/chain.h"

namespace verdict {
namespace engine_internal {

Chain ChainOf(const Permission& origin, absl::Span<const TakenLink> taken) {
  Chain chain;
  chain.push_back(ChainElement::Own(origin));
  for (auto link = taken.rbegin(); link != taken.rend(); ++link) {
    chain.push_back(ChainElement::Lent(*link->delegation, link->lent_index));
  }
  return chain;
}

std::vector<DelegationHop> PathOf(const Chain& chain) {
  std::vector<DelegationHop> hops;
  hops.reserve(chain.size() - 1);
  for (size_t i = 1; i < chain.size(); ++i) {
    const Delegation& link = *chain[i].lent.delegation;
    hops.push_back({link.id, link.from_agent_id, link.to_agent_id});
  }
  return hops;
}

void CutCycles(Chain& chain) {
  for (size_t i = 0; i < chain.size(); ++i) {
    const absl::string_view holder = chain[i].holder();
    for (size_t j = chain.size() - 1; j > i; --j) {
      if (chain[j].holder() != holder) continue;
      // chain[i + 1 .. j] lead from `holder` back to it.
      chain.erase(chain.begin() + i + 1, chain.begin() + j + 1);
      break;
    }
  }
}

}  // namespace engine_internal
}  // namespace verdict
