// The decision log across a crash (issue 15.4): a real verdictd, logging every decision, is
// killed with SIGKILL while several clients keep it busy. With the default asynchronous
// durability the decisions still queued are lost, and the chain check must say so instead of
// "intact"; with --decision_log_durability=sync no answered decision is lost.
#include <grpcpp/grpcpp.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/decision_log.h"
#include "tests/verdictd_process.h"
#include "verdict/v1/decision.grpc.pb.h"

namespace verdict {
namespace {

constexpr int kClients = 8;
// Answers before the kill: the process is deciding at full speed by then.
constexpr int kAnswersBeforeKill = 1500;

// Authorize calls from kClients threads, each with a request id of its own, until the server
// stops answering; remembers the id of every call answered.
class Load {
 public:
  explicit Load(const std::string& address) {
    for (int client = 0; client < kClients; ++client) {
      threads_.emplace_back([this, address, client] { Run(address, client); });
    }
  }
  ~Load() { Join(); }

  void AwaitAnswered(int count) {
    absl::MutexLock lock(&mu_);
    auto reached = [this, count]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return static_cast<int>(answered_.size()) >= count || clients_done_ == kClients;
    };
    mu_.Await(absl::Condition(&reached));
  }

  // Once the server is gone: the request ids of every call it answered.
  std::vector<std::string> Join() {
    for (std::thread& thread : threads_) {
      if (thread.joinable()) thread.join();
    }
    absl::MutexLock lock(&mu_);
    return answered_;
  }

 private:
  void Run(const std::string& address, int client) {
    auto stub = v1::DecisionService::NewStub(
        grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
    for (int n = 0;; ++n) {
      v1::AuthorizeRequest request;
      request.mutable_subject()->set_agent_id("agt_demo_reader");
      request.set_action("read");
      request.set_resource(absl::StrCat("docs:", n));
      request.mutable_context()->set_request_id(absl::StrCat("c", client, "-", n));
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
      v1::AuthorizeResponse response;
      if (!stub->Authorize(&context, request, &response).ok()) break;  // the server is gone
      absl::MutexLock lock(&mu_);
      answered_.push_back(request.context().request_id());
    }
    absl::MutexLock lock(&mu_);
    ++clients_done_;
  }

  absl::Mutex mu_;
  std::vector<std::string> answered_ ABSL_GUARDED_BY(mu_);
  int clients_done_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::thread> threads_;
};

// Serves a fresh database with the decision log on, is killed with SIGKILL after
// kAnswersBeforeKill answers under load, and returns the request ids answered.
std::vector<std::string> AnswerThenKill(const std::string& db_path,
                                        std::vector<std::string> extra_flags) {
  std::vector<std::string> flags = {"--db=" + db_path,
                                    "--seed=" + RunfilePath("deploy/demo-policy.json"),
                                    "--admin_listen=off", "--decision_log"};
  flags.insert(flags.end(), extra_flags.begin(), extra_flags.end());
  absl::StatusOr<std::unique_ptr<VerdictdProcess>> server = VerdictdProcess::Start(flags);
  EXPECT_TRUE(server.ok()) << server.status();
  if (!server.ok()) return {};
  Load load((*server)->address());
  load.AwaitAnswered(kAnswersBeforeKill);
  (*server)->Signal(SIGKILL);
  // Reaped: a zombie would still count as a running process.
  EXPECT_FALSE((*server)->AwaitExit(absl::Seconds(20)).ok());
  return load.Join();
}

// Every decision row in the log, by request id.
absl::flat_hash_set<std::string> LoggedRequestIds(const std::string& db_path) {
  DecisionLog log(db_path);
  absl::flat_hash_set<std::string> ids;
  std::string token;
  do {
    absl::StatusOr<DecisionLogPage> page = log.Query({}, kMaxDecisionLogPageSize, token);
    EXPECT_TRUE(page.ok()) << page.status();
    if (!page.ok()) break;
    for (const DecisionLogRow& row : page->rows) ids.insert(row.request_id);
    token = page->next_page_token;
  } while (!token.empty());
  return ids;
}

TEST(DecisionLogCrashTest, AKilledAsyncServerLeavesAGapTheChainCheckReports) {
  const std::string db_path = TestDirectory("async") + "/verdict.db";
  const std::vector<std::string> answered = AnswerThenKill(db_path, {});
  ASSERT_GE(answered.size(), static_cast<size_t>(kAnswersBeforeKill));
  const absl::flat_hash_set<std::string> logged = LoggedRequestIds(db_path);
  int lost = 0;
  for (const std::string& id : answered) lost += logged.contains(id) ? 0 : 1;
  std::cerr << "answered " << answered.size() << ", logged " << logged.size() << ", lost " << lost
            << "\n";

  absl::StatusOr<ChainVerification> verification = DecisionLog(db_path).VerifyChain();
  ASSERT_TRUE(verification.ok()) << verification.status();
  EXPECT_FALSE(verification->intact) << "a killed server's log verified intact";
  // One run, the killed one: its decisions from the first not written on are reported missing,
  // and every answered decision absent from the log is among them.
  EXPECT_EQ(verification->runs, 1);
  EXPECT_EQ(verification->open_runs, 0);
  ASSERT_EQ(verification->gaps.size(), 1u);
  const DecisionLogGap& gap = verification->gaps[0];
  EXPECT_EQ(gap.first_missing, static_cast<int64_t>(logged.size()) + 1);
  if (gap.last_missing != 0) {
    EXPECT_GE(gap.last_missing, gap.first_missing);
    EXPECT_LE(gap.last_missing, static_cast<int64_t>(answered.size()));
  }
  EXPECT_THAT(gap.problem, ::testing::HasSubstr("ended without stopping"));
  std::cerr << gap.problem << "\n";
}

TEST(DecisionLogCrashTest, AKilledSyncServerHasLoggedEveryDecisionItAnswered) {
  const std::string db_path = TestDirectory("sync") + "/verdict.db";
  const std::vector<std::string> answered =
      AnswerThenKill(db_path, {"--decision_log_durability=sync"});
  ASSERT_GE(answered.size(), static_cast<size_t>(kAnswersBeforeKill));
  const absl::flat_hash_set<std::string> logged = LoggedRequestIds(db_path);
  int lost = 0;
  for (const std::string& id : answered) lost += logged.contains(id) ? 0 : 1;
  EXPECT_EQ(lost, 0) << "of " << answered.size() << " answered decisions";
}

}  // namespace
}  // namespace verdict
