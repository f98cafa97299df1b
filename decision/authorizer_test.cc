#include "decision/authorizer.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "crypto/sha256.h"
#include "crypto/token.h"
#include "decision/counting_store.h"
#include "decision/forwarding_snapshot.h"
#include "decision/request_validation.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/memory_store.h"

namespace verdict {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'700'000'000);  // a Tuesday, 22:13 UTC

// A snapshot whose permission lookups fail halfway through a decision.
class FailingPermissionsSnapshot final : public ForwardingSnapshot {
 public:
  using ForwardingSnapshot::ForwardingSnapshot;
  absl::StatusOr<std::vector<Permission>> PermissionsOf(absl::string_view) override {
    return absl::UnavailableError("disk I/O error");
  }
};

// Counts its subject lookups (FindAgent, FindAgentByTokenHash) by what was looked up
// ("FindAgent:agt_a", "FindAgentByTokenHash").
class SubjectLookupCountingSnapshot final : public ForwardingSnapshot {
 public:
  SubjectLookupCountingSnapshot(std::unique_ptr<ReadSnapshot> inner,
                                std::map<std::string, int>& calls)
      : ForwardingSnapshot(std::move(inner)), calls_(calls) {}
  absl::StatusOr<std::optional<Agent>> FindAgent(absl::string_view agent_id) override {
    ++calls_["FindAgent:" + std::string(agent_id)];
    return ForwardingSnapshot::FindAgent(agent_id);
  }
  absl::StatusOr<std::optional<Agent>> FindAgentByTokenHash(absl::string_view token_sha256,
                                                            absl::Time now) override {
    ++calls_["FindAgentByTokenHash"];
    return ForwardingSnapshot::FindAgentByTokenHash(token_sha256, now);
  }

 private:
  std::map<std::string, int>& calls_;
};

// The Authorizer is called from several threads at once, and so is its observer. Tests read the
// record once the calls are done.
class RecordingObserver : public DecisionObserver {
 public:
  absl::Status OnDecision(const Request& request, const Decision& decision,
                          absl::Duration latency) override {
    absl::MutexLock lock(&mutex_);
    request_ids.push_back(request.request_id);
    reasons.push_back(decision.reason);
    latencies.push_back(latency);
    return refusal;
  }
  void OnEvaluationLimit(absl::string_view call) override {
    absl::MutexLock lock(&mutex_);
    evaluation_limits.emplace_back(call);
  }
  void OnWithheld(absl::string_view call, size_t decisions) override {
    absl::MutexLock lock(&mutex_);
    withheld.push_back(absl::StrCat(call, ":", decisions));
  }
  // What OnDecision answers: an error stands for a synchronous decision log that did not keep
  // the decision's row.
  absl::Status refusal;
  std::vector<std::string> withheld;
  std::vector<std::string> evaluation_limits;
  std::vector<std::string> request_ids;
  std::vector<ReasonCode> reasons;
  std::vector<absl::Duration> latencies;

 private:
  absl::Mutex mutex_;
};

class AuthorizerTest : public ::testing::Test {
 protected:
  AuthorizerTest()
      : authorizer_(
            store_, [this] { return now_; }, &observer_) {}

  void AddAgent(const std::string& id) {
    Agent agent;
    agent.id = id;
    ASSERT_TRUE(store_.AddAgent(agent).ok());
  }

  std::string Allow(const std::string& agent_id, const std::string& resource,
                    const std::string& constraints_json = "") {
    Permission permission;
    permission.agent_id = agent_id;
    permission.resource = resource;
    permission.actions = {"read"};
    permission.constraints_json = constraints_json;
    absl::StatusOr<std::string> id = store_.AddPermission(permission);
    EXPECT_TRUE(id.ok()) << id.status();
    return id.value_or("");
  }

  std::string Delegate(const std::string& from, const std::string& to,
                       const std::string& resource) {
    Delegation delegation;
    delegation.from_agent_id = from;
    delegation.to_agent_id = to;
    delegation.max_depth = 2;
    delegation.permissions.push_back({resource, {"read"}, ""});
    absl::StatusOr<std::string> id = store_.AddDelegation(delegation);
    EXPECT_TRUE(id.ok()) << id.status();
    return id.value_or("");
  }

  static Request Read(const std::string& agent_id, const std::string& resource,
                      const std::string& request_id = "req-1") {
    Request request;
    request.subject.agent_id = agent_id;
    request.action = "read";
    request.resource = resource;
    request.request_id = request_id;
    return request;
  }

  // A batch for `agent_id` reading each of `resources`, under one request id.
  static BatchRequest ReadAll(const std::string& agent_id,
                              const std::vector<std::string>& resources,
                              const std::string& request_id = "req-1") {
    BatchRequest batch;
    batch.subject.agent_id = agent_id;
    batch.request_id = request_id;
    for (const std::string& resource : resources) batch.checks.push_back({"read", resource, ""});
    return batch;
  }

  Decision Authorize(const Request& request) {
    absl::StatusOr<Decision> decision = authorizer_.Authorize(request);
    EXPECT_TRUE(decision.ok()) << decision.status();
    return decision.value_or(Decision());
  }

  Simulation Simulate(const Request& request, const WhatIf& what_if = WhatIf()) {
    absl::StatusOr<Simulation> simulation = authorizer_.Simulate(request, what_if);
    EXPECT_TRUE(simulation.ok()) << simulation.status();
    return simulation.value_or(Simulation());
  }

  int64_t RateCount(const std::string& agent_id, const std::string& permission_id,
                    int64_t window_seconds) {
    absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store_.BeginRead();
    EXPECT_TRUE(snapshot.ok());
    const int64_t window_start = absl::ToUnixSeconds(now_) / window_seconds * window_seconds;
    return (*snapshot)->RateCount(agent_id, permission_id, window_start).value_or(-1);
  }

