// Issue 15.6: whoever can reach the admin socket must not lock the admin out. A second local user
// (nobody, in the socket's group) sends 1,000 wrong admin secrets as fast as it is answered,
// while the admin (root, verdictd's user) keeps calling: every admin call succeeds, and the
// flood spends a handful of Argon2id checks. Runs as root (CI does); skipped otherwise.
#include <grp.h>
#include <grpcpp/grpcpp.h>
#include <poll.h>
#include <pwd.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/verdictd_process.h"
#include "verdict/v1/admin.grpc.pb.h"

namespace verdict {
namespace {

constexpr char kSecret[] = "admin-secret-for-the-lockout-test";
constexpr int kWrongSecrets = 1000;
constexpr int kProgressAfter = 100;  // the flooder says so once this many were answered

// What the flooder saw, sent back through a pipe.
struct FloodOutcome {
  int answered = 0;
  int ok = 0;
  int unauthenticated = 0;  // each one an Argon2id check
  int refused = 0;          // RESOURCE_EXHAUSTED: no check run
  int other = 0;
};

grpc::Status ListAgents(v1::AdminService::Stub& stub, absl::string_view secret) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  context.AddMetadata("authorization", absl::StrCat("Bearer ", secret));
  v1::ListAgentsRequest request;
  v1::ListAgentsResponse response;
  return stub.ListAgents(&context, request, &response);
}

// The child: becomes `uid`/`gid`, sends the wrong secrets, reports. Never returns.
[[noreturn]] void Flood(const std::string& address, uid_t uid, gid_t gid, int progress_fd,
                        int outcome_fd) {
  if (setgroups(0, nullptr) != 0 || setgid(gid) != 0 || setuid(uid) != 0) _exit(3);
  // gRPC was not started in the parent before the fork: this process starts its own.
  auto stub =
      v1::AdminService::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  FloodOutcome outcome;
  for (int i = 0; i < kWrongSecrets; ++i) {
    const grpc::Status status = ListAgents(*stub, "not the admin secret");
    ++outcome.answered;
    switch (status.error_code()) {
      case grpc::StatusCode::OK:
        ++outcome.ok;
        break;
      case grpc::StatusCode::UNAUTHENTICATED:
        ++outcome.unauthenticated;
        break;
      case grpc::StatusCode::RESOURCE_EXHAUSTED:
        ++outcome.refused;
        break;
      default:
        ++outcome.other;
    }
    if (i + 1 == kProgressAfter && write(progress_fd, "p", 1) != 1) _exit(4);
  }
  if (write(outcome_fd, &outcome, sizeof(outcome)) != sizeof(outcome)) _exit(5);
  _exit(0);
}

TEST(AdminLockoutTest, AnotherLocalUserSendingAThousandWrongSecretsNeverLocksTheAdminOut) {
  const passwd* nobody = getpwnam("nobody");
  const group* nogroup = getgrnam("nogroup");
  if (geteuid() != 0 || nobody == nullptr || nogroup == nullptr) {
    GTEST_SKIP() << "needs root and the users nobody and nogroup, to run a second local user";
  }
  const uid_t other_uid = nobody->pw_uid;
  const gid_t other_gid = nogroup->gr_gid;
  // Bazel's sandbox maps no other user: the BUILD file runs this test outside it (no-sandbox).
  const pid_t probe = fork();
  ASSERT_GE(probe, 0);
  if (probe == 0)
    _exit(setgroups(0, nullptr) == 0 && setgid(other_gid) == 0 && setuid(other_uid) == 0 ? 0 : 1);
  int probe_status = 0;
  ASSERT_EQ(waitpid(probe, &probe_status, 0), probe);
  if (!WIFEXITED(probe_status) || WEXITSTATUS(probe_status) != 0) {
    GTEST_SKIP() << "this process cannot become nobody (a user namespace?)";
  }
  // Under /tmp: a socket's path is short, and nobody may reach it (TEST_TMPDIR may be in a
  // directory only root enters).
  char dir[] = "/tmp/verdict-lockout-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  ASSERT_EQ(chmod(dir, 0755), 0);
  const std::string secret_file = absl::StrCat(dir, "/admin-secret");
  std::ofstream(secret_file) << kSecret;
  ASSERT_EQ(chmod(secret_file.c_str(), 0600), 0);
  const std::string admin_address = absl::StrCat("unix:", dir, "/admin.sock");
  absl::StatusOr<std::unique_ptr<VerdictdProcess>> server = VerdictdProcess::Start({
      absl::StrCat("--db=", dir, "/v.db"),
      "--admin_listen=" + admin_address,
      // The other user may connect (0660, group nogroup); only the secret keeps it out.
      absl::StrCat("--admin_socket_group=", nogroup->gr_name),
      "--admin_secret_file=" + secret_file,
      "--test_only_weak_admin_hash",
  });
  ASSERT_TRUE(server.ok()) << server.status();

  int progress[2];
  int outcome_pipe[2];
  ASSERT_EQ(pipe(progress), 0);
  ASSERT_EQ(pipe(outcome_pipe), 0);
  const pid_t flooder = fork();
  ASSERT_GE(flooder, 0);
  if (flooder == 0) Flood(admin_address, other_uid, other_gid, progress[1], outcome_pipe[1]);
  close(progress[1]);
  close(outcome_pipe[1]);

  auto stub = v1::AdminService::NewStub(
      grpc::CreateChannel(admin_address, grpc::InsecureChannelCredentials()));
  // The flood is under way: its first 100 wrong secrets are answered.
  char byte;
  ASSERT_EQ(read(progress[0], &byte, 1), 1) << "the flooder stopped early";

  std::vector<absl::Duration> admin_calls;
  int admin_failures = 0;
  FloodOutcome outcome;
  bool flood_done = false;
  while (!flood_done) {
    const absl::Time start = absl::Now();
    const grpc::Status status = ListAgents(*stub, kSecret);
    admin_calls.push_back(absl::Now() - start);
    if (!status.ok()) {
      ++admin_failures;
      ADD_FAILURE() << "admin call " << admin_calls.size() << " refused: " << status.error_code()
                    << " " << status.error_message();
    }
    pollfd readable{outcome_pipe[0], POLLIN, 0};
    flood_done = poll(&readable, 1, 0) == 1;
  }
  ASSERT_EQ(read(outcome_pipe[0], &outcome, sizeof(outcome)), sizeof(outcome));
  int wait_status = 0;
  ASSERT_EQ(waitpid(flooder, &wait_status, 0), flooder);
  ASSERT_TRUE(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0) << wait_status;
  // And after it.
  const grpc::Status after = ListAgents(*stub, kSecret);
  EXPECT_TRUE(after.ok()) << after.error_message();

  EXPECT_EQ(outcome.answered, kWrongSecrets);
  EXPECT_EQ(outcome.ok, 0);
  EXPECT_EQ(outcome.other, 0);
  // The flooder's free failures and one check per back-off period at most: its guesses do not
  // cost 1,000 Argon2id checks.
  EXPECT_LE(outcome.unauthenticated, 10);
  EXPECT_EQ(admin_failures, 0);
  EXPECT_GE(admin_calls.size(), 1u);

  std::sort(admin_calls.begin(), admin_calls.end());
  std::cout << "admin calls during the flood: " << admin_calls.size() << ", median "
            << admin_calls[admin_calls.size() / 2] << ", min " << admin_calls.front() << ", max "
            << admin_calls.back() << "; flooder: " << outcome.unauthenticated << " checked, "
            << outcome.refused << " refused without a check\n";
}

}  // namespace
}  // namespace verdict
