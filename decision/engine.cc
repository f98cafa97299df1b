#include "decision/engine.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
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

// The lookups of one call, each made at most once; nothing outlives the call (design
// section 3). A call looks up a handful of agents, so a short list searched in order beats a
// hash map. The view keeps the rows its spans show (PolicyView::PermissionsSpan) for as long
// as it lives, which is longer than the Lookups. Every agent id passed in must outlive the
// Lookups too: the engine passes the subject's id and ids held by looked-up links.
class Lookups {
 public:
  Lookups(PolicyView& view, absl::Time now) : view_(view), now_(now) {}

  absl::StatusOr<bool> IsLive(absl::string_view agent_id) {
    for (const auto& [id, live] : liveness_) {
      if (id == agent_id) return live;
    }
    absl::StatusOr<const Agent*> agent = view_.FindAgentRef(agent_id);
    if (!agent.ok()) return agent.status();
    const bool live = *agent != nullptr && LivenessOf(**agent, now_) == ReasonCode::kAllowed;
    liveness_.emplace_back(agent_id, live);
    return live;
  }

  absl::StatusOr<absl::Span<const Permission>> PermissionsOf(absl::string_view agent_id) {
    return Cached(permissions_, agent_id,
                  [&](absl::string_view id) { return view_.PermissionsSpan(id); });
  }

  // Asked of delegators only, once each per walk: the view keeps their records, so this is
  // not kept here.
  absl::StatusOr<bool> HoldsAllowPermission(absl::string_view agent_id) {
    return view_.HoldsAllowPermission(agent_id);
  }

  absl::StatusOr<absl::Span<const Delegation>> DelegationsInto(absl::string_view agent_id) {
    return Cached(delegations_, agent_id,
                  [&](absl::string_view id) { return view_.ActiveDelegationsIntoSpan(id, now_); });
  }

 private:
  template <typename Row>
  using Answers = absl::InlinedVector<std::pair<absl::string_view, absl::Span<const Row>>, 4>;

  template <typename Row, typename Lookup>
  static absl::StatusOr<absl::Span<const Row>> Cached(Answers<Row>& answers,
                                                      absl::string_view agent_id, Lookup lookup) {
    for (const auto& [id, rows] : answers) {
      if (id == agent_id) return rows;
    }
    absl::StatusOr<absl::Span<const Row>> rows = lookup(agent_id);
    if (!rows.ok()) return rows.status();
    answers.emplace_back(agent_id, *rows);
    return *rows;
  }

  PolicyView& view_;
  const absl::Time now_;
  absl::InlinedVector<std::pair<absl::string_view, bool>, 4> liveness_;
  Answers<Permission> permissions_;
  Answers<Delegation> delegations_;
};

// The delegation links followed from the subject upward (towards the origin of a right). No
// path is longer than kMaxDelegationDepth, so the walk lives on the stack.
class DelegationWalk {
 public:
  explicit DelegationWalk(absl::string_view subject_id)
      : agents_on_path_{subject_id}, depth_limits_{kMaxDelegationDepth} {}

  // Why `link` may not extend the path, or "" when it may: its delegator must not be on the
  // path yet (no cycles), and the longer path must stay within every link's max_depth.
  std::string WhyNotTake(const Delegation& link) const {
    const int depth = static_cast<int>(links_.size()) + 1;
    if (std::find(agents_on_path_.begin(), agents_on_path_.end(), link.from_agent_id) !=
        agents_on_path_.end()) {
      return absl::StrCat(link.from_agent_id, " is already on the path (a cycle)");
    }
    if (depth > link.max_depth) {
      return absl::StrCat("path length ", depth, " exceeds ", link.id, "'s max_depth ",
                          link.max_depth);
    }
    if (depth > depth_limits_.back()) {
      return absl::StrCat("path length ", depth, " exceeds the depth limit ", depth_limits_.back());
    }
    return "";
  }

  // Takes lent permission `lent_index` of `link` (which WhyNotTake accepted).
  void Push(const Delegation& link, size_t lent_index) {
    links_.push_back({&link, lent_index});
    agents_on_path_.push_back(link.from_agent_id);
    depth_limits_.push_back(std::min(depth_limits_.back(), link.max_depth));
  }

  void Pop() {
    links_.pop_back();
    agents_on_path_.pop_back();
    depth_limits_.pop_back();
  }

  // The hops from the walk's top agent down to the subject.
  std::vector<DelegationHop> HopsFromTop() const {
    std::vector<DelegationHop> hops;
    hops.reserve(links_.size());
    for (auto link = links_.rbegin(); link != links_.rend(); ++link) {
      hops.push_back(
          {link->delegation->id, link->delegation->from_agent_id, link->delegation->to_agent_id});
    }
    return hops;
  }