  absl::Time now_ = kStart;
  MemoryPolicyStore store_;
  RecordingObserver observer_;
  Authorizer authorizer_;
};

// ---------------------------------------------------------------------------------------------
// Requests and failures

TEST_F(AuthorizerTest, AMalformedRequestIsInvalidArgumentBeforeTheStoreIsAsked) {
  UnreachableStore unreachable("database is locked");
  Authorizer authorizer(unreachable, [] { return kStart; });
  Request request = Read("agt_a", "docs:1");
  request.action = "";
  absl::StatusOr<Decision> decision = authorizer.Authorize(request);
  EXPECT_EQ(decision.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(decision.status().message(), "action")) << decision.status();
  EXPECT_EQ(authorizer.Simulate(request, WhatIf()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// Issue 15: "docs::secret:1" would pass a deny on "docs:secret:*", and "*@example.com" would
// match "evil@evil.net\n@example.com". Every call refuses both before the store is asked, and a
// what-if grant may not name an empty segment either.
TEST_F(AuthorizerTest, EmptyColonSegmentsAndControlCharactersAreRefusedInEveryCall) {
  UnreachableStore unreachable("database is locked");
  Authorizer authorizer(unreachable, [] { return kStart; });
  Request empty_segment = Read("agt_a", "docs::secret:1");
  Request control_character = Read("agt_a", "docs:1");
  control_character.arguments_json = R"({"to": "evil@evil.net\u0000@example.com"})";
  for (const Request& request : {empty_segment, control_character}) {
    const std::string field =
        request.resource == empty_segment.resource ? "resource: " : "arguments_json: ";
    const absl::Status authorized = authorizer.Authorize(request).status();
    EXPECT_EQ(authorized.code(), absl::StatusCode::kInvalidArgument) << authorized;
    EXPECT_TRUE(absl::StartsWith(authorized.message(), field)) << authorized;
    BatchRequest two = ReadAll("agt_a", {"docs:2", request.resource});
    two.checks[1].arguments_json = request.arguments_json;
    const absl::Status batch = authorizer.BatchAuthorize(two).status();
    EXPECT_EQ(batch.code(), absl::StatusCode::kInvalidArgument) << batch;
    EXPECT_TRUE(absl::StartsWith(batch.message(), "checks[1]: " + field)) << batch;
    const absl::Status simulated = authorizer.Simulate(request, WhatIf()).status();
    EXPECT_EQ(simulated.code(), absl::StatusCode::kInvalidArgument) << simulated;
    EXPECT_TRUE(absl::StartsWith(simulated.message(), "request: " + field)) << simulated;
  }
  Permission what_if_grant;
  what_if_grant.resource = "docs::secret:*";
  what_if_grant.actions = {"read"};
  what_if_grant.effect = Effect::kDeny;
  WhatIf what_if;
  what_if.extra_permissions = {what_if_grant};
  const absl::Status simulated = authorizer.Simulate(Read("agt_a", "docs:1"), what_if).status();
  EXPECT_EQ(simulated.code(), absl::StatusCode::kInvalidArgument) << simulated;
  EXPECT_TRUE(absl::StartsWith(simulated.message(), "what_if.extra_permissions[0].resource: "))
      << simulated;
}

TEST_F(AuthorizerTest, AnUnreachableStoreIsUnavailableForEveryCall) {
  UnreachableStore unreachable("database is locked");
  Authorizer authorizer(unreachable, [] { return kStart; });
  const Request request = Read("agt_a", "docs:1");
  EXPECT_EQ(authorizer.Authorize(request).status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(authorizer.BatchAuthorize(ReadAll("agt_a", {"docs:1"})).status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(authorizer.ValidateToken(NewAgentToken()).status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(authorizer.Simulate(request, WhatIf()).status().code(), absl::StatusCode::kUnavailable);
}

TEST_F(AuthorizerTest, ALookupFailingMidDecisionFailsTheCallNeverAllows) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*");
  SnapshotWrappingStore failing(store_, [](std::unique_ptr<ReadSnapshot> inner) {
    return std::make_unique<FailingPermissionsSnapshot>(std::move(inner));
  });
  Authorizer authorizer(
      failing, [] { return kStart; }, &observer_);
  absl::StatusOr<Decision> decision = authorizer.Authorize(Read("agt_a", "docs:1"));
  EXPECT_EQ(decision.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(decision.status().message(), "disk I/O error");
  EXPECT_TRUE(observer_.reasons.empty());
}

// ---------------------------------------------------------------------------------------------
// Freshness and side effects

TEST_F(AuthorizerTest, ARevocationIsSeenByTheNextCall) {
  AddAgent("agt_a");
  AddAgent("agt_b");
  Allow("agt_a", "docs:*");
  const std::string link = Delegate("agt_a", "agt_b", "docs:*");
  EXPECT_EQ(Authorize(Read("agt_b", "docs:1")).reason, ReasonCode::kAllowed);
  ASSERT_TRUE(store_.RevokeDelegation(link).ok());
  EXPECT_EQ(Authorize(Read("agt_b", "docs:1")).reason, ReasonCode::kNoMatchingPermission);
  ASSERT_TRUE(store_.SetAgentStatus("agt_a", AgentStatus::kRevoked).ok());
  EXPECT_EQ(Authorize(Read("agt_a", "docs:1")).reason, ReasonCode::kAgentRevoked);
}

TEST_F(AuthorizerTest, ARateLimitSpendsOnlyOnAllow) {
  AddAgent("agt_a");
  const std::string permission =
      Allow("agt_a", "docs:*", R"({"rate_limit": {"max_calls": 2, "window_seconds": 60}})");
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(Simulate(Read("agt_a", "docs:1")).decision.reason, ReasonCode::kAllowed);
  }
  EXPECT_EQ(RateCount("agt_a", permission, 60), 0);  // Simulate spends nothing
  EXPECT_EQ(Authorize(Read("agt_a", "docs:1")).reason, ReasonCode::kAllowed);
  EXPECT_EQ(Authorize(Read("agt_a", "docs:1")).reason, ReasonCode::kAllowed);
  EXPECT_EQ(RateCount("agt_a", permission, 60), 2);
  EXPECT_EQ(Authorize(Read("agt_a", "docs:1")).reason, ReasonCode::kRateLimited);
  EXPECT_EQ(Authorize(Read("agt_a", "docs:1")).reason, ReasonCode::kRateLimited);
  EXPECT_EQ(RateCount("agt_a", permission, 60), 2);
}

TEST_F(AuthorizerTest, ACallRefusedByAnotherConstraintSpendsNoQuota) {
  AddAgent("agt_a");
  const std::string permission = Allow(
      "agt_a", "docs:*",
      R"({"ip_allowlist": ["10.0.0.0/8"], "rate_limit": {"max_calls": 1, "window_seconds": 60}})");
  Request outside = Read("agt_a", "docs:1");
  outside.client_ip = "192.0.2.1";
  Request inside = Read("agt_a", "docs:1");
  inside.client_ip = "10.0.0.1";
  EXPECT_EQ(Authorize(outside).reason, ReasonCode::kIpNotAllowed);
  EXPECT_EQ(Authorize(outside).reason, ReasonCode::kIpNotAllowed);
  EXPECT_EQ(RateCount("agt_a", permission, 60), 0);
  EXPECT_EQ(Authorize(inside).reason, ReasonCode::kAllowed);
  EXPECT_EQ(Authorize(inside).reason, ReasonCode::kRateLimited);
}

TEST_F(AuthorizerTest, ApprovalOpensOneRequestPerCallAndAllowsOnceAtQuorum) {
  AddAgent("agt_a");
  const std::string permission = Allow(
      "agt_a", "docs:*",
      R"({"approval": {"quorum": 2}, "rate_limit": {"max_calls": 10, "window_seconds": 60}})");
  Request request = Read("agt_a", "docs:1");
  request.arguments_json = R"({"reason": "audit"})";

  Decision first = Authorize(request);
  EXPECT_EQ(first.verdict, Verdict::kNeedsApproval);
  EXPECT_EQ(first.reason, ReasonCode::kApprovalRequired);
  ASSERT_FALSE(first.approval_request_id.empty());
  Decision second = Authorize(request);
  EXPECT_EQ(second.verdict, Verdict::kNeedsApproval);
  EXPECT_EQ(second.approval_request_id, first.approval_request_id);
  ASSERT_EQ(store_.ApprovalRequests().size(), 1u);
  EXPECT_EQ(RateCount("agt_a", permission, 60), 0);  // waiting spends no quota

  ASSERT_TRUE(store_.ApproveRequest(first.approval_request_id, "bob", now_).ok());
  EXPECT_EQ(Authorize(request).reason, ReasonCode::kApprovalRequired);
  ASSERT_TRUE(store_.ApproveRequest(first.approval_request_id, "alice", now_).ok());
  const Decision approved = Authorize(request);
  EXPECT_EQ(approved.reason, ReasonCode::kAllowed);
  // The ALLOW names the approval it used and who approved it, by name, so the log ties the
  // call to its approvers (h41).
  EXPECT_EQ(approved.approval_request_id, first.approval_request_id);
  EXPECT_THAT(approved.approved_by, testing::ElementsAre("alice", "bob"));
  EXPECT_THAT(first.approved_by, testing::IsEmpty()) << "a request opened names no approver";
  EXPECT_EQ(store_.ApprovalRequests()[0].status, ApprovalStatus::kUsed);
  EXPECT_EQ(RateCount("agt_a", permission, 60), 1);

  Decision after = Authorize(request);
  EXPECT_EQ(after.verdict, Verdict::kNeedsApproval);
  EXPECT_NE(after.approval_request_id, first.approval_request_id);
  EXPECT_EQ(store_.ApprovalRequests().size(), 2u);
}

TEST_F(AuthorizerTest, ADeniedApprovalRefusesIdenticalCallsUntilItExpires) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*", R"({"approval": {"quorum": 1, "ttl_seconds": 600}})");
  Decision opened = Authorize(Read("agt_a", "docs:1"));
  ASSERT_TRUE(store_.DenyRequest(opened.approval_request_id, "alice", now_).ok());
  Decision denied = Authorize(Read("agt_a", "docs:1"));
  EXPECT_EQ(denied.verdict, Verdict::kDeny);
  EXPECT_EQ(denied.reason, ReasonCode::kApprovalDenied);
  now_ += absl::Minutes(10);
  Decision reopened = Authorize(Read("agt_a", "docs:1"));
  EXPECT_EQ(reopened.reason, ReasonCode::kApprovalRequired);
  EXPECT_NE(reopened.approval_request_id, opened.approval_request_id);
}

// Issue 16: 5,000 calls with distinct arguments opened 5,000 requests, kept until they expired,
// and the approvers' first page was 1,000 of them.
TEST_F(AuthorizerTest, PendingApprovalsPerAgentAreCappedAndTheCallPastTheCapOpensNone) {
  AddAgent("agt_a");
  AddAgent("agt_b");
  Allow("agt_a", "docs:*", R"({"approval": {"quorum": 1, "ttl_seconds": 600}})");
  Allow("agt_b", "docs:*", R"({"approval": {"quorum": 1, "ttl_seconds": 600}})");
  authorizer_.set_max_pending_approvals(3);
  auto call = [](const std::string& agent, int n) {
    Request request = Read(agent, "docs:1");
    request.arguments_json = absl::StrCat(R"({"n": )", n, "}");
    return request;
  };
  for (int n = 0; n < 3; ++n) {
    EXPECT_EQ(Authorize(call("agt_a", n)).reason, ReasonCode::kApprovalRequired);
  }

  const Decision past_cap = Authorize(call("agt_a", 3));
  EXPECT_EQ(past_cap.verdict, Verdict::kDeny);
  EXPECT_EQ(past_cap.reason, ReasonCode::kTooManyPendingApprovals);
  EXPECT_TRUE(absl::StrContains(past_cap.message, "already has 3 approval requests pending"))
      << past_cap.message;
  EXPECT_TRUE(past_cap.approval_request_id.empty());
  EXPECT_EQ(store_.ApprovalRequests().size(), 3u);  // no row for the call past the cap
  // Simulate answers as Authorize would, and opens nothing either.
  EXPECT_EQ(Simulate(call("agt_a", 4)).decision.reason, ReasonCode::kTooManyPendingApprovals);
  // A call with a request already pending is still told which one it waits for.
  EXPECT_EQ(Authorize(call("agt_a", 0)).reason, ReasonCode::kApprovalRequired);
  // The cap is per agent.
  EXPECT_EQ(Authorize(call("agt_b", 0)).reason, ReasonCode::kApprovalRequired);

  // A decided request frees its place; so does an expired one.
  ASSERT_TRUE(store_.DenyRequest(store_.ApprovalRequests()[0].id, "alice", now_).ok());
  EXPECT_EQ(Authorize(call("agt_a", 5)).reason, ReasonCode::kApprovalRequired);
  EXPECT_EQ(Authorize(call("agt_a", 6)).reason, ReasonCode::kTooManyPendingApprovals);
  now_ += absl::Minutes(10);
  EXPECT_EQ(Authorize(call("agt_a", 6)).reason, ReasonCode::kApprovalRequired);
}

TEST_F(AuthorizerTest, ABatchNeverOpensMoreRequestsThanTheCap) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*", R"({"approval": {"quorum": 1}})");
  authorizer_.set_max_pending_approvals(2);
  BatchRequest batch = ReadAll("agt_a", {});
  for (int n = 0; n < 4; ++n) batch.checks.push_back({"read", absl::StrCat("docs:", n), ""});
  absl::StatusOr<std::vector<Decision>> decisions = authorizer_.BatchAuthorize(batch);
  ASSERT_TRUE(decisions.ok()) << decisions.status();
  EXPECT_EQ((*decisions)[0].reason, ReasonCode::kApprovalRequired);
  EXPECT_EQ((*decisions)[1].reason, ReasonCode::kApprovalRequired);
  EXPECT_EQ((*decisions)[2].reason, ReasonCode::kTooManyPendingApprovals);
  EXPECT_EQ((*decisions)[3].reason, ReasonCode::kTooManyPendingApprovals);
  EXPECT_EQ(store_.ApprovalRequests().size(), 2u);
}

TEST_F(AuthorizerTest, ConcurrentCallsNeverOverspendARateLimit) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*", R"({"rate_limit": {"max_calls": 50, "window_seconds": 3600}})");
  std::atomic<int> allowed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([this, &allowed] {
      for (int i = 0; i < 25; ++i) {
        absl::StatusOr<Decision> decision = authorizer_.Authorize(Read("agt_a", "docs:1"));
        ASSERT_TRUE(decision.ok()) << decision.status();
        if (decision->verdict == Verdict::kAllow) ++allowed;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(allowed.load(), 50);
}

// ---------------------------------------------------------------------------------------------
// Decide once: a call is planned in one read snapshot and, only when it must write, committed in
// one write transaction that decides once more.

TEST_F(AuthorizerTest, ADecisionThatOnlyReadsNeverBeginsAWrite) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*");
  const std::string token = NewAgentToken();
  ASSERT_TRUE(store_.SetAgentToken("agt_a", Sha256(token)).ok());
  CountingStore counting(store_);
  Authorizer authorizer(
      counting, [this] { return now_; }, &observer_);
  for (Venue venue : {Venue::kInline, Venue::kWorker}) {
    absl::StatusOr<Planned<Decision>> plan =
        authorizer.PlanAuthorize(Read("agt_a", "docs:1"), venue);
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_TRUE(plan->done());
    EXPECT_EQ(plan->answer.reason, ReasonCode::kAllowed);
  }
  EXPECT_EQ(authorizer.Authorize(Read("agt_a", "mail:1"))->reason,
            ReasonCode::kNoMatchingPermission);
  ASSERT_TRUE(authorizer.BatchAuthorize(ReadAll("agt_a", {"docs:1", "mail:1"})).ok());
  ASSERT_TRUE(authorizer.ValidateToken(token).ok());
  EXPECT_EQ(counting.reads, 5) << "one snapshot per call";
  EXPECT_EQ(counting.writes, 0);
  // A plan that is done was told to the observer: it is the decision of record.
  EXPECT_EQ(observer_.reasons.size(), 5u);
}

TEST_F(AuthorizerTest, ADecisionThatWritesIsPlannedOnceAndCommittedInOneWriteTransaction) {
  AddAgent("agt_a");
  const std::string permission =
      Allow("agt_a", "docs:*", R"({"rate_limit": {"max_calls": 1, "window_seconds": 60}})");
  CountingStore counting(store_);
  Authorizer authorizer(
      counting, [this] { return now_; }, &observer_);

  absl::StatusOr<Planned<Decision>> plan =
      authorizer.PlanAuthorize(Read("agt_a", "docs:1"), Venue::kInline);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->left, LeftToDo::kCommit);
  EXPECT_EQ(counting.writes, 0) << "planning never writes";
  EXPECT_EQ(RateCount("agt_a", permission, 60), 0);
  EXPECT_TRUE(observer_.reasons.empty()) << "a plan left to commit is no decision yet";

  absl::StatusOr<Decision> decision =
      authorizer.FinishAuthorize(Read("agt_a", "docs:1"), *std::move(plan));
  ASSERT_TRUE(decision.ok()) << decision.status();
  EXPECT_EQ(decision->reason, ReasonCode::kAllowed);
  EXPECT_EQ(RateCount("agt_a", permission, 60), 1);
  // Decided twice in all: in the plan's snapshot and in the one write transaction.
  EXPECT_EQ(counting.reads, 1);
  EXPECT_EQ(counting.writes, 1);
  EXPECT_EQ(observer_.reasons, (std::vector<ReasonCode>{ReasonCode::kAllowed}));

  // Authorize alone does the same on one thread; the slot spent, it only reads.
  EXPECT_EQ(Authorize(Read("agt_a", "docs:1")).reason, ReasonCode::kRateLimited);
  absl::StatusOr<Decision> limited = authorizer.Authorize(Read("agt_a", "docs:1"));
  ASSERT_TRUE(limited.ok()) << limited.status();
  EXPECT_EQ(limited->reason, ReasonCode::kRateLimited);
  EXPECT_EQ(counting.reads, 2);
  EXPECT_EQ(counting.writes, 1);
}

// The commit decides again on the committed state: a slot another call took meanwhile is not
// spent twice, whatever the plan saw.
TEST_F(AuthorizerTest, TheCommitDecidesOnTheCommittedStateNotOnThePlans) {
  AddAgent("agt_a");
  const std::string permission =
      Allow("agt_a", "docs:*", R"({"rate_limit": {"max_calls": 1, "window_seconds": 60}})");
  absl::StatusOr<Planned<Decision>> plan =
      authorizer_.PlanAuthorize(Read("agt_a", "docs:1"), Venue::kInline);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->left, LeftToDo::kCommit);
  EXPECT_EQ(Authorize(Read("agt_a", "docs:1")).reason, ReasonCode::kAllowed);  // takes the slot
  absl::StatusOr<Decision> decision =
      authorizer_.FinishAuthorize(Read("agt_a", "docs:1"), *std::move(plan));
  ASSERT_TRUE(decision.ok()) << decision.status();
  EXPECT_EQ(decision->reason, ReasonCode::kRateLimited);
  EXPECT_EQ(RateCount("agt_a", permission, 60), 1);
}

TEST_F(AuthorizerTest, ABatchThatWritesIsCommittedInOneWriteTransaction) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*", R"({"rate_limit": {"max_calls": 2, "window_seconds": 60}})");
  CountingStore counting(store_);
  Authorizer authorizer(
      counting, [this] { return now_; }, &observer_);
  absl::StatusOr<Planned<std::vector<Decision>>> plan = authorizer.PlanBatchAuthorize(
      ReadAll("agt_a", {"mail:1", "docs:1", "docs:2", "docs:3"}), Venue::kInline);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->left, LeftToDo::kCommit);
  absl::StatusOr<std::vector<Decision>> decisions = authorizer.FinishBatchAuthorize(
      ReadAll("agt_a", {"mail:1", "docs:1", "docs:2", "docs:3"}), *std::move(plan));
  ASSERT_TRUE(decisions.ok()) << decisions.status();
  ASSERT_EQ(decisions->size(), 4u);
  EXPECT_EQ((*decisions)[0].reason, ReasonCode::kNoMatchingPermission);
  EXPECT_EQ((*decisions)[1].reason, ReasonCode::kAllowed);
  EXPECT_EQ((*decisions)[2].reason, ReasonCode::kAllowed);
  EXPECT_EQ((*decisions)[3].reason, ReasonCode::kRateLimited);
  EXPECT_EQ(counting.reads, 1);
  EXPECT_EQ(counting.writes, 1);
}

// ---------------------------------------------------------------------------------------------
// BatchAuthorize

// One subject and one context for every check; a check's own arguments replace the context's.
TEST_F(AuthorizerTest, ABatchsChecksShareItsSubjectAndContext) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*",
        R"({"ip_allowlist": ["10.0.0.0/8"],
            "arguments": [{"path": "to", "email_domain": "example.com"}]})");
  BatchRequest batch = ReadAll("agt_a", {"docs:1", "docs:2", "docs:3"}, "b1");
  batch.client_ip = "10.0.0.1";
  batch.arguments_json = R"({"to": "bob@example.com"})";
  batch.checks[1].arguments_json = R"({"to": "eve@evil.net"})";
  absl::StatusOr<std::vector<Decision>> decisions = authorizer_.BatchAuthorize(batch);
  ASSERT_TRUE(decisions.ok()) << decisions.status();
  EXPECT_EQ((*decisions)[0].reason, ReasonCode::kAllowed) << (*decisions)[0].message;
  EXPECT_EQ((*decisions)[1].reason, ReasonCode::kArgumentsRejected);
  EXPECT_EQ((*decisions)[2].reason, ReasonCode::kAllowed) << "the context's arguments again";
  batch.client_ip = "192.0.2.1";
  decisions = authorizer_.BatchAuthorize(batch);
  ASSERT_TRUE(decisions.ok()) << decisions.status();
  for (const Decision& decision : *decisions) EXPECT_EQ(decision.reason, ReasonCode::kIpNotAllowed);
}

