#include "server/decision_runner.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "decision/counting_store.h"
#include "decision/forwarding_snapshot.h"
#include "gtest/gtest.h"
#include "server/worker_pool.h"
#include "store/decision_log_store.h"
#include "store/decision_log_writer.h"
#include "testing/memory_store.h"

namespace verdict {
namespace {

// A signed token's shape; the fake authenticator below does not check signatures.
constexpr char kAccessToken[] = "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhZ3RfYSJ9.c2lnbmF0dXJl";

class CountingObserver final : public DecisionObserver {
 public:
  absl::Status OnDecision(const Request&, const Decision&, absl::Duration) override {
    ++decisions;
    return absl::OkStatus();
  }
  std::atomic<int> decisions{0};
};

// Accepts every access token as agt_a's and counts how often it was asked: a DPoP proof is
// spent on every call.
class CountingAccessTokens final : public AccessTokenAuthenticator {
 public:
  absl::StatusOr<AccessTokenClaims> Authenticate(const Subject&, PolicyView&, absl::Time) override {
    ++calls;
    calls_on.push_back(std::this_thread::get_id());
    AccessTokenClaims claims;
    claims.subject = "agt_a";
    claims.jti = "jti-1";
    return claims;
  }
  std::atomic<int> calls{0};
  std::vector<std::thread::id> calls_on;
};

// Authorize(request), in the halves the runner calls.
DecisionCall<Decision> AuthorizeCall(const Request& request) {
  return {[request](Authorizer& authorizer, Venue venue) {
            return authorizer.PlanAuthorize(request, venue);
          },
          [request](Authorizer& authorizer, Planned<Decision> plan) {
            return authorizer.FinishAuthorize(request, std::move(plan));
          }};
}

// What one Run answered, and on which thread.
struct Answered {
  absl::Notification done;
  absl::StatusOr<Decision> decision = absl::UnknownError("not answered");
  std::thread::id thread;
};

Request ReadDocs(const std::string& agent_id) {
  Request request;
  request.subject.agent_id = agent_id;
  request.action = "read";
  request.resource = "docs:1";
  return request;
}

class DecisionRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Agent agent;
    agent.id = "agt_a";
    ASSERT_TRUE(store_.AddAgent(agent).ok());
  }

  void Allow(const std::string& constraints_json) {
    Permission permission;
    permission.agent_id = "agt_a";
    permission.resource = "docs:*";
    permission.actions = {"read"};
    permission.constraints_json = constraints_json;
    ASSERT_TRUE(store_.AddPermission(permission).ok());
  }

  std::unique_ptr<DecisionRunner> Runner(PolicyStore& store, int inline_slots,
                                         AccessTokenAuthenticator* access_tokens = nullptr) {
    return std::make_unique<DecisionRunner>(
        store, [] { return absl::Now(); }, &observer_, access_tokens, workers_, inline_slots);
  }

  // Runs Authorize(request) for a caller who gives up when `gave_up` says so, without waiting.
  static void StartAuthorize(DecisionRunner& runner, const Request& request, Answered& answered,
                             const std::atomic<bool>& gave_up) {
    runner.Run<Decision>(
        AuthorizeCall(request),
        [&answered](absl::StatusOr<Decision> decision) {
          answered.decision = std::move(decision);
          answered.thread = std::this_thread::get_id();
          answered.done.Notify();
        },
        [&gave_up] { return gave_up.load(); });
  }

  // Runs Authorize(request) for a caller who waits for its answer.
  static void Authorize(DecisionRunner& runner, const Request& request, Answered& answered) {
    static const std::atomic<bool> kWaits{false};
    StartAuthorize(runner, request, answered, kWaits);
    answered.done.WaitForNotification();
  }

  // The one call of the hour that agt_a's rate-limited permission allows is still there: the
  // next caller gets it.
  static void ExpectItsRateSlotIsStillThere(DecisionRunner& runner) {
    Answered next;
    Authorize(runner, ReadDocs("agt_a"), next);
    ASSERT_TRUE(next.decision.ok()) << next.decision.status();
    EXPECT_EQ(next.decision->reason, ReasonCode::kAllowed);
  }

