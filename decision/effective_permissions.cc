#include "decision/effective_permissions.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
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

// The actions both lists allow ("*" is any), in `a`'s order; empty when none. Views of the rows'
// own strings, which outlive the call's walk.
using Actions = absl::InlinedVector<absl::string_view, 4>;

template <typename A, typename B>
Actions CommonActions(const A& a, const B& b) {
  auto any = [](const auto& actions) {
    return std::find(actions.begin(), actions.end(), "*") != actions.end();
  };
  if (any(b)) return Actions(a.begin(), a.end());
  if (any(a)) return Actions(b.begin(), b.end());
  Actions common;
  for (absl::string_view action : a) {
    if (std::find(b.begin(), b.end(), action) != b.end()) common.push_back(action);
  }
  return common;
}

// The pieces of `text` between `separator`s, as absl::StrSplit gives them (empty ones kept),
// one at a time and without allocating.
class Segments {
 public:
  Segments(absl::string_view text, char separator) : rest_(text), separator_(separator) {}

  bool done() const { return done_; }

  // The next piece, and whether it is the last; only while !done().
  absl::string_view Next(bool& last) {
    const size_t at = rest_.find(separator_);
    if (at == absl::string_view::npos) {
      done_ = last = true;
      return rest_;
    }
    last = false;
    const absl::string_view piece = rest_.substr(0, at);
    rest_.remove_prefix(at + 1);
    return piece;
  }

 private:
  absl::string_view rest_;
  const char separator_;
  bool done_ = false;
};

// False only when no resource can match both patterns (decision/resource_match.h): at some
// position both name different literal segments, or one ends where the other goes on without
// a wildcard. Anything it cannot be sure of (a wildcard in a path, a partial wildcard) may
// overlap. A lent grant within a disjoint one covers nothing and is not listed.
bool PatternsMayOverlap(absl::string_view a, absl::string_view b) {
  if (a == "*" || b == "*") return true;
  const bool path = absl::StartsWith(a, "/");
  if (path != absl::StartsWith(b, "/")) return false;
  const char separator = path ? '/' : ':';
  Segments as(a, separator);
  Segments bs(b, separator);
  while (!as.done() && !bs.done()) {
    bool a_last = false;
    bool b_last = false;
    const absl::string_view a_segment = as.Next(a_last);
    const absl::string_view b_segment = bs.Next(b_last);
    const bool a_wild = absl::StrContains(a_segment, '*');
    const bool b_wild = absl::StrContains(b_segment, '*');
    if (path && (a_wild || b_wild)) return true;
    if (a_wild || b_wild) {
      // A trailing "*" matches the rest; a middle one exactly one segment; any other use of
      // '*' in a segment is not worth reasoning about.
      if ((a_wild && (a_segment != "*" || a_last)) || (b_wild && (b_segment != "*" || b_last))) {
        return true;
      }
      continue;
    }
    if (a_segment != b_segment) return false;
  }
  return as.done() && bs.done();
}

// A grant as the rows show it, not copied: an agent's own permission, or the permission a link
// lends. The rows live as long as the view, longer than the walk (PolicyView::PermissionsSpan).
class GrantRef {
 public:
  explicit GrantRef(const Permission& own) : own_(&own) {}
  GrantRef(const Delegation& link, size_t index) : link_(&link), index_(index) {}

  absl::string_view resource() const {
    return own_ ? own_->resource : link_->permissions[index_].resource;
  }
  const std::vector<std::string>& actions() const {
    return own_ ? own_->actions : link_->permissions[index_].actions;
  }
  absl::string_view constraints_json() const {
    return own_ ? own_->constraints_json : link_->permissions[index_].constraints_json;
  }
  Grant ToGrant() const { return own_ ? GrantOf(*own_) : GrantOf(*link_, index_); }

  // What the grant says (resource, actions, constraints), not where it comes from.
  bool SaysTheSameAs(const GrantRef& other) const {
    return resource() == other.resource() && actions() == other.actions() &&
           constraints_json() == other.constraints_json();
  }
  size_t ContentHash() const {
    return absl::Hash<Content>()(Content{resource(), &actions(), constraints_json()});
  }

