#include "decision/engine.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "common/json.h"
#include "crypto/jwt_compact.h"
#include "crypto/sha256.h"
#include "crypto/token.h"
#include "decision/constraints.h"
#include "decision/resource_match.h"

namespace verdict {
namespace {

std::string LentPermissionId(const Delegation& link, size_t index) {
  return absl::StrCat(link.id, "#", index);
}

// Each field is copy-constructed in place: cheaper than assigning into empty strings.
Grant GrantOf(const Permission& permission) {
  return Grant{permission.id,      permission.agent_id, permission.resource,
               permission.actions, permission.effect,   permission.constraints_json};
}

Grant GrantOf(const Delegation& link, size_t index) {
  const LentPermission& lent = link.permissions[index];
  return Grant{LentPermissionId(link, index),
               link.from_agent_id,
               lent.resource,
               lent.actions,
               Effect::kAllow,
               lent.constraints_json};
}

// What a step past the budget (or after the caller gave up) returns through the walk: the
// decider then answers from the budget's state, never from this status.
absl::Status OverBudget() { return absl::ResourceExhaustedError("the decision budget is spent"); }

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
std::vector<DelegationHop> HopsFromTop(absl::Span<const TakenLink> links) {
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
template <typename Holdings>
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
    if (depth > link.max_depth) {
      return absl::StrCat("path length ", depth, " exceeds ", link.id, "'s max_depth ",
                          link.max_depth);
    }
    if (depth > state.limit) {
      return absl::StrCat("path length ", depth, " exceeds the depth limit ", state.limit);
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

// The order in which a chain's constraints are checked, cheapest first; a failure at a later
// stage got further.
enum class CheckStage { kTimeWindow, kIpAllowlist, kArguments, kApproval, kRateLimit };

// One grant in a chain: the origin's permission, or a permission lent down a link.
struct ChainElement {
  const Permission* origin;  // null for a lent permission
  TakenLink lent;            // for a lent permission

  static ChainElement Own(const Permission& permission) { return {&permission, {nullptr, 0}}; }
  static ChainElement Lent(const Delegation& link, size_t index) {
    return {nullptr, {&link, index}};
  }

  const std::string& constraints_json() const {
    return origin ? origin->constraints_json
                  : lent.delegation->permissions[lent.lent_index].constraints_json;
  }
  // Names it in messages and rate-limit slots; built only when one of those needs it.
  std::string GrantId() const {
    return origin ? origin->id : LentPermissionId(*lent.delegation, lent.lent_index);
  }
  // The agent that holds it: the origin's owner, or the link's delegate.
  absl::string_view holder() const {
    return origin ? absl::string_view(origin->agent_id)
                  : absl::string_view(lent.delegation->to_agent_id);
  }
};

// A way the subject may hold the requested right: the origin's permission, then each lent
// permission down to the subject. Every element's constraints apply (attenuation). Never
// longer than the depth limit, so it lives on the stack.
using Chain = absl::InlinedVector<ChainElement, kMaxDelegationDepth + 1>;

// The chain of `origin` down the links taken from the subject upward.
Chain ChainOf(const Permission& origin, absl::Span<const TakenLink> taken) {
  Chain chain;
  chain.push_back(ChainElement::Own(origin));
  for (auto link = taken.rbegin(); link != taken.rend(); ++link) {
    chain.push_back(ChainElement::Lent(*link->delegation, link->lent_index));
  }
  return chain;
}

// Origin first; empty for the subject's own permission.
std::vector<DelegationHop> PathOf(const Chain& chain) {
  std::vector<DelegationHop> hops;
  hops.reserve(chain.size() - 1);
  for (size_t i = 1; i < chain.size(); ++i) {
    const Delegation& link = *chain[i].lent.delegation;
    hops.push_back({link.id, link.from_agent_id, link.to_agent_id});
  }
  return hops;
}

// The chain with every cycle cut out: where an agent holds twice, the links between go. What
// the shorter chain needs is part of what the longer one needs, and it is no longer, so every
// depth limit still holds and it passes whenever the longer one does.
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

struct ChainFailure {
  CheckStage stage;
  ReasonCode reason;
  std::string message;
  std::string approval_request_id;
  std::optional<ApprovalToOpen> approval_to_open;
};

struct ChainOutcome {
  std::optional<ChainFailure> failure;  // nullopt: the chain passed
  SideEffects side_effects;             // what passing needs written
};

// Parsed constraints by their JSON text, shared by every call this thread makes: design section
// 3 allows it, since the text is the key, so a grant whose constraints change is parsed afresh,
// never answered from a stale entry. When full it starts again empty; calls hold their own
// references to what they use. Text that does not parse is not kept.
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

std::string ActionsText(const std::vector<std::string>& actions) {
  return absl::StrCat("[", absl::StrJoin(actions, ","), "]");
}

// "allowed by perm_1", then " through d1 > d2 > d3" for a delegation path. Every allowed call
// builds it, so it is sized once and appended to: one allocation, where the system abseil's
// StrCat and StrAppend zero-fill a resized string before they copy, and grow it per hop.
std::string AllowedMessage(const Permission& origin, const std::vector<DelegationHop>& path) {
  constexpr absl::string_view kAllowedBy = "allowed by ";
  constexpr absl::string_view kThrough = " through ";
  constexpr absl::string_view kNext = " > ";
  size_t size = kAllowedBy.size() + origin.id.size();
  for (const DelegationHop& hop : path) size += kThrough.size() + hop.delegation_id.size();
  std::string message;
  message.reserve(size);
  message.append(kAllowedBy.data(), kAllowedBy.size()).append(origin.id);
  for (size_t i = 0; i < path.size(); ++i) {
    const absl::string_view separator = i == 0 ? kThrough : kNext;
    message.append(separator.data(), separator.size()).append(path[i].delegation_id);
  }
  return message;
}

std::string TimeWindowText(const TimeWindow& window) {
  return absl::StrFormat("%02d:%02d-%02d:%02d %s", window.start_minute / 60,
                         window.start_minute % 60, window.end_minute / 60, window.end_minute % 60,
                         window.time_zone_name);
}

// How far a chain got: the stage at which its first check failed, or all the way.
constexpr int kNoChain = -1;
constexpr int kPasses = static_cast<int>(CheckStage::kRateLimit) + 1;

class Decider {
 public:
  friend class DelegationWalker<Decider>;

  // Decides into `decision`, which the caller keeps: the decision is made where it is returned.
  Decider(const Request& request, PolicyView& view, absl::Time now, Trace* trace,
          AccessTokenAuthenticator* access_tokens, DecisionBudget& budget, Decision& decision)
      : request_(request),
        view_(view),
        lookups_(view, now, budget),
        budget_(budget),
        now_(now),
        trace_(trace),
        access_tokens_(access_tokens),
        decision_(decision) {
    // A trace lists every permission tried; without one, those that cannot match are skipped.
    if (trace_ == nullptr) lookups_.OnlyFor(request_.action, request_.resource);
  }

  // A failed lookup is returned as its status, and the decision is then to be dropped. A
  // decision over budget is refused with EVALUATION_LIMIT; one whose caller gave up, CANCELLED.
  absl::Status Run() {
    absl::Status status = Decide();
    if (!budget_.exhausted() && !budget_.stopped()) return status;
    if (budget_.stopped()) {
      return absl::CancelledError("the caller gave up (cancelled, or past its deadline)");
    }
    // Whatever was found before the budget ran out, the answer is a refusal.
    Decision refused;
    refused.request_id = request_.request_id;
    refused.agent_id = std::move(decision_.agent_id);
    refused.reason = ReasonCode::kEvaluationLimit;
    refused.message = EvaluationLimitMessage(budget_);
    decision_ = std::move(refused);
    AddStage("budget", false, decision_.message);
    return absl::OkStatus();
  }

 private:
  struct Failed {
    ChainFailure failure;
    Grant origin;
    std::vector<DelegationHop> path;
  };

  // The best chain above a state, for this call: how far it got, and how to rebuild it.
  struct BestChain {
    int stage = kNoChain;
    const Permission* origin = nullptr;  // the state's agent's own permission, or
    const Delegation* link = nullptr;    // a permission lent into it, followed by the best
    size_t lent_index = 0;               // chain above `next`
    WalkState next;
  };

  absl::Status Decide() {
    decision_.request_id = request_.request_id;
    if (!budget_.Spend()) return OverBudget();
    absl::StatusOr<SubjectResolution> subject =
        ResolveSubject(request_.subject, view_, now_, access_tokens_);
    if (!subject.ok()) return subject.status();
    decision_.agent_id = std::move(subject->agent_id);
    if (trace_) {
      AddStage("subject", subject->agent.has_value(),
               subject->agent ? absl::StrCat("agent ", subject->agent->id, " is live")
                              : subject->message);
    }
    if (!subject->agent) {
      decision_.reason = subject->reason;
      decision_.message = std::move(subject->message);
      return absl::OkStatus();
    }
    subject_id_ = subject->agent->id;

    absl::StatusOr<absl::Span<const Permission>> own = lookups_.PermissionsOf(subject_id_);
    if (!own.ok()) return own.status();
    own_count_ = own->size();
    if (const Permission* deny = MatchingDeny(*own, {})) {
      decision_.reason = ReasonCode::kDeniedByPolicy;
      decision_.message = absl::StrCat("denied by ", deny->id);
      decision_.matched_grant = GrantOf(*deny);
      AddCandidateStages(deny);
      return absl::OkStatus();
    }

    absl::StatusOr<bool> allowed = TryOwnAllows(*own);
    if (allowed.ok() && !*allowed) {
      delegations_consulted_ = true;
      allowed = TryLentChains();
    }
    if (!allowed.ok()) return allowed.status();
    AddCandidateStages(nullptr);
    if (!*allowed) Refuse();
    return absl::OkStatus();
  }

  bool ActionAndResourceMatch(const std::string& resource,
                              const std::vector<std::string>& actions) const {
    return ActionMatches(actions, request_.action) && ResourceMatches(resource, request_.resource);
  }

  // The first of `permissions` (the subject's, or those of the delegator that `taken` leads up
  // to) that denies the request, or nullptr.
  const Permission* MatchingDeny(absl::Span<const Permission> permissions,
                                 absl::Span<const TakenLink> taken) {
    const bool subjects_own = taken.empty();
    for (const Permission& permission : permissions) {
      if (permission.effect != Effect::kDeny) continue;
      if (!ActionAndResourceMatch(permission.resource, permission.actions)) {
        if (trace_ && subjects_own) AddUnmatchedTrial(GrantOf(permission), {});
        continue;
      }
      if (trace_) {
        AddTrial(GrantOf(permission), HopsFromTop(taken), ReasonCode::kDeniedByPolicy,
                 subjects_own ? absl::StrCat("denies ", request_.action, " on ", request_.resource)
                              : absl::StrCat(permission.agent_id, " is denied ", request_.action,
                                             " on ", request_.resource, ", so cannot lend it"));
      }
      return &permission;
    }
    return nullptr;
  }

  // Tries each of the subject's own allow permissions that matches. True once one allows.
  absl::StatusOr<bool> TryOwnAllows(absl::Span<const Permission> permissions) {
    for (const Permission& permission : permissions) {
      if (permission.effect != Effect::kAllow) continue;
      if (!ActionAndResourceMatch(permission.resource, permission.actions)) {
        if (trace_) AddUnmatchedTrial(GrantOf(permission), {});
        continue;
      }
      ++matching_chains_;
      absl::StatusOr<bool> allowed = TryChain(ChainOf(permission, {}));
      if (!allowed.ok() || *allowed) return allowed;
    }
    return false;
  }

  // The chains through the live links into the subject: the search finds the one that gets
  // furthest (the first that passes, or the first of those that failed latest), which is then
  // checked as a whole, as the subject's own permissions are.
  absl::StatusOr<bool> TryLentChains() {
    DelegationWalker<Decider> walker(*this, lookups_);
    walker_ = &walker;
    absl::StatusOr<const BestChain*> best = walker.Held({subject_id_, 0, kMaxDelegationDepth});
    walker_ = nullptr;
    if (!best.ok()) return best.status();
    if ((*best)->stage == kNoChain) return false;
    if (furthest_ && (*best)->stage <= static_cast<int>(furthest_->failure.stage)) return false;
    Chain chain;  // rebuilt from the subject up, then turned origin first
    for (const BestChain* at = *best;;) {
      if (at->origin != nullptr) {
        chain.push_back(ChainElement::Own(*at->origin));
        break;
      }
      chain.push_back(ChainElement::Lent(*at->link, at->lent_index));
      absl::StatusOr<const BestChain*> above = walker.Held(at->next);  // known: no lookup
      if (!above.ok()) return above.status();
      at = *above;
    }
    std::reverse(chain.begin(), chain.end());
    CutCycles(chain);
    return TryChain(chain, /*add_trial=*/false);
  }

  // DelegationWalker's Holdings: what a delegator holds of this call is the best chain it can
  // start or continue.
  using Value = BestChain;

  absl::Status Own(const WalkState& state, absl::Span<const Permission> permissions,
                   BestChain& best, bool& done) {
    // A delegator denied the call cannot lend it: no chain runs through it.
    if (MatchingDeny(permissions, walker_->stack())) {
      done = true;
      return absl::OkStatus();
    }
    for (const Permission& permission : permissions) {
      if (permission.effect != Effect::kAllow) continue;
      if (!ActionAndResourceMatch(permission.resource, permission.actions)) continue;
      ++matching_chains_;
      absl::StatusOr<int> stage = StageOf(ChainElement::Own(permission));
      if (!stage.ok()) return stage.status();
      if (trace_) {
        const Chain chain = ChainOf(permission, walker_->stack());
        absl::StatusOr<ChainOutcome> outcome = Check(chain);
        if (!outcome.ok()) return outcome.status();
        if (outcome->failure) {
          AddTrial(GrantOf(permission), PathOf(chain), outcome->failure->reason,
                   outcome->failure->message);
        } else {
          AddTrial(GrantOf(permission), PathOf(chain), ReasonCode::kAllowed, "passed");
        }
      }
      if (*stage > best.stage) best = BestChain{*stage, &permission, nullptr, 0, {}};
      if (*stage == kPasses) {
        done = true;
        break;
      }
    }
    (void)state;
    return absl::OkStatus();
  }

  bool Wants(const Delegation& link, size_t lent_index) {
    const LentPermission& lent = link.permissions[lent_index];
    if (walker_->stack().size() == 1) ++lent_count_;
    if (ActionAndResourceMatch(lent.resource, lent.actions)) return true;
    if (trace_) AddUnmatchedTrial(GrantOf(link, lent_index), HopsFromTop(walker_->stack()));
    return false;
  }

  void Unusable(const Delegation& link, size_t lent_index, absl::string_view why) {
    if (trace_) {
      AddTrial(GrantOf(link, lent_index), HopsFromTop(walker_->stack()),
               ReasonCode::kNoMatchingPermission, std::string(why));
    }
  }

  absl::Status Extend(const WalkState&, const Delegation& link, size_t lent_index,
                      const WalkState& next, const BestChain& upper, BestChain& best, bool& done) {
    if (upper.stage == kNoChain) return absl::OkStatus();
    absl::StatusOr<int> stage = StageOf(ChainElement::Lent(link, lent_index));
    if (!stage.ok()) return stage.status();
    const int chain_stage = std::min(*stage, upper.stage);
    if (chain_stage > best.stage) best = BestChain{chain_stage, nullptr, &link, lent_index, next};
    done = chain_stage == kPasses;
    return absl::OkStatus();
  }

  // How far one element gets on its own. A chain gets as far as its weakest element: each
  // check is the element's own (an approval: the call's one request against the element's
  // quorum), so this is exact, and it is what lets the walker work each state out once.
  absl::StatusOr<int> StageOf(const ChainElement& element) {
    const std::string& json = element.constraints_json();
    if (json.empty() || json == "{}") return kPasses;
    for (const auto& [known, stage] : element_stages_) {
      if (known.origin == element.origin && known.lent.delegation == element.lent.delegation &&
          known.lent.lent_index == element.lent.lent_index) {
        return stage;
      }
    }
    if (!budget_.Spend()) return OverBudget();
    Chain alone;
    alone.push_back(element);
    absl::StatusOr<ChainOutcome> outcome = Check(alone);
    if (!outcome.ok()) return outcome.status();
    const int stage = outcome->failure ? static_cast<int>(outcome->failure->stage) : kPasses;
    element_stages_.emplace_back(element, stage);
    return stage;
  }

  // Checks one matching chain (origin first); true when it allows, and then the decision is
  // made.
  absl::StatusOr<bool> TryChain(const Chain& chain, bool add_trial = true) {
    absl::StatusOr<ChainOutcome> outcome = Check(chain);
    if (!outcome.ok()) return outcome.status();
    const Permission& origin = *chain.front().origin;
    if (!outcome->failure) {
      std::vector<DelegationHop> path = PathOf(chain);
      decision_.verdict = Verdict::kAllow;
      decision_.reason = ReasonCode::kAllowed;
      decision_.message = AllowedMessage(origin, path);
      decision_.matched_grant = GrantOf(origin);
      decision_.side_effects = std::move(outcome->side_effects);
      if (trace_ && add_trial) AddTrial(GrantOf(origin), path, ReasonCode::kAllowed, "passed");
      decision_.delegation_path = std::move(path);
      return true;
    }
    if (trace_ && add_trial) {
      AddTrial(GrantOf(origin), PathOf(chain), outcome->failure->reason, outcome->failure->message);
    }
    // The failure that got furthest is reported; on a tie, the first.
    if (!furthest_ || outcome->failure->stage > furthest_->failure.stage) {
      furthest_ = Failed{*std::move(outcome->failure), GrantOf(origin), PathOf(chain)};
    }
    return false;
  }

  absl::StatusOr<ChainOutcome> Check(const Chain& chain) {
    // A chain is never longer than the walk's depth limit, so this stays on the stack.
    absl::InlinedVector<std::pair<ChainElement, const Constraints*>, kMaxDelegationDepth + 1>
        parsed;
    for (size_t i = 0; i < chain.size(); ++i) {
      absl::StatusOr<const Constraints*> constraints = ConstraintsOf(chain[i]);
      if (!constraints.ok()) return constraints.status();
      parsed.emplace_back(chain[i], *constraints);
    }
    ChainOutcome outcome;
    auto fail = [&outcome](CheckStage stage, ReasonCode reason, std::string message) {
      outcome.failure = ChainFailure{stage, reason, std::move(message), "", std::nullopt};
      return std::move(outcome);
    };

    for (const auto& [element, constraints] : parsed) {
      if (constraints->time_window && !WithinTimeWindow(*constraints->time_window, now_)) {
        return fail(
            CheckStage::kTimeWindow, ReasonCode::kOutsideTimeWindow,
            absl::StrCat("outside time window ", TimeWindowText(*constraints->time_window)));
      }
    }
    for (const auto& [element, constraints] : parsed) {
      if (constraints->ip_allowlist && !IpAllowed(*constraints->ip_allowlist, request_.client_ip)) {
        return fail(CheckStage::kIpAllowlist, ReasonCode::kIpNotAllowed,
                    request_.client_ip.empty()
                        ? absl::StrCat("no client ip for the ip allowlist of ", element.GrantId())
                        : absl::StrCat("ip ", request_.client_ip, " is not allowed by ",
                                       element.GrantId()));
      }
    }
    for (const auto& [element, constraints] : parsed) {
      if (constraints->arguments.empty()) continue;
      absl::StatusOr<const JsonValue*> arguments = Arguments();
      if (!arguments.ok()) return arguments.status();
      std::string why;
      if (!ArgumentsPass(constraints->arguments, **arguments, &why)) {
        return fail(CheckStage::kArguments, ReasonCode::kArgumentsRejected,
                    absl::StrCat("arguments rejected by ", element.GrantId(), ": ", why));
      }
    }

    // One approval serves the whole chain: the strictest quorum, the shortest time to live.
    std::optional<ApprovalRule> approval;
    for (const auto& [element, constraints] : parsed) {
      if (!constraints->approval) continue;
      if (!approval) {
        approval = constraints->approval;
      } else {
        approval->quorum = std::max(approval->quorum, constraints->approval->quorum);
        approval->ttl = std::min(approval->ttl, constraints->approval->ttl);
      }
    }
    if (approval) {
      absl::StatusOr<std::optional<ChainFailure>> refused =
          CheckApproval(*approval, &outcome.side_effects);
      if (!refused.ok()) return refused.status();
      if (*refused) {
        outcome.failure = *std::move(refused);
        return outcome;
      }
    }

    for (const auto& [element, constraints] : parsed) {
      if (!constraints->rate_limit) continue;
      const RateLimit& limit = *constraints->rate_limit;
      const int64_t window_start = RateWindowStart(limit, now_);
      std::string grant_id = element.GrantId();
      absl::StatusOr<int64_t> count = RateCountOf(grant_id, window_start);
      if (!count.ok()) return count.status();
      if (*count >= limit.max_calls) {
        return fail(CheckStage::kRateLimit, ReasonCode::kRateLimited,
                    absl::StrCat("rate limit of ", limit.max_calls, " calls per ",
                                 limit.window_seconds, " s reached for ", grant_id));
      }
      outcome.side_effects.rate_spends.push_back({std::string(subject_id_), std::move(grant_id),
                                                  window_start, limit.max_calls,
                                                  limit.window_seconds});
    }
    return outcome;
  }

  // Nullopt, with the approved request to use in side_effects; or why the chain waits: the
  // request is pending or denied, or there is none yet (then one is to be opened).
  absl::StatusOr<std::optional<ChainFailure>> CheckApproval(const ApprovalRule& rule,
                                                            SideEffects* side_effects) {
    absl::StatusOr<const std::optional<ApprovalRequest>*> open = OpenApproval();
    if (!open.ok()) return open.status();
    const std::optional<ApprovalRequest>& request = **open;
    ChainFailure failure{CheckStage::kApproval, ReasonCode::kApprovalRequired, "", "",
                         std::nullopt};
    // An approval granted under a smaller quorum does not satisfy a stricter grant: it then
    // counts as none, and a request with this grant's quorum is opened.
    if (request && request->status == ApprovalStatus::kApproved &&
        request->approvals >= rule.quorum) {
      side_effects->approval_to_use = request->id;
      return std::nullopt;
    }
    if (request && request->status == ApprovalStatus::kDenied) {
      failure.reason = ReasonCode::kApprovalDenied;
      failure.message = absl::StrCat("approval request ", request->id, " was denied");
      failure.approval_request_id = request->id;
    } else if (request && request->status == ApprovalStatus::kPending) {
      failure.message = absl::StrCat("waiting for approval request ", request->id, " (",
                                     request->approvals, " of ", request->quorum, " approvals)");
      failure.approval_request_id = request->id;
    } else {
      absl::StatusOr<std::string> hash = ArgumentsHash();
      if (!hash.ok()) return hash.status();
      failure.message = absl::StrCat(request_.action, " on ", request_.resource, " needs ",
                                     rule.quorum, " approval", rule.quorum == 1 ? "" : "s");
      failure.approval_to_open = ApprovalToOpen{
          std::string(subject_id_), request_.action, request_.resource, *hash, rule.quorum,
          now_ + rule.ttl};
    }
    return failure;
  }

  // Stored constraints that do not parse fail the decision (closed), never skip a check.
  absl::StatusOr<const Constraints*> ConstraintsOf(const ChainElement& element) {
    static const Constraints* const kNone = new Constraints();
    const std::string& json = element.constraints_json();
    if (json.empty() || json == "{}") return kNone;
    for (const auto& [text, constraints] : constraints_) {
      if (text == json) return constraints.get();
    }
    absl::StatusOr<std::shared_ptr<const Constraints>> parsed = ParsedConstraints(json);
    if (!parsed.ok()) {
      return absl::InternalError(absl::StrCat("stored constraints of ", element.GrantId(),
                                              " do not parse: ", parsed.status().message()));
    }
    constraints_.emplace_back(json, *std::move(parsed));
    return constraints_.back().second.get();
  }

  absl::StatusOr<const JsonValue*> Arguments() {
    if (!arguments_) {
      absl::StatusOr<JsonValue> parsed =
          ParseJson(request_.arguments_json.empty() ? "{}" : request_.arguments_json);
      if (!parsed.ok()) return parsed.status();
      arguments_ = *std::move(parsed);
    }
    return &*arguments_;
  }

  absl::StatusOr<std::string> ArgumentsHash() {
    absl::StatusOr<const JsonValue*> arguments = Arguments();
    if (!arguments.ok()) return arguments.status();
    return HexEncode(Sha256(CanonicalJson(**arguments)));
  }

  // The subject's count of a grant's window, looked up once per call.
  absl::StatusOr<int64_t> RateCountOf(const std::string& grant_id, int64_t window_start) {
    for (const RateCountRead& read : rate_counts_) {
      if (read.window_start == window_start && read.grant_id == grant_id) return read.count;
    }
    if (!budget_.Spend()) return OverBudget();
    absl::StatusOr<int64_t> count = view_.RateCount(subject_id_, grant_id, window_start);
    if (!count.ok()) return count.status();
    rate_counts_.push_back({grant_id, window_start, *count});
    return *count;
  }

  // The open approval request for this exact call, looked up once.
  absl::StatusOr<const std::optional<ApprovalRequest>*> OpenApproval() {
    if (!open_approval_) {
      absl::StatusOr<std::string> hash = ArgumentsHash();
      if (!hash.ok()) return hash.status();
      absl::StatusOr<std::optional<ApprovalRequest>> found =
          view_.FindOpenApproval(subject_id_, request_.action, request_.resource, *hash, now_);
      if (!found.ok()) return found.status();
      open_approval_ = *std::move(found);
    }
    return &*open_approval_;
  }

  // No chain allowed: the one that got furthest decides, or there was none.
  void Refuse() {
    if (!furthest_) {
      decision_.reason = ReasonCode::kNoMatchingPermission;
      decision_.message = absl::StrCat("no permission of ", subject_id_, " matches ",
                                       request_.action, " on ", request_.resource);
      return;
    }
    ChainFailure& failure = furthest_->failure;
    decision_.verdict =
        failure.reason == ReasonCode::kApprovalRequired ? Verdict::kNeedsApproval : Verdict::kDeny;
    decision_.reason = failure.reason;
    decision_.message = failure.message;
    decision_.matched_grant = std::move(furthest_->origin);
    decision_.delegation_path = std::move(furthest_->path);
    decision_.approval_request_id = failure.approval_request_id;
    decision_.side_effects.approval_to_open = std::move(failure.approval_to_open);
  }

  void AddStage(const char* name, bool passed, std::string detail) {
    if (trace_) trace_->stages.push_back({name, passed, std::move(detail)});
  }

  // The trial adders are called only when trace_ is set, so an untraced decision builds nothing.
  void AddTrial(Grant grant, std::vector<DelegationHop> path, ReasonCode outcome,
                std::string detail) {
    trace_->grants.push_back(
        {std::move(grant), std::move(path), true, true, outcome, std::move(detail)});
  }

  void AddUnmatchedTrial(Grant grant, std::vector<DelegationHop> path) {
    GrantTrial trial;
    trial.action_matched = ActionMatches(grant.actions, request_.action);
    trial.resource_matched = ResourceMatches(grant.resource, request_.resource);
    trial.outcome = ReasonCode::kNoMatchingPermission;
    trial.detail =
        !trial.action_matched
            ? absl::StrCat("action ", request_.action, " is not in ", ActionsText(grant.actions))
            : absl::StrCat("resource ", request_.resource, " does not match ", grant.resource);
    trial.grant = std::move(grant);
    trial.path = std::move(path);
    trace_->grants.push_back(std::move(trial));
  }

  // The stages after "subject", once the decision is made: `deny` is the subject's own
  // permission that denied, if one did.
  void AddCandidateStages(const Permission* deny) {
    if (!trace_) return;
    AddStage("candidates", own_count_ + lent_count_ > 0,
             delegations_consulted_
                 ? absl::StrCat(own_count_, " own permissions, ", lent_count_,
                                " lent through delegations into ", subject_id_)
                 : absl::StrCat(own_count_, " own permissions (delegations not consulted)"));
    const bool matched = deny != nullptr || matching_chains_ > 0;
    AddStage("match", matched,
             deny ? absl::StrCat(deny->id, " matches ", request_.action, " on ", request_.resource)
                  : absl::StrCat(matching_chains_, " grant chains match ", request_.action, " on ",
                                 request_.resource));
    if (deny) {
      AddStage("effects", false, absl::StrCat("deny ", deny->id, " overrides any allow"));
      return;
    }
    AddStage("effects", matched,
             matched ? absl::StrCat("no deny; ", matching_chains_, " matching allow chains")
                     : "no matching allow");
    if (!matched) return;
    const bool allowed = decision_.verdict == Verdict::kAllow;
    AddStage("constraints", allowed,
             allowed
                 ? absl::StrCat(decision_.matched_grant->permission_id, " passed every constraint")
                 : furthest_->failure.message);
  }

  const Request& request_;
  PolicyView& view_;
  Lookups lookups_;
  DecisionBudget& budget_;
  DelegationWalker<Decider>* walker_ = nullptr;  // while the lent chains are searched
  // How far each element with constraints gets on its own, worked out once per call.
  absl::InlinedVector<std::pair<ChainElement, int>, 4> element_stages_;
  const absl::Time now_;
  Trace* const trace_;
  AccessTokenAuthenticator* const access_tokens_;

  Decision& decision_;
  absl::string_view subject_id_;  // the live subject's, held by Run's subject resolution
  // The constraints this call has used, by their JSON text (held by the view's rows), each
  // held until the call ends whatever the thread's cache drops meanwhile.
  absl::InlinedVector<std::pair<absl::string_view, std::shared_ptr<const Constraints>>, 2>
      constraints_;
  struct RateCountRead {
    std::string grant_id;
    int64_t window_start;
    int64_t count;
  };
  std::vector<RateCountRead> rate_counts_;
  std::optional<JsonValue> arguments_;
  std::optional<std::optional<ApprovalRequest>> open_approval_;
  std::optional<Failed> furthest_;
  // For the trace.
  size_t own_count_ = 0;
  size_t lent_count_ = 0;
  int matching_chains_ = 0;
  bool delegations_consulted_ = false;
};

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

// The subject when `agent` is live at `now`; otherwise why it may not act.
absl::StatusOr<SubjectResolution> LiveOrWhyNot(std::optional<Agent>&& agent, absl::Time now) {
  // Built where it is returned, so the agent is moved once.
  absl::StatusOr<SubjectResolution> answer(absl::in_place);
  SubjectResolution& resolution = *answer;
  resolution.agent_id = agent->id;
  resolution.reason = LivenessOf(*agent, now);
  switch (resolution.reason) {
    case ReasonCode::kAgentExpired:
      resolution.message =
          absl::StrCat("agent ", agent->id, " expired at ",
                       absl::FormatTime(absl::RFC3339_sec, agent->expires_at, absl::UTCTimeZone()));
      break;
    case ReasonCode::kAgentSuspended:
      resolution.message = absl::StrCat("agent ", agent->id, " is suspended");
      break;
    case ReasonCode::kAgentRevoked:
      resolution.message = absl::StrCat("agent ", agent->id, " is revoked");
      break;
    default:
      resolution.agent = std::move(agent);
  }
  return answer;
}

absl::StatusOr<SubjectResolution> ResolveAgent(absl::string_view agent_id, PolicyView& view,
                                               absl::Time now) {
  absl::StatusOr<std::optional<Agent>> agent = view.FindAgent(agent_id);
  if (!agent.ok()) return agent.status();
  if (!*agent) {
    SubjectResolution resolution;
    resolution.reason = ReasonCode::kAgentNotFound;
    resolution.message = absl::StrCat("agent ", agent_id, " not found");
    return resolution;
  }
  return LiveOrWhyNot(*std::move(agent), now);
}

// A JWT access token: authentic (signature, claims, DPoP), not revoked, naming a live agent in
// "sub". Messages name the reason a token is refused, never the token.
absl::StatusOr<SubjectResolution> ResolveAccessToken(const Subject& subject, PolicyView& view,
                                                     absl::Time now,
                                                     AccessTokenAuthenticator* access_tokens) {
  SubjectResolution refused;
  refused.reason = ReasonCode::kTokenInvalid;
  if (absl::Status shape = CheckCompactJwsShape(subject.token); !shape.ok()) {
    refused.message = absl::StrCat("malformed token: ", shape.message());
    return refused;
  }
  if (access_tokens == nullptr) {
    refused.message = "JWT access tokens are not accepted: no issuer is configured";
    return refused;
  }
  absl::StatusOr<AccessTokenClaims> claims = access_tokens->Authenticate(subject, view, now);
  if (!claims.ok()) {
    if (!JwtErrorOf(claims.status()).has_value()) return claims.status();
    refused.message = absl::StrCat("access token refused: ", claims.status().message());
    return refused;
  }
  absl::StatusOr<bool> revoked = view.IsTokenIdRevoked(claims->jti);
  if (!revoked.ok()) return revoked.status();
  if (*revoked) {
    refused.message = absl::StrCat("access token ", claims->jti, " is revoked");
    return refused;
  }
  return ResolveAgent(claims->subject, view, now);
}

}  // namespace

absl::StatusOr<SubjectResolution> ResolveSubject(const Subject& subject, PolicyView& view,
                                                 absl::Time now,
                                                 AccessTokenAuthenticator* access_tokens) {
  if (!subject.agent_id.empty()) return ResolveAgent(subject.agent_id, view, now);
  if (LooksLikeCompactJws(subject.token)) {
    return ResolveAccessToken(subject, view, now, access_tokens);
  }
  SubjectResolution resolution;
  absl::Status shape = CheckAgentTokenShape(subject.token);
  if (!shape.ok()) {
    resolution.reason = ReasonCode::kTokenInvalid;
    resolution.message = absl::StrCat("malformed token: ", shape.message());
    return resolution;
  }
  absl::StatusOr<std::optional<Agent>> agent =
      view.FindAgentByTokenHash(Sha256(subject.token), now);
  if (!agent.ok()) return agent.status();
  if (!*agent) {
    resolution.reason = ReasonCode::kTokenInvalid;
    resolution.message = "token is not recognised";
    return resolution;
  }
  return LiveOrWhyNot(*std::move(agent), now);
}

std::string EvaluationLimitMessage(const DecisionBudget& budget) {
  return absl::StrCat("evaluation stopped after ", budget.spent() - 1,
                      " steps: the decision exceeds the limit of ", budget.max_steps(),
                      " store lookups and delegation steps (--max_decision_steps)");
}

absl::StatusOr<Decision> Decide(const Request& request, PolicyView& view, absl::Time now,
                                Trace* trace, AccessTokenAuthenticator* access_tokens,
                                DecisionBudget* budget) {
  DecisionBudget default_budget;
  absl::StatusOr<Decision> decision(absl::in_place);
  absl::Status decided = Decider(request, view, now, trace, access_tokens,
                                 budget ? *budget : default_budget, *decision)
                             .Run();
  if (!decided.ok()) decision = decided;
  return decision;
}

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

ReasonCode LivenessOf(const Agent& agent, absl::Time now) {
  switch (agent.status) {
    case AgentStatus::kActive:
      return now < agent.expires_at ? ReasonCode::kAllowed : ReasonCode::kAgentExpired;
    case AgentStatus::kSuspended:
      return ReasonCode::kAgentSuspended;
    case AgentStatus::kRevoked:
      return ReasonCode::kAgentRevoked;
  }
  return ReasonCode::kAllowed;
}

}  // namespace verdict