// One subject, one lookup: a batch of checks resolves its subject once in its snapshot, whether
// it is named by agent id or by token, and every check is decided for it.
TEST_F(AuthorizerTest, ABatchLooksItsSubjectUpOnce) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*");
  std::map<std::string, int> calls;
  SnapshotWrappingStore counting(store_, [&calls](std::unique_ptr<ReadSnapshot> inner) {
    return std::make_unique<SubjectLookupCountingSnapshot>(std::move(inner), calls);
  });
  Authorizer authorizer(
      counting, [this] { return now_; }, &observer_);

  absl::StatusOr<std::vector<Decision>> by_id =
      authorizer.BatchAuthorize(ReadAll("agt_a", {"docs:1", "mail:1", "docs:2", "docs:3"}));
  ASSERT_TRUE(by_id.ok()) << by_id.status();
  std::vector<ReasonCode> reasons;
  for (const Decision& decision : *by_id) reasons.push_back(decision.reason);
  EXPECT_EQ(reasons,
            (std::vector<ReasonCode>{ReasonCode::kAllowed, ReasonCode::kNoMatchingPermission,
                                     ReasonCode::kAllowed, ReasonCode::kAllowed}));
  EXPECT_EQ(calls, (std::map<std::string, int>{{"FindAgent:agt_a", 1}}));

  const std::string token = NewAgentToken();
  ASSERT_TRUE(store_.SetAgentToken("agt_a", Sha256(token)).ok());
  calls.clear();
  BatchRequest by_token = ReadAll("", {"docs:1", "docs:2", "docs:3"});
  by_token.subject.token = token;
  absl::StatusOr<std::vector<Decision>> decisions = authorizer.BatchAuthorize(by_token);
  ASSERT_TRUE(decisions.ok()) << decisions.status();
  for (const Decision& decision : *decisions) {
    EXPECT_EQ(decision.reason, ReasonCode::kAllowed) << decision.message;
    EXPECT_EQ(decision.agent_id, "agt_a");
  }
  EXPECT_EQ(calls, (std::map<std::string, int>{{"FindAgentByTokenHash", 1}}));
}

