#include "testing/memory_store.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1'700'000'000);

Agent NewAgent(const std::string& id) {
  Agent agent;
  agent.id = id;
  return agent;
}

std::unique_ptr<ReadSnapshot> Read(MemoryPolicyStore& store) {
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store.BeginRead();
  EXPECT_TRUE(snapshot.ok());
  return *std::move(snapshot);
}

std::unique_ptr<WriteTransaction> Write(MemoryPolicyStore& store) {
  absl::StatusOr<std::unique_ptr<WriteTransaction>> transaction = store.BeginWrite();
  EXPECT_TRUE(transaction.ok());
  return *std::move(transaction);
}

ApprovalToOpen ApprovalFor(const std::string& agent_id, int quorum) {
  return ApprovalToOpen{agent_id, "read", "docs:1", "hash", quorum, kNow + absl::Hours(1)};
}

TEST(MemoryPolicyStore, ASnapshotKeepsSeeingTheStateItBeganOn) {
  MemoryPolicyStore store;
  ASSERT_TRUE(store.AddAgent(NewAgent("agt_a")).ok());
  std::unique_ptr<ReadSnapshot> before = Read(store);
  ASSERT_TRUE(store.SetAgentStatus("agt_a", AgentStatus::kRevoked).ok());
  Permission permission;
  permission.agent_id = "agt_a";
  permission.resource = "*";
  permission.actions = {"*"};
  ASSERT_TRUE(store.AddPermission(permission).ok());

  EXPECT_EQ((*before->FindAgent("agt_a"))->status, AgentStatus::kActive);
  EXPECT_TRUE(before->PermissionsOf("agt_a")->empty());
  std::unique_ptr<ReadSnapshot> after = Read(store);
  EXPECT_EQ((*after->FindAgent("agt_a"))->status, AgentStatus::kRevoked);
  EXPECT_EQ(after->PermissionsOf("agt_a")->size(), 1u);
}

TEST(MemoryPolicyStore, PermissionsKeepCreationOrderAndGetIdsWhenTheyHaveNone) {
  MemoryPolicyStore store;
  ASSERT_TRUE(store.AddAgent(NewAgent("agt_a")).ok());
  Permission permission;
  permission.agent_id = "agt_a";
  permission.resource = "docs:*";
  permission.actions = {"read"};
  absl::StatusOr<std::string> first = store.AddPermission(permission);
  permission.id = "perm_named";
  absl::StatusOr<std::string> second = store.AddPermission(permission);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(*second, "perm_named");
  std::vector<Permission> permissions = *Read(store)->PermissionsOf("agt_a");
  ASSERT_EQ(permissions.size(), 2u);
  EXPECT_EQ(permissions[0].id, *first);
  EXPECT_EQ(permissions[1].id, "perm_named");

  ASSERT_TRUE(store.RemovePermission(*first).ok());
  EXPECT_EQ(Read(store)->PermissionsOf("agt_a")->size(), 1u);
  EXPECT_EQ(store.RemovePermission(*first).code(), absl::StatusCode::kNotFound);
}

TEST(MemoryPolicyStore, SettersRefuseUnknownAndDuplicateIds) {
  MemoryPolicyStore store;
  ASSERT_TRUE(store.AddAgent(NewAgent("agt_a")).ok());
  EXPECT_EQ(store.AddAgent(NewAgent("agt_a")).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(store.AddAgent(NewAgent("")).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store.SetAgentStatus("agt_x", AgentStatus::kRevoked).code(),
            absl::StatusCode::kNotFound);
  Delegation delegation;
  delegation.from_agent_id = "agt_a";
  delegation.to_agent_id = "agt_x";
  EXPECT_EQ(store.AddDelegation(delegation).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store.RevokeDelegation("dlg_x").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store.ApproveRequest("apr_x", "alice", kNow).code(), absl::StatusCode::kNotFound);
}

TEST(MemoryPolicyStore, OnlyActiveUnexpiredDelegationsAreListed) {
  MemoryPolicyStore store;
  ASSERT_TRUE(store.AddAgent(NewAgent("agt_a")).ok());
  ASSERT_TRUE(store.AddAgent(NewAgent("agt_b")).ok());
  Delegation delegation;
  delegation.from_agent_id = "agt_a";
  delegation.to_agent_id = "agt_b";
  absl::StatusOr<std::string> live = store.AddDelegation(delegation);
  absl::StatusOr<std::string> revoked = store.AddDelegation(delegation);
  delegation.expires_at = kNow;
  absl::StatusOr<std::string> expired = store.AddDelegation(delegation);
  ASSERT_TRUE(live.ok() && revoked.ok() && expired.ok());
  ASSERT_TRUE(store.RevokeDelegation(*revoked).ok());

  std::vector<Delegation> listed = *Read(store)->ActiveDelegationsInto("agt_b", kNow);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].id, *live);
  EXPECT_EQ(Read(store)->ActiveDelegationsInto("agt_b", kNow - absl::Seconds(1))->size(), 2u);
}

