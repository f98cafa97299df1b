// The delegation search (design section 2.2), shared by Decide (decision/engine.h) and
// EffectivePermissions (decision/effective_permissions.h): the lookups of one call, each made
// once, and DelegationWalker, which works out what an agent holds through the live links into it,
// each state once. Internal to the engine and to the new-delegation rules
// (decision/admin/delegation_rules.h); its callers give it a `Holdings` that says what "holds"
// means for them.
//
//   Lookups lookups(view, now, budget);
//   DelegationWalker<EffectiveHoldings> walker(holdings, lookups);
//   absl::StatusOr<const EffectiveHoldings::Value*> held =
//       walker.Held({agent.id, 0, kMaxDelegationDepth});
#ifndef VERDICT_DECISION_DELEGATION_WALKER_H_
#define VERDICT_DECISION_DELEGATION_WALKER_H_

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "decision/budget.h"
#include "decision/policy_view.h"
#include "decision/subject.h"
#include "decision/types.h"

namespace verdict {
namespace engine_internal {

// What a step past the budget (or after the caller gave up) returns through the walk: the
// decider then answers from the budget's state, never from this status.
inline absl::Status OverBudget() {
  return absl::ResourceExhaustedError("the decision budget is spent");
}

// The lookups of one call, each made at most once and each spending a step of the budget;
// nothing outlives the call (design section 3). A call usually looks up a handful of agents, so
// a short list searched in order beats a hash map. The view keeps the rows its spans show
// (PolicyView::PermissionsSpan) for as long as it lives, which is longer than the Lookups. Every
// agent id passed in must outlive the Lookups too: the engine passes the subject's id and ids
// held by looked-up links.
class Lookups {
 public:
  Lookups(PolicyView& view, absl::Time now, DecisionBudget& budget)
      : view_(view), now_(now), budget_(budget) {}

  absl::StatusOr<bool> IsLive(absl::string_view agent_id) {
    for (const auto& [id, live] : liveness_) {
      if (id == agent_id) return live;
    }
    if (!budget_.Spend()) return OverBudget();
    absl::StatusOr<const Agent*> agent = view_.FindAgentRef(agent_id);
    if (!agent.ok()) return agent.status();
    const bool live = *agent != nullptr && LivenessOf(**agent, now_) == ReasonCode::kAllowed;
    liveness_.emplace_back(agent_id, live);
    return live;
  }

  // From now on, PermissionsOf may leave out permissions that cannot match `action` on
  // `resource` (PolicyView::PermissionsThatMayMatch): for a decision without a trace, which
  // looks at no other. Both must outlive the Lookups.
  void OnlyFor(absl::string_view action, absl::string_view resource) {
    only_for_ = {action, resource};
  }

  absl::StatusOr<absl::Span<const Permission>> PermissionsOf(absl::string_view agent_id) {
    return Cached(permissions_, agent_id, [&](absl::string_view id) {
      return only_for_ ? view_.PermissionsThatMayMatch(id, only_for_->first, only_for_->second)
                       : view_.PermissionsSpan(id);
    });
  }

  absl::StatusOr<absl::Span<const Delegation>> DelegationsInto(absl::string_view agent_id) {
    return Cached(delegations_, agent_id,
                  [&](absl::string_view id) { return view_.ActiveDelegationsIntoSpan(id, now_); });
  }

  DecisionBudget& budget() { return budget_; }

 private:
  template <typename Row>
  using Answers = absl::InlinedVector<std::pair<absl::string_view, absl::Span<const Row>>, 4>;

  template <typename Row, typename Lookup>
  absl::StatusOr<absl::Span<const Row>> Cached(Answers<Row>& answers, absl::string_view agent_id,
                                               Lookup lookup) {
    for (const auto& [id, rows] : answers) {
      if (id == agent_id) return rows;
    }
    if (!budget_.Spend()) return OverBudget();
    absl::StatusOr<absl::Span<const Row>> rows = lookup(agent_id);
    if (!rows.ok()) return rows.status();
    answers.emplace_back(agent_id, *rows);
    return *rows;
  }