  MemoryPolicyStore store_;
  CountingObserver observer_;
  WorkerPool workers_{2};
};

TEST_F(DecisionRunnerTest, ReadOnlyDecisionIsAnsweredOnTheCallingThread) {
  Allow("");
  std::unique_ptr<DecisionRunner> runner = Runner(store_, 1);
  Answered answered;
  Authorize(*runner, ReadDocs("agt_a"), answered);
  ASSERT_TRUE(answered.decision.ok()) << answered.decision.status();
  EXPECT_EQ(answered.decision->reason, ReasonCode::kAllowed);
  EXPECT_EQ(answered.thread, std::this_thread::get_id());
  EXPECT_EQ(observer_.decisions, 1);
}

// While health says the store is not available (it may be frozen), gRPC's threads decide
// nothing: they must stay free to answer health checks.
TEST_F(DecisionRunnerTest, WhileInlineDecisionsAreOffEveryDecisionIsMadeOnAWorker) {
  Allow("");
  std::unique_ptr<DecisionRunner> runner = Runner(store_, 1);
  runner->SetInlineAllowed(false);
  Answered on_worker;
  Authorize(*runner, ReadDocs("agt_a"), on_worker);
  ASSERT_TRUE(on_worker.decision.ok()) << on_worker.decision.status();
  EXPECT_EQ(on_worker.decision->reason, ReasonCode::kAllowed);
  EXPECT_NE(on_worker.thread, std::this_thread::get_id());

  runner->SetInlineAllowed(true);
  Answered inline_again;
  Authorize(*runner, ReadDocs("agt_a"), inline_again);
  EXPECT_EQ(inline_again.thread, std::this_thread::get_id());
}

TEST_F(DecisionRunnerTest, DecisionThatWritesIsMadeOnceOnAWorkerAndSpendsItsSlot) {
  Allow(R"({"rate_limit": {"max_calls": 1, "window_seconds": 3600}})");
  std::unique_ptr<DecisionRunner> runner = Runner(store_, 1);
  Answered first;
  Authorize(*runner, ReadDocs("agt_a"), first);
  ASSERT_TRUE(first.decision.ok()) << first.decision.status();
  EXPECT_EQ(first.decision->reason, ReasonCode::kAllowed);
  EXPECT_NE(first.thread, std::this_thread::get_id());
  // The slot was spent: the next call is limited (a read-only denial, answered inline).
  Answered second;
  Authorize(*runner, ReadDocs("agt_a"), second);
  ASSERT_TRUE(second.decision.ok()) << second.decision.status();
  EXPECT_EQ(second.decision->reason, ReasonCode::kRateLimited);
  // The plan left to commit is not a decision: each call is told to the observer once.
  EXPECT_EQ(observer_.decisions, 2);
}

TEST_F(DecisionRunnerTest, DpopProofIsCheckedOnceAndOnAWorker) {
  Allow("");
  CountingAccessTokens access_tokens;
  std::unique_ptr<DecisionRunner> runner = Runner(store_, 1, &access_tokens);
  Request request = ReadDocs("");
  request.subject.token = kAccessToken;
  request.subject.dpop.proof = "a-dpop-proof";
  Answered answered;
  Authorize(*runner, request, answered);
  ASSERT_TRUE(answered.decision.ok()) << answered.decision.status();
  EXPECT_EQ(answered.decision->reason, ReasonCode::kAllowed);
  ASSERT_EQ(access_tokens.calls, 1);
  EXPECT_NE(access_tokens.calls_on[0], std::this_thread::get_id());
}