 private:
  struct Content {
    absl::string_view resource;
    const std::vector<std::string>* actions;
    absl::string_view constraints_json;

    template <typename H>
    friend H AbslHashValue(H h, const Content& content) {
      return H::combine(std::move(h), content.resource, *content.actions, content.constraints_json);
    }
  };

  const Permission* own_ = nullptr;
  const Delegation* link_ = nullptr;
  size_t index_ = 0;
};

size_t Mix(size_t a, size_t b) { return absl::Hash<std::pair<size_t, size_t>>()({a, b}); }

// DelegationWalker's Holdings for EffectivePermissions: every grant an agent holds, each with
// what else must cover a call for it to hold (the grants it was lent under, the delegators'
// denies). Grants that say the same thing (by another path) are kept once.
//
// A held grant is kept as a reference to the row it comes from and to the held grant above it
// that it was lent under: its path, the grants it is within and the denies that exclude it are
// read off that chain, and copied out only for the subject's answer (Listed).
class EffectiveHoldings {
 public:
  using Denies = std::vector<const Permission*>;
  struct Held {
    GrantRef grant;
    const Held* above = nullptr;       // the grant it was lent under; nullptr for an own one
    const Delegation* link = nullptr;  // the link it was lent down; nullptr for an own one
    const Denies* denies = nullptr;    // the holder's denies that cut it, when a delegator's
    Actions actions;                   // the actions every grant of it allows
    uint32_t next_same_hash = kNone;   // the next held grant of the same Value with this hash
    // Hashes of what it says (its grant, the grants it is within, the denies that exclude it),
    // worked out only when a Value holds so many grants that they are found by hash (HashOf).
    mutable bool hashed = false;
    mutable size_t grant_hash = 0;
    mutable size_t within_hash = 0;
    mutable size_t excluded_hash = 0;
    mutable size_t hash = 0;
  };
  struct Value {
    std::vector<Held> grants;
    Denies denies;  // the agent's own, when it is a delegator
    absl::flat_hash_map<size_t, uint32_t> first_with_hash;  // once grants are many
  };

  explicit EffectiveHoldings(DecisionBudget& budget) : budget_(budget) {}

  absl::Status Own(const WalkState&, absl::Span<const Permission> permissions, Value& value,
                   bool&) {
    for (const Permission& permission : permissions) {
      if (permission.effect == Effect::kDeny) value.denies.push_back(&permission);
    }
    for (const Permission& permission : permissions) {
      if (permission.effect != Effect::kAllow) continue;
      Held held{GrantRef(permission), nullptr, nullptr, &value.denies,
                Actions(permission.actions.begin(), permission.actions.end())};
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
      Actions actions = CommonActions(lent.actions, above.actions);
      if (actions.empty()) continue;
      // The grants it would be within: the one above and every one that is within.
      bool may_overlap = true;
      for (const Held* within = &above; within != nullptr && may_overlap; within = within->above) {
        may_overlap = PatternsMayOverlap(lent.resource, within->grant.resource());
      }
      if (!may_overlap) continue;
      // A delegator's own denies cut what it holds, whoever lent it.
      Held held{GrantRef(link, lent_index), &above, &link,
                state.links > 0 ? &value.denies : nullptr, std::move(actions)};
      if (!Keep(std::move(held), value)) return OverBudget();
    }
    return absl::OkStatus();
  }

  // The held grant as ValidateToken lists it.
  static EffectivePermission Listed(const Held& held) {
    absl::InlinedVector<const Held*, kMaxDelegationDepth + 1> chain;  // `held`, then up
    for (const Held* up = &held; up != nullptr; up = up->above) chain.push_back(up);
    EffectivePermission listed{held.grant.ToGrant(), {}, {}, {}};
    listed.via.reserve(chain.size() - 1);
    listed.within.reserve(chain.size() - 1);
    for (size_t i = chain.size(); i-- > 0;) {  // the origin first
      if (const Delegation* link = chain[i]->link) {
        listed.via.push_back({link->id, link->from_agent_id, link->to_agent_id});
      }
      if (chain[i]->denies != nullptr) {
        for (const Permission* deny : *chain[i]->denies) {
          listed.excluded_by.push_back(GrantOf(*deny));
        }
      }
    }
    for (size_t i = 1; i < chain.size(); ++i) listed.within.push_back(chain[i]->grant.ToGrant());
    return listed;
  }