  PolicyView& view_;
  const absl::Time now_;
  DecisionBudget& budget_;
  absl::InlinedVector<std::pair<absl::string_view, bool>, 4> liveness_;
  std::optional<std::pair<absl::string_view, absl::string_view>> only_for_;
  Answers<Permission> permissions_;
  Answers<Delegation> delegations_;
};

// A state of the delegation search: an agent reached from the subject over `links` links whose
// smallest max_depth (and kMaxDelegationDepth) is `limit`. What an agent holds depends on the
// path below it only through these two numbers, so each state is worked out once per decision.
struct WalkState {
  absl::string_view agent;
  int links = 0;
  int limit = kMaxDelegationDepth;

  bool operator==(const WalkState& other) const {
    return links == other.links && limit == other.limit && agent == other.agent;
  }
  template <typename H>
  friend H AbslHashValue(H h, const WalkState& state) {
    return H::combine(std::move(h), state.agent, state.links, state.limit);
  }
};

struct TakenLink {
  const Delegation* delegation;
  size_t lent_index;
};

// The hops of `links` (taken from the subject upward), from the top agent down to the subject.
inline std::vector<DelegationHop> HopsFromTop(absl::Span<const TakenLink> links) {
  std::vector<DelegationHop> hops;
  hops.reserve(links.size());
  for (auto link = links.rbegin(); link != links.rend(); ++link) {
    hops.push_back(
        {link->delegation->id, link->delegation->from_agent_id, link->delegation->to_agent_id});
  }
  return hops;
}

// The delegation search, shared by Decide and EffectivePermissions: what an agent holds at a
// state is its own permissions (for a delegator: minus what its denies cover) and, through
// every live link into it that the depth limits allow, each lent permission as far as the
// delegator holds it at the next state up. `Holdings` says what "holds" means: for Decide, the
// best chain for one concrete call; for EffectivePermissions, every effective grant.
//
// Each state is worked out once (memoised), so the cost grows with agents x links x depth,
// never with the number of paths; every state and lent permission tried spends a step of the
// budget. A path is not kept free of cycles here (that would make a state's answer depend on
// the path below it): a walk that goes around a cycle holds no more than the same walk with the
// cycle cut out, which is shorter, so the callers cut cycles out of what they report.
//
// Holdings provides:
//   using Value = ...;  // what an agent holds at a state, default-constructible
//   absl::Status Own(const WalkState&, Span<const Permission>, Value&, bool& done);  // links > 0
//   bool Wants(const Delegation&, size_t lent_index);  // whether the lent permission may count
//   void Unusable(const Delegation&, size_t lent_index, absl::string_view why);
//   absl::Status Extend(const WalkState&, const Delegation&, size_t lent_index,
//                       const WalkState& next, const Value& upper, Value&, bool& done);
// `done` stops the state's work early (nothing more it could hold would change its Value).
//
// With `kPastMaxDepth`, links past a max_depth on the path are followed too (up to
// kMaxDelegationDepth links): for the new-delegation rules (decision/admin/delegation_rules.h),
// which tell "held, but only through too long a path" from "not held"; the Holdings then judges
// the depth from WalkState::limit itself. A compile-time choice: Decide's walk is unchanged.
template <typename Holdings, bool kPastMaxDepth = false>
class DelegationWalker {
 public:
  using Value = typename Holdings::Value;

  DelegationWalker(Holdings& holdings, Lookups& lookups) : holdings_(holdings), lookups_(lookups) {}