  struct TakenLink {
    const Delegation* delegation;
    size_t lent_index;
  };
  // From the subject upward.
  absl::Span<const TakenLink> links() const { return links_; }

 private:
  absl::InlinedVector<TakenLink, kMaxDelegationDepth> links_;
  absl::InlinedVector<absl::string_view, kMaxDelegationDepth + 1> agents_on_path_;
  // The smallest max_depth so far, after each link.
  absl::InlinedVector<int, kMaxDelegationDepth + 1> depth_limits_;
};

// The order in which a chain's constraints are checked, cheapest first; a failure at a later
// stage got further.
enum class CheckStage { kTimeWindow, kIpAllowlist, kArguments, kApproval, kRateLimit };

// One grant in a chain: the origin's permission, or a permission lent down a link.
struct ChainElement {
  const Permission* origin;               // null for a lent permission
  const DelegationWalk::TakenLink* lent;  // null for the origin's permission

  const std::string& constraints_json() const {
    return origin ? origin->constraints_json
                  : lent->delegation->permissions[lent->lent_index].constraints_json;
  }
  // Names it in messages and rate-limit slots; built only when one of those needs it.
  std::string GrantId() const {
    return origin ? origin->id : LentPermissionId(*lent->delegation, lent->lent_index);
  }
};

// A way the subject may hold the requested right: the origin's permission, then each lent
// permission of the walk down to the subject. Every element's constraints apply (attenuation).
class Chain {
 public:
  Chain(const Permission& origin, const DelegationWalk& walk) : origin_(origin), walk_(walk) {}

  const Permission& origin() const { return origin_; }
  size_t size() const { return 1 + walk_.links().size(); }
  // Origin first.
  ChainElement operator[](size_t i) const {
    if (i == 0) return {&origin_, nullptr};
    return {nullptr, &walk_.links()[walk_.links().size() - i]};
  }
  // Origin first; empty for the subject's own permission.
  std::vector<DelegationHop> Path() const { return walk_.HopsFromTop(); }

 private:
  const Permission& origin_;
  const DelegationWalk& walk_;
};

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

class Decider {
 public:
  // Decides into `decision`, which the caller keeps: the decision is made where it is returned.
  Decider(const Request& request, PolicyView& view, absl::Time now, Trace* trace,
          AccessTokenAuthenticator* access_tokens, Decision& decision)
      : request_(request),
        view_(view),
        lookups_(view, now),
        now_(now),
        trace_(trace),
        access_tokens_(access_tokens),
        decision_(decision) {}

  // A failed lookup is returned as its status, and the decision is then to be dropped.
  absl::Status Run() {
    decision_.request_id = request_.request_id;
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
    DelegationWalk walk(subject_id_);
    if (const Permission* deny = MatchingDeny(*own, walk)) {
      decision_.reason = ReasonCode::kDeniedByPolicy;
      decision_.message = absl::StrCat("denied by ", deny->id);
      decision_.matched_grant = GrantOf(*deny);
      AddCandidateStages(deny);
      return absl::OkStatus();
    }

    absl::StatusOr<bool> allowed = TryOwnAllows(*own, walk);
    if (allowed.ok() && !*allowed) {
      delegations_consulted_ = true;
      allowed = TryLentChains(subject_id_, walk);
    }
    if (!allowed.ok()) return allowed.status();
    AddCandidateStages(nullptr);
    if (!*allowed) Refuse();
    return absl::OkStatus();
  }

 private:
  struct Failed {
    ChainFailure failure;
    Grant origin;
    std::vector<DelegationHop> path;
  };

  bool ActionAndResourceMatch(const std::string& resource,
                              const std::vector<std::string>& actions) const {
    return ActionMatches(actions, request_.action) && ResourceMatches(resource, request_.resource);
  }

  // The first of the walk's top agent's `permissions` (the subject's or a delegator's) that
  // denies the request, or nullptr.
  const Permission* MatchingDeny(absl::Span<const Permission> permissions,
                                 const DelegationWalk& walk) {
    const bool subjects_own = walk.links().empty();
    for (const Permission& permission : permissions) {
      if (permission.effect != Effect::kDeny) continue;
      if (!ActionAndResourceMatch(permission.resource, permission.actions)) {
        if (trace_ && subjects_own) AddUnmatchedTrial(GrantOf(permission), {});
        continue;
      }
      if (trace_) {
        AddTrial(GrantOf(permission), walk.HopsFromTop(), ReasonCode::kDeniedByPolicy,
                 subjects_own ? absl::StrCat("denies ", request_.action, " on ", request_.resource)
                              : absl::StrCat(permission.agent_id, " is denied ", request_.action,
                                             " on ", request_.resource, ", so cannot lend it"));
      }
      return &permission;
    }
    return nullptr;
  }

