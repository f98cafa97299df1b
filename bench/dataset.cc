#include "bench/dataset.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "crypto/sha256.h"
#include "crypto/token.h"

namespace verdict::bench {
namespace {

absl::Time CreatedAt() { return absl::FromUnixSeconds(kCreatedAtUnixSeconds); }

std::string PermissionId(int64_t agent, int index) {
  return absl::StrFormat("perm_bench_%07d_%d", agent, index);
}

std::string DelegationId(int64_t chain, int link) {
  return absl::StrFormat("dlg_bench_%07d_%d", chain, link);
}

std::string SharedDocsPattern(int64_t owner) { return absl::StrCat("docs:", owner, ":shared:*"); }

Permission MakePermission(int64_t agent, int index, std::string resource,
                          std::vector<std::string> actions, Effect effect,
                          std::string constraints_json) {
  Permission permission;
  permission.id = PermissionId(agent, index);
  permission.agent_id = AgentId(agent);
  permission.resource = std::move(resource);
  permission.actions = std::move(actions);
  permission.effect = effect;
  permission.constraints_json = std::move(constraints_json);
  permission.created_at = CreatedAt();
  return permission;
}

// Chains whose links are all active: every third one, starting with chain 0.
int64_t WholeChainCount(int64_t agents) { return (ChainCount(agents) + 2) / 3; }
int64_t BrokenChainCount(int64_t agents) { return ChainCount(agents) - WholeChainCount(agents); }

// The k-th chain with a revoked link: 1, 2, 4, 5, 7, 8, ...
int64_t NthBrokenChain(int64_t k) { return (k / 2) * 3 + 1 + (k % 2); }

int64_t FirstAgentOf(int64_t chain) { return chain * kAgentsPerChain; }

Outcome Expect(Verdict verdict, ReasonCode reason, std::string permission_id) {
  return Outcome{VerdictName(verdict), ReasonCodeName(reason), std::move(permission_id), {}};
}

void AddDifference(absl::string_view field, absl::string_view expected, absl::string_view actual,
                   std::vector<std::string>* differences) {
  if (expected == actual) return;
  differences->push_back(
      absl::StrCat(field, ": expected \"", expected, "\", got \"", actual, "\""));
}

}  // namespace

std::string AgentId(int64_t agent) { return absl::StrFormat("agt_bench_%07d", agent); }

std::string AgentToken(int64_t agent) {
  return absl::StrCat(kAgentTokenPrefix,
                      Base64UrlEncode(Sha256(absl::StrCat("verdict-bench:", AgentId(agent)))));
}

Agent AgentRow(int64_t agent) {
  Agent row;
  row.id = AgentId(agent);
  row.owner = "bench";
  row.name = absl::StrCat("bench agent ", agent);
  // Kind plays no part in decisions; it only makes the rows look like real ones.
  row.kind = agent % kAgentsPerChain == 0 ? AgentKind::kAutonomous : AgentKind::kDelegated;
  row.status = AgentStatus::kActive;
  row.expires_at = absl::InfiniteFuture();
  row.token_prefix = TokenDisplayPrefix(AgentToken(agent));
  row.created_at = CreatedAt();
  row.updated_at = CreatedAt();
  return row;
}

std::vector<Permission> PermissionsOf(int64_t agent) {
  std::vector<Permission> permissions;
  permissions.reserve(kPermissionsPerAgent);
  permissions.push_back(MakePermission(agent, 0, absl::StrCat("docs:", agent, ":*"),
                                       {"read", "write"}, Effect::kAllow, ""));
  permissions.push_back(MakePermission(agent, 1, absl::StrCat("/api/agents/", agent, "/**"),
                                       {"GET", "PUT"}, Effect::kAllow, ""));
  permissions.push_back(MakePermission(agent, 2, absl::StrCat("docs:", agent, ":secret:*"), {"*"},
                                       Effect::kDeny, ""));
  permissions.push_back(MakePermission(agent, 3, absl::StrCat("tickets:", agent, ":*"), {"create"},
                                       Effect::kAllow, R"({"ip_allowlist":["10.0.0.0/8"]})"));
  return permissions;
}

int64_t ChainCount(int64_t agents) { return agents / kAgentsPerChain; }

bool LinkRevoked(int64_t chain, int link) {
  switch (chain % 3) {
    case 1:
      return link == 1;
    case 2:
      return link == 0 || link == 2;
    default:
      return false;
  }
}

std::vector<Delegation> ChainLinks(int64_t chain) {
  const int64_t owner = FirstAgentOf(chain);
  std::vector<Delegation> links;
  links.reserve(kLinksPerChain);
  for (int link = 0; link < kLinksPerChain; ++link) {
    Delegation delegation;
    delegation.id = DelegationId(chain, link);
    delegation.from_agent_id = AgentId(owner + link);
    delegation.to_agent_id = AgentId(owner + link + 1);
    delegation.permissions.push_back(LentPermission{SharedDocsPattern(owner), {"read"}, ""});
    delegation.max_depth = kLinksPerChain;
    delegation.status =
        LinkRevoked(chain, link) ? DelegationStatus::kRevoked : DelegationStatus::kActive;
    delegation.expires_at = absl::InfiniteFuture();
    delegation.created_at = CreatedAt();
    links.push_back(std::move(delegation));
  }
  return links;
}

std::string GrantLine(absl::string_view permission_id, bool allow, absl::string_view resource,
                      const std::vector<std::string>& actions) {
  return absl::StrCat(permission_id, " ", allow ? "allow" : "deny", " ", resource, " ",
                      absl::StrJoin(actions, ","));
}

std::vector<std::string> EffectivePermissionLines(int64_t agent, int64_t agents) {
  std::vector<std::string> lines;
  for (const Permission& own : PermissionsOf(agent)) {
    lines.push_back(GrantLine(own.id, own.effect == Effect::kAllow, own.resource, own.actions));
  }
  const int64_t chain = agent / kAgentsPerChain;
  const int position = static_cast<int>(agent % kAgentsPerChain);
  // A lent right is listed only while every link from the chain's owner (who holds it) down to
  // the agent is active: a lender lends only what it holds now.
  if (chain < ChainCount(agents) && position > 0) {
    const std::vector<Delegation> links = ChainLinks(chain);
    bool live = true;
    for (int i = 0; i < position; ++i) live = live && links[i].status == DelegationStatus::kActive;
    if (live) {
      const Delegation& link = links[position - 1];
      const LentPermission& lent = link.permissions[0];
      lines.push_back(GrantLine(absl::StrCat(link.id, "#0"), true, lent.resource, lent.actions));
    }
  }
  return lines;
}

std::string DescribeGrantLinesDifference(const std::vector<std::string>& expected,
                                         const std::vector<std::string>& actual) {
  for (size_t i = 0; i < std::max(expected.size(), actual.size()); ++i) {
    const std::string want = i < expected.size() ? expected[i] : "(none)";
    const std::string got = i < actual.size() ? actual[i] : "(none)";
    if (want != got) {
      return absl::StrCat("effective permission ", i, ": expected \"", want, "\", got \"", got,
                          "\"");
    }
  }
  return "";
}

Outcome OutcomeOf(const Decision& decision) {
  Outcome outcome{VerdictName(decision.verdict),
                  ReasonCodeName(decision.reason),
                  decision.matched_grant ? decision.matched_grant->permission_id : "",
                  {}};
  for (const DelegationHop& hop : decision.delegation_path) {
    outcome.delegation_ids.push_back(hop.delegation_id);
  }
  return outcome;
}

std::string DescribeDifference(const Outcome& expected, const Outcome& actual) {
  std::vector<std::string> differences;
  AddDifference("verdict", expected.verdict, actual.verdict, &differences);
  AddDifference("reason", expected.reason, actual.reason, &differences);
  AddDifference("matched permission", expected.permission_id, actual.permission_id, &differences);
  AddDifference("delegation path", absl::StrJoin(expected.delegation_ids, ","),
                absl::StrJoin(actual.delegation_ids, ","), &differences);
  return absl::StrJoin(differences, "; ");
}

Probe MakeProbe(ProbeKind kind, int64_t agents, uint64_t pick) {
  Probe probe;
  Request& request = probe.request;
  Outcome& expected = probe.expected;
  const int64_t agent = static_cast<int64_t>(pick % static_cast<uint64_t>(agents));
  // A varying tail keeps the resource strings from being identical call after call.
  const uint64_t page = (pick >> 32) % 1000;
  request.action = "read";
  switch (kind) {
    case ProbeKind::kDirect:
      request.subject.agent_id = AgentId(agent);
      request.resource = absl::StrCat("docs:", agent, ":page:", page);
      expected = Expect(Verdict::kAllow, ReasonCode::kAllowed, PermissionId(agent, 0));
      break;
    case ProbeKind::kDirectPath:
      request.subject.agent_id = AgentId(agent);
      request.action = "GET";
      request.resource = absl::StrCat("/api/agents/", agent, "/items/", page, "/detail");
      expected = Expect(Verdict::kAllow, ReasonCode::kAllowed, PermissionId(agent, 1));
      break;
    case ProbeKind::kDeniedByPolicy:
      request.subject.agent_id = AgentId(agent);
      request.resource = absl::StrCat("docs:", agent, ":secret:", page);
      expected = Expect(Verdict::kDeny, ReasonCode::kDeniedByPolicy, PermissionId(agent, 2));
      break;
    case ProbeKind::kThreeHops: {
      const int64_t chain =
          3 * static_cast<int64_t>(pick % static_cast<uint64_t>(WholeChainCount(agents)));
      const int64_t owner = FirstAgentOf(chain);
      request.subject.agent_id = AgentId(owner + kLinksPerChain);
      request.resource = absl::StrCat("docs:", owner, ":shared:", page);
      expected = Expect(Verdict::kAllow, ReasonCode::kAllowed, PermissionId(owner, 0));
      for (int link = 0; link < kLinksPerChain; ++link) {
        expected.delegation_ids.push_back(DelegationId(chain, link));
      }
      break;
    }
    case ProbeKind::kRevokedChain: {
      const int64_t chain = NthBrokenChain(
          static_cast<int64_t>(pick % static_cast<uint64_t>(BrokenChainCount(agents))));
      const int64_t owner = FirstAgentOf(chain);
      request.subject.agent_id = AgentId(owner + kLinksPerChain);
      request.resource = absl::StrCat("docs:", owner, ":shared:", page);
      expected = Expect(Verdict::kDeny, ReasonCode::kNoMatchingPermission, "");
      break;
    }
    case ProbeKind::kNoMatch:
      request.subject.agent_id = AgentId(agent);
      request.resource = absl::StrCat("wiki:", agent, ":page:", page);
      expected = Expect(Verdict::kDeny, ReasonCode::kNoMatchingPermission, "");
      break;
  }
  return probe;
}

}  // namespace verdict::bench