// Resolved once, the subject still decides every check: one that may not act is refused in each.
TEST_F(AuthorizerTest, ABatchForASubjectThatMayNotActRefusesEveryCheck) {
  Agent agent;
  agent.id = "agt_a";
  agent.status = AgentStatus::kSuspended;
  ASSERT_TRUE(store_.AddAgent(agent).ok());
  Allow("agt_a", "docs:*");
  absl::StatusOr<std::vector<Decision>> decisions =
      authorizer_.BatchAuthorize(ReadAll("agt_a", {"docs:1", "docs:2"}));
  ASSERT_TRUE(decisions.ok()) << decisions.status();
  ASSERT_EQ(decisions->size(), 2u);
  for (const Decision& decision : *decisions) {
    EXPECT_EQ(decision.reason, ReasonCode::kAgentSuspended);
    EXPECT_EQ(decision.agent_id, "agt_a");
    EXPECT_EQ(decision.message, "agent agt_a is suspended");
  }
  decisions = authorizer_.BatchAuthorize(ReadAll("agt_nobody", {"docs:1", "docs:2"}));
  ASSERT_TRUE(decisions.ok()) << decisions.status();
  for (const Decision& decision : *decisions) {
    EXPECT_EQ(decision.reason, ReasonCode::kAgentNotFound);
  }
}

