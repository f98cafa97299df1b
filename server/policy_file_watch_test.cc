// verdictd's --policy_file: applied at start, re-applied when a ConfigMap swaps its symlink,
// a bad file refused while the previous policy keeps serving, and what a decision reads next.
#include "server/policy_file_watch.h"

#include <stdio.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "crypto/sha256.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/metrics.h"
#include "store/sqlite_store.h"
#include "store/test_support.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kPolicyV1[] = R"(version: 1
name: watched
agents:
  - {id: agt_watched, owner: alice, name: reader}
permissions:
  - {id: perm_watched, agent_id: agt_watched, resource: "docs:*", actions: [read]}
)";

// Events come within milliseconds; the deadline only bounds a broken watch.
absl::Time Deadline() { return absl::Now() + absl::Seconds(30); }

// A directory laid out as a Kubernetes ConfigMap volume: policy.yaml -> ..data/policy.yaml,
// ..data -> ..<version>, the content in ..<version>/policy.yaml. Publish swaps ..data as the
// kubelet does: a new version directory, a new symlink, renamed over the old one.
class ConfigMapDirectory {
 public:
  ConfigMapDirectory() {
    dir_ = absl::StrCat(std::getenv("TEST_TMPDIR"), "/configmap-", ++instances_);
    mkdir(dir_.c_str(), 0700);
  }

  void Publish(const std::string& content) {
    const std::string version = absl::StrCat("..v", ++versions_);
    mkdir(absl::StrCat(dir_, "/", version).c_str(), 0700);
    std::ofstream(absl::StrCat(dir_, "/", version, "/policy.yaml")) << content;
    const std::string tmp = absl::StrCat(dir_, "/..data_tmp");
    ASSERT_EQ(symlink(version.c_str(), tmp.c_str()), 0);
    ASSERT_EQ(rename(tmp.c_str(), absl::StrCat(dir_, "/..data").c_str()), 0);
    if (versions_ == 1) {
      ASSERT_EQ(symlink("..data/policy.yaml", path().c_str()), 0);
    }
  }

  std::string path() const { return absl::StrCat(dir_, "/policy.yaml"); }

 private:
  static inline int instances_ = 0;
  std::string dir_;
  int versions_ = 0;
};

class PolicyFileWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenTestStore(FreshDatabasePath(), clock_);
    ASSERT_NE(store_, nullptr);
  }

  // What the next decision reads: a fresh snapshot of the agent's permissions.
  std::vector<std::string> ActionsOfTheWatchedPermission() {
    absl::StatusOr<std::unique_ptr<ReadSnapshot>> read = store_->BeginRead();
    EXPECT_TRUE(read.ok()) << read.status();
    if (!read.ok()) return {};
    absl::StatusOr<std::vector<Permission>> permissions = (*read)->PermissionsOf("agt_watched");
    EXPECT_TRUE(permissions.ok()) << permissions.status();
    if (!permissions.ok() || permissions->empty()) return {};
    return (*permissions)[0].actions;
  }

  ManualClock clock_;
  std::unique_ptr<SqliteStore> store_;
  ConfigMapDirectory files_;
};

TEST_F(PolicyFileWatchTest, TheFileIsAppliedAtStart) {
  files_.Publish(kPolicyV1);
  absl::StatusOr<std::unique_ptr<PolicyFileWatch>> watch =
      PolicyFileWatch::Start(files_.path(), store_->admin());
  ASSERT_TRUE(watch.ok()) << watch.status();
  EXPECT_EQ((*watch)->counts().applied, 1u);
  EXPECT_EQ((*watch)->applied_sha256(), HexEncode(Sha256(kPolicyV1)));
  EXPECT_EQ(ActionsOfTheWatchedPermission(), std::vector<std::string>{"read"});
}

