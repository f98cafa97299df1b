#include "decision/engine.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "crypto/sha256.h"
#include "crypto/token.h"
#include "gtest/gtest.h"
#include "testing/memory_store.h"

namespace verdict {
namespace {

// Wednesday 15 May 2024, 12:00 UTC.
const absl::Time kNoon =
    absl::FromCivil(absl::CivilSecond(2024, 5, 15, 12, 0, 0), absl::UTCTimeZone());

// Counts the lookups a decision makes, to hold the engine to its cost.
class CountingView : public PolicyView {
 public:
  explicit CountingView(PolicyView& base) : base_(base) {}

  absl::StatusOr<std::optional<Agent>> FindAgent(absl::string_view agent_id) override {
    ++calls["FindAgent:" + std::string(agent_id)];
    return base_.FindAgent(agent_id);
  }
  absl::StatusOr<std::optional<Agent>> FindAgentByTokenHash(absl::string_view token_sha256,
                                                            absl::Time now) override {
    ++calls["FindAgentByTokenHash"];
    return base_.FindAgentByTokenHash(token_sha256, now);
  }
  absl::StatusOr<std::vector<Permission>> PermissionsOf(absl::string_view agent_id) override {
    ++calls["PermissionsOf:" + std::string(agent_id)];
    return base_.PermissionsOf(agent_id);
  }
  absl::StatusOr<std::vector<Delegation>> ActiveDelegationsInto(absl::string_view agent_id,
                                                                absl::Time now) override {
    ++calls["ActiveDelegationsInto:" + std::string(agent_id)];
    return base_.ActiveDelegationsInto(agent_id, now);
  }
  absl::StatusOr<std::optional<ApprovalRequest>> FindOpenApproval(absl::string_view agent_id,
                                                                  absl::string_view action,
                                                                  absl::string_view resource,
                                                                  absl::string_view arguments_hash,
                                                                  absl::Time now) override {
    ++calls["FindOpenApproval"];
    return base_.FindOpenApproval(agent_id, action, resource, arguments_hash, now);
  }
  absl::StatusOr<int64_t> RateCount(absl::string_view agent_id, absl::string_view permission_id,
                                    int64_t window_start_unix) override {
    ++calls["RateCount:" + std::string(permission_id)];
    return base_.RateCount(agent_id, permission_id, window_start_unix);
  }

  std::map<std::string, int> calls;

 private:
  PolicyView& base_;
};

class EngineTest : public ::testing::Test {
 protected:
  void AddAgent(const std::string& id, AgentStatus status = AgentStatus::kActive,
                absl::Time expires_at = absl::InfiniteFuture()) {
    Agent agent;
    agent.id = id;
    agent.status = status;
    agent.expires_at = expires_at;
    ASSERT_TRUE(store_.AddAgent(agent).ok());
  }

  std::string AddPermission(const std::string& agent_id, Effect effect, const std::string& resource,
                            std::vector<std::string> actions,
                            const std::string& constraints_json = "") {
    Permission permission;
    permission.agent_id = agent_id;
    permission.effect = effect;
    permission.resource = resource;
    permission.actions = std::move(actions);
    permission.constraints_json = constraints_json;
    absl::StatusOr<std::string> id = store_.AddPermission(permission);
    EXPECT_TRUE(id.ok()) << id.status();
    return id.value_or("");
  }

  std::string Allow(const std::string& agent_id, const std::string& resource,
                    const std::string& constraints_json = "") {
    return AddPermission(agent_id, Effect::kAllow, resource, {"read"}, constraints_json);
  }

  std::string Deny(const std::string& agent_id, const std::string& resource) {
    return AddPermission(agent_id, Effect::kDeny, resource, {"read"});
  }

  // Lends read on `resource` from `from` to `to`.
  std::string Delegate(const std::string& from, const std::string& to, const std::string& resource,
                       int max_depth = kMaxDelegationDepth,
                       const std::string& constraints_json = "") {
    Delegation delegation;
    delegation.from_agent_id = from;
    delegation.to_agent_id = to;
    delegation.max_depth = max_depth;
    delegation.permissions.push_back({resource, {"read"}, constraints_json});
    absl::StatusOr<std::string> id = store_.AddDelegation(delegation);
    EXPECT_TRUE(id.ok()) << id.status();
    return id.value_or("");
  }

  static Request Read(const std::string& agent_id, const std::string& resource) {
    Request request;
    request.subject.agent_id = agent_id;
    request.action = "read";
    request.resource = resource;
    request.request_id = "req-1";
    return request;
  }

  Decision DecideNow(const Request& request, absl::Time now = kNoon, Trace* trace = nullptr) {
    absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store_.BeginRead();
    EXPECT_TRUE(snapshot.ok());
    absl::StatusOr<Decision> decision = Decide(request, **snapshot, now, trace);
    EXPECT_TRUE(decision.ok()) << decision.status();
    return decision.value_or(Decision());
  }

  void OpenApproval(const Request& request, int quorum, const std::string& arguments_hash) {
    absl::StatusOr<std::unique_ptr<WriteTransaction>> transaction = store_.BeginWrite();
    ASSERT_TRUE(transaction.ok());
    ApprovalToOpen approval{request.subject.agent_id, request.action, request.resource,
                            arguments_hash,           quorum,         kNoon + absl::Hours(1)};
    absl::StatusOr<std::string> id = (*transaction)->OpenApproval(approval, kNoon);
    ASSERT_TRUE(id.ok());
    approval_id_ = *id;
    ASSERT_TRUE((*transaction)->Commit().ok());
  }

  void Spend(const std::string& agent_id, const std::string& permission_id, int64_t window_start,
             int times) {
    absl::StatusOr<std::unique_ptr<WriteTransaction>> transaction = store_.BeginWrite();
    ASSERT_TRUE(transaction.ok());
    for (int i = 0; i < times; ++i) {
      ASSERT_TRUE((*transaction)->SpendRate({agent_id, permission_id, window_start, 0}).ok());
    }
    ASSERT_TRUE((*transaction)->Commit().ok());
  }

