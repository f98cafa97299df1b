#include "bench/workload.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "proto/enum_names.h"

namespace verdict::bench {
namespace {

absl::StatusOr<CallKind> ParseCallKind(absl::string_view name) {
  if (name == "direct") return CallKind::kDirect;
  if (name == "delegated") return CallKind::kDelegated;
  if (name == "denied") return CallKind::kDenied;
  if (name == "token") return CallKind::kToken;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown call kind \"", name, "\" (direct, delegated, denied, token)"));
}

CallKind PickKind(const Mix& mix, uint64_t random) {
  int ticket = static_cast<int>(random % static_cast<uint64_t>(mix.total));
  for (const auto& [kind, weight] : mix.weights) {
    if (ticket < weight) return kind;
    ticket -= weight;
  }
  return mix.weights.back().first;
}

// Each call kind spreads over the probe kinds that exercise it.
ProbeKind PickProbeKind(CallKind kind, uint64_t random) {
  switch (kind) {
    case CallKind::kDirect:
      return random % 2 == 0 ? ProbeKind::kDirect : ProbeKind::kDirectPath;
    case CallKind::kDelegated:
      return ProbeKind::kThreeHops;
    default: {
      constexpr ProbeKind kDenials[] = {ProbeKind::kDeniedByPolicy, ProbeKind::kRevokedChain,
                                        ProbeKind::kNoMatch};
      return kDenials[random % 3];
    }
  }
}

}  // namespace

absl::StatusOr<Mix> ParseMix(absl::string_view text) {
  Mix mix;
  for (absl::string_view entry : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    std::vector<absl::string_view> name_weight = absl::StrSplit(entry, ':');
    if (name_weight.size() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("mix entry \"", entry, "\": write it as KIND:WEIGHT"));
    }
    absl::StatusOr<CallKind> kind = ParseCallKind(absl::StripAsciiWhitespace(name_weight[0]));
    if (!kind.ok()) return kind.status();
    int weight = 0;
    if (!absl::SimpleAtoi(name_weight[1], &weight) || weight < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("mix entry \"", entry, "\": the weight must be a non-negative integer"));
    }
    if (weight == 0) continue;
    mix.weights.emplace_back(*kind, weight);
    mix.total += weight;
  }
  if (mix.total == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("mix \"", text, "\" has no call kind with a positive weight"));
  }
  return mix;
}

void PlanCall(const Mix& mix, int64_t agents, uint64_t random, PlannedCall* call) {
  // Low bits pick the kind, the rest pick the agent and the resource: independent choices.
  call->kind = PickKind(mix, random & 0xffff);
  const uint64_t pick = random >> 16;
  if (call->kind == CallKind::kToken) {
    const int64_t agent = static_cast<int64_t>(pick % static_cast<uint64_t>(agents));
    call->validate.set_token(AgentToken(agent));
    call->expected_agent_id = AgentId(agent);
    call->expected_permissions = EffectivePermissionLines(agent, agents);
    return;
  }
  Probe probe = MakeProbe(PickProbeKind(call->kind, pick), agents, pick >> 2);
  v1::AuthorizeRequest& request = call->authorize;
  request.Clear();
  request.mutable_subject()->set_agent_id(std::move(probe.request.subject.agent_id));
  request.set_action(std::move(probe.request.action));
  request.set_resource(std::move(probe.request.resource));
  call->expected = std::move(probe.expected);
}

std::string CheckAuthorize(const Outcome& expected, const v1::AuthorizeResponse& answer) {
  Outcome actual{ShortEnumName(answer.verdict()),
                 ShortEnumName(answer.reason()),
                 answer.matched_grant().permission_id(),
                 {}};
  for (const v1::DelegationHop& hop : answer.delegation_path()) {
    actual.delegation_ids.push_back(hop.delegation_id());
  }
  return DescribeDifference(expected, actual);
}

std::string CheckValidateToken(absl::string_view expected_agent_id,
                               const std::vector<std::string>& expected_permissions,
                               const v1::ValidateTokenResponse& answer) {
  std::vector<std::string> wrong;
  if (!answer.valid()) {
    wrong.push_back(absl::StrCat("token of ", expected_agent_id, " judged invalid (",
                                 ShortEnumName(answer.reason()), ": ", answer.message(), ")"));
  }
  if (answer.agent().id() != expected_agent_id) {
    wrong.push_back(absl::StrCat("agent: expected \"", expected_agent_id, "\", got \"",
                                 answer.agent().id(), "\""));
  }
  std::vector<std::string> permissions;
  for (const v1::EffectivePermission& effective : answer.permissions()) {
    const v1::Grant& grant = effective.grant();
    permissions.push_back(GrantLine(grant.permission_id(), grant.effect() == v1::EFFECT_ALLOW,
                                    grant.resource(),
                                    {grant.actions().begin(), grant.actions().end()}));
  }
  if (std::string differs = DescribeGrantLinesDifference(expected_permissions, permissions);
      !differs.empty()) {
    wrong.push_back(std::move(differs));
  }
  return absl::StrJoin(wrong, "; ");
}

}  // namespace verdict::bench