TEST_F(AuthorizerTest, ABatchAnswersInOrderAndSpendsAsItGoes) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*", R"({"rate_limit": {"max_calls": 1, "window_seconds": 60}})");
  absl::StatusOr<std::vector<Decision>> decisions =
      authorizer_.BatchAuthorize(ReadAll("agt_a", {"docs:1", "mail:1", "docs:2"}, "b1"));
  ASSERT_TRUE(decisions.ok()) << decisions.status();
  ASSERT_EQ(decisions->size(), 3u);
  EXPECT_EQ((*decisions)[0].reason, ReasonCode::kAllowed);
  EXPECT_EQ((*decisions)[1].reason, ReasonCode::kNoMatchingPermission);
  EXPECT_EQ((*decisions)[2].reason, ReasonCode::kRateLimited);  // docs:1 took the only slot
  EXPECT_EQ((*decisions)[2].request_id, "b1");
  // Each check is a decision of record, told in order under the batch's request id.
  EXPECT_EQ(observer_.request_ids, (std::vector<std::string>{"b1", "b1", "b1"}));
  EXPECT_EQ(observer_.reasons,
            (std::vector<ReasonCode>{ReasonCode::kAllowed, ReasonCode::kNoMatchingPermission,
                                     ReasonCode::kRateLimited}));
}

TEST_F(AuthorizerTest, ABatchHasOneSubjectAndABoundedSize) {
  AddAgent("agt_a");
  // One subject by construction (BatchRequest); it is named as the wire names it, once.
  absl::StatusOr<std::vector<Decision>> no_subject =
      authorizer_.BatchAuthorize(ReadAll("", {"docs:1", "docs:2"}));
  EXPECT_EQ(no_subject.status().message(), "subject: set one of agent_id and token");
  // So is the context's client_ip and its arguments.
  BatchRequest bad_context = ReadAll("agt_a", {"docs:1", "docs:2"});
  bad_context.client_ip = "bogus";
  EXPECT_EQ(authorizer_.BatchAuthorize(bad_context).status().message(),
            "client_ip: \"bogus\" is not an IPv4 or IPv6 address");
  bad_context.client_ip = "";
  bad_context.arguments_json = "[1]";
  EXPECT_EQ(authorizer_.BatchAuthorize(bad_context).status().message(),
            "context: arguments_json: must be a JSON object");

  absl::StatusOr<std::vector<Decision>> bad =
      authorizer_.BatchAuthorize(ReadAll("agt_a", {"docs:1", ""}));
  EXPECT_TRUE(absl::StartsWith(bad.status().message(), "checks[1]: resource")) << bad.status();

  const BatchRequest too_many =
      ReadAll("agt_a", std::vector<std::string>(kMaxBatchSize + 1, "docs:1"));
  EXPECT_EQ(authorizer_.BatchAuthorize(too_many).status().code(),
            absl::StatusCode::kInvalidArgument);
  const BatchRequest at_limit = ReadAll("agt_a", std::vector<std::string>(kMaxBatchSize, "docs:1"));
  EXPECT_TRUE(authorizer_.BatchAuthorize(at_limit).ok());
  // A batch of none would answer without reading its subject at all.
  absl::StatusOr<std::vector<Decision>> none = authorizer_.BatchAuthorize(ReadAll("agt_a", {}));
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(none.status().message(), "checks: a batch holds 1 to 256 checks, not 0");
}

// ---------------------------------------------------------------------------------------------
// ValidateToken

TEST_F(AuthorizerTest, AValidTokenCarriesTheAgentAndItsEffectivePermissions) {
  AddAgent("agt_a");
  AddAgent("agt_b");
  AddAgent("agt_c");
  const std::string origin = Allow("agt_a", "docs:*");
  const std::string ab = Delegate("agt_a", "agt_b", "docs:*");
  const std::string cb = Delegate("agt_c", "agt_b", "mail:*");  // agt_c holds nothing
  const std::string own = Allow("agt_b", "wiki:*");
  const std::string token = NewAgentToken();
  ASSERT_TRUE(store_.SetAgentToken("agt_b", Sha256(token)).ok());

  absl::StatusOr<TokenValidation> validation = authorizer_.ValidateToken(token);
  ASSERT_TRUE(validation.ok()) << validation.status();
  EXPECT_TRUE(validation->valid);
  EXPECT_EQ(validation->reason, ReasonCode::kAllowed);
  ASSERT_TRUE(validation->agent);
  EXPECT_EQ(validation->agent->id, "agt_b");
  ASSERT_EQ(validation->permissions.size(), 2u);
  EXPECT_EQ(validation->permissions[0].grant.permission_id, own);
  EXPECT_TRUE(validation->permissions[0].via.empty());
  EXPECT_EQ(validation->permissions[1].grant.permission_id, ab + "#0");
  EXPECT_EQ(validation->permissions[1].grant.owner_agent_id, "agt_a");
  ASSERT_EQ(validation->permissions[1].via.size(), 1u);
  EXPECT_EQ(validation->permissions[1].via[0].delegation_id, ab);

  // Once the delegator is gone, what it lent is gone too.
  ASSERT_TRUE(store_.SetAgentStatus("agt_a", AgentStatus::kSuspended).ok());
  EXPECT_EQ(authorizer_.ValidateToken(token)->permissions.size(), 1u);
}

// Issue 16: an agent with 10,000 permissions made a 49-byte ValidateToken answer 649 KB.
TEST_F(AuthorizerTest, ValidateTokenListsAtMostKMaxListedPermissionsOrNoneOnRequest) {
  AddAgent("agt_a");
  for (size_t i = 0; i <= kMaxListedPermissions; ++i) Allow("agt_a", absl::StrCat("docs:", i));
  const std::string token = NewAgentToken();
  ASSERT_TRUE(store_.SetAgentToken("agt_a", Sha256(token)).ok());

  absl::StatusOr<TokenValidation> listed = authorizer_.ValidateToken(token);
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_TRUE(listed->valid);
  EXPECT_EQ(listed->permissions.size(), kMaxListedPermissions);
  EXPECT_TRUE(listed->permissions_truncated);

  absl::StatusOr<TokenValidation> bare =
      authorizer_.ValidateToken(token, {}, nullptr, /*list_permissions=*/false);
  ASSERT_TRUE(bare.ok()) << bare.status();
  EXPECT_TRUE(bare->valid);
  EXPECT_EQ(bare->agent->id, "agt_a");
  EXPECT_TRUE(bare->permissions.empty());
  EXPECT_FALSE(bare->permissions_truncated);
}

