#include "decision/admin/delegation_rules.h"

#include <algorithm>
#include <deque>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "decision/budget.h"
#include "decision/delegation_walker.h"
#include "decision/resource_match.h"

namespace verdict {
namespace {

using engine_internal::DelegationWalker;
using engine_internal::Lookups;
using engine_internal::WalkState;

// Bound the work of one check on a densely connected graph; far above any real policy.
constexpr int kMaxAgentsVisited = 10000;                    // by the cycle check
constexpr int64_t kMaxCheckSteps = 10 * kMaxAgentsVisited;  // by the search for what is held

bool HasDoubleStarSegment(absl::string_view pattern) {
  if (pattern.empty() || pattern.front() != '/') return false;
  for (absl::string_view segment : absl::StrSplit(pattern, '/')) {
    if (segment == "**") return true;
  }
  return false;
}

std::string Describe(const LentPermission& lent) {
  return absl::StrCat(absl::StrJoin(lent.actions, ", "), " on ", lent.resource);
}

absl::Status TooLarge() {
  return absl::FailedPreconditionError(
      absl::StrCat("the delegation graph is too large to check (more than ", kMaxAgentsVisited,
                   " agents visited, or ", kMaxCheckSteps, " steps of the search)"));
}

absl::Status CheckNoCycle(const NewDelegation& delegation, DelegationGraph& graph, absl::Time now) {
  // Breadth-first from the delegate along active delegations; reaching the delegator means the
  // new link would close a loop.
  std::map<std::string, std::string> reached_from = {{delegation.to_agent_id, ""}};
  std::deque<std::string> frontier = {delegation.to_agent_id};
  while (!frontier.empty()) {
    const std::string agent = frontier.front();
    frontier.pop_front();
    if (agent == delegation.from_agent_id) {
      std::vector<std::string> path;
      for (std::string at = agent; !at.empty(); at = reached_from[at]) path.push_back(at);
      std::reverse(path.begin(), path.end());
      return absl::FailedPreconditionError(absl::StrCat(
          "a delegation from ", delegation.from_agent_id, " to ", delegation.to_agent_id,
          " would close a cycle: ", delegation.to_agent_id, " already reaches ",
          delegation.from_agent_id, " (", absl::StrJoin(path, " -> "), ")"));
    }
    if (reached_from.size() > kMaxAgentsVisited) return TooLarge();
    absl::StatusOr<std::vector<Delegation>> out = graph.ActiveDelegationsFrom(agent, now);
    if (!out.ok()) return out.status();
    for (const Delegation& link : *out) {
      if (reached_from.emplace(link.to_agent_id, agent).second) {
        frontier.push_back(link.to_agent_id);
      }
    }
  }
  return absl::OkStatus();
}

bool Covers(const std::string& held_resource, const std::vector<std::string>& held_actions,
            const LentPermission& lent) {
  return ResourcePatternCovers(held_resource, lent.resource) &&
         ActionsCover(held_actions, lent.actions);
}

// DelegationWalker's Holdings for one lent permission: whether an agent holds it, through a
// chain of holdings from an allow permission of some agent's own down active delegations, each
// link covering it. The walk starts at the delegator as the first link's upper end (links 1,
// limit the new link's max_depth) and follows links past their max_depth too, so that a
// permission held only through too long a path is told apart from one not held at all.
class LendableHoldings {
 public:
  struct Value {
    bool held = false;     // within every max_depth on the path
    bool covered = false;  // by some chain, whatever its length
    int shortest_too_long = 0;
    int limit_of_shortest = 0;
  };

  explicit LendableHoldings(const LentPermission& lent) : lent_(lent) {}

  absl::Status Own(const WalkState& state, absl::Span<const Permission> own, Value& value,
                   bool& done) {
    // As the engine walks a chain: an agent whose own deny covers all that is lent passes
    // nothing on (a dead one is never reached).
    if (std::any_of(own.begin(), own.end(), [&](const Permission& permission) {
          return permission.effect == Effect::kDeny &&
                 Covers(permission.resource, permission.actions, lent_);
        })) {
      done = true;
      return absl::OkStatus();
    }
    for (const Permission& permission : own) {
      if (permission.effect != Effect::kAllow ||
          !Covers(permission.resource, permission.actions, lent_)) {
        continue;
      }
      Note(state.links, state.limit, value);
      if (value.held) break;
    }
    done = value.held;
    return absl::OkStatus();
  }