std::vector<std::string> IdsOf(absl::Span<const Delegation> delegations) {
  std::vector<std::string> ids;
  for (const Delegation& delegation : delegations) ids.push_back(delegation.id);
  return ids;
}

TEST(MemoryPolicyStore, SpanAnswersListWhatTheVectorAnswersList) {
  MemoryPolicyStore store;
  ASSERT_TRUE(store.AddAgent(NewAgent("agt_a")).ok());
  ASSERT_TRUE(store.AddAgent(NewAgent("agt_b")).ok());
  Permission permission;
  permission.agent_id = "agt_a";
  permission.resource = "docs:*";
  permission.actions = {"read"};
  ASSERT_TRUE(store.AddPermission(permission).ok());
  ASSERT_TRUE(store.AddPermission(permission).ok());
  Delegation delegation;
  delegation.from_agent_id = "agt_a";
  delegation.to_agent_id = "agt_b";
  absl::StatusOr<std::string> first = store.AddDelegation(delegation);
  absl::StatusOr<std::string> second = store.AddDelegation(delegation);
  ASSERT_TRUE(first.ok() && second.ok());

  std::unique_ptr<ReadSnapshot> snapshot = Read(store);
  absl::StatusOr<absl::Span<const Permission>> permissions = snapshot->PermissionsSpan("agt_a");
  ASSERT_TRUE(permissions.ok());
  ASSERT_EQ(permissions->size(), 2u);
  EXPECT_EQ((*permissions)[1].id, (*snapshot->PermissionsOf("agt_a"))[1].id);
  EXPECT_TRUE(snapshot->PermissionsSpan("agt_b")->empty());
  // Every link live: the table's rows. One revoked: the live ones only, in creation order.
  EXPECT_EQ(IdsOf(*snapshot->ActiveDelegationsIntoSpan("agt_b", kNow)),
            (std::vector<std::string>{*first, *second}));
  ASSERT_TRUE(store.RevokeDelegation(*first).ok());
  EXPECT_EQ(IdsOf(*Read(store)->ActiveDelegationsIntoSpan("agt_b", kNow)),
            (std::vector<std::string>{*second}));
  EXPECT_TRUE(Read(store)->ActiveDelegationsIntoSpan("agt_b", kNow + absl::Hours(1))->size() == 1u);
  EXPECT_TRUE(Read(store)->ActiveDelegationsIntoSpan("agt_a", kNow)->empty());
}