TEST_F(DecisionRunnerTest, BearerAccessTokenIsCheckedInline) {
  Allow("");
  CountingAccessTokens access_tokens;
  std::unique_ptr<DecisionRunner> runner = Runner(store_, 1, &access_tokens);
  Request request = ReadDocs("");
  request.subject.token = kAccessToken;
  Answered answered;
  Authorize(*runner, request, answered);
  ASSERT_TRUE(answered.decision.ok()) << answered.decision.status();
  EXPECT_EQ(answered.decision->reason, ReasonCode::kAllowed);
  EXPECT_EQ(answered.thread, std::this_thread::get_id());
  EXPECT_EQ(access_tokens.calls, 1);
}

TEST_F(DecisionRunnerTest, DecisionBeyondTheInlineSlotsGoesToAWorker) {
  Allow("");
  std::unique_ptr<DecisionRunner> runner = Runner(store_, 1);
  absl::Notification holding, release;
  Answered held;
  // Takes the only inline slot and keeps it until released.
  std::thread holder([&] {
    runner->Run<Decision>(
        {[&](Authorizer& authorizer, Venue venue) {
           holding.Notify();
           release.WaitForNotification();
           return authorizer.PlanAuthorize(ReadDocs("agt_a"), venue);
         },
         [](Authorizer& authorizer, Planned<Decision> plan) {
           return authorizer.FinishAuthorize(ReadDocs("agt_a"), std::move(plan));
         }},
        [&](absl::StatusOr<Decision> decision) {
          held.decision = std::move(decision);
          held.done.Notify();
        },
        [] { return false; });
  });
  holding.WaitForNotification();
  Answered answered;
  Authorize(*runner, ReadDocs("agt_a"), answered);
  EXPECT_TRUE(answered.decision.ok()) << answered.decision.status();
  EXPECT_NE(answered.thread, std::this_thread::get_id());
  release.Notify();
  holder.join();
  EXPECT_TRUE(held.decision.ok()) << held.decision.status();
}

// Design section 8: a decision that may be expensive is made on a worker, never on the thread
// that received the call.
TEST_F(DecisionRunnerTest, DecisionNeedingMoreThanTheInlineBudgetIsMadeOnAWorker) {
  // agt_a's right comes down a chain of delegations from agents each lending to the next, and
  // every agent of the chain holds kInlineDecisionSteps unrelated permissions that the lookups
  // of an inline attempt cannot afford to read.
  std::string below = "agt_a";
  for (int i = 0; i < 3; ++i) {
    Agent lender;
    lender.id = absl::StrCat("agt_lender_", i);
    ASSERT_TRUE(store_.AddAgent(lender).ok());
    Delegation link;
    link.from_agent_id = lender.id;
    link.to_agent_id = below;
    link.max_depth = 8;
    for (int64_t p = 0; p < kInlineDecisionSteps / 2; ++p) {
      link.permissions.push_back({absl::StrCat("mail:", p), {"read"}, ""});
    }
    link.permissions.push_back({"docs:*", {"read"}, ""});
    ASSERT_TRUE(store_.AddDelegation(link).ok());
    below = lender.id;
  }
  Permission origin;
  origin.agent_id = below;
  origin.resource = "docs:*";
  origin.actions = {"read"};
  ASSERT_TRUE(store_.AddPermission(origin).ok());

  std::unique_ptr<DecisionRunner> runner = Runner(store_, 1);
  Answered answered;
  Authorize(*runner, ReadDocs("agt_a"), answered);
  ASSERT_TRUE(answered.decision.ok()) << answered.decision.status();
  EXPECT_EQ(answered.decision->reason, ReasonCode::kAllowed) << answered.decision->message;
  EXPECT_NE(answered.thread, std::this_thread::get_id());
  EXPECT_EQ(observer_.decisions, 1);
}

