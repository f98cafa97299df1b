#include "decision/chain_check.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "crypto/sha256.h"
#include "decision/constraint_cache.h"
#include "decision/decision_messages.h"

namespace verdict {
namespace engine_internal {

absl::StatusOr<int> ChainChecker::StageOfConstrained(const ChainElement& element) {
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

absl::StatusOr<ChainOutcome> ChainChecker::Check(const Chain& chain) {
  // A chain is never longer than the walk's depth limit, so this stays on the stack.
  absl::InlinedVector<std::pair<ChainElement, const Constraints*>, kMaxDelegationDepth + 1> parsed;
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
      return fail(CheckStage::kTimeWindow, ReasonCode::kOutsideTimeWindow,
                  absl::StrCat("outside time window ", TimeWindowText(*constraints->time_window)));
    }
  }
  for (const auto& [element, constraints] : parsed) {
    if (constraints->ip_allowlist && !IpAllowed(*constraints->ip_allowlist, request_.client_ip)) {
      return fail(
          CheckStage::kIpAllowlist, ReasonCode::kIpNotAllowed,
          request_.client_ip.empty()
              ? absl::StrCat("no client ip for the ip allowlist of ", element.GrantId())
              : absl::StrCat("ip ", request_.client_ip, " is not allowed by ", element.GrantId()));
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

absl::StatusOr<std::optional<ChainFailure>> ChainChecker::CheckApproval(const ApprovalRule& rule,
                                                                        SideEffects* side_effects) {
  absl::StatusOr<const std::optional<ApprovalRequest>*> open = OpenApproval();
  if (!open.ok()) return open.status();
  const std::optional<ApprovalRequest>& request = **open;
  ChainFailure failure{CheckStage::kApproval, ReasonCode::kApprovalRequired, "", "", std::nullopt};
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

absl::StatusOr<const Constraints*> ChainChecker::ConstraintsOf(const ChainElement& element) {
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

absl::StatusOr<const JsonValue*> ChainChecker::Arguments() {
  if (!arguments_) {
    absl::StatusOr<JsonValue> parsed =
        ParseJson(request_.arguments_json.empty() ? "{}" : request_.arguments_json);
    if (!parsed.ok()) return parsed.status();
    arguments_ = *std::move(parsed);
  }
  return &*arguments_;
}

absl::StatusOr<std::string> ChainChecker::ArgumentsHash() {
  absl::StatusOr<const JsonValue*> arguments = Arguments();
  if (!arguments.ok()) return arguments.status();
  return HexEncode(Sha256(CanonicalJson(**arguments)));
}

absl::StatusOr<int64_t> ChainChecker::RateCountOf(const std::string& grant_id,
                                                  int64_t window_start) {
  for (const RateCountRead& read : rate_counts_) {
    if (read.window_start == window_start && read.grant_id == grant_id) return read.count;
  }
  if (!budget_.Spend()) return OverBudget();
  absl::StatusOr<int64_t> count = view_.RateCount(subject_id_, grant_id, window_start);
  if (!count.ok()) return count.status();
  rate_counts_.push_back({grant_id, window_start, *count});
  return *count;
}

absl::StatusOr<const std::optional<ApprovalRequest>*> ChainChecker::OpenApproval() {
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

}  // namespace engine_internal
}  // namespace verdict