  MemoryPolicyStore store_;
  std::string approval_id_;
};

const std::string kEmptyArgumentsHash = HexEncode(Sha256("{}"));

// ---------------------------------------------------------------------------------------------
// The subject

TEST_F(EngineTest, AnAgentThatIsNotLiveIsRefusedWithItsReason) {
  struct Case {
    std::string id;
    AgentStatus status;
    absl::Time expires_at;
    ReasonCode reason;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"agt_suspended", AgentStatus::kSuspended, absl::InfiniteFuture(),
       ReasonCode::kAgentSuspended, "agent agt_suspended is suspended"},
      {"agt_revoked", AgentStatus::kRevoked, absl::InfiniteFuture(), ReasonCode::kAgentRevoked,
       "agent agt_revoked is revoked"},
      {"agt_expired", AgentStatus::kActive, kNoon, ReasonCode::kAgentExpired,
       "agent agt_expired expired at 2024-05-15T12:00:00+00:00"},
  };
  for (const Case& c : cases) {
    AddAgent(c.id, c.status, c.expires_at);
    Allow(c.id, "*");
    Decision decision = DecideNow(Read(c.id, "docs:1"));
    EXPECT_EQ(decision.verdict, Verdict::kDeny) << c.id;
    EXPECT_EQ(decision.reason, c.reason) << c.id;
    EXPECT_EQ(decision.message, c.message);
    EXPECT_EQ(decision.agent_id, c.id);  // refused, but known: the decision log names it
    EXPECT_FALSE(decision.matched_grant) << c.id;
  }
}

TEST_F(EngineTest, AnUnknownAgentIsNotFound) {
  Decision decision = DecideNow(Read("agt_ghost", "docs:1"));
  EXPECT_EQ(decision.verdict, Verdict::kDeny);
  EXPECT_EQ(decision.reason, ReasonCode::kAgentNotFound);
  EXPECT_EQ(decision.message, "agent agt_ghost not found");
  EXPECT_TRUE(decision.agent_id.empty());
}

TEST_F(EngineTest, ATokenSubjectDecidesAsItsAgent) {
  AddAgent("agt_a");
  const std::string permission = Allow("agt_a", "docs:*");
  const std::string token = NewAgentToken();
  ASSERT_TRUE(store_.SetAgentToken("agt_a", Sha256(token)).ok());
  Request request = Read("", "docs:1");
  request.subject.token = token;
  Decision decision = DecideNow(request);
  EXPECT_EQ(decision.reason, ReasonCode::kAllowed);
  EXPECT_EQ(decision.agent_id, "agt_a");
  EXPECT_EQ(decision.matched_grant->permission_id, permission);
}

TEST_F(EngineTest, AnUnknownOrMalformedTokenIsTokenInvalid) {
  for (const std::string& token : {NewAgentToken(), std::string("vdt_short")}) {
    Request request = Read("", "docs:1");
    request.subject.token = token;
    Decision decision = DecideNow(request);
    EXPECT_EQ(decision.verdict, Verdict::kDeny);
    EXPECT_EQ(decision.reason, ReasonCode::kTokenInvalid) << token;
    EXPECT_TRUE(decision.agent_id.empty());
  }
}

// ---------------------------------------------------------------------------------------------
// Matching and effects

TEST_F(EngineTest, AMatchingAllowIsAllowedWithItsGrant) {
  AddAgent("agt_a");
  const std::string permission = Allow("agt_a", "docs:*");
  Decision decision = DecideNow(Read("agt_a", "docs:1"));
  EXPECT_EQ(decision.verdict, Verdict::kAllow);
  EXPECT_EQ(decision.reason, ReasonCode::kAllowed);
  EXPECT_EQ(decision.agent_id, "agt_a");
  EXPECT_EQ(decision.request_id, "req-1");
  ASSERT_TRUE(decision.matched_grant);
  EXPECT_EQ(decision.matched_grant->permission_id, permission);
  EXPECT_EQ(decision.matched_grant->owner_agent_id, "agt_a");
  EXPECT_TRUE(decision.delegation_path.empty());
  EXPECT_TRUE(decision.side_effects.empty());
}

TEST_F(EngineTest, DenyOverridesAllow) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*");
  const std::string deny = Deny("agt_a", "docs:secret");
  Decision decision = DecideNow(Read("agt_a", "docs:secret"));
  EXPECT_EQ(decision.verdict, Verdict::kDeny);
  EXPECT_EQ(decision.reason, ReasonCode::kDeniedByPolicy);
  EXPECT_EQ(decision.matched_grant->permission_id, deny);
  EXPECT_EQ(decision.message, "denied by " + deny);
  // The deny covers only what it matches.
  EXPECT_EQ(DecideNow(Read("agt_a", "docs:public")).reason, ReasonCode::kAllowed);
}

TEST_F(EngineTest, DenyOverridesAnAllowLentThroughADelegation) {
  AddAgent("agt_a");
  AddAgent("agt_b");
  Allow("agt_a", "docs:*");
  Delegate("agt_a", "agt_b", "docs:*");
  Deny("agt_b", "docs:*");
  EXPECT_EQ(DecideNow(Read("agt_b", "docs:1")).reason, ReasonCode::kDeniedByPolicy);
}

TEST_F(EngineTest, NoMatchingPermissionNamesTheCall) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*");
  AddPermission("agt_a", Effect::kAllow, "mail:*", {"send"});
  Decision decision = DecideNow(Read("agt_a", "mail:1"));
  EXPECT_EQ(decision.verdict, Verdict::kDeny);
  EXPECT_EQ(decision.reason, ReasonCode::kNoMatchingPermission);
  EXPECT_EQ(decision.message, "no permission of agt_a matches read on mail:1");
  EXPECT_FALSE(decision.matched_grant);
}

TEST_F(EngineTest, AStarActionMatchesEveryAction) {
  AddAgent("agt_a");
  AddPermission("agt_a", Effect::kAllow, "docs:*", {"*"});
  Request request = Read("agt_a", "docs:1");
  request.action = "delete";
  EXPECT_EQ(DecideNow(request).reason, ReasonCode::kAllowed);
}