  // Tries each allow permission of the walk's top agent (the subject or a delegator) that
  // matches, as the origin of a chain down the walk. True once a chain allows.
  absl::StatusOr<bool> TryOwnAllows(absl::Span<const Permission> permissions,
                                    const DelegationWalk& walk) {
    for (const Permission& permission : permissions) {
      if (permission.effect != Effect::kAllow) continue;
      if (!ActionAndResourceMatch(permission.resource, permission.actions)) {
        if (trace_ && walk.links().empty()) AddUnmatchedTrial(GrantOf(permission), {});
        continue;
      }
      absl::StatusOr<bool> allowed = TryChain(Chain(permission, walk));
      if (!allowed.ok() || *allowed) return allowed;
    }
    return false;
  }

  // Tries every chain through the live links into `holder` whose lent permission matches.
  absl::StatusOr<bool> TryLentChains(absl::string_view holder, DelegationWalk& walk) {
    absl::StatusOr<absl::Span<const Delegation>> links = lookups_.DelegationsInto(holder);
    if (!links.ok()) return links.status();
    for (const Delegation& link : *links) {
      std::optional<std::string> unusable;  // found out once per link, when a lent one matches
      for (size_t i = 0; i < link.permissions.size(); ++i) {
        const LentPermission& lent = link.permissions[i];
        if (holder == subject_id_) ++lent_count_;
        std::vector<DelegationHop> path;
        if (trace_) {
          path = walk.HopsFromTop();
          path.insert(path.begin(), {link.id, link.from_agent_id, link.to_agent_id});
        }
        if (!ActionAndResourceMatch(lent.resource, lent.actions)) {
          if (trace_) AddUnmatchedTrial(GrantOf(link, i), path);
          continue;
        }
        if (!unusable) {
          absl::StatusOr<std::string> why = WhyLinkUnusable(link, walk);
          if (!why.ok()) return why.status();
          unusable = *std::move(why);
        }
        if (!unusable->empty()) {
          if (trace_)
            AddTrial(GrantOf(link, i), path, ReasonCode::kNoMatchingPermission, *unusable);
          continue;
        }
        walk.Push(link, i);
        absl::StatusOr<bool> allowed = TryHeldChains(link.from_agent_id, walk);
        walk.Pop();
        if (!allowed.ok() || *allowed) return allowed;
      }
    }
    return false;
  }

  // Tries every chain by which `delegator` (the walk's top) holds the request: none when one of
  // its own permissions denies it; else its own matching allows, then what is lent to it.
  absl::StatusOr<bool> TryHeldChains(absl::string_view delegator, DelegationWalk& walk) {
    absl::StatusOr<absl::Span<const Permission>> permissions = lookups_.PermissionsOf(delegator);
    if (!permissions.ok()) return permissions.status();
    if (MatchingDeny(*permissions, walk)) return false;
    absl::StatusOr<bool> allowed = TryOwnAllows(*permissions, walk);
    if (!allowed.ok() || *allowed) return allowed;
    return TryLentChains(delegator, walk);
  }

  absl::StatusOr<std::string> WhyLinkUnusable(const Delegation& link, const DelegationWalk& walk) {
    std::string why = walk.WhyNotTake(link);
    if (!why.empty()) return why;
    absl::StatusOr<bool> live = lookups_.IsLive(link.from_agent_id);
    if (!live.ok()) return live.status();
    if (!*live) return absl::StrCat("delegator ", link.from_agent_id, " is not live");
    return "";
  }

