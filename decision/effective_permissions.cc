#include "decision/effective_permissions.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "decision/decision_messages.h"
#include "decision/delegation_walker.h"
#include "decision/grants.h"

namespace verdict {
namespace {

using engine_internal::DelegationWalker;
using engine_internal::Lookups;
using engine_internal::OverBudget;
using engine_internal::WalkState;

// The actions both lists allow ("*" is any), in `a`'s order; empty when none.
std::vector<std::string> CommonActions(const std::vector<std::string>& a,
                                       const std::vector<std::string>& b) {
  auto any = [](const std::vector<std::string>& actions) {
    return std::find(actions.begin(), actions.end(), "*") != actions.end();
  };
  if (any(b)) return a;
  if (any(a)) return b;
  std::vector<std::string> common;
  for (const std::string& action : a) {
    if (std::find(b.begin(), b.end(), action) != b.end()) common.push_back(action);
  }
  return common;
}

// False only when no resource can match both patterns (decision/resource_match.h): at some
// position both name different literal segments, or one ends where the other goes on without
// a wildcard. Anything it cannot be sure of (a wildcard in a path, a partial wildcard) may
// overlap. A lent grant within a disjoint one covers nothing and is not listed.
bool PatternsMayOverlap(absl::string_view a, absl::string_view b) {
  if (a == "*" || b == "*") return true;
  const bool path = absl::StartsWith(a, "/");
  if (path != absl::StartsWith(b, "/")) return false;
  const char separator = path ? '/' : ':';
  const std::vector<absl::string_view> as = absl::StrSplit(a, separator);
  const std::vector<absl::string_view> bs = absl::StrSplit(b, separator);
  for (size_t i = 0; i < std::min(as.size(), bs.size()); ++i) {
    const bool a_wild = absl::StrContains(as[i], '*');
    const bool b_wild = absl::StrContains(bs[i], '*');
    if (path && (a_wild || b_wild)) return true;
    if (a_wild || b_wild) {
      // A trailing "*" matches the rest; a middle one exactly one segment; any other use of
      // '*' in a segment is not worth reasoning about.
      if ((a_wild && (as[i] != "*" || i + 1 == as.size())) ||
          (b_wild && (bs[i] != "*" || i + 1 == bs.size()))) {
        return true;
      }
      continue;
    }
    if (as[i] != bs[i]) return false;
  }
  return as.size() == bs.size();
}

// DelegationWalker's Holdings for EffectivePermissions: every grant an agent holds, each with
// what else must cover a call for it to hold (the grants it was lent under, the delegators'
// denies). Grants that say the same thing (by another path) are kept once.
class EffectiveHoldings {
 public:
  struct Held {
    EffectivePermission listed;
    std::vector<std::string> actions;  // the actions every grant of it allows
  };
  struct Value {
    std::vector<Held> grants;
    std::vector<Grant> denies;  // the agent's own, when it is a delegator
    absl::flat_hash_set<std::string> seen;
  };

  explicit EffectiveHoldings(DecisionBudget& budget) : budget_(budget) {}

  absl::Status Own(const WalkState&, absl::Span<const Permission> permissions, Value& value,
                   bool&) {
    for (const Permission& permission : permissions) {
      if (permission.effect == Effect::kDeny) value.denies.push_back(GrantOf(permission));
    }
    for (const Permission& permission : permissions) {
      if (permission.effect != Effect::kAllow) continue;
      Held held{{GrantOf(permission), {}, {}, value.denies}, permission.actions};
      if (!Keep(std::move(held), value)) return OverBudget();
    }
    return absl::OkStatus();
  }

  bool Wants(const Delegation& link, size_t lent_index) {
    return !link.permissions[lent_index].actions.empty();
  }

  void Unusable(const Delegation&, size_t, absl::string_view) {}

  absl::Status Extend(const WalkState& state, const Delegation& link, size_t lent_index,
                      const WalkState&, const Value& upper, Value& value, bool&) {
    const LentPermission& lent = link.permissions[lent_index];
    for (const Held& above : upper.grants) {
      std::vector<std::string> actions = CommonActions(lent.actions, above.actions);
      if (actions.empty()) continue;
      if (!PatternsMayOverlap(lent.resource, above.listed.grant.resource) ||
          std::any_of(above.listed.within.begin(), above.listed.within.end(),
                      [&lent](const Grant& within) {
                        return !PatternsMayOverlap(lent.resource, within.resource);
                      })) {
        continue;
      }
      Held held{{GrantOf(link, lent_index),
                 above.listed.via,
                 {above.listed.grant},
                 above.listed.excluded_by},
                std::move(actions)};
      held.listed.via.push_back({link.id, link.from_agent_id, link.to_agent_id});
      held.listed.within.insert(held.listed.within.end(), above.listed.within.begin(),
                                above.listed.within.end());
      // A delegator's own denies cut what it holds, whoever lent it.
      if (state.links > 0) {
        held.listed.excluded_by.insert(held.listed.excluded_by.end(), value.denies.begin(),
                                       value.denies.end());
      }
      if (!Keep(std::move(held), value)) return OverBudget();
    }
    return absl::OkStatus();
  }

 private:
  // What a grant says, without the ids and path that name where it comes from.
  static std::string ContentOf(const Held& held) {
    std::string content;
    auto add = [&content](const Grant& grant) {
      absl::StrAppend(&content, grant.resource, "\x1f", absl::StrJoin(grant.actions, ","), "\x1f",
                      grant.constraints_json, "\x1e");
    };
    add(held.listed.grant);
    content.push_back('\x1d');
    for (const Grant& grant : held.listed.within) add(grant);
    content.push_back('\x1d');
    for (const Grant& grant : held.listed.excluded_by) add(grant);
    return content;
  }

  // Adds `held` unless the same is held already; false when over budget.
  bool Keep(Held held, Value& value) {
    if (!budget_.Spend()) return false;
    if (value.seen.insert(ContentOf(held)).second) value.grants.push_back(std::move(held));
    return true;
  }

  DecisionBudget& budget_;
};

}  // namespace

absl::StatusOr<std::vector<EffectivePermission>> EffectivePermissions(const Agent& agent,
                                                                      PolicyView& view,
                                                                      absl::Time now,
                                                                      DecisionBudget* budget) {
  DecisionBudget default_budget;
  DecisionBudget& steps = budget ? *budget : default_budget;
  Lookups lookups(view, now, steps);
  auto over_budget = [&steps](absl::Status status) {
    if (steps.stopped()) {
      return absl::CancelledError("the caller gave up (cancelled, or past its deadline)");
    }
    if (steps.exhausted()) return absl::ResourceExhaustedError(EvaluationLimitMessage(steps));
    return status;
  };
  absl::StatusOr<absl::Span<const Permission>> own = lookups.PermissionsOf(agent.id);
  if (!own.ok()) return over_budget(own.status());
  EffectiveHoldings holdings(steps);
  DelegationWalker<EffectiveHoldings> walker(holdings, lookups);
  absl::StatusOr<const EffectiveHoldings::Value*> lent =
      walker.Held({agent.id, 0, kMaxDelegationDepth});
  if (!lent.ok()) return over_budget(lent.status());
  std::vector<EffectivePermission> effective;
  effective.reserve(own->size() + (*lent)->grants.size());
  for (const Permission& permission : *own) effective.push_back({GrantOf(permission), {}});
  for (const EffectiveHoldings::Held& held : (*lent)->grants) effective.push_back(held.listed);
  return effective;
}

}  // namespace verdict