// ---------------------------------------------------------------------------------------------
// Constraints

TEST_F(EngineTest, ATimeWindowHoldsInItsZoneAndWrapsMidnight) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*",
        R"({"time_window": {"start": "22:00", "end": "06:00", "time_zone": "Europe/Paris"}})");
  struct Case {
    int utc_hour, utc_minute;  // Paris is UTC+2 in May
    ReasonCode reason;
  };
  const std::vector<Case> cases = {
      {19, 59, ReasonCode::kOutsideTimeWindow},  // 21:59 in Paris
      {20, 0, ReasonCode::kAllowed},             // 22:00
      {23, 30, ReasonCode::kAllowed},            // 01:30, past midnight
      {3, 59, ReasonCode::kAllowed},             // 05:59
      {4, 0, ReasonCode::kOutsideTimeWindow},    // 06:00: the end is exclusive
      {12, 0, ReasonCode::kOutsideTimeWindow},   // 14:00
  };
  for (const Case& c : cases) {
    const absl::Time at = absl::FromCivil(
        absl::CivilSecond(2024, 5, 15, c.utc_hour, c.utc_minute, 0), absl::UTCTimeZone());
    Decision decision = DecideNow(Read("agt_a", "docs:1"), at);
    EXPECT_EQ(decision.reason, c.reason) << c.utc_hour << ":" << c.utc_minute;
    if (c.reason == ReasonCode::kOutsideTimeWindow) {
      EXPECT_EQ(decision.message, "outside time window 22:00-06:00 Europe/Paris");
      EXPECT_EQ(decision.verdict, Verdict::kDeny);
    }
  }
}

TEST_F(EngineTest, AnIpAllowlistAcceptsIpv6AndIpv4Networks) {
  AddAgent("agt_a");
  const std::string permission =
      Allow("agt_a", "docs:*", R"({"ip_allowlist": ["2001:db8::/32", "10.0.0.0/8"]})");
  struct Case {
    std::string client_ip;
    ReasonCode reason;
  };
  const std::vector<Case> cases = {
      {"2001:db8::7", ReasonCode::kAllowed},      {"2001:db8:ffff::1", ReasonCode::kAllowed},
      {"2001:db9::1", ReasonCode::kIpNotAllowed}, {"10.20.30.40", ReasonCode::kAllowed},
      {"192.0.2.1", ReasonCode::kIpNotAllowed},   {"", ReasonCode::kIpNotAllowed},
  };
  for (const Case& c : cases) {
    Request request = Read("agt_a", "docs:1");
    request.client_ip = c.client_ip;
    EXPECT_EQ(DecideNow(request).reason, c.reason) << c.client_ip;
  }
  Request request = Read("agt_a", "docs:1");
  request.client_ip = "2001:db9::1";
  EXPECT_EQ(DecideNow(request).message, "ip 2001:db9::1 is not allowed by " + permission);
}

TEST_F(EngineTest, ArgumentRulesRejectACallOutsideThem) {
  AddAgent("agt_a");
  Allow("agt_a", "payments:*", R"({"arguments": [{"path": "amount", "max": 100}]})");
  Request request = Read("agt_a", "payments:1");
  request.arguments_json = R"({"amount": 50})";
  EXPECT_EQ(DecideNow(request).reason, ReasonCode::kAllowed);
  request.arguments_json = R"({"amount": 500})";
  Decision decision = DecideNow(request);
  EXPECT_EQ(decision.verdict, Verdict::kDeny);
  EXPECT_EQ(decision.reason, ReasonCode::kArgumentsRejected);
  EXPECT_TRUE(absl::StartsWith(decision.message, "arguments rejected by ")) << decision.message;
  request.arguments_json = "";  // a missing argument fails its rule
  EXPECT_EQ(DecideNow(request).reason, ReasonCode::kArgumentsRejected);
}

TEST_F(EngineTest, ChecksRunCheapestFirst) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*",
        R"({"ip_allowlist": ["10.0.0.0/8"],
            "time_window": {"start": "01:00", "end": "02:00"}})");
  Request request = Read("agt_a", "docs:1");
  request.client_ip = "192.0.2.1";
  EXPECT_EQ(DecideNow(request).reason, ReasonCode::kOutsideTimeWindow);
}

TEST_F(EngineTest, ApprovalWithNoRequestYetNeedsOneOpened) {
  AddAgent("agt_a");
  const std::string permission =
      Allow("agt_a", "docs:*", R"({"approval": {"quorum": 2, "ttl_seconds": 600}})");
  Request request = Read("agt_a", "docs:1");
  request.arguments_json = R"({"b": 1, "a": [true]})";
  Decision decision = DecideNow(request);
  EXPECT_EQ(decision.verdict, Verdict::kNeedsApproval);
  EXPECT_EQ(decision.reason, ReasonCode::kApprovalRequired);
  EXPECT_EQ(decision.matched_grant->permission_id, permission);
  EXPECT_TRUE(decision.approval_request_id.empty());
  ASSERT_TRUE(decision.side_effects.approval_to_open);
  const ApprovalToOpen& approval = *decision.side_effects.approval_to_open;
  EXPECT_EQ(approval.agent_id, "agt_a");
  EXPECT_EQ(approval.action, "read");
  EXPECT_EQ(approval.resource, "docs:1");
  // The hash of the canonical arguments: key order and white space do not matter.
  EXPECT_EQ(approval.arguments_hash, HexEncode(Sha256(R"({"a":[true],"b":1})")));
  EXPECT_EQ(approval.quorum, 2);
  EXPECT_EQ(approval.expires_at, kNoon + absl::Minutes(10));
  EXPECT_TRUE(decision.side_effects.rate_spends.empty());
  EXPECT_FALSE(decision.side_effects.approval_to_use);
}