  bool Wants(const Delegation& link, size_t lent_index) {
    const LentPermission& l = link.permissions[lent_index];
    return Covers(l.resource, l.actions, lent_);
  }

  void Unusable(const Delegation&, size_t, absl::string_view) {}

  absl::Status Extend(const WalkState&, const Delegation&, size_t, const WalkState&,
                      const Value& upper, Value& value, bool& done) {
    if (upper.covered) {
      value.covered = true;
      value.held = value.held || upper.held;
      if (upper.shortest_too_long != 0 &&
          (value.shortest_too_long == 0 || upper.shortest_too_long < value.shortest_too_long)) {
        value.shortest_too_long = upper.shortest_too_long;
        value.limit_of_shortest = upper.limit_of_shortest;
      }
    }
    done = value.held;
    return absl::OkStatus();
  }

 private:
  // An allow of its own covers what is lent, `links` links above the new delegate.
  static void Note(int links, int limit, Value& value) {
    value.covered = true;
    if (links <= limit) {
      value.held = true;
    } else if (value.shortest_too_long == 0 || links < value.shortest_too_long) {
      value.shortest_too_long = links;
      value.limit_of_shortest = limit;
    }
  }

  const LentPermission& lent_;
};

}  // namespace

bool ResourcePatternCovers(absl::string_view held, absl::string_view lent) {
  if (held == lent || held == "*") return true;
  if (HasDoubleStarSegment(lent) && !HasDoubleStarSegment(held)) return false;
  return ResourceMatches(held, lent);
}

bool ActionsCover(const std::vector<std::string>& held, const std::vector<std::string>& lent) {
  if (std::find(held.begin(), held.end(), "*") != held.end()) return true;
  return std::all_of(lent.begin(), lent.end(), [&](const std::string& action) {
    return std::find(held.begin(), held.end(), action) != held.end();
  });
}

absl::Status CheckNewDelegation(const NewDelegation& delegation, DelegationGraph& graph,
                                absl::Time now) {
  if (absl::Status no_cycle = CheckNoCycle(delegation, graph, now); !no_cycle.ok()) {
    return no_cycle;
  }
  DecisionBudget budget(kMaxCheckSteps);
  Lookups lookups(graph, now, budget);  // each agent's rows read once for every lent permission
  auto walk_failed = [&budget](const absl::Status& status) {
    return budget.exhausted() ? TooLarge() : status;
  };
  // A dead delegator passes nothing on.
  absl::StatusOr<bool> live = lookups.IsLive(delegation.from_agent_id);
  if (!live.ok()) return walk_failed(live.status());
  for (const LentPermission& lent : delegation.permissions) {
    LendableHoldings holdings(lent);
    DelegationWalker<LendableHoldings, /*kPastMaxDepth=*/true> walker(holdings, lookups);
    LendableHoldings::Value none;
    const LendableHoldings::Value* held = &none;
    if (*live) {
      absl::StatusOr<const LendableHoldings::Value*> found =
          walker.Held({delegation.from_agent_id, /*links=*/1, delegation.max_depth});
      if (!found.ok()) return walk_failed(found.status());
      held = *found;
    }
    if (held->held) continue;
    if (!held->covered) {
      return absl::FailedPreconditionError(absl::StrCat(
          delegation.from_agent_id, " cannot lend ", Describe(lent),
          ": it holds that neither by an allow permission of its own nor through an active "
          "delegation"));
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "lending ", Describe(lent), " from ", delegation.from_agent_id, " to ",
        delegation.to_agent_id, " needs a delegation path of ", held->shortest_too_long,
        " links, more than a max_depth on that path allows (", held->limit_of_shortest, ")"));
  }
  return absl::OkStatus();
}

}  // namespace verdict