// Every call's decision counts against the budget; past it: EVALUATION_LIMIT, never ALLOW, and
// the observer (the metrics) hears of it.
TEST_F(AuthorizerTest, EveryCallOverItsBudgetIsRefusedWithEvaluationLimit) {
  AddAgent("agt_a");
  AddAgent("agt_b");
  Allow("agt_a", "docs:*");
  Delegate("agt_a", "agt_b", "docs:*");
  const std::string token = NewAgentToken();
  ASSERT_TRUE(store_.SetAgentToken("agt_b", Sha256(token)).ok());
  ASSERT_EQ(Authorize(Read("agt_b", "docs:1")).reason, ReasonCode::kAllowed);

  Authorizer tight(
      store_, [this] { return now_; }, &observer_, nullptr,
      DecisionLimits{/*max_decision_steps=*/3});
  absl::StatusOr<Decision> decision = tight.Authorize(Read("agt_b", "docs:1"));
  ASSERT_TRUE(decision.ok()) << decision.status();
  EXPECT_EQ(decision->verdict, Verdict::kDeny);
  EXPECT_EQ(decision->reason, ReasonCode::kEvaluationLimit);

  absl::StatusOr<std::vector<Decision>> batch =
      tight.BatchAuthorize(ReadAll("agt_b", {"docs:1", "docs:2"}));
  ASSERT_TRUE(batch.ok()) << batch.status();
  for (const Decision& check : *batch) EXPECT_EQ(check.reason, ReasonCode::kEvaluationLimit);

  absl::StatusOr<Simulation> simulation = tight.Simulate(Read("agt_b", "docs:1"), WhatIf());
  ASSERT_TRUE(simulation.ok()) << simulation.status();
  EXPECT_EQ(simulation->decision.reason, ReasonCode::kEvaluationLimit);

  absl::StatusOr<TokenValidation> validation = tight.ValidateToken(token);
  ASSERT_TRUE(validation.ok()) << validation.status();
  EXPECT_FALSE(validation->valid);
  EXPECT_EQ(validation->reason, ReasonCode::kEvaluationLimit);
  EXPECT_TRUE(validation->permissions.empty());

  EXPECT_EQ(observer_.evaluation_limits,
            (std::vector<std::string>{"Authorize", "BatchAuthorize", "BatchAuthorize", "Simulate",
                                      "ValidateToken"}));
}

// A plan made inline (verdictd's, on gRPC's thread) has a small budget: a call that needs more is
// not refused there but left for a worker, which decides it with the whole budget.
TEST_F(AuthorizerTest, APlanPastTheInlineBudgetIsLeftForAWorkerNotRefused) {
  AddAgent("agt_a");
  AddAgent("agt_b");
  Allow("agt_a", "docs:*");
  Delegate("agt_a", "agt_b", "docs:*");
  const std::string token = NewAgentToken();
  ASSERT_TRUE(store_.SetAgentToken("agt_b", Sha256(token)).ok());
  Authorizer authorizer(
      store_, [this] { return now_; }, &observer_, nullptr,
      DecisionLimits{/*max_decision_steps=*/kDefaultMaxDecisionSteps, /*max_inline_steps=*/3});

  absl::StatusOr<Planned<Decision>> plan =
      authorizer.PlanAuthorize(Read("agt_b", "docs:1"), Venue::kInline);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->left, LeftToDo::kDecide);
  absl::StatusOr<Planned<std::vector<Decision>>> batch_plan =
      authorizer.PlanBatchAuthorize(ReadAll("agt_b", {"docs:1"}), Venue::kInline);
  ASSERT_TRUE(batch_plan.ok()) << batch_plan.status();
  EXPECT_EQ(batch_plan->left, LeftToDo::kDecide);
  absl::StatusOr<Planned<TokenValidation>> validation_plan =
      authorizer.PlanValidateToken(token, {}, /*list_permissions=*/true, Venue::kInline);
  ASSERT_TRUE(validation_plan.ok()) << validation_plan.status();
  EXPECT_EQ(validation_plan->left, LeftToDo::kDecide);
  // Nothing was decided of record, nor refused for its budget.
  EXPECT_TRUE(observer_.evaluation_limits.empty());
  EXPECT_TRUE(observer_.reasons.empty());

  absl::StatusOr<Decision> decision =
      authorizer.FinishAuthorize(Read("agt_b", "docs:1"), *std::move(plan));
  ASSERT_TRUE(decision.ok()) << decision.status();
  EXPECT_EQ(decision->reason, ReasonCode::kAllowed);
  absl::StatusOr<std::vector<Decision>> batch =
      authorizer.FinishBatchAuthorize(ReadAll("agt_b", {"docs:1"}), *std::move(batch_plan));
  ASSERT_TRUE(batch.ok()) << batch.status();
  EXPECT_EQ((*batch)[0].reason, ReasonCode::kAllowed);
  absl::StatusOr<TokenValidation> validation =
      authorizer.FinishValidateToken(token, {}, true, *std::move(validation_plan));
  ASSERT_TRUE(validation.ok()) << validation.status();
  EXPECT_TRUE(validation->valid);
  EXPECT_EQ(observer_.reasons,
            (std::vector<ReasonCode>{ReasonCode::kAllowed, ReasonCode::kAllowed}));
  // On a worker, the same plan is done at once.
  plan = authorizer.PlanAuthorize(Read("agt_b", "docs:1"), Venue::kWorker);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->done());
  EXPECT_EQ(plan->answer.reason, ReasonCode::kAllowed);
}

TEST_F(AuthorizerTest, AnInvalidTokenIsAnAnswerWithItsReason) {
  AddAgent("agt_a");
  const std::string token = NewAgentToken();
  ASSERT_TRUE(store_.SetAgentToken("agt_a", Sha256(token)).ok());
  ASSERT_TRUE(store_.SetAgentStatus("agt_a", AgentStatus::kSuspended).ok());
  struct Case {
    std::string token;
    ReasonCode reason;
  };
  const std::vector<Case> cases = {
      {token, ReasonCode::kAgentSuspended},
      {NewAgentToken(), ReasonCode::kTokenInvalid},
      {"not-a-token", ReasonCode::kTokenInvalid},
      {"", ReasonCode::kTokenInvalid},
  };
  for (const Case& c : cases) {
    absl::StatusOr<TokenValidation> validation = authorizer_.ValidateToken(c.token);
    ASSERT_TRUE(validation.ok()) << validation.status();
    EXPECT_FALSE(validation->valid) << c.token;
    EXPECT_EQ(validation->reason, c.reason) << c.token;
    EXPECT_FALSE(validation->message.empty());
    EXPECT_FALSE(validation->agent);
    EXPECT_TRUE(validation->permissions.empty());
  }
}

// ---------------------------------------------------------------------------------------------
// Simulate