TEST_F(PolicyFileWatchTest, ABadFileAtStartIsRefusedAndNothingIsWritten) {
  files_.Publish(absl::StrReplaceAll(kPolicyV1, {{"[read]", "[]"}}));
  absl::StatusOr<std::unique_ptr<PolicyFileWatch>> watch =
      PolicyFileWatch::Start(files_.path(), store_->admin());
  EXPECT_EQ(watch.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(watch.status().message(), HasSubstr("policy.yaml:6: permissions[0].actions"));
  EXPECT_TRUE(*store_->admin().IsEmpty());

  absl::StatusOr<std::unique_ptr<PolicyFileWatch>> missing =
      PolicyFileWatch::Start(files_.path() + ".missing", store_->admin());
  EXPECT_FALSE(missing.ok());
}

TEST_F(PolicyFileWatchTest, AConfigMapSwapIsAppliedAndTheNextDecisionReadsIt) {
  files_.Publish(kPolicyV1);
  absl::StatusOr<std::unique_ptr<PolicyFileWatch>> watch =
      PolicyFileWatch::Start(files_.path(), store_->admin());
  ASSERT_TRUE(watch.ok()) << watch.status();

  const std::string v2 = absl::StrReplaceAll(kPolicyV1, {{"[read]", "[read, write]"}});
  files_.Publish(v2);
  ASSERT_TRUE((*watch)->WaitUntil([](const PolicyFileWatch::Counts& c) { return c.applied >= 2; },
                                  Deadline()));
  // Reported only once committed: the next read sees it.
  EXPECT_EQ(ActionsOfTheWatchedPermission(), (std::vector<std::string>{"read", "write"}));
  EXPECT_EQ((*watch)->applied_sha256(), HexEncode(Sha256(v2)));
  EXPECT_EQ((*watch)->counts().refused, 0u);
}

TEST_F(PolicyFileWatchTest, ABadFileIsRefusedAndThePreviousPolicyKeepsServing) {
  files_.Publish(kPolicyV1);
  absl::StatusOr<std::unique_ptr<PolicyFileWatch>> watch =
      PolicyFileWatch::Start(files_.path(), store_->admin());
  ASSERT_TRUE(watch.ok()) << watch.status();

  // A bad object at the end of the file: nothing of it is written.
  files_.Publish(absl::StrCat(absl::StrReplaceAll(kPolicyV1, {{"[read]", "[read, write]"}}),
                              "  - {id: perm_bad, agent_id: agt_nobody, resource: \"x\", "
                              "actions: [read]}\n"));
  ASSERT_TRUE((*watch)->WaitUntil([](const PolicyFileWatch::Counts& c) { return c.refused >= 1; },
                                  Deadline()));
  EXPECT_EQ(ActionsOfTheWatchedPermission(), std::vector<std::string>{"read"});
  EXPECT_EQ((*watch)->counts().applied, 1u);
  EXPECT_EQ((*watch)->applied_sha256(), HexEncode(Sha256(kPolicyV1)));

  Metrics metrics;
  metrics.AddExternalText([&] { return (*watch)->RenderMetrics(); });
  const std::string text = metrics.RenderPrometheusText();
  EXPECT_THAT(text, HasSubstr("verdict_policy_reload_total{result=\"refused\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("verdict_policy_reload_total{result=\"applied\"} 1\n"));
  EXPECT_THAT(text, HasSubstr(absl::StrCat("verdict_policy_file_info{name=\"watched\",sha256=\"",
                                           HexEncode(Sha256(kPolicyV1)), "\"} 1\n")));

  // Fixed: applied.
  const std::string v3 = absl::StrReplaceAll(kPolicyV1, {{"[read]", "[list]"}});
  files_.Publish(v3);
  ASSERT_TRUE((*watch)->WaitUntil([](const PolicyFileWatch::Counts& c) { return c.applied >= 2; },
                                  Deadline()));
  EXPECT_EQ(ActionsOfTheWatchedPermission(), std::vector<std::string>{"list"});
}

TEST_F(PolicyFileWatchTest, TheSameContentAgainIsUnchangedAndWritesNothing) {
  files_.Publish(kPolicyV1);
  absl::StatusOr<std::unique_ptr<PolicyFileWatch>> watch =
      PolicyFileWatch::Start(files_.path(), store_->admin());
  ASSERT_TRUE(watch.ok()) << watch.status();
  files_.Publish(kPolicyV1);
  ASSERT_TRUE((*watch)->WaitUntil([](const PolicyFileWatch::Counts& c) { return c.unchanged >= 1; },
                                  Deadline()));
  EXPECT_EQ((*watch)->counts().applied, 1u);
  EXPECT_THAT((*watch)->RenderMetrics(),
              Not(HasSubstr("verdict_policy_reload_total{result=\"unchanged\"} 0")));
}

TEST_F(PolicyFileWatchTest, ARunTimeRevocationSurvivesARestartWithTheSameFile) {
  files_.Publish(kPolicyV1);
  {
    absl::StatusOr<std::unique_ptr<PolicyFileWatch>> watch =
        PolicyFileWatch::Start(files_.path(), store_->admin());
    ASSERT_TRUE(watch.ok()) << watch.status();
  }
  ASSERT_TRUE(store_->admin().SetAgentStatus("agt_watched", AgentStatus::kRevoked).ok());
  // The file still says active; revocation is final: refused, and the start goes on.
  absl::StatusOr<std::unique_ptr<PolicyFileWatch>> restarted =
      PolicyFileWatch::Start(files_.path(), store_->admin());
  ASSERT_TRUE(restarted.ok()) << restarted.status();
  EXPECT_EQ((*restarted)->counts().refused, 1u);
  EXPECT_EQ((*restarted)->applied_sha256(), "");
  EXPECT_EQ(store_->admin().GetAgent("agt_watched")->status, AgentStatus::kRevoked);
}

}  // namespace
}  // namespace verdict