TEST_F(DecisionRunnerTest, RunOnWorkerNeverDecidesOnTheCallingThread) {
  Allow("");
  std::unique_ptr<DecisionRunner> runner = Runner(store_, 1);
  Answered answered;
  runner->RunOnWorker<Simulation>(
      [](Authorizer& authorizer) { return authorizer.Simulate(ReadDocs("agt_a"), WhatIf()); },
      [&answered](absl::StatusOr<Simulation> simulation) {
        answered.decision = simulation.ok() ? absl::StatusOr<Decision>(simulation->decision)
                                            : absl::StatusOr<Decision>(simulation.status());
        answered.thread = std::this_thread::get_id();
        answered.done.Notify();
      },
      [] { return false; });
  answered.done.WaitForNotification();
  ASSERT_TRUE(answered.decision.ok()) << answered.decision.status();
  EXPECT_EQ(answered.decision->reason, ReasonCode::kAllowed);
  EXPECT_NE(answered.thread, std::this_thread::get_id());
}

TEST_F(DecisionRunnerTest, StoreErrorIsAnsweredAsItIsNeverAnAllow) {
  UnreachableStore broken("disk gone");
  std::unique_ptr<DecisionRunner> runner = Runner(broken, 1);
  Answered answered;
  Authorize(*runner, ReadDocs("agt_a"), answered);
  EXPECT_EQ(answered.decision.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(answered.thread, std::this_thread::get_id()) << "the plan failed inline: no retry";
  EXPECT_EQ(observer_.decisions, 0);
}

// A decision log whose database accepts every row, or refuses every one (full, read-only).
class FakeDecisionLog final : public DecisionLogStore {
 public:
  explicit FakeDecisionLog(bool accepts) : accepts_(accepts) {}
  absl::Status Append(std::vector<DecisionLogRow>& rows) override {
    if (!accepts_) return absl::UnavailableError("database or disk is full");
    appended += static_cast<int>(rows.size());
    return absl::OkStatus();
  }
  absl::StatusOr<DecisionLogPage> Query(const DecisionLogFilter&, int, absl::string_view) override {
    return absl::UnimplementedError("not queried here");
  }
  absl::StatusOr<ChainVerification> VerifyChain() override {
    return absl::UnimplementedError("not checked here");
  }
  std::atomic<int> appended{0};

 private:
  const bool accepts_;
};

// --decision_log_durability=sync: each decision waits for its row's commit, and tried once.
std::unique_ptr<DecisionLogWriter> SyncDecisionLog(bool accepts) {
  DecisionLogWriterOptions options;
  options.durability = DecisionLogDurability::kSync;
  options.max_batch_attempts = 1;
  return std::make_unique<DecisionLogWriter>(
      std::make_unique<FakeDecisionLog>(accepts), [] { return absl::Now(); }, options);
}

// With --decision_log_durability=sync no decision goes out without its durable row: one whose
// row the decision log finally refuses is not answered (UNAVAILABLE, as any store fault), so a
// refused row never lets an ALLOW through.
TEST_F(DecisionRunnerTest, WithASyncDecisionLogAnAllowWhoseRowIsRefusedIsNotAnswered) {
  Allow("");
  std::unique_ptr<DecisionLogWriter> log = SyncDecisionLog(/*accepts=*/false);
  DecisionRunner runner(
      store_, [] { return absl::Now(); }, log.get(), nullptr, workers_, 1);
  Answered answered;
  Authorize(runner, ReadDocs("agt_a"), answered);
  EXPECT_EQ(answered.decision.status().code(), absl::StatusCode::kUnavailable)
      << (answered.decision.ok() ? VerdictName(answered.decision->verdict) : "");
  EXPECT_EQ(log->counters().failed, 1u);
}

TEST_F(DecisionRunnerTest, WithASyncDecisionLogABatchWhoseRowsAreRefusedIsNotAnswered) {
  Allow("");
  std::unique_ptr<DecisionLogWriter> log = SyncDecisionLog(/*accepts=*/false);
  DecisionRunner runner(
      store_, [] { return absl::Now(); }, log.get(), nullptr, workers_, 1);
  auto batch = std::make_shared<BatchRequest>();
  batch->subject.agent_id = "agt_a";
  batch->checks = {{"read", "docs:1", ""}, {"read", "docs:2", ""}};
  absl::Notification done;
  absl::StatusOr<std::vector<Decision>> decisions = absl::UnknownError("not answered");
  runner.Run<std::vector<Decision>>(
      {[batch](Authorizer& authorizer, Venue venue) {
         return authorizer.PlanBatchAuthorize(*batch, venue);
       },
       [batch](Authorizer& authorizer, Planned<std::vector<Decision>> plan) {
         return authorizer.FinishBatchAuthorize(*batch, std::move(plan));
       }},
      [&](absl::StatusOr<std::vector<Decision>> answer) {
        decisions = std::move(answer);
        done.Notify();
      },
      [] { return false; });
  done.WaitForNotification();
  EXPECT_EQ(decisions.status().code(), absl::StatusCode::kUnavailable);
}

TEST_F(DecisionRunnerTest, WithASyncDecisionLogThatHasShutDownNoDecisionIsAnswered) {
  Allow("");
  std::unique_ptr<DecisionLogWriter> log = SyncDecisionLog(/*accepts=*/true);
  log->Shutdown();
  DecisionRunner runner(
      store_, [] { return absl::Now(); }, log.get(), nullptr, workers_, 1);
  Answered answered;
  Authorize(runner, ReadDocs("agt_a"), answered);
  EXPECT_EQ(answered.decision.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(log->counters().dropped, 1u);
}

TEST_F(DecisionRunnerTest, WithASyncDecisionLogThatKeepsTheRowTheDecisionIsAnswered) {
  Allow("");
  std::unique_ptr<DecisionLogWriter> log = SyncDecisionLog(/*accepts=*/true);
  DecisionRunner runner(
      store_, [] { return absl::Now(); }, log.get(), nullptr, workers_, 1);
  Answered answered;
  Authorize(runner, ReadDocs("agt_a"), answered);
  ASSERT_TRUE(answered.decision.ok()) << answered.decision.status();
  EXPECT_EQ(answered.decision->reason, ReasonCode::kAllowed);
  EXPECT_EQ(log->counters().written, 1u);
}

// An asynchronous log answers first and writes later: a row it drops costs the row, counted
// (verdict_decision_log_dropped_total), never the answer.
TEST_F(DecisionRunnerTest, WithAnAsyncDecisionLogARefusedRowDoesNotHoldTheAnswer) {
  Allow("");
  DecisionLogWriterOptions options;
  options.max_batch_attempts = 1;
  DecisionLogWriter log(
      std::make_unique<FakeDecisionLog>(/*accepts=*/true), [] { return absl::Now(); }, options);
  log.Shutdown();  // every decision from now on is dropped
  DecisionRunner runner(
      store_, [] { return absl::Now(); }, &log, nullptr, workers_, 1);
  Answered answered;
  Authorize(runner, ReadDocs("agt_a"), answered);
  ASSERT_TRUE(answered.decision.ok()) << answered.decision.status();
  EXPECT_EQ(answered.decision->reason, ReasonCode::kAllowed);
  EXPECT_EQ(log.counters().dropped, 1u);
}

// Decide once: the plan made inline is not made again on the worker, which only commits it.
TEST_F(DecisionRunnerTest, DecisionThatWritesIsPlannedInOneSnapshotAndCommittedInOneTransaction) {
  Allow(R"({"rate_limit": {"max_calls": 1, "window_seconds": 3600}})");
  CountingStore counting(store_);
  std::unique_ptr<DecisionRunner> runner = Runner(counting, 1);
  Answered answered;
  Authorize(*runner, ReadDocs("agt_a"), answered);
  ASSERT_TRUE(answered.decision.ok()) << answered.decision.status();
  EXPECT_EQ(answered.decision->reason, ReasonCode::kAllowed);
  EXPECT_NE(answered.thread, std::this_thread::get_id());
  EXPECT_EQ(counting.reads, 1) << "decided once in a snapshot, inline";
  EXPECT_EQ(counting.writes, 1) << "and once more in the one write transaction, on a worker";
}

TEST_F(DecisionRunnerTest, DecisionThatOnlyReadsNeverBeginsAWrite) {
  Allow("");
  CountingStore counting(store_);
  std::unique_ptr<DecisionRunner> runner = Runner(counting, 1);
  Answered inline_answer;
  Authorize(*runner, ReadDocs("agt_a"), inline_answer);
  runner->SetInlineAllowed(false);
  Answered worker_answer;
  Authorize(*runner, ReadDocs("agt_a"), worker_answer);
  ASSERT_TRUE(inline_answer.decision.ok()) << inline_answer.decision.status();
  ASSERT_TRUE(worker_answer.decision.ok()) << worker_answer.decision.status();
  EXPECT_NE(worker_answer.thread, std::this_thread::get_id());
  EXPECT_EQ(counting.reads, 2);
  EXPECT_EQ(counting.writes, 0);
}

// A DPoP proof is spent where the call is finished: the inline plan leaves it to a worker before
// reading anything.
TEST_F(DecisionRunnerTest, DpopSubjectIsLeftToAWorkerBeforeAnySnapshotIsRead) {
  Allow("");
  CountingAccessTokens access_tokens;
  CountingStore counting(store_);
  std::unique_ptr<DecisionRunner> runner = Runner(counting, 1, &access_tokens);
  Request request = ReadDocs("");
  request.subject.token = kAccessToken;
  request.subject.dpop.proof = "a-dpop-proof";
  Answered answered;
  Authorize(*runner, request, answered);
  ASSERT_TRUE(answered.decision.ok()) << answered.decision.status();
  EXPECT_EQ(answered.decision->reason, ReasonCode::kAllowed);
  EXPECT_EQ(counting.reads, 1);
  EXPECT_EQ(access_tokens.calls, 1);
}

TEST_F(DecisionRunnerTest, CallerWhoGaveUpGetsNothingDecided) {
  Allow(R"({"rate_limit": {"max_calls": 1, "window_seconds": 3600}})");
  std::unique_ptr<DecisionRunner> runner = Runner(store_, 1);
  const std::atomic<bool> gave_up{true};
  Answered abandoned;
  StartAuthorize(*runner, ReadDocs("agt_a"), abandoned, gave_up);
  abandoned.done.WaitForNotification();
  EXPECT_EQ(abandoned.decision.status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(observer_.decisions, 0);
  ExpectItsRateSlotIsStillThere(*runner);
}

TEST_F(DecisionRunnerTest, CallerWhoGivesUpWhileWaitingForAWorkerGetsNothingDecided) {
  Allow(R"({"rate_limit": {"max_calls": 1, "window_seconds": 3600}})");
  std::unique_ptr<DecisionRunner> runner = Runner(store_, 1);
  // Both workers busy: the decision, which writes its rate-limit slot, waits in the queue.
  absl::Notification busy_a, busy_b, free_workers;
  for (absl::Notification* busy : {&busy_a, &busy_b}) {
    workers_.Schedule([busy, &free_workers] {
      busy->Notify();
      free_workers.WaitForNotification();
    });
  }
  busy_a.WaitForNotification();
  busy_b.WaitForNotification();
  std::atomic<bool> gave_up{false};
  Answered abandoned;
  StartAuthorize(*runner, ReadDocs("agt_a"), abandoned, gave_up);
  EXPECT_FALSE(abandoned.done.HasBeenNotified()) << "a decision that writes waits for a worker";
  gave_up = true;
  free_workers.Notify();
  abandoned.done.WaitForNotification();
  EXPECT_EQ(abandoned.decision.status().code(), absl::StatusCode::kCancelled);
  // The inline plan spent nothing, and nothing was decided after.
  EXPECT_EQ(observer_.decisions, 0);
  ExpectItsRateSlotIsStillThere(*runner);
}

}  // namespace
}  // namespace verdict