TEST_F(AuthorizerTest, SimulateWritesNothingAndExplainsItself) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*", R"({"approval": {"quorum": 1}})");
  Simulation simulation = Simulate(Read("agt_a", "docs:1"));
  EXPECT_EQ(simulation.decision.verdict, Verdict::kNeedsApproval);
  EXPECT_TRUE(simulation.decision.side_effects.empty());
  EXPECT_TRUE(store_.ApprovalRequests().empty());
  EXPECT_EQ(simulation.trace.stages.size(), 5u);
  EXPECT_EQ(simulation.trace.grants.size(), 1u);
  EXPECT_TRUE(observer_.reasons.empty());  // Simulate is no decision of record
}

TEST_F(AuthorizerTest, SimulateDecidesAtTheWhatIfTimeAndIp) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*",
        R"({"time_window": {"start": "09:00", "end": "17:00"}, "ip_allowlist": ["10.0.0.0/8"]})");
  Request request = Read("agt_a", "docs:1");
  request.client_ip = "10.0.0.1";
  EXPECT_EQ(Simulate(request).decision.reason, ReasonCode::kOutsideTimeWindow);  // 22:13
  WhatIf at_noon;
  at_noon.at = absl::FromUnixSeconds(1'700'000'000 - 10 * 3600);  // 12:13 UTC
  EXPECT_EQ(Simulate(request, at_noon).decision.reason, ReasonCode::kAllowed);
  WhatIf elsewhere = at_noon;
  elsewhere.client_ip = "192.0.2.1";
  EXPECT_EQ(Simulate(request, elsewhere).decision.reason, ReasonCode::kIpNotAllowed);
  elsewhere.client_ip = "not an ip";
  EXPECT_EQ(authorizer_.Simulate(request, elsewhere).status().message(),
            "what_if.client_ip: \"not an ip\" is not an IPv4 or IPv6 address");
  // The request as sent must be well-formed, even where the what-if replaces a field of it.
  request.client_ip = "bogus";
  elsewhere.client_ip = "10.0.0.1";
  EXPECT_EQ(authorizer_.Simulate(request, elsewhere).status().message(),
            "request: client_ip: \"bogus\" is not an IPv4 or IPv6 address");
}

TEST_F(AuthorizerTest, SimulateRefusesWhatIfDelegationsBetweenImpossibleAgentIds) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*");
  WhatIf what_if;
  Delegation lend;
  lend.from_agent_id = "agt a";
  lend.to_agent_id = "agt_a";
  lend.permissions.push_back({"docs:*", {"read"}, ""});
  what_if.extra_delegations = {lend};
  EXPECT_EQ(authorizer_.Simulate(Read("agt_a", "docs:1"), what_if).status().message(),
            "what_if.extra_delegations[0].from_agent_id: byte 3 (' ') is not allowed; use A-Z "
            "a-z 0-9 _ . : -");
  what_if.extra_delegations[0].from_agent_id = "agt_a";
  what_if.extra_delegations[0].to_agent_id = "";
  EXPECT_EQ(authorizer_.Simulate(Read("agt_a", "docs:1"), what_if).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(AuthorizerTest, SimulateLaysWhatIfPolicyOverTheStore) {
  AddAgent("agt_a");
  AddAgent("agt_b");
  Allow("agt_a", "docs:*");
  const std::string link = Delegate("agt_a", "agt_b", "docs:*");

  WhatIf removed;
  removed.removed_delegation_ids = {link};
  EXPECT_EQ(Simulate(Read("agt_b", "docs:1"), removed).decision.reason,
            ReasonCode::kNoMatchingPermission);

  WhatIf extra_permission;
  Permission mail;
  mail.resource = "mail:*";
  mail.actions = {"read"};
  extra_permission.extra_permissions = {mail};
  Decision allowed = Simulate(Read("agt_b", "mail:1"), extra_permission).decision;
  EXPECT_EQ(allowed.reason, ReasonCode::kAllowed);
  EXPECT_EQ(allowed.matched_grant->permission_id, "whatif:perm:0");

  WhatIf extra_delegation;
  Delegation lend_back;
  lend_back.from_agent_id = "agt_b";
  lend_back.to_agent_id = "agt_a";
  lend_back.permissions.push_back({"mail:*", {"read"}, ""});
  extra_delegation.extra_delegations = {lend_back};
  extra_delegation.extra_permissions = {mail};  // agt_b's: the subject below is agt_b
  EXPECT_EQ(Simulate(Read("agt_b", "mail:1"), extra_delegation).decision.reason,
            ReasonCode::kAllowed);
  // The store saw none of it.
  EXPECT_EQ(Authorize(Read("agt_b", "mail:1")).reason, ReasonCode::kNoMatchingPermission);
}

TEST_F(AuthorizerTest, SimulateGivesATokenSubjectsWhatIfPermissionsToItsAgent) {
  AddAgent("agt_a");
  const std::string token = NewAgentToken();
  ASSERT_TRUE(store_.SetAgentToken("agt_a", Sha256(token)).ok());
  WhatIf what_if;
  Permission docs;
  docs.resource = "docs:*";
  docs.actions = {"read"};
  what_if.extra_permissions = {docs};
  Request request = Read("", "docs:1");
  request.subject.token = token;
  EXPECT_EQ(Simulate(request, what_if).decision.reason, ReasonCode::kAllowed);
}

// A token is a credential presented now: a what-if time back in a rotated-out token's grace
// period does not bring the token back (the what-if time applies to the policy).
TEST_F(AuthorizerTest, SimulateJudgesATokenAtTheRealTimeOfTheCall) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*");
  const std::string old_token = NewAgentToken();
  ASSERT_TRUE(store_.SetAgentToken("agt_a", Sha256(old_token)).ok());
  ASSERT_TRUE(store_.SetAgentToken("agt_a", Sha256(NewAgentToken()), now_ + absl::Minutes(1)).ok());
  Request request = Read("", "docs:1");
  request.subject.token = old_token;
  WhatIf a_minute_ago;
  a_minute_ago.at = now_ - absl::Minutes(1);
  EXPECT_EQ(Simulate(request, a_minute_ago).decision.reason, ReasonCode::kAllowed)
      << "within the grace period";

  now_ += absl::Minutes(2);  // the grace is over
  EXPECT_EQ(Simulate(request).decision.reason, ReasonCode::kTokenInvalid);
  a_minute_ago.at = now_ - absl::Minutes(2);
  EXPECT_EQ(Simulate(request, a_minute_ago).decision.reason, ReasonCode::kTokenInvalid);
}

// Issue 16: what-if inputs are capped in count, and the refusal names the cap.
TEST_F(AuthorizerTest, SimulateRefusesWhatIfInputsPastTheirCaps) {
  AddAgent("agt_a");
  auto link = [](int i) {
    Delegation delegation;
    delegation.from_agent_id = absl::StrCat("agt_", i);
    delegation.to_agent_id = "agt_a";
    delegation.max_depth = 8;
    delegation.permissions.push_back({"docs:*", {"read"}, ""});
    return delegation;
  };
  struct Case {
    std::function<void(WhatIf&)> fill;
    std::string cap;
  };
  const std::vector<Case> cases = {
      {[](WhatIf& w) {
         Permission permission;
         permission.resource = "docs:*";
         permission.actions = {"read"};
         w.extra_permissions.assign(kMaxWhatIfPermissions + 1, permission);
       },
       absl::StrCat("what_if.extra_permissions: at most ", kMaxWhatIfPermissions)},
      {[&](WhatIf& w) {
         for (size_t i = 0; i <= kMaxWhatIfDelegations; ++i) w.extra_delegations.push_back(link(i));
       },
       absl::StrCat("what_if.extra_delegations: at most ", kMaxWhatIfDelegations)},
      {[&](WhatIf& w) {
         for (int i = 0; i < 2; ++i) {
           w.extra_delegations.push_back(link(i));
           w.extra_delegations.back().permissions.resize(kMaxWhatIfLentPermissions / 2 + 1,
                                                         {"docs:*", {"read"}, ""});
         }
       },
       absl::StrCat("what_if.extra_delegations[*].permissions: at most ",
                    kMaxWhatIfLentPermissions)},
      {[](WhatIf& w) {
         w.removed_delegation_ids.assign(kMaxWhatIfRemovedDelegations + 1, "dlg_x");
       },
       absl::StrCat("what_if.removed_delegation_ids: at most ", kMaxWhatIfRemovedDelegations)},
  };
  for (const Case& c : cases) {
    WhatIf what_if;
    c.fill(what_if);
    absl::StatusOr<Simulation> simulation = authorizer_.Simulate(Read("agt_a", "docs:1"), what_if);
    EXPECT_EQ(simulation.status().code(), absl::StatusCode::kInvalidArgument) << c.cap;
    EXPECT_TRUE(absl::StrContains(simulation.status().message(), c.cap)) << simulation.status();
  }
}