 private:
  static constexpr uint32_t kNone = ~uint32_t{0};
  static constexpr size_t kScannedGrants = 16;  // past this many, found by hash

  static size_t HashOf(const Held& held) {
    if (held.hashed) return held.hash;
    held.grant_hash = held.grant.ContentHash();
    if (held.above != nullptr) {
      HashOf(*held.above);
      held.within_hash = Mix(held.above->grant_hash, held.above->within_hash);
      held.excluded_hash = held.above->excluded_hash;
    }
    if (held.denies != nullptr) {
      for (const Permission* deny : *held.denies) {
        held.excluded_hash = Mix(held.excluded_hash, GrantRef(*deny).ContentHash());
      }
    }
    held.hash = Mix(Mix(held.grant_hash, held.within_hash), held.excluded_hash);
    held.hashed = true;
    return held.hash;
  }

  // The denies that exclude `held`, the top's first.
  static absl::InlinedVector<const Permission*, 8> ExcludedBy(const Held& held) {
    absl::InlinedVector<const Denies*, kMaxDelegationDepth + 1> lists;
    for (const Held* up = &held; up != nullptr; up = up->above) {
      if (up->denies != nullptr) lists.push_back(up->denies);
    }
    absl::InlinedVector<const Permission*, 8> denies;
    for (size_t i = lists.size(); i-- > 0;)
      denies.insert(denies.end(), lists[i]->begin(), lists[i]->end());
    return denies;
  }

  // Whether both say the same: the grant, the grants it is within, the denies that exclude it.
  static bool SaysTheSame(const Held& a, const Held& b) {
    if (!a.grant.SaysTheSameAs(b.grant)) return false;
    const Held* x = a.above;
    const Held* y = b.above;
    for (; x != y && x != nullptr && y != nullptr; x = x->above, y = y->above) {
      if (!x->grant.SaysTheSameAs(y->grant)) return false;
    }
    if (x != y) return false;
    const absl::InlinedVector<const Permission*, 8> a_denies = ExcludedBy(a);
    const absl::InlinedVector<const Permission*, 8> b_denies = ExcludedBy(b);
    return std::equal(a_denies.begin(), a_denies.end(), b_denies.begin(), b_denies.end(),
                      [](const Permission* x, const Permission* y) {
                        return x == y || GrantRef(*x).SaysTheSameAs(GrantRef(*y));
                      });
  }

  // Adds `held` unless the same is held already; false when over budget.
  bool Keep(Held held, Value& value) {
    if (!budget_.Spend()) return false;
    std::vector<Held>& grants = value.grants;
    if (grants.size() < kScannedGrants) {
      for (const Held& kept : grants) {
        if (SaysTheSame(kept, held)) return true;
      }
    } else {
      if (grants.size() == kScannedGrants && value.first_with_hash.empty()) {
        for (uint32_t i = 0; i < grants.size(); ++i) Index(value, i);
      }
      auto found = value.first_with_hash.find(HashOf(held));
      for (uint32_t i = found == value.first_with_hash.end() ? kNone : found->second; i != kNone;
           i = grants[i].next_same_hash) {
        if (SaysTheSame(grants[i], held)) return true;
      }
    }
    grants.push_back(std::move(held));
    if (grants.size() > kScannedGrants) Index(value, static_cast<uint32_t>(grants.size() - 1));
    return true;
  }

  static void Index(Value& value, uint32_t i) {
    auto [it, added] = value.first_with_hash.try_emplace(HashOf(value.grants[i]), i);
    if (!added) {
      value.grants[i].next_same_hash = it->second;
      it->second = i;
    }
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
  for (const EffectiveHoldings::Held& held : (*lent)->grants) {
    effective.push_back(EffectiveHoldings::Listed(held));
  }
  return effective;
}

}  // namespace verdict