  // What the state's agent holds; valid as long as the walker.
  absl::StatusOr<const Value*> Held(const WalkState& state) {
    if (const Value* known = Find(state)) return known;
    if (!lookups_.budget().Spend()) return OverBudget();
    auto entry = std::make_unique<Entry>(Entry{state, Value()});
    Value& value = entry->value;
    bool done = false;
    if (state.links > 0) {
      absl::StatusOr<absl::Span<const Permission>> own = lookups_.PermissionsOf(state.agent);
      if (!own.ok()) return own.status();
      if (absl::Status status = holdings_.Own(state, *own, value, done); !status.ok()) {
        return status;
      }
    }
    if (!done) {
      absl::StatusOr<absl::Span<const Delegation>> links = lookups_.DelegationsInto(state.agent);
      if (!links.ok()) return links.status();
      for (const Delegation& link : *links) {
        std::optional<std::string> unusable;  // found out once per link, when it is wanted
        for (size_t i = 0; i < link.permissions.size() && !done; ++i) {
          if (!lookups_.budget().Spend()) return OverBudget();
          stack_.push_back({&link, i});
          const bool wanted = holdings_.Wants(link, i);
          stack_.pop_back();
          if (!wanted) continue;
          if (!unusable) {
            absl::StatusOr<std::string> why = WhyUnusable(link, state);
            if (!why.ok()) return why.status();
            unusable = *std::move(why);
          }
          if (!unusable->empty()) {
            stack_.push_back({&link, i});
            holdings_.Unusable(link, i, *unusable);
            stack_.pop_back();
            continue;
          }
          const WalkState next{link.from_agent_id, state.links + 1,
                               std::min(state.limit, link.max_depth)};
          stack_.push_back({&link, i});
          absl::StatusOr<const Value*> upper = Held(next);
          absl::Status status = upper.ok()
                                    ? holdings_.Extend(state, link, i, next, **upper, value, done)
                                    : upper.status();
          stack_.pop_back();
          if (!status.ok()) return status;
        }
        if (done) break;
      }
    }
    return &Remember(std::move(entry))->value;
  }

  // The links taken from the subject up to the state being worked out, for traces.
  absl::Span<const TakenLink> stack() const { return stack_; }

 private:
  struct Entry {
    WalkState state;
    Value value;
  };
  static constexpr size_t kListedStates = 16;  // past this many, states are found by hash

  const Value* Find(const WalkState& state) const {
    if (memo_.size() <= kListedStates) {
      for (const std::unique_ptr<Entry>& entry : memo_) {
        if (entry->state == state) return &entry->value;
      }
      return nullptr;
    }
    auto it = index_.find(state);
    return it == index_.end() ? nullptr : &it->second->value;
  }

  Entry* Remember(std::unique_ptr<Entry> entry) {
    Entry* kept = memo_.emplace_back(std::move(entry)).get();
    if (memo_.size() == kListedStates + 1) {
      for (const std::unique_ptr<Entry>& known : memo_) index_.emplace(known->state, known.get());
    } else if (memo_.size() > kListedStates + 1) {
      index_.emplace(kept->state, kept);
    }
    return kept;
  }

  // Why `link` may not lead up from `state`, or "": the path it makes must stay within every
  // max_depth on it (the link's own included) and kMaxDelegationDepth, and its delegator must
  // be live.
  absl::StatusOr<std::string> WhyUnusable(const Delegation& link, const WalkState& state) {
    const int depth = state.links + 1;
    if (kPastMaxDepth) {
      if (depth > kMaxDelegationDepth) {
        return absl::StrCat("path length ", depth, " exceeds ", kMaxDelegationDepth);
      }
    } else {
      if (depth > link.max_depth) {
        return absl::StrCat("path length ", depth, " exceeds ", link.id, "'s max_depth ",
                            link.max_depth);
      }
      if (depth > state.limit) {
        return absl::StrCat("path length ", depth, " exceeds the depth limit ", state.limit);
      }
    }
    absl::StatusOr<bool> live = lookups_.IsLive(link.from_agent_id);
    if (!live.ok()) return live.status();
    if (!*live) return absl::StrCat("delegator ", link.from_agent_id, " is not live");
    return "";
  }

  Holdings& holdings_;
  Lookups& lookups_;
  std::vector<std::unique_ptr<Entry>> memo_;
  absl::flat_hash_map<WalkState, Entry*> index_;
  absl::InlinedVector<TakenLink, kMaxDelegationDepth + 1> stack_;
};

}  // namespace engine_internal
}  // namespace verdict

#endif  // VERDICT_DECISION_DELEGATION_WALKER_H_