TEST_F(EngineTest, ApprovalFollowsTheOpenRequestsStatus) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*", R"({"approval": {"quorum": 1}})");
  const Request request = Read("agt_a", "docs:1");

  OpenApproval(request, 1, kEmptyArgumentsHash);
  Decision pending = DecideNow(request);
  EXPECT_EQ(pending.verdict, Verdict::kNeedsApproval);
  EXPECT_EQ(pending.reason, ReasonCode::kApprovalRequired);
  EXPECT_EQ(pending.approval_request_id, approval_id_);
  EXPECT_TRUE(pending.side_effects.empty());

  ASSERT_TRUE(store_.ApproveRequest(approval_id_, "alice", kNoon).ok());
  Decision approved = DecideNow(request);
  EXPECT_EQ(approved.reason, ReasonCode::kAllowed);
  EXPECT_EQ(approved.side_effects.approval_to_use, approval_id_);

  OpenApproval(request, 1, kEmptyArgumentsHash);
  ASSERT_TRUE(store_.DenyRequest(approval_id_, "alice", kNoon).ok());
  Decision denied = DecideNow(request);
  EXPECT_EQ(denied.verdict, Verdict::kDeny);
  EXPECT_EQ(denied.reason, ReasonCode::kApprovalDenied);
  EXPECT_EQ(denied.approval_request_id, approval_id_);
  EXPECT_TRUE(denied.side_effects.empty());
}

TEST_F(EngineTest, AnApprovalUnderASmallerQuorumDoesNotSatisfyAStricterGrant) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*", R"({"approval": {"quorum": 2}})");
  const Request request = Read("agt_a", "docs:1");
  OpenApproval(request, 1, kEmptyArgumentsHash);
  ASSERT_TRUE(store_.ApproveRequest(approval_id_, "alice", kNoon).ok());
  Decision decision = DecideNow(request);
  EXPECT_EQ(decision.reason, ReasonCode::kApprovalRequired);
  ASSERT_TRUE(decision.side_effects.approval_to_open);
  EXPECT_EQ(decision.side_effects.approval_to_open->quorum, 2);
}

TEST_F(EngineTest, ARateLimitAllowsUntilItsWindowIsFull) {
  AddAgent("agt_a");
  const std::string permission =
      Allow("agt_a", "docs:*", R"({"rate_limit": {"max_calls": 2, "window_seconds": 60}})");
  const int64_t window_start = absl::ToUnixSeconds(kNoon) / 60 * 60;
  Spend("agt_a", permission, window_start, 1);
  Decision allowed = DecideNow(Read("agt_a", "docs:1"));
  EXPECT_EQ(allowed.reason, ReasonCode::kAllowed);
  ASSERT_EQ(allowed.side_effects.rate_spends.size(), 1u);
  EXPECT_EQ(allowed.side_effects.rate_spends[0].agent_id, "agt_a");
  EXPECT_EQ(allowed.side_effects.rate_spends[0].permission_id, permission);
  EXPECT_EQ(allowed.side_effects.rate_spends[0].window_start_unix, window_start);
  EXPECT_EQ(allowed.side_effects.rate_spends[0].limit, 2);
  EXPECT_EQ(allowed.side_effects.rate_spends[0].window_seconds, 60);

  Spend("agt_a", permission, window_start, 1);
  Decision limited = DecideNow(Read("agt_a", "docs:1"));
  EXPECT_EQ(limited.verdict, Verdict::kDeny);
  EXPECT_EQ(limited.reason, ReasonCode::kRateLimited);
  EXPECT_EQ(limited.message, "rate limit of 2 calls per 60 s reached for " + permission);
  EXPECT_TRUE(limited.side_effects.empty());
  // The next window starts empty.
  EXPECT_EQ(DecideNow(Read("agt_a", "docs:1"), kNoon + absl::Minutes(1)).reason,
            ReasonCode::kAllowed);
}

TEST_F(EngineTest, TheFailureThatGotFurthestIsReported) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*", R"({"time_window": {"start": "01:00", "end": "02:00"}})");
  const std::string limited =
      Allow("agt_a", "docs:*", R"({"rate_limit": {"max_calls": 1, "window_seconds": 60}})");
  Allow("agt_a", "docs:*", R"({"ip_allowlist": ["10.0.0.0/8"]})");
  Spend("agt_a", limited, absl::ToUnixSeconds(kNoon) / 60 * 60, 1);
  Decision decision = DecideNow(Read("agt_a", "docs:1"));
  EXPECT_EQ(decision.reason, ReasonCode::kRateLimited);
  EXPECT_EQ(decision.matched_grant->permission_id, limited);
}

TEST_F(EngineTest, FailuresThatGotEquallyFarReportTheFirst) {
  AddAgent("agt_a");
  const std::string first = Allow("agt_a", "docs:*", R"({"ip_allowlist": ["10.0.0.0/8"]})");
  Allow("agt_a", "docs:*", R"({"ip_allowlist": ["192.168.0.0/16"]})");
  Decision decision = DecideNow(Read("agt_a", "docs:1"));
  EXPECT_EQ(decision.reason, ReasonCode::kIpNotAllowed);
  EXPECT_EQ(decision.matched_grant->permission_id, first);
}

TEST_F(EngineTest, TheFirstPassingGrantAllowsWithOnlyItsSideEffects) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*", R"({"approval": {"quorum": 1}})");
  const std::string limited =
      Allow("agt_a", "docs:*", R"({"rate_limit": {"max_calls": 5, "window_seconds": 60}})");
  Allow("agt_a", "docs:*", R"({"rate_limit": {"max_calls": 5, "window_seconds": 60}})");
  Decision decision = DecideNow(Read("agt_a", "docs:1"));
  EXPECT_EQ(decision.reason, ReasonCode::kAllowed);
  EXPECT_EQ(decision.matched_grant->permission_id, limited);
  ASSERT_EQ(decision.side_effects.rate_spends.size(), 1u);
  EXPECT_EQ(decision.side_effects.rate_spends[0].permission_id, limited);
  EXPECT_FALSE(decision.side_effects.approval_to_open);
}

TEST_F(EngineTest, NeedsApprovalNeverCarriesARateSpend) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*",
        R"({"approval": {"quorum": 1}, "rate_limit": {"max_calls": 5, "window_seconds": 60}})");
  Decision decision = DecideNow(Read("agt_a", "docs:1"));
  EXPECT_EQ(decision.verdict, Verdict::kNeedsApproval);
  EXPECT_TRUE(decision.side_effects.rate_spends.empty());
  EXPECT_TRUE(decision.side_effects.approval_to_open);
}

