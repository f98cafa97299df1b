// Issue 15.6: whoever can reach the admin socket must not lock the admin out. A second local user
// (nobody, in the socket's group) sends 1,000 wrong admin secrets as fast as it is answered,
// while the admin (root, verdictd's user) keeps calling: every admin call succeeds, and the
// flood spends a handful of Argon2id checks. Runs as root (CI does); skipped otherwise.
#include <grp.h>
#include <grpcpp/grpcpp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
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

// The child: becomes `uid`/`gid`, waits for the word on `go_fd` (verdictd is serving), sends
// the wrong secrets, reports. Never returns; ends at once when `go_fd` closes without the word.
[[noreturn]] void Flood(const std::string& address, uid_t uid, gid_t gid, int go_fd,
                        int progress_fd, int outcome_fd) {
  if (setgroups(0, nullptr) != 0 || setgid(gid) != 0 || setuid(uid) != 0) _exit(3);
  char go;
  if (read(go_fd, &go, 1) != 1) _exit(6);
  // The parent had started no thread, nor gRPC, before the fork: this process starts its own.
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

// The flooder process, forked before the test starts any thread (verdictd's log copier, gRPC):
// a multi-threaded process must not fork (ThreadSanitizer refuses it, and a lock another thread
// held at the fork stays locked in the child). Killed and reaped if the test ends before it.
class Flooder {
 public:
  Flooder() = default;
  Flooder(const Flooder&) = delete;
  Flooder& operator=(const Flooder&) = delete;
  ~Flooder() {
    for (int fd : {go_fd, progress_fd, outcome_fd}) {
      if (fd >= 0) close(fd);
    }
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }

  pid_t pid = -1;
  int go_fd = -1;        // one byte written: verdictd serves, start
  int progress_fd = -1;  // one byte read: the first kProgressAfter were answered
  int outcome_fd = -1;   // a FloodOutcome read: done
};

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

  Flooder flooder;
  {
    int go[2];
    int progress[2];
    int outcome[2];
    ASSERT_EQ(pipe(go), 0);
    ASSERT_EQ(pipe(progress), 0);
    ASSERT_EQ(pipe(outcome), 0);
    flooder.pid = fork();
    ASSERT_GE(flooder.pid, 0);
    if (flooder.pid == 0) {
      close(go[1]);
      Flood(admin_address, other_uid, other_gid, go[0], progress[1], outcome[1]);
    }
    close(go[0]);
    close(progress[1]);
    close(outcome[1]);
    flooder.go_fd = go[1];
    flooder.progress_fd = progress[0];
    flooder.outcome_fd = outcome[0];
  }
  absl::StatusOr<std::unique_ptr<VerdictdProcess>> server = VerdictdProcess::Start({
      absl::StrCat("--db=", dir, "/v.db"),
      "--admin_listen=" + admin_address,
      // The other user may connect (0660, group nogroup); only the secret keeps it out.
      absl::StrCat("--admin_socket_group=", nogroup->gr_name),
      "--admin_secret_file=" + secret_file,
      "--test_only_weak_admin_hash",
  });
  ASSERT_TRUE(server.ok()) << server.status();
  ASSERT_EQ(write(flooder.go_fd, "g", 1), 1);

  auto stub = v1::AdminService::NewStub(
      grpc::CreateChannel(admin_address, grpc::InsecureChannelCredentials()));
  // The flood is under way: its first 100 wrong secrets are answered.
  char byte;
  ASSERT_EQ(read(flooder.progress_fd, &byte, 1), 1) << "the flooder stopped early";

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
    pollfd readable{flooder.outcome_fd, POLLIN, 0};
    flood_done = poll(&readable, 1, 0) == 1;
  }
  ASSERT_EQ(read(flooder.outcome_fd, &outcome, sizeof(outcome)), sizeof(outcome));
  int wait_status = 0;
  ASSERT_EQ(waitpid(flooder.pid, &wait_status, 0), flooder.pid);
  flooder.pid = -1;  // reaped
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