TEST(MemoryPolicyStore, ASpanKeepsShowingItsSnapshotWhateverIsWrittenLater) {
  MemoryPolicyStore store;
  ASSERT_TRUE(store.AddAgent(NewAgent("agt_a")).ok());
  ASSERT_TRUE(store.AddAgent(NewAgent("agt_b")).ok());
  Permission permission;
  permission.agent_id = "agt_a";
  permission.resource = "docs:*";
  permission.actions = {"read"};
  absl::StatusOr<std::string> kept = store.AddPermission(permission);
  Delegation delegation;
  delegation.from_agent_id = "agt_a";
  delegation.to_agent_id = "agt_b";
  absl::StatusOr<std::string> link = store.AddDelegation(delegation);
  ASSERT_TRUE(kept.ok() && link.ok());

  std::unique_ptr<ReadSnapshot> snapshot = Read(store);
  absl::Span<const Permission> permissions = *snapshot->PermissionsSpan("agt_a");
  absl::Span<const Delegation> links = *snapshot->ActiveDelegationsIntoSpan("agt_b", kNow);
  ASSERT_TRUE(store.RemovePermission(*kept).ok());
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(store.AddPermission(permission).ok());
  ASSERT_TRUE(store.RevokeDelegation(*link).ok());

  ASSERT_EQ(permissions.size(), 1u);
  EXPECT_EQ(permissions[0].id, *kept);
  ASSERT_EQ(links.size(), 1u);
  EXPECT_EQ(links[0].status, DelegationStatus::kActive);
}

TEST(MemoryPolicyStore, AnAgentReferenceKeepsShowingItsSnapshot) {
  MemoryPolicyStore store;
  ASSERT_TRUE(store.AddAgent(NewAgent("agt_a")).ok());
  std::unique_ptr<ReadSnapshot> snapshot = Read(store);
  absl::StatusOr<const Agent*> agent = snapshot->FindAgentRef("agt_a");
  ASSERT_TRUE(agent.ok() && *agent != nullptr);
  EXPECT_EQ(*snapshot->FindAgentRef("agt_missing"), nullptr);
  ASSERT_TRUE(store.SetAgentStatus("agt_a", AgentStatus::kRevoked).ok());
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(store.AddAgent(NewAgent(absl::StrCat("agt_", i))).ok());

  EXPECT_EQ((*agent)->id, "agt_a");
  EXPECT_EQ((*agent)->status, AgentStatus::kActive);
  EXPECT_EQ((*Read(store)->FindAgentRef("agt_a"))->status, AgentStatus::kRevoked);
}

TEST(MemoryPolicyStore, ACommittedTransactionKeepsWhatItsSpansShowUntilItIsDestroyed) {
  MemoryPolicyStore store;
  ASSERT_TRUE(store.AddAgent(NewAgent("agt_a")).ok());
  Permission permission;
  permission.agent_id = "agt_a";
  permission.resource = "docs:*";
  permission.actions = {"read"};
  absl::StatusOr<std::string> kept = store.AddPermission(permission);
  ASSERT_TRUE(kept.ok());

  std::unique_ptr<WriteTransaction> transaction = Write(store);
  absl::Span<const Permission> permissions = *transaction->PermissionsSpan("agt_a");
  const Agent* agent = *transaction->FindAgentRef("agt_a");
  ASSERT_TRUE(transaction->Commit().ok());
  ASSERT_TRUE(store.RemovePermission(*kept).ok());
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(store.AddPermission(permission).ok());
  ASSERT_TRUE(store.SetAgentStatus("agt_a", AgentStatus::kSuspended).ok());
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(store.AddAgent(NewAgent(absl::StrCat("agt_", i))).ok());

  ASSERT_EQ(permissions.size(), 1u);
  EXPECT_EQ(permissions[0].id, *kept);
  ASSERT_NE(agent, nullptr);
  EXPECT_EQ(agent->status, AgentStatus::kActive);
}

TEST(MemoryPolicyStore, ARotatedTokenWorksUntilItsGraceEnds) {
  MemoryPolicyStore store;
  ASSERT_TRUE(store.AddAgent(NewAgent("agt_a")).ok());
  ASSERT_TRUE(store.SetAgentToken("agt_a", "old-hash").ok());
  ASSERT_TRUE(store.SetAgentToken("agt_a", "new-hash", kNow + absl::Minutes(5)).ok());
  std::unique_ptr<ReadSnapshot> snapshot = Read(store);
  EXPECT_TRUE(*snapshot->FindAgentByTokenHash("new-hash", kNow + absl::Hours(9)));
  EXPECT_TRUE(*snapshot->FindAgentByTokenHash("old-hash", kNow));
  EXPECT_FALSE(*snapshot->FindAgentByTokenHash("old-hash", kNow + absl::Minutes(5)));
  EXPECT_FALSE(*snapshot->FindAgentByTokenHash("other-hash", kNow));

  // A second rotation retires the first token for good.
  ASSERT_TRUE(store.SetAgentToken("agt_a", "newest-hash", kNow + absl::Minutes(5)).ok());
  EXPECT_FALSE(*Read(store)->FindAgentByTokenHash("old-hash", kNow));
  EXPECT_TRUE(*Read(store)->FindAgentByTokenHash("new-hash", kNow));
}