TEST_F(EngineTest, StoredConstraintsThatDoNotParseFailClosed) {
  AddAgent("agt_a");
  const std::string broken = Allow("agt_a", "docs:*", R"({"time_windw": {}})");
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store_.BeginRead();
  ASSERT_TRUE(snapshot.ok());
  absl::StatusOr<Decision> decision = Decide(Read("agt_a", "docs:1"), **snapshot, kNoon, nullptr);
  EXPECT_EQ(decision.status().code(), absl::StatusCode::kInternal);
  EXPECT_TRUE(absl::StrContains(decision.status().message(), broken)) << decision.status();
  // Constraints are parsed only for grants that match.
  EXPECT_EQ(DecideNow(Read("agt_a", "mail:1")).reason, ReasonCode::kNoMatchingPermission);
}

// Parsed constraints are kept by their text (design section 3 allows it for configuration
// keyed by its content): a grant whose constraints change is decided by the new ones.
TEST_F(EngineTest, ConstraintsThatChangeDecideByTheirNewText) {
  AddAgent("agt_a");
  const std::string first = Allow("agt_a", "docs:*", R"({"ip_allowlist": ["10.0.0.0/8"]})");
  Request request = Read("agt_a", "docs:1");
  request.client_ip = "10.1.2.3";
  EXPECT_EQ(DecideNow(request).reason, ReasonCode::kAllowed);
  ASSERT_TRUE(store_.RemovePermission(first).ok());
  Allow("agt_a", "docs:*", R"({"ip_allowlist": ["192.0.2.0/24"]})");
  EXPECT_EQ(DecideNow(request).reason, ReasonCode::kIpNotAllowed);
}

// More distinct constraints in one call than are kept parsed: each grant is still checked
// against its own, and what the call parsed early stays valid to the end.
TEST_F(EngineTest, OneCallMayCheckMoreDistinctConstraintsThanAreKeptParsed) {
  AddAgent("agt_a");
  const auto address = [](int i) { return absl::StrCat("10.0.", i / 256, ".", i % 256); };
  std::vector<std::string> permissions;
  for (int i = 0; i < 600; ++i) {
    permissions.push_back(
        Allow("agt_a", "docs:*", absl::StrCat(R"({"ip_allowlist": [")", address(i), R"("]})")));
  }
  for (int i : {0, 299, 599}) {
    Request request = Read("agt_a", "docs:1");
    request.client_ip = address(i);
    Decision decision = DecideNow(request);
    EXPECT_EQ(decision.reason, ReasonCode::kAllowed) << i;
    EXPECT_EQ(decision.matched_grant->permission_id, permissions[i]);
  }
  Request request = Read("agt_a", "docs:1");
  request.client_ip = "192.0.2.1";
  Decision decision = DecideNow(request);
  EXPECT_EQ(decision.reason, ReasonCode::kIpNotAllowed);
  EXPECT_EQ(decision.message, "ip 192.0.2.1 is not allowed by " + permissions[0]);
}

// ---------------------------------------------------------------------------------------------
// Delegation

// A holds read on docs:*, and lends it along A -> B -> C -> D.
class DelegationChainTest : public EngineTest {
 protected:
  void SetUp() override {
    for (const char* id : {"agt_a", "agt_b", "agt_c", "agt_d"}) AddAgent(id);
    origin_ = Allow("agt_a", "docs:*");
    ab_ = Delegate("agt_a", "agt_b", "docs:*", 3);
    bc_ = Delegate("agt_b", "agt_c", "docs:*", 3);
    cd_ = Delegate("agt_c", "agt_d", "docs:*", 3);
  }

  std::string origin_, ab_, bc_, cd_;
};

TEST_F(DelegationChainTest, AThreeHopChainAllowsWithTheOriginsGrantAndThePath) {
  Decision decision = DecideNow(Read("agt_d", "docs:1"));
  EXPECT_EQ(decision.verdict, Verdict::kAllow);
  EXPECT_EQ(decision.matched_grant->permission_id, origin_);
  EXPECT_EQ(decision.matched_grant->owner_agent_id, "agt_a");
  ASSERT_EQ(decision.delegation_path.size(), 3u);
  EXPECT_EQ(decision.delegation_path[0].delegation_id, ab_);
  EXPECT_EQ(decision.delegation_path[0].from_agent_id, "agt_a");
  EXPECT_EQ(decision.delegation_path[0].to_agent_id, "agt_b");
  EXPECT_EQ(decision.delegation_path[1].delegation_id, bc_);
  EXPECT_EQ(decision.delegation_path[2].delegation_id, cd_);
  EXPECT_EQ(decision.delegation_path[2].to_agent_id, "agt_d");
}

TEST_F(DelegationChainTest, RevokingTheMiddleLinkDeniesTheNextCall) {
  ASSERT_TRUE(store_.RevokeDelegation(bc_).ok());
  EXPECT_EQ(DecideNow(Read("agt_d", "docs:1")).reason, ReasonCode::kNoMatchingPermission);
}

TEST_F(DelegationChainTest, SuspendingAnUpstreamAgentDeniesTheNextCall) {
  ASSERT_TRUE(store_.SetAgentStatus("agt_b", AgentStatus::kSuspended).ok());
  EXPECT_EQ(DecideNow(Read("agt_d", "docs:1")).reason, ReasonCode::kNoMatchingPermission);
}

TEST_F(DelegationChainTest, AnExpiredUpstreamAgentDeniesTheNextCall) {
  ASSERT_TRUE(store_.SetAgentExpiry("agt_a", kNoon).ok());
  EXPECT_EQ(DecideNow(Read("agt_d", "docs:1")).reason, ReasonCode::kNoMatchingPermission);
}

TEST_F(DelegationChainTest, TakingTheOriginsPermissionAwayDeniesTheNextCall) {
  ASSERT_TRUE(store_.RemovePermission(origin_).ok());
  EXPECT_EQ(DecideNow(Read("agt_d", "docs:1")).reason, ReasonCode::kNoMatchingPermission);
}