  // Checks one matching chain; true when it allows, and then the decision is made.
  absl::StatusOr<bool> TryChain(const Chain& chain) {
    ++matching_chains_;
    absl::StatusOr<ChainOutcome> outcome = Check(chain);
    if (!outcome.ok()) return outcome.status();
    const Permission& origin = chain.origin();
    if (!outcome->failure) {
      std::vector<DelegationHop> path = chain.Path();
      decision_.verdict = Verdict::kAllow;
      decision_.reason = ReasonCode::kAllowed;
      decision_.message = AllowedMessage(origin, path);
      decision_.matched_grant = GrantOf(origin);
      decision_.side_effects = std::move(outcome->side_effects);
      if (trace_) AddTrial(GrantOf(origin), path, ReasonCode::kAllowed, "passed");
      decision_.delegation_path = std::move(path);
      return true;
    }
    if (trace_) {
      AddTrial(GrantOf(origin), chain.Path(), outcome->failure->reason, outcome->failure->message);
    }
    // The failure that got furthest is reported; on a tie, the first.
    if (!furthest_ || outcome->failure->stage > furthest_->failure.stage) {
      furthest_ = Failed{*std::move(outcome->failure), GrantOf(origin), chain.Path()};
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
      absl::StatusOr<int64_t> count = view_.RateCount(subject_id_, grant_id, window_start);
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
  const absl::Time now_;
  Trace* const trace_;
  AccessTokenAuthenticator* const access_tokens_;

  Decision& decision_;
  absl::string_view subject_id_;  // the live subject's, held by Run's subject resolution
  // The constraints this call has used, by their JSON text (held by the view's rows), each
  // held until the call ends whatever the thread's cache drops meanwhile.
  absl::InlinedVector<std::pair<absl::string_view, std::shared_ptr<const Constraints>>, 2>
      constraints_;
  std::optional<JsonValue> arguments_;
  std::optional<std::optional<ApprovalRequest>> open_approval_;
  std::optional<Failed> furthest_;
  // For the trace.
  size_t own_count_ = 0;
  size_t lent_count_ = 0;
  int matching_chains_ = 0;
  bool delegations_consulted_ = false;
};

absl::StatusOr<std::optional<std::vector<DelegationHop>>> LivePathFromOrigin(
    absl::string_view holder, DelegationWalk& walk, Lookups& lookups);

// Calls on_path(link, hops) for each link into `holder` that the walk may take, whose delegator
// is live and has a live path from an origin (hops run from that origin through `link`), until
// on_path returns true.
absl::Status ForEachLinkWithLivePath(
    absl::string_view holder, DelegationWalk& walk, Lookups& lookups,
    absl::FunctionRef<bool(const Delegation&, std::vector<DelegationHop>)> on_path) {
  absl::StatusOr<absl::Span<const Delegation>> links = lookups.DelegationsInto(holder);
  if (!links.ok()) return links.status();
  for (const Delegation& link : *links) {
    if (!walk.WhyNotTake(link).empty()) continue;
    absl::StatusOr<bool> live = lookups.IsLive(link.from_agent_id);
    if (!live.ok()) return live.status();
    if (!*live) continue;
    walk.Push(link, 0);
    absl::StatusOr<std::optional<std::vector<DelegationHop>>> path =
        LivePathFromOrigin(link.from_agent_id, walk, lookups);
    walk.Pop();
    if (!path.ok()) return path.status();
    if (*path && on_path(link, **std::move(path))) return absl::OkStatus();
  }
  return absl::OkStatus();
}

// The hops from an agent that holds an allow permission of its own down to the subject, over
// live links, depth-first from the walk's top; nullopt when no such path exists.
absl::StatusOr<std::optional<std::vector<DelegationHop>>> LivePathFromOrigin(
    absl::string_view holder, DelegationWalk& walk, Lookups& lookups) {
  absl::StatusOr<bool> origin = lookups.HoldsAllowPermission(holder);
  if (!origin.ok()) return origin.status();
  if (*origin) return walk.HopsFromTop();
  std::optional<std::vector<DelegationHop>> first;
  absl::Status status = ForEachLinkWithLivePath(
      holder, walk, lookups, [&](const Delegation&, std::vector<DelegationHop> hops) {
        first = std::move(hops);
        return true;
      });
  if (!status.ok()) return status;
  return first;
}

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

absl::StatusOr<Decision> Decide(const Request& request, PolicyView& view, absl::Time now,
                                Trace* trace, AccessTokenAuthenticator* access_tokens) {
  absl::StatusOr<Decision> decision(absl::in_place);
  absl::Status decided = Decider(request, view, now, trace, access_tokens, *decision).Run();
  if (!decided.ok()) decision = decided;
  return decision;
}

absl::StatusOr<std::vector<EffectivePermission>> EffectivePermissions(const Agent& agent,
                                                                      PolicyView& view,
                                                                      absl::Time now) {
  Lookups lookups(view, now);
  absl::StatusOr<absl::Span<const Permission>> own = lookups.PermissionsOf(agent.id);
  if (!own.ok()) return own.status();
  absl::StatusOr<absl::Span<const Delegation>> links = lookups.DelegationsInto(agent.id);
  if (!links.ok()) return links.status();
  // Room for everything the links may lend, so that the list never moves as it grows.
  size_t lent = 0;
  for (const Delegation& link : *links) lent += link.permissions.size();
  std::vector<EffectivePermission> effective;
  effective.reserve(own->size() + lent);
  for (const Permission& permission : *own) effective.push_back({GrantOf(permission), {}});

  DelegationWalk walk(agent.id);
  absl::Status status = ForEachLinkWithLivePath(
      agent.id, walk, lookups, [&](const Delegation& link, std::vector<DelegationHop> hops) {
        for (size_t i = 0; i < link.permissions.size(); ++i) {
          const bool last = i + 1 == link.permissions.size();
          effective.push_back({GrantOf(link, i), last ? std::move(hops) : hops});
        }
        return false;
      });
  if (!status.ok()) return status;
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
