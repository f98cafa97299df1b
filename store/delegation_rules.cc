#include "store/delegation_rules.h"

#include <algorithm>
#include <deque>
#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "decision/engine.h"
#include "decision/resource_match.h"

namespace verdict {
namespace {

// Bounds the work of one check on a densely connected graph; far above any real policy.
constexpr int kMaxAgentsVisited = 10000;

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
                   " agents visited)"));
}

// Reads each agent's permissions and delegations once per check.
class MemoizedGraph {
 public:
  explicit MemoizedGraph(DelegationGraph& graph) : graph_(graph) {}

  absl::StatusOr<const std::vector<Permission>*> PermissionsOf(const std::string& agent_id) {
    return Memoized(permissions_, agent_id, [&] { return graph_.PermissionsOf(agent_id); });
  }
  absl::StatusOr<const std::vector<Delegation>*> Into(const std::string& agent_id) {
    return Memoized(into_, agent_id, [&] { return graph_.ActiveDelegationsInto(agent_id); });
  }
  absl::StatusOr<const std::vector<Delegation>*> From(const std::string& agent_id) {
    return Memoized(from_, agent_id, [&] { return graph_.ActiveDelegationsFrom(agent_id); });
  }
  absl::StatusOr<const bool*> IsLive(const std::string& agent_id) {
    return Memoized(live_, agent_id, [&] { return graph_.IsLive(agent_id); });
  }

 private:
  template <typename Rows, typename Read>
  static absl::StatusOr<const Rows*> Memoized(absl::flat_hash_map<std::string, Rows>& memo,
                                              const std::string& key, Read read) {
    auto found = memo.find(key);
    if (found != memo.end()) return &found->second;
    absl::StatusOr<Rows> rows = read();
    if (!rows.ok()) return rows.status();
    return &memo.emplace(key, *std::move(rows)).first->second;
  }

  DelegationGraph& graph_;
  absl::flat_hash_map<std::string, std::vector<Permission>> permissions_;
  absl::flat_hash_map<std::string, std::vector<Delegation>> into_;
  absl::flat_hash_map<std::string, std::vector<Delegation>> from_;
  absl::flat_hash_map<std::string, bool> live_;
};

absl::Status CheckNoCycle(const NewDelegation& delegation, MemoizedGraph& graph) {
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
    absl::StatusOr<const std::vector<Delegation>*> out = graph.From(agent);
    if (!out.ok()) return out.status();
    for (const Delegation& link : **out) {
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

// Looks for a chain of holdings that lets the delegator lend `lent`: an allow permission of
// some agent's own, lent down active delegations to the delegator, each link covering it.
class HoldingSearch {
 public:
  HoldingSearch(MemoizedGraph& graph, const LentPermission& lent) : graph_(graph), lent_(lent) {}

  // True when `agent` holds `lent` through a chain whose full length, down to the new
  // delegate, is `links` plus the links above `agent`, within `depth_limit` (the smallest
  // max_depth so far). `above` holds the agents already on the chain (no loops).
  absl::StatusOr<bool> Holds(const std::string& agent, int links, int depth_limit,
                             std::vector<std::string>& above) {
    if (++agents_visited_ > kMaxAgentsVisited) return TooLarge();
    // As the engine walks a chain: a dead agent passes nothing on, nor one whose own deny
    // covers all that is lent.
    absl::StatusOr<const bool*> live = graph_.IsLive(agent);
    if (!live.ok()) return live.status();
    if (!**live) return false;
    absl::StatusOr<const std::vector<Permission>*> own = graph_.PermissionsOf(agent);
    if (!own.ok()) return own.status();
    if (std::any_of((*own)->begin(), (*own)->end(), [&](const Permission& permission) {
          return permission.effect == Effect::kDeny &&
                 Covers(permission.resource, permission.actions, lent_);
        })) {
      return false;
    }
    for (const Permission& permission : **own) {
      if (permission.effect != Effect::kAllow ||
          !Covers(permission.resource, permission.actions, lent_)) {
        continue;
      }
      covered_ = true;
      if (links <= depth_limit) return true;
      if (shortest_too_long_ == 0 || links < shortest_too_long_) {
        shortest_too_long_ = links;
        limit_of_shortest_ = depth_limit;
      }
    }
    if (links >= kMaxDelegationDepth) return false;  // the engine follows no longer path
    absl::StatusOr<const std::vector<Delegation>*> into = graph_.Into(agent);
    if (!into.ok()) return into.status();
    above.push_back(agent);
    for (const Delegation& link : **into) {
      if (std::find(above.begin(), above.end(), link.from_agent_id) != above.end()) continue;
      const bool lends_it = std::any_of(
          link.permissions.begin(), link.permissions.end(),
          [&](const LentPermission& l) { return Covers(l.resource, l.actions, lent_); });
      if (!lends_it) continue;
      absl::StatusOr<bool> holds =
          Holds(link.from_agent_id, links + 1, std::min(depth_limit, link.max_depth), above);
      if (!holds.ok() || *holds) {
        above.pop_back();
        return holds;
      }
    }
    above.pop_back();
    return false;
  }

  bool covered() const { return covered_; }
  int shortest_too_long() const { return shortest_too_long_; }
  int limit_of_shortest() const { return limit_of_shortest_; }

 private:
  MemoizedGraph& graph_;
  const LentPermission& lent_;
  int agents_visited_ = 0;
  bool covered_ = false;
  int shortest_too_long_ = 0;
  int limit_of_shortest_ = 0;
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

absl::Status CheckNewDelegation(const NewDelegation& delegation, DelegationGraph& graph) {
  MemoizedGraph memoized(graph);
  if (absl::Status no_cycle = CheckNoCycle(delegation, memoized); !no_cycle.ok()) {
    return no_cycle;
  }
  for (const LentPermission& lent : delegation.permissions) {
    HoldingSearch search(memoized, lent);
    std::vector<std::string> above;
    absl::StatusOr<bool> holds =
        search.Holds(delegation.from_agent_id, /*links=*/1, delegation.max_depth, above);
    if (!holds.ok()) return holds.status();
    if (*holds) continue;
    if (!search.covered()) {
      return absl::FailedPreconditionError(absl::StrCat(
          delegation.from_agent_id, " cannot lend ", Describe(lent),
          ": it holds that neither by an allow permission of its own nor through an active "
          "delegation"));
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "lending ", Describe(lent), " from ", delegation.from_agent_id, " to ",
        delegation.to_agent_id, " needs a delegation path of ", search.shortest_too_long(),
        " links, more than a max_depth on that path allows (", search.limit_of_shortest(), ")"));
  }
  return absl::OkStatus();
}

}  // namespace verdict