TEST_F(DelegationChainTest, ADenyOnAMiddleAgentDeniesTheNextCall) {
  Deny("agt_c", "docs:1");
  EXPECT_EQ(DecideNow(Read("agt_d", "docs:1")).reason, ReasonCode::kNoMatchingPermission);
  // Only what the deny matches is cut.
  EXPECT_EQ(DecideNow(Read("agt_d", "docs:2")).reason, ReasonCode::kAllowed);
}

TEST_F(DelegationChainTest, ALinkCannotLendMoreThanItsDelegatorHolds) {
  AddAgent("agt_x");
  Allow("agt_x", "docs:1");
  Delegate("agt_x", "agt_b", "*");  // lends everything, holds only docs:1
  EXPECT_EQ(DecideNow(Read("agt_b", "mail:1")).reason, ReasonCode::kNoMatchingPermission);
}

TEST_F(EngineTest, ALinkIsUsableOnlyOnPathsNoLongerThanItsMaxDepth) {
  for (const char* id : {"agt_a", "agt_b", "agt_c"}) AddAgent(id);
  Allow("agt_a", "docs:*");
  const std::string ab = Delegate("agt_a", "agt_b", "docs:*", /*max_depth=*/1);
  Delegate("agt_b", "agt_c", "docs:*", /*max_depth=*/5);
  // A -> B is a path of length 1: within max_depth 1.
  EXPECT_EQ(DecideNow(Read("agt_b", "docs:1")).reason, ReasonCode::kAllowed);
  // A -> B -> C has length 2: A -> B may not be part of it.
  EXPECT_EQ(DecideNow(Read("agt_c", "docs:1")).reason, ReasonCode::kNoMatchingPermission);

  Delegate("agt_a", "agt_b", "docs:*", /*max_depth=*/2);
  Decision decision = DecideNow(Read("agt_c", "docs:1"));
  EXPECT_EQ(decision.reason, ReasonCode::kAllowed);
  EXPECT_NE(decision.delegation_path[0].delegation_id, ab);
}

TEST_F(EngineTest, NoPathIsLongerThanTheEnginesDepthLimit) {
  std::vector<std::string> agents;
  for (int i = 0; i <= kMaxDelegationDepth + 1; ++i) {
    agents.push_back("agt_" + std::to_string(i));
    AddAgent(agents.back());
  }
  Allow(agents[0], "docs:*");
  for (size_t i = 1; i < agents.size(); ++i) Delegate(agents[i - 1], agents[i], "docs:*", 100);
  EXPECT_EQ(DecideNow(Read(agents[kMaxDelegationDepth], "docs:1")).reason, ReasonCode::kAllowed);
  EXPECT_EQ(DecideNow(Read(agents[kMaxDelegationDepth + 1], "docs:1")).reason,
            ReasonCode::kNoMatchingPermission);
}

TEST_F(EngineTest, ADelegationCycleTerminates) {
  AddAgent("agt_a");
  AddAgent("agt_b");
  Delegate("agt_a", "agt_b", "docs:*");
  Delegate("agt_b", "agt_a", "docs:*");
  EXPECT_EQ(DecideNow(Read("agt_a", "docs:1")).reason, ReasonCode::kNoMatchingPermission);
  EXPECT_EQ(DecideNow(Read("agt_b", "docs:1")).reason, ReasonCode::kNoMatchingPermission);
  // With a real origin, the cycle is still walked at most once around.
  AddAgent("agt_o");
  Allow("agt_o", "docs:*");
  Delegate("agt_o", "agt_a", "docs:*");
  Decision decision = DecideNow(Read("agt_b", "docs:1"));
  EXPECT_EQ(decision.reason, ReasonCode::kAllowed);
  EXPECT_EQ(decision.delegation_path.size(), 2u);
}

TEST_F(EngineTest, LentAndOriginConstraintsBothApply) {
  AddAgent("agt_a");
  AddAgent("agt_b");
  const std::string origin = Allow("agt_a", "payments:*", R"({"ip_allowlist": ["10.0.0.0/8"]})");
  const std::string link = Delegate("agt_a", "agt_b", "payments:*", 1,
                                    R"({"arguments": [{"path": "amount", "max": 100}]})");
  struct Case {
    std::string client_ip;
    std::string arguments_json;
    ReasonCode reason;
  };
  const std::vector<Case> cases = {
      {"10.1.1.1", R"({"amount": 50})", ReasonCode::kAllowed},
      {"192.0.2.1", R"({"amount": 50})", ReasonCode::kIpNotAllowed},       // the origin's
      {"10.1.1.1", R"({"amount": 500})", ReasonCode::kArgumentsRejected},  // the link's
  };
  for (const Case& c : cases) {
    Request request = Read("agt_b", "payments:1");
    request.client_ip = c.client_ip;
    request.arguments_json = c.arguments_json;
    EXPECT_EQ(DecideNow(request).reason, c.reason) << c.client_ip << " " << c.arguments_json;
  }
  Request request = Read("agt_b", "payments:1");
  request.client_ip = "10.1.1.1";
  request.arguments_json = R"({"amount": 500})";
  EXPECT_TRUE(absl::StartsWith(DecideNow(request).message, "arguments rejected by " + link + "#0"));
}

TEST_F(EngineTest, ALentRateLimitSpendsTheLentPermissionsOwnSlot) {
  AddAgent("agt_a");
  AddAgent("agt_b");
  const std::string origin =
      Allow("agt_a", "docs:*", R"({"rate_limit": {"max_calls": 10, "window_seconds": 60}})");
  const std::string link = Delegate("agt_a", "agt_b", "docs:*", 1,
                                    R"({"rate_limit": {"max_calls": 3, "window_seconds": 60}})");
  Decision decision = DecideNow(Read("agt_b", "docs:1"));
  EXPECT_EQ(decision.reason, ReasonCode::kAllowed);
  ASSERT_EQ(decision.side_effects.rate_spends.size(), 2u);
  EXPECT_EQ(decision.side_effects.rate_spends[0].permission_id, origin);
  EXPECT_EQ(decision.side_effects.rate_spends[1].permission_id, link + "#0");
}

