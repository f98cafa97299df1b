// Runs verdict's real binaries from a test: verdictd as a child process serving on a free port,
// and one-shot tools (a second process writing to the same database).
//
//   absl::StatusOr<std::unique_ptr<VerdictdProcess>> server = VerdictdProcess::Start(
//       {"--db=" + db_path, "--seed=" + RunfilePath("deploy/demo-policy.json")});
//   auto channel = grpc::CreateChannel((*server)->address(), grpc::InsecureChannelCredentials());
//   (*server)->Signal(SIGTERM);
//   absl::StatusOr<int> exit_code = (*server)->AwaitExit(absl::Seconds(15));
#ifndef VERDICT_TESTS_VERDICTD_PROCESS_H_
#define VERDICT_TESTS_VERDICTD_PROCESS_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace verdict {

// The path of a runfile given relative to the workspace ("server/verdictd").
std::string RunfilePath(absl::string_view workspace_relative_path);

// A directory private to this test (under TEST_TMPDIR), created if needed.
std::string TestDirectory(absl::string_view name);

class VerdictdProcess {
 public:
  // Starts //server:verdictd with `flags` plus --listen=127.0.0.1:0 (unless a --listen is given)
  // and waits (up to 30 s) until it logs its "verdictd serving on ADDRESS (db PATH)" line on
  // stderr. Its stderr, that line included, goes on to the test's own stderr; its stdout is the
  // test's stdout.
  static absl::StatusOr<std::unique_ptr<VerdictdProcess>> Start(std::vector<std::string> flags);

  // Kills the process (SIGKILL) when it is still running.
  ~VerdictdProcess();

  // What the server said it serves on: "127.0.0.1:41877" or "unix:/path".
  const std::string& address() const { return address_; }
  pid_t pid() const { return pid_; }

  void Signal(int signal_number);

  // The exit code once the process has exited normally; an error when it did not exit within
  // `timeout` or ended by a signal.
  absl::StatusOr<int> AwaitExit(absl::Duration timeout);

 private:
  VerdictdProcess(pid_t pid, int stderr_fd, std::string address);

  pid_t pid_;
  int stderr_fd_;  // read to its end by log_copier_
  std::thread log_copier_;
  std::string address_;
  bool exited_ = false;
};

// Runs a program to completion (at most `timeout`) and returns its exit code.
absl::StatusOr<int> RunToCompletion(const std::vector<std::string>& argv,
                                    absl::Duration timeout = absl::Seconds(30));

}  // namespace verdict

#endif  // VERDICT_TESTS_VERDICTD_PROCESS_H_
