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

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace verdict {

// The path of a runfile given relative to the workspace ("server/verdictd").
std::string RunfilePath(absl::string_view workspace_relative_path);

// A directory private to this test (under TEST_TMPDIR), created if needed.
std::string TestDirectory(absl::string_view name);

// A fresh directory under /tmp ("/tmp/verdict-<prefix>.XXXXXX"), short enough for a Unix
// socket's path (TEST_TMPDIR can be too long), removed with all it holds (sockets, their lock
// files) when this goes: declare it before the processes that use it. path() is "" when it could
// not be made.
class ShortTempDirectory {
 public:
  explicit ShortTempDirectory(absl::string_view prefix);
  ~ShortTempDirectory();
  ShortTempDirectory(const ShortTempDirectory&) = delete;
  ShortTempDirectory& operator=(const ShortTempDirectory&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class VerdictdProcess {
 public:
  // Starts //server:verdictd with `flags` plus --listen=127.0.0.1:0 (unless a --listen is given)
  // and waits (up to 30 s) until it logs its "verdictd serving on ADDRESS (db PATH)" line on
  // stderr. Its stderr, that line included, goes on to the test's own stderr; its stdout is the
  // test's stdout.
  //
  // Unless `flags` name an --admin_listen (or a PostgreSQL --db, which has no default admin
  // listener), the admin socket is --admin_listen=unix:/tmp/verdictd-admin-XXXXXX/admin.sock, in
  // a fresh directory removed with this object. verdictd's default, next to the database, would
  // be under TEST_TMPDIR, and under Bazel's sandbox (CI's is deeper) that path is longer than the
  // 107 bytes a socket's path may hold: verdictd would serve with no admin listener at all.
  static absl::StatusOr<std::unique_ptr<VerdictdProcess>> Start(std::vector<std::string> flags);

  // Kills the process (SIGKILL) when it is still running.
  ~VerdictdProcess();

  // What the server said it serves on: "127.0.0.1:41877" or "unix:/path".
  const std::string& address() const { return address_; }
  // The --admin_listen it was given ("unix:/tmp/verdictd-admin-Qx81Zc/admin.sock"), or "" when
  // it has no admin listener (--admin_listen=off, or a PostgreSQL database and no flag).
  const std::string& admin_address() const { return admin_address_; }
  pid_t pid() const { return pid_; }

  void Signal(int signal_number);

  // Waits until the process has written `text` to stderr `times` times in all since it started;
  // false when it has not within `timeout`.
  bool AwaitLogged(absl::string_view text, int times, absl::Duration timeout);
  // All it has written to stderr so far.
  std::string Logged();

  // The exit code once the process has exited normally; an error when it did not exit within
  // `timeout` or ended by a signal.
  absl::StatusOr<int> AwaitExit(absl::Duration timeout);

 private:
  VerdictdProcess(pid_t pid, int stderr_fd, std::string address);

  // Its stderr, kept as it is copied to the test's.
  struct Log {
    void Append(absl::string_view text);
    absl::Mutex mutex;
    std::string text_ ABSL_GUARDED_BY(mutex);
  };

  pid_t pid_;
  std::shared_ptr<Log> log_ = std::make_shared<Log>();
  int stderr_fd_;  // read to its end by log_copier_
  std::thread log_copier_;
  std::string address_;
  std::string admin_address_;
  std::string admin_directory_;  // made for the admin socket, removed by the destructor
  bool exited_ = false;
};

// Runs a program to completion (at most `timeout`) and returns its exit code.
absl::StatusOr<int> RunToCompletion(const std::vector<std::string>& argv,
                                    absl::Duration timeout = absl::Seconds(30));

}  // namespace verdict

#endif  // VERDICT_TESTS_VERDICTD_PROCESS_H_