// Rate counters are per (agent, permission, window): each agent that holds a rate-limited
// grant, its own or one lent to it, spends its own quota of it.
TEST_F(EngineTest, EachAgentSpendsItsOwnQuotaOfARateLimitedGrant) {
  AddAgent("agt_a");
  AddAgent("agt_b");
  const std::string origin =
      Allow("agt_a", "docs:*", R"({"rate_limit": {"max_calls": 1, "window_seconds": 60}})");
  Delegate("agt_a", "agt_b", "docs:*", 1);
  const int64_t window_start = absl::ToUnixSeconds(kNoon) / 60 * 60;
  Spend("agt_a", origin, window_start, 1);
  EXPECT_EQ(DecideNow(Read("agt_a", "docs:1")).reason, ReasonCode::kRateLimited);
  Decision lent = DecideNow(Read("agt_b", "docs:1"));
  EXPECT_EQ(lent.reason, ReasonCode::kAllowed);
  ASSERT_EQ(lent.side_effects.rate_spends.size(), 1u);
  EXPECT_EQ(lent.side_effects.rate_spends[0].agent_id, "agt_b");
  EXPECT_EQ(lent.side_effects.rate_spends[0].permission_id, origin);
  Spend("agt_b", origin, window_start, 1);
  EXPECT_EQ(DecideNow(Read("agt_b", "docs:1")).reason, ReasonCode::kRateLimited);
}

TEST_F(EngineTest, OwnPermissionsComeBeforeLentOnes) {
  AddAgent("agt_a");
  AddAgent("agt_b");
  Allow("agt_a", "docs:*");
  Delegate("agt_a", "agt_b", "docs:*");
  const std::string own = Allow("agt_b", "docs:*");
  Decision decision = DecideNow(Read("agt_b", "docs:1"));
  EXPECT_EQ(decision.matched_grant->permission_id, own);
  EXPECT_TRUE(decision.delegation_path.empty());
}

// ---------------------------------------------------------------------------------------------
// Cost and trace

TEST_F(EngineTest, ADirectAllowLooksUpTheAgentAndItsPermissionsOnce) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*");
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store_.BeginRead();
  ASSERT_TRUE(snapshot.ok());
  CountingView view(**snapshot);
  ASSERT_TRUE(Decide(Read("agt_a", "docs:1"), view, kNoon, nullptr).ok());
  EXPECT_EQ(view.calls,
            (std::map<std::string, int>{{"FindAgent:agt_a", 1}, {"PermissionsOf:agt_a", 1}}));
}

// A subject resolved once (a batch's) is not looked up again by each decision made for it, and
// the decision is the one Decide makes.
TEST_F(EngineTest, DecidingForAResolvedSubjectNeverLooksItUpAgain) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*");
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store_.BeginRead();
  ASSERT_TRUE(snapshot.ok());
  absl::StatusOr<SubjectResolution> subject =
      ResolveSubject(Read("agt_a", "docs:1").subject, **snapshot, kNoon);
  ASSERT_TRUE(subject.ok()) << subject.status();
  CountingView view(**snapshot);
  for (const std::string resource : {"docs:1", "mail:1"}) {
    absl::StatusOr<Decision> decided =
        DecideFor(*subject, Read("agt_a", resource), view, kNoon, nullptr);
    ASSERT_TRUE(decided.ok()) << decided.status();
    const Decision expected = DecideNow(Read("agt_a", resource));
    EXPECT_EQ(decided->reason, expected.reason) << resource;
    EXPECT_EQ(decided->message, expected.message) << resource;
    EXPECT_EQ(decided->agent_id, "agt_a");
  }
  // No FindAgent: the refusal of mail:1 reads only what may be lent to agt_a.
  EXPECT_EQ(view.calls, (std::map<std::string, int>{{"PermissionsOf:agt_a", 2},
                                                    {"ActiveDelegationsInto:agt_a", 1}}));
}

TEST_F(DelegationChainTest, AChainLooksUpEachAgentOnItOnce) {
  Allow("agt_b", "mail:*");  // matches nothing: B's permissions are still read once
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store_.BeginRead();
  ASSERT_TRUE(snapshot.ok());
  CountingView view(**snapshot);
  ASSERT_TRUE(Decide(Read("agt_d", "docs:1"), view, kNoon, nullptr).ok());
  for (const auto& [call, count] : view.calls) EXPECT_EQ(count, 1) << call;
  EXPECT_EQ(view.calls.count("ActiveDelegationsInto:agt_a"), 0u);  // A holds the right itself
}

// `levels` levels of `width` agents, each agent lending docs:* read to every agent of the level
// below, the subject below the last: width^levels paths from the top to the subject.
class DenseGraphTest : public EngineTest {
 protected:
  // Returns the top level's agents.
  std::vector<std::string> Build(int levels, int width, const std::string& subject) {
    AddAgent(subject);
    std::vector<std::string> below = {subject};
    std::vector<std::string> level;
    for (int l = levels - 1; l >= 0; --l) {
      level.clear();
      for (int a = 0; a < width; ++a) {
        level.push_back(absl::StrCat("agt_l", l, "_", a));
        AddAgent(level.back());
        for (const std::string& to : below) Delegate(level.back(), to, "docs:*");
      }
      below = level;
    }
    return level;
  }
};

// Issue 16: the search works out what each agent holds at each depth once, never once per path.
// Every top agent's allow matches but its rate limit is spent: each of the 4^5 paths reaches a
// rate-limited grant, whose count is read once.
TEST_F(DenseGraphTest, EachAgentIsWorkedOutOncePerDepthNotOncePerPath) {
  const std::vector<std::string> top = Build(/*levels=*/5, /*width=*/4, "agt_s");
  const int64_t window_start = absl::ToUnixSeconds(kNoon) / 60 * 60;
  for (const std::string& agent : top) {
    const std::string spent =
        Allow(agent, "docs:*", R"({"rate_limit": {"max_calls": 1, "window_seconds": 60}})");
    Spend("agt_s", spent, window_start, 1);
  }
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store_.BeginRead();
  ASSERT_TRUE(snapshot.ok());
  CountingView view(**snapshot);
  absl::StatusOr<Decision> decision = Decide(Read("agt_s", "docs:1"), view, kNoon, nullptr);
  ASSERT_TRUE(decision.ok()) << decision.status();
  EXPECT_EQ(decision->reason, ReasonCode::kRateLimited);
  EXPECT_EQ(decision->delegation_path.size(), 5u);
  for (const auto& [call, count] : view.calls) EXPECT_EQ(count, 1) << call;
}