TEST_F(AuthorizerTest, SimulateRefusesWhatIfPolicyTheStoreWouldRefuse) {
  AddAgent("agt_a");
  struct Case {
    Permission permission;
    std::string message_start;
  };
  Permission bad_constraints;
  bad_constraints.resource = "docs:*";
  bad_constraints.actions = {"read"};
  bad_constraints.constraints_json = R"({"rate_limit": {"max_calls": 0, "window_seconds": 1}})";
  Permission no_actions;
  no_actions.resource = "docs:*";
  Permission bad_resource;
  bad_resource.actions = {"read"};
  Permission timed_deny;  // a deny's constraints would never be read
  timed_deny.resource = "docs:*";
  timed_deny.actions = {"read"};
  timed_deny.effect = Effect::kDeny;
  timed_deny.constraints_json = R"({"time_window": {"start": "03:00", "end": "03:01"}})";
  Permission literal_stars;
  literal_stars.resource = "docs:**";
  literal_stars.actions = {"read"};
  literal_stars.effect = Effect::kDeny;
  const std::vector<Case> cases = {
      {bad_constraints, "what_if.extra_permissions[0].constraints: "},
      {no_actions, "what_if.extra_permissions[0].actions: empty"},
      {bad_resource, "what_if.extra_permissions[0].resource: "},
      {timed_deny, "what_if.extra_permissions[0]: constraints: a deny permission takes none"},
      {literal_stars, "what_if.extra_permissions[0]: resource: \"**\""},
  };
  for (const Case& c : cases) {
    WhatIf what_if;
    what_if.extra_permissions = {c.permission};
    absl::StatusOr<Simulation> simulation = authorizer_.Simulate(Read("agt_a", "docs:1"), what_if);
    EXPECT_EQ(simulation.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StartsWith(simulation.status().message(), c.message_start))
        << simulation.status();
  }
}

// ---------------------------------------------------------------------------------------------
// The observer

TEST_F(AuthorizerTest, TheObserverHearsEveryDecisionOfRecordWithItsLatency) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*");
  int clock_reads = 0;
  Authorizer authorizer(
      store_, [&clock_reads] { return kStart + absl::Milliseconds(clock_reads++); }, &observer_);
  ASSERT_TRUE(authorizer.Authorize(Read("agt_a", "docs:1", "r1")).ok());
  ASSERT_TRUE(authorizer.BatchAuthorize(ReadAll("agt_a", {"docs:2"}, "r2")).ok());
  ASSERT_TRUE(authorizer.Simulate(Read("agt_a", "docs:3", "r3"), WhatIf()).ok());
  ASSERT_TRUE(authorizer.ValidateToken(NewAgentToken()).ok());
  EXPECT_EQ(observer_.request_ids, (std::vector<std::string>{"r1", "r2"}));
  ASSERT_EQ(observer_.latencies.size(), 2u);
  EXPECT_GT(observer_.latencies[0], absl::ZeroDuration());
  EXPECT_GT(observer_.latencies[1], absl::ZeroDuration());
}

// An observer that must keep a record of every decision answered (a synchronous decision log)
// and could not: the call answers nothing, whatever was decided, and the observer is told so.
TEST_F(AuthorizerTest, ADecisionTheObserverCouldNotRecordIsNotAnswered) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*");
  observer_.refusal = absl::UnavailableError("the decision log did not keep this decision");

  absl::StatusOr<Decision> decision = authorizer_.Authorize(Read("agt_a", "docs:1"));
  EXPECT_EQ(decision.status(), observer_.refusal);
  absl::StatusOr<Planned<Decision>> plan =
      authorizer_.PlanAuthorize(Read("agt_a", "docs:1"), Venue::kInline);
  EXPECT_EQ(plan.status(), observer_.refusal) << "a plan done inline is answered there";
  absl::StatusOr<std::vector<Decision>> decisions =
      authorizer_.BatchAuthorize(ReadAll("agt_a", {"docs:1", "docs:2", "mail:1"}));
  EXPECT_EQ(decisions.status(), observer_.refusal);
  EXPECT_EQ(observer_.withheld,
            (std::vector<std::string>{"Authorize:1", "Authorize:1", "BatchAuthorize:3"}));
  // A batch stops at the first decision refused: the others are not told as answered.
  EXPECT_EQ(observer_.request_ids.size(), 3u);
}

TEST_F(AuthorizerTest, ADecisionThatWroteButCouldNotBeRecordedIsNotAnswered) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*", R"({"rate_limit": {"max_calls": 5, "window_seconds": 60}})");
  observer_.refusal = absl::UnavailableError("the decision log did not keep this decision");
  absl::StatusOr<Decision> decision = authorizer_.Authorize(Read("agt_a", "docs:1"));
  EXPECT_EQ(decision.status(), observer_.refusal);
  EXPECT_EQ(observer_.withheld, (std::vector<std::string>{"Authorize:1"}));
}

TEST_F(AuthorizerTest, ABatchsDecisionsEachWaitedItsTimeAndAClockSteppedBackIsNoNegativeLatency) {
  AddAgent("agt_a");
  Allow("agt_a", "docs:*");
  absl::Time now = kStart;
  Authorizer authorizer(
      store_, [&now] { return now; }, &observer_);
  ASSERT_TRUE(authorizer.BatchAuthorize(ReadAll("agt_a", {"docs:1"}, "b1")).ok());
  // A wall clock stepped back during the call.
  int reads = 0;
  Authorizer stepped_back(
      store_, [&reads] { return kStart - absl::Seconds(reads++); }, &observer_);
  ASSERT_TRUE(stepped_back.Authorize(Read("agt_a", "docs:1", "r1")).ok());
  int ticks = 0;
  Authorizer ticking(
      store_, [&ticks] { return kStart + absl::Milliseconds(10 * ticks++); }, &observer_);
  ASSERT_TRUE(ticking.BatchAuthorize(ReadAll("agt_a", {"docs:1", "docs:2"}, "b2")).ok());
  ASSERT_EQ(observer_.latencies.size(), 4u);
  EXPECT_EQ(observer_.latencies[1], absl::ZeroDuration());
  // The batch's two decisions were each answered when the batch was: after all of its time.
  const int64_t batch_ms = 10 * (ticks - 1);
  EXPECT_EQ(observer_.latencies[2], absl::Milliseconds(batch_ms));
  EXPECT_EQ(observer_.latencies[3], absl::Milliseconds(batch_ms));
}

}  // namespace
}  // namespace verdict
