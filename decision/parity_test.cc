// Simulate without what-if inputs decides exactly as Authorize does (design section 2), checked
// over a seeded random corpus of small policies: agents in every state, overlapping patterns,
// deny and allow, every kind of constraint, delegation graphs with cycles and depth limits, open
// approvals and spent rate slots.
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "crypto/sha256.h"
#include "crypto/token.h"
#include "decision/authorizer.h"
#include "gtest/gtest.h"
#include "testing/memory_store.h"
#include "testing/random_corpus.h"

namespace verdict {
namespace {

constexpr int kCases = 10'000;
constexpr int kAgents = 4;
const absl::Time kDayStart = absl::FromUnixSeconds(1'700'000'000);

// Broad patterns and common actions come up more often, so grants overlap and chains form.
const std::vector<std::string> kPatterns = {"*",        "*",      "docs:*",  "docs:*",   "docs:1",
                                            "docs:*:x", "mail:*", "/api/**", "/api/v1/*"};
const std::vector<std::string> kResources = {"docs:1", "docs:2",    "docs:2:x",
                                             "mail:1", "/api/v1/a", "/api/v2/b"};
const std::vector<std::string> kActions = {"read", "read", "write", "delete"};
const std::vector<std::string> kClientIps = {"", "10.1.2.3", "192.0.2.1", "2001:db8::1"};
const std::vector<std::string> kArguments = {"", R"({"amount": 5})", R"({"amount": 500})"};
const std::vector<std::string> kConstraints = {
    "",
    "{}",
    R"({"time_window": {"start": "08:00", "end": "18:00"}})",
    R"({"time_window": {"start": "22:00", "end": "06:00", "time_zone": "Europe/Paris"}})",
    R"({"ip_allowlist": ["10.0.0.0/8"]})",
    R"({"ip_allowlist": ["2001:db8::/32", "192.0.2.0/24"]})",
    R"({"arguments": [{"path": "amount", "max": 100}]})",
    R"({"approval": {"quorum": 1}})",
    R"({"approval": {"quorum": 2, "ttl_seconds": 600}})",
    R"({"rate_limit": {"max_calls": 1, "window_seconds": 60}})",
    R"({"rate_limit": {"max_calls": 2, "window_seconds": 3600}})",
    R"({"ip_allowlist": ["10.0.0.0/8"], "rate_limit": {"max_calls": 1, "window_seconds": 60}})",
    R"({"approval": {"quorum": 1}, "rate_limit": {"max_calls": 1, "window_seconds": 60}})",
};

// A token of the right shape, drawn from the corpus's seeded generator.
std::string RandomToken(RandomCorpus& corpus) {
  std::string bytes(32, '\0');
  for (char& byte : bytes) byte = static_cast<char>(corpus.Uniform(256));
  return absl::StrCat(kAgentTokenPrefix, Base64UrlEncode(bytes));
}

std::string AgentId(int i) { return absl::StrCat("agt_", i); }

struct Universe {
  MemoryPolicyStore store;
  std::vector<std::string> tokens;  // by agent index
  absl::Time now;
};

void Populate(RandomCorpus& corpus, Universe& universe) {
  MemoryPolicyStore& store = universe.store;
  universe.now = kDayStart + absl::Seconds(corpus.Uniform(24 * 3600));
  for (int i = 0; i < kAgents; ++i) {
    Agent agent;
    agent.id = AgentId(i);
    if (corpus.Chance(6)) agent.status = AgentStatus::kSuspended;
    if (corpus.Chance(4)) agent.status = AgentStatus::kRevoked;
    if (corpus.Chance(5)) agent.expires_at = universe.now - absl::Seconds(corpus.Uniform(2));
    ASSERT_TRUE(store.AddAgent(agent).ok());
    universe.tokens.push_back(RandomToken(corpus));
    ASSERT_TRUE(store.SetAgentToken(agent.id, Sha256(universe.tokens.back())).ok());
    for (int p = corpus.Uniform(4); p > 0; --p) {
      Permission permission;
      permission.agent_id = agent.id;
      permission.resource = corpus.Pick(kPatterns);
      permission.actions = corpus.Actions(kActions, /*any_percent=*/30);
      permission.effect = corpus.Chance(15) ? Effect::kDeny : Effect::kAllow;
      permission.constraints_json = corpus.Pick(kConstraints);
      absl::StatusOr<std::string> id = store.AddPermission(permission);
      ASSERT_TRUE(id.ok());
      if (corpus.Chance(20)) {
        // Some quota already spent in the current window (60 s or 3600 s).
        std::unique_ptr<WriteTransaction> transaction = *store.BeginWrite();
        const int64_t window = corpus.Chance(50) ? 60 : 3600;
        const int64_t start = absl::ToUnixSeconds(universe.now) / window * window;
        ASSERT_TRUE(transaction->SpendRate({permission.agent_id, *id, start, 0}).ok());
        ASSERT_TRUE(transaction->Commit().ok());
      }
    }
  }
  for (int d = corpus.Uniform(8); d > 0; --d) {
    Delegation delegation;
    delegation.from_agent_id = AgentId(corpus.Uniform(kAgents));
    delegation.to_agent_id = AgentId(corpus.Uniform(kAgents));
    delegation.max_depth = 1 + corpus.Uniform(3);
    if (corpus.Chance(10)) delegation.expires_at = universe.now;
    for (int l = 1 + corpus.Uniform(2); l > 0; --l) {
      delegation.permissions.push_back({corpus.Pick(kPatterns),
                                        corpus.Actions(kActions, /*any_percent=*/30),
                                        corpus.Pick(kConstraints)});
    }
    absl::StatusOr<std::string> id = store.AddDelegation(delegation);
    ASSERT_TRUE(id.ok());
    if (corpus.Chance(10)) {
      ASSERT_TRUE(store.RevokeDelegation(*id).ok());
    }
  }
}

Request RandomRequest(RandomCorpus& corpus, const Universe& universe) {
  Request request;
  const int subject = corpus.Chance(5) ? kAgents : corpus.Uniform(kAgents);  // kAgents: unknown
  if (subject < kAgents && corpus.Chance(15)) {
    request.subject.token = universe.tokens[subject];
  } else if (corpus.Chance(3)) {
    request.subject.token = absl::StrCat(kAgentTokenPrefix, std::string(43, 'A'));
  } else {
    request.subject.agent_id = AgentId(subject);
  }
  request.action = corpus.Pick(kActions);
  request.resource = corpus.Pick(kResources);
  request.client_ip = corpus.Pick(kClientIps);
  request.arguments_json = corpus.Pick(kArguments);
  return request;
}

// Approves to quorum, denies or leaves pending the approval request a decision waits on.
void DecideApproval(RandomCorpus& corpus, MemoryPolicyStore& store, const Decision& decision,
                    absl::Time now) {
  if (decision.verdict != Verdict::kNeedsApproval) return;
  const int fate = corpus.Uniform(3);
  if (fate == 1) {
    for (const char* approver : {"alice", "bob"}) {
      // An approver votes once: a request met again keeps the votes it had.
      const absl::Status voted = store.ApproveRequest(decision.approval_request_id, approver, now);
      ASSERT_TRUE(voted.ok() || absl::IsAlreadyExists(voted)) << voted;
      if (store.ApprovalRequests().back().status == ApprovalStatus::kApproved) break;
    }
  } else if (fate == 2) {
    ASSERT_TRUE(store.DenyRequest(decision.approval_request_id, "dave", now).ok());
  }
}

std::string PathText(const std::vector<DelegationHop>& path) {
  return absl::StrJoin(path, ">", [](std::string* out, const DelegationHop& hop) {
    absl::StrAppend(out, hop.delegation_id, "(", hop.from_agent_id, "->", hop.to_agent_id, ")");
  });
}

// What parity compares: verdict, reason, matched grant and delegation path.
std::string Outcome(const Decision& decision) {
  return absl::StrCat(VerdictName(decision.verdict), " ", ReasonCodeName(decision.reason), " ",
                      decision.matched_grant ? decision.matched_grant->permission_id : "-", " ",
                      PathText(decision.delegation_path));
}

TEST(Parity, SimulateDecidesAsAuthorizeOverARandomCorpus) {
  RandomCorpus corpus(20240515);
  std::map<ReasonCode, int> reasons;
  int delegated_allows = 0;
  for (int i = 0; i < kCases; ++i) {
    Universe universe;
    Populate(corpus, universe);
    Authorizer authorizer(universe.store, [&universe] { return universe.now; });
    // Two calls per universe; the second often repeats the first, which may have spent a rate
    // slot or opened an approval request (then approved, denied or left pending).
    Request request;
    for (int call = 0; call < 2; ++call) {
      if (call == 0 || corpus.Chance(50)) request = RandomRequest(corpus, universe);
      const size_t approvals_before = universe.store.ApprovalRequests().size();
      absl::StatusOr<Simulation> simulated = authorizer.Simulate(request, WhatIf());
      ASSERT_TRUE(simulated.ok()) << simulated.status();
      ASSERT_EQ(universe.store.ApprovalRequests().size(), approvals_before);
      absl::StatusOr<Decision> authorized = authorizer.Authorize(request);
      ASSERT_TRUE(authorized.ok()) << authorized.status();
      ASSERT_EQ(Outcome(simulated->decision), Outcome(*authorized))
          << "case " << i << " call " << call << ": " << request.subject.agent_id << " "
          << request.action << " " << request.resource << " ip=" << request.client_ip
          << " args=" << request.arguments_json;
      DecideApproval(corpus, universe.store, *authorized, universe.now);
      ++reasons[authorized->reason];
      if (authorized->verdict == Verdict::kAllow && !authorized->delegation_path.empty()) {
        ++delegated_allows;
      }
    }
  }
  // The corpus is only worth something if it reaches every outcome.
  for (ReasonCode reason :
       {ReasonCode::kAllowed, ReasonCode::kAgentNotFound, ReasonCode::kAgentSuspended,
        ReasonCode::kAgentRevoked, ReasonCode::kAgentExpired, ReasonCode::kTokenInvalid,
        ReasonCode::kDeniedByPolicy, ReasonCode::kNoMatchingPermission,
        ReasonCode::kOutsideTimeWindow, ReasonCode::kIpNotAllowed, ReasonCode::kArgumentsRejected,
        ReasonCode::kApprovalRequired, ReasonCode::kApprovalDenied, ReasonCode::kRateLimited}) {
    EXPECT_GT(reasons[reason], 0) << ReasonCodeName(reason);
  }
  EXPECT_GT(delegated_allows, 100);
}

}  // namespace
}  // namespace verdict