// The attack of issue 16: 8 levels of 6 agents, each fully linked to the next, where nothing
// finally matches (the top agents hold nothing). 6^8 paths; a few hundred steps.
TEST_F(DenseGraphTest, ADenseGraphWhereNothingMatchesIsCheap) {
  Build(/*levels=*/8, /*width=*/6, "agt_s");
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store_.BeginRead();
  ASSERT_TRUE(snapshot.ok());
  DecisionBudget budget;
  absl::StatusOr<Decision> decision =
      Decide(Read("agt_s", "docs:1"), **snapshot, kNoon, nullptr, nullptr, &budget);
  ASSERT_TRUE(decision.ok()) << decision.status();
  EXPECT_EQ(decision->reason, ReasonCode::kNoMatchingPermission);
  // 48 agents, 6 links into each but the subject's: agents x links x depth at most.
  EXPECT_LT(budget.spent(), 48 * 6 * 2);
}

// Past its budget a decision is refused, even one that would be allowed, and says which limit.
TEST_F(DelegationChainTest, ADecisionOverItsBudgetIsRefusedWithEvaluationLimit) {
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store_.BeginRead();
  ASSERT_TRUE(snapshot.ok());
  DecisionBudget small(/*max_steps=*/5);
  absl::StatusOr<Decision> decision =
      Decide(Read("agt_d", "docs:1"), **snapshot, kNoon, nullptr, nullptr, &small);
  ASSERT_TRUE(decision.ok()) << decision.status();
  EXPECT_EQ(decision->verdict, Verdict::kDeny);
  EXPECT_EQ(decision->reason, ReasonCode::kEvaluationLimit);
  EXPECT_FALSE(decision->matched_grant.has_value());
  EXPECT_TRUE(decision->side_effects.empty());
  EXPECT_NE(decision->message.find("limit of 5 "), std::string::npos) << decision->message;
  EXPECT_NE(decision->message.find("--max_decision_steps"), std::string::npos);

  DecisionBudget enough;
  decision = Decide(Read("agt_d", "docs:1"), **snapshot, kNoon, nullptr, nullptr, &enough);
  ASSERT_TRUE(decision.ok());
  EXPECT_EQ(decision->reason, ReasonCode::kAllowed);
  EXPECT_LT(enough.spent(), 30);  // a three-hop chain is far below any budget
}

// The caller gave up (cancelled, past its deadline): the search stops and nothing is decided.
TEST_F(DenseGraphTest, TheSearchStopsWhenTheCallerGivesUp) {
  Build(/*levels=*/8, /*width=*/6, "agt_s");
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store_.BeginRead();
  ASSERT_TRUE(snapshot.ok());
  int asked = 0;
  DecisionBudget budget(kDefaultMaxDecisionSteps, [&asked] {
    ++asked;
    return true;
  });
  absl::StatusOr<Decision> decision =
      Decide(Read("agt_s", "docs:1"), **snapshot, kNoon, nullptr, nullptr, &budget);
  EXPECT_EQ(decision.status().code(), absl::StatusCode::kCancelled) << decision.status();
  EXPECT_EQ(asked, 1);
  EXPECT_LT(budget.spent(), 100);
}

TEST_F(DelegationChainTest, TheTraceTellsEveryStageAndGrantTried) {
  Allow("agt_d", "mail:*");
  Trace trace;
  Decision decision = DecideNow(Read("agt_d", "docs:1"), kNoon, &trace);
  ASSERT_EQ(decision.reason, ReasonCode::kAllowed);
  std::vector<std::string> stages;
  for (const TraceStage& stage : trace.stages) {
    stages.push_back(stage.name);
    EXPECT_TRUE(stage.passed) << stage.name << ": " << stage.detail;
  }
  EXPECT_EQ(stages,
            (std::vector<std::string>{"subject", "candidates", "match", "effects", "constraints"}));
  ASSERT_EQ(trace.grants.size(), 2u);
  const GrantTrial& own = trace.grants[0];
  EXPECT_FALSE(own.resource_matched);
  EXPECT_TRUE(own.action_matched);
  EXPECT_EQ(own.outcome, ReasonCode::kNoMatchingPermission);
  EXPECT_EQ(own.detail, "resource docs:1 does not match mail:*");
  const GrantTrial& lent = trace.grants[1];
  EXPECT_EQ(lent.grant.permission_id, origin_);
  EXPECT_EQ(lent.path.size(), 3u);
  EXPECT_EQ(lent.outcome, ReasonCode::kAllowed);
}

TEST_F(EngineTest, TheTraceOfARefusalStopsAtTheStageThatFailed) {
  AddAgent("agt_a");
  const std::string deny = Deny("agt_a", "docs:*");
  Trace trace;
  DecideNow(Read("agt_a", "docs:1"), kNoon, &trace);
  ASSERT_EQ(trace.stages.size(), 4u);
  EXPECT_EQ(trace.stages[3].name, "effects");
  EXPECT_FALSE(trace.stages[3].passed);
  ASSERT_EQ(trace.grants.size(), 1u);
  EXPECT_EQ(trace.grants[0].outcome, ReasonCode::kDeniedByPolicy);

  Trace unknown;
  DecideNow(Read("agt_ghost", "docs:1"), kNoon, &unknown);
  ASSERT_EQ(unknown.stages.size(), 1u);
  EXPECT_FALSE(unknown.stages[0].passed);
  EXPECT_EQ(unknown.stages[0].detail, "agent agt_ghost not found");
}

}  // namespace
}  // namespace verdict