TEST(MemoryPolicyStore, TransactionWritesAreSeenInsideAndAfterCommitOnly) {
  MemoryPolicyStore store;
  std::unique_ptr<WriteTransaction> transaction = Write(store);
  ASSERT_TRUE(transaction->SpendRate({"agt_1", "perm_1", 60, 5}).ok());
  ASSERT_TRUE(transaction->SpendRate({"agt_1", "perm_1", 60, 5}).ok());
  absl::StatusOr<std::string> approval = transaction->OpenApproval(ApprovalFor("agt_a", 1), kNow);
  ASSERT_TRUE(approval.ok());
  EXPECT_EQ(*transaction->RateCount("agt_1", "perm_1", 60), 2);
  EXPECT_EQ((*transaction->FindOpenApproval("agt_a", "read", "docs:1", "hash", kNow))->id,
            *approval);
  EXPECT_EQ(*Read(store)->RateCount("agt_1", "perm_1", 60), 0);
  EXPECT_FALSE(*Read(store)->FindOpenApproval("agt_a", "read", "docs:1", "hash", kNow));

  ASSERT_TRUE(transaction->Commit().ok());
  EXPECT_EQ(*Read(store)->RateCount("agt_1", "perm_1", 60), 2);
  EXPECT_EQ(*Read(store)->RateCount("agt_1", "perm_1", 120), 0);
  EXPECT_TRUE(*Read(store)->FindOpenApproval("agt_a", "read", "docs:1", "hash", kNow));
  EXPECT_EQ(transaction->Commit().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(MemoryPolicyStore, ATransactionDestroyedUncommittedLeavesNoTrace) {
  MemoryPolicyStore store;
  {
    std::unique_ptr<WriteTransaction> transaction = Write(store);
    ASSERT_TRUE(transaction->SpendRate({"agt_1", "perm_1", 60, 5}).ok());
    ASSERT_TRUE(transaction->OpenApproval(ApprovalFor("agt_a", 1), kNow).ok());
  }
  EXPECT_EQ(*Read(store)->RateCount("agt_1", "perm_1", 60), 0);
  EXPECT_TRUE(store.ApprovalRequests().empty());
  // And the store takes the next writer.
  ASSERT_TRUE(store.AddAgent(NewAgent("agt_a")).ok());
}

TEST(MemoryPolicyStore, AnApprovalNeedsItsQuorumOfDistinctApprovers) {
  MemoryPolicyStore store;
  std::unique_ptr<WriteTransaction> transaction = Write(store);
  std::string id = *transaction->OpenApproval(ApprovalFor("agt_a", 2), kNow);
  ASSERT_TRUE(transaction->Commit().ok());
  transaction.reset();

  ASSERT_TRUE(store.ApproveRequest(id, "alice", kNow).ok());
  EXPECT_EQ(store.ApproveRequest(id, "alice", kNow).code(), absl::StatusCode::kAlreadyExists);
  ApprovalRequest request = store.ApprovalRequests().at(0);
  EXPECT_EQ(request.status, ApprovalStatus::kPending);
  EXPECT_EQ(request.approvals, 1);
  ASSERT_TRUE(store.ApproveRequest(id, "bob", kNow).ok());
  EXPECT_EQ(store.ApprovalRequests().at(0).status, ApprovalStatus::kApproved);
  EXPECT_EQ(store.ApproveRequest(id, "carol", kNow).code(), absl::StatusCode::kFailedPrecondition);

  transaction = Write(store);
  ASSERT_TRUE(transaction->UseApproval(id, kNow).ok());
  EXPECT_EQ(transaction->UseApproval(id, kNow).code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(transaction->Commit().ok());
  EXPECT_EQ(store.ApprovalRequests().at(0).status, ApprovalStatus::kUsed);
}

// The voting rule of the SQL stores (decision/admin/voting.h): a vote on an expired request is
// refused and marks it expired; an approver votes once, approving or denying.
TEST(MemoryPolicyStore, VotesFollowTheSqlStoresVotingRule) {
  MemoryPolicyStore store;
  std::unique_ptr<WriteTransaction> transaction = Write(store);
  ApprovalToOpen expiring = ApprovalFor("agt_a", 2);
  expiring.expires_at = kNow + absl::Minutes(5);
  std::string id = *transaction->OpenApproval(expiring, kNow);
  ASSERT_TRUE(transaction->Commit().ok());
  transaction.reset();

  ASSERT_TRUE(store.ApproveRequest(id, "alice", kNow).ok());
  EXPECT_EQ(store.DenyRequest(id, "alice", kNow).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(store.ApprovalRequests().at(0).status, ApprovalStatus::kPending);

  absl::StatusOr<ApprovalRequest> late =
      store.VoteOnApproval(id, "bob", /*approve=*/true, kNow + absl::Minutes(5));
  EXPECT_EQ(late.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(late.status().message()), ::testing::HasSubstr("expired"));
  EXPECT_EQ(store.ApprovalRequests().at(0).status, ApprovalStatus::kExpired);
  EXPECT_EQ(store.ApprovalRequests().at(0).approvals, 1);
}

TEST(MemoryPolicyStore, TheOpenApprovalIsTheNewestPendingApprovedOrDeniedUnexpiredOne) {
  MemoryPolicyStore store;
  std::unique_ptr<WriteTransaction> transaction = Write(store);
  std::string used = *transaction->OpenApproval(ApprovalFor("agt_a", 1), kNow);
  ASSERT_TRUE(transaction->Commit().ok());
  transaction.reset();
  ASSERT_TRUE(store.ApproveRequest(used, "alice", kNow).ok());
  transaction = Write(store);
  ASSERT_TRUE(transaction->UseApproval(used, kNow).ok());
  std::string denied = *transaction->OpenApproval(ApprovalFor("agt_a", 1), kNow);
  ASSERT_TRUE(transaction->Commit().ok());
  transaction.reset();

  EXPECT_EQ((*Read(store)->FindOpenApproval("agt_a", "read", "docs:1", "hash", kNow))->id, denied);
  ASSERT_TRUE(store.DenyRequest(denied, "alice", kNow).ok());
  std::optional<ApprovalRequest> open =
      *Read(store)->FindOpenApproval("agt_a", "read", "docs:1", "hash", kNow);
  ASSERT_TRUE(open);
  EXPECT_EQ(open->status, ApprovalStatus::kDenied);
  // Expired, it blocks no more; a used one never did.
  EXPECT_FALSE(
      *Read(store)->FindOpenApproval("agt_a", "read", "docs:1", "hash", kNow + absl::Hours(1)));
  // Another call (here, other arguments) has its own requests.
  EXPECT_FALSE(*Read(store)->FindOpenApproval("agt_a", "read", "docs:1", "other", kNow));
}

TEST(MemoryPolicyStore, ConcurrentTransactionsNeverLoseASpend) {
  MemoryPolicyStore store;
  constexpr int kThreads = 4;
  constexpr int kSpendsPerThread = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&store] {
      for (int i = 0; i < kSpendsPerThread; ++i) {
        std::unique_ptr<ReadSnapshot> reader = Read(store);  // readers never block writers
        std::unique_ptr<WriteTransaction> transaction = Write(store);
        ASSERT_TRUE(transaction->SpendRate({"agt_1", "perm_1", 0, 0}).ok());
        ASSERT_TRUE(transaction->Commit().ok());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(*Read(store)->RateCount("agt_1", "perm_1", 0), kThreads * kSpendsPerThread);
}

}  // namespace
}  // namespace verdict
