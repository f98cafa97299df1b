#include "tests/verdictd_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"

extern char** environ;

namespace verdict {
namespace {

constexpr absl::string_view kServingPrefix = "verdictd serving on ";
constexpr absl::Duration kStartTimeout = absl::Seconds(30);

std::string EnvOrEmpty(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

// posix_spawn with the child's stderr on `stderr_fd` (or inherited when -1).
absl::StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, int stderr_fd) {
  std::vector<char*> c_argv;
  for (const std::string& arg : argv) c_argv.push_back(const_cast<char*>(arg.c_str()));
  c_argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (stderr_fd >= 0) posix_spawn_file_actions_adddup2(&actions, stderr_fd, STDERR_FILENO);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, c_argv[0], &actions, nullptr, c_argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) {
    return absl::InternalError(absl::StrCat("spawn ", argv[0], ": ", std::strerror(error)));
  }
  return pid;
}

// Reads one line from `fd` within `timeout`; the line without its newline.
absl::StatusOr<std::string> ReadLine(int fd, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  std::string line;
  while (true) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      return absl::DeadlineExceededError(
          absl::StrCat("no line within ", absl::FormatDuration(timeout), ": ", line));
    }
    pollfd readable{fd, POLLIN, 0};
    const int ready = poll(&readable, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
    if (ready < 0 && errno != EINTR) return absl::InternalError("poll failed");
    if (ready <= 0) continue;
    char c = 0;
    const ssize_t n = read(fd, &c, 1);
    if (n == 0) return absl::UnavailableError(absl::StrCat("stderr closed after: ", line));
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError("read failed");
    }
    if (c == '\n') return line;
    line.push_back(c);
  }
}

// The directory Start made for the admin socket, with what verdictd left in it (the socket, its
// lock file).
void RemoveAdminDirectory(const std::string& directory) {
  if (directory.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(directory, ignored);
}

absl::StatusOr<int> AwaitPid(pid_t pid, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    int status = 0;
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      if (WIFEXITED(status)) return WEXITSTATUS(status);
      return absl::AbortedError(
          absl::StrCat("process ", pid, " ended by signal ", WTERMSIG(status)));
    }
    if (done < 0 && errno != EINTR) return absl::InternalError("waitpid failed");
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(absl::StrCat("process ", pid, " still running"));
    }
    absl::SleepFor(absl::Milliseconds(5));
  }
}

}  // namespace

std::string RunfilePath(absl::string_view workspace_relative_path) {
  return absl::StrCat(EnvOrEmpty("TEST_SRCDIR"), "/verdict/", workspace_relative_path);
}

std::string TestDirectory(absl::string_view name) {
  const std::string path = absl::StrCat(EnvOrEmpty("TEST_TMPDIR"), "/", name);
  mkdir(path.c_str(), 0700);
  return path;
}

ShortTempDirectory::ShortTempDirectory(absl::string_view prefix) {
  std::string pattern = absl::StrCat("/tmp/verdict-", prefix, ".XXXXXX");
  if (mkdtemp(pattern.data()) != nullptr) path_ = std::move(pattern);
}

ShortTempDirectory::~ShortTempDirectory() {
  std::error_code ignored;
  if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
}

absl::StatusOr<std::unique_ptr<VerdictdProcess>> VerdictdProcess::Start(
    std::vector<std::string> flags) {
  std::vector<std::string> argv = {RunfilePath("server/verdictd")};
  bool has_listen = false;
  bool has_admin_listen = false;
  bool on_postgres = false;
  std::string admin_address;
  for (size_t i = 0; i < flags.size(); ++i) {
    absl::string_view flag = flags[i];
    has_listen |= absl::StartsWith(flag, "--listen=");
    on_postgres |= absl::StartsWith(flag, "--db=postgres");
    if (flag == "--admin_listen" && i + 1 < flags.size()) {
      has_admin_listen = true;
      admin_address = flags[i + 1];
    } else if (absl::ConsumePrefix(&flag, "--admin_listen=")) {
      has_admin_listen = true;
      admin_address = std::string(flag);
    }
  }
  if (!has_listen) argv.push_back("--listen=127.0.0.1:0");
  std::string admin_directory;
  if (!has_admin_listen && !on_postgres) {
    char directory[] = "/tmp/verdictd-admin-XXXXXX";
    if (mkdtemp(directory) == nullptr) {
      return absl::InternalError(absl::StrCat("mkdtemp: ", std::strerror(errno)));
    }
    admin_directory = directory;
    admin_address = absl::StrCat("unix:", admin_directory, "/admin.sock");
    argv.push_back("--admin_listen=" + admin_address);
  }
  if (absl::EqualsIgnoreCase(admin_address, "off")) admin_address.clear();
  argv.insert(argv.end(), flags.begin(), flags.end());

  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    RemoveAdminDirectory(admin_directory);
    return absl::InternalError("pipe failed");
  }
  absl::StatusOr<pid_t> pid = Spawn(argv, /*stderr_fd=*/pipe_fds[1]);
  close(pipe_fds[1]);
  if (!pid.ok()) {
    close(pipe_fds[0]);
    RemoveAdminDirectory(admin_directory);
    return pid.status();
  }
  auto process = std::unique_ptr<VerdictdProcess>(new VerdictdProcess(*pid, pipe_fds[0], ""));
  process->admin_address_ = admin_address;
  process->admin_directory_ = admin_directory;  // removed by the destructor from now on
  // Other lines may come first (where metrics are served, for one), each passed on to this
  // test's stderr. The line is "<time> INFO verdictd serving on ..." or, with
  // --log_format=json, an object whose "msg" says the same.
  const absl::Time deadline = absl::Now() + kStartTimeout;
  absl::StatusOr<std::string> line;
  size_t at = std::string::npos;
  do {
    line = ReadLine(pipe_fds[0], deadline - absl::Now());
    if (!line.ok()) return line.status();
    std::cerr << *line << "\n";
    process->log_->Append(absl::StrCat(*line, "\n"));
    at = line->find(std::string(kServingPrefix));
  } while (at == std::string::npos);
  const std::string rest = line->substr(at + kServingPrefix.size());
  process->address_ = rest.substr(0, rest.find(' '));
  // From now on the server's lines go on to this test's stderr, so its pipe never fills.
  process->log_copier_ = std::thread([fd = pipe_fds[0], log = process->log_] {
    char buffer[4096];
    while (true) {
      const ssize_t n = read(fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      std::cerr.write(buffer, n);
      log->Append(absl::string_view(buffer, n));
    }
  });
  return process;
}

VerdictdProcess::VerdictdProcess(pid_t pid, int stderr_fd, std::string address)
    : pid_(pid), stderr_fd_(stderr_fd), address_(std::move(address)) {}

VerdictdProcess::~VerdictdProcess() {
  if (!exited_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  // The process is gone, so its end of the pipe is closed and the copier reads to the end.
  if (log_copier_.joinable()) log_copier_.join();
  close(stderr_fd_);
  RemoveAdminDirectory(admin_directory_);
}

void VerdictdProcess::Signal(int signal_number) { kill(pid_, signal_number); }

void VerdictdProcess::Log::Append(absl::string_view text) {
  absl::MutexLock lock(&mutex);
  absl::StrAppend(&text_, text);
}

bool VerdictdProcess::AwaitLogged(absl::string_view text, int times, absl::Duration timeout) {
  auto said = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(log_->mutex) {
    int found = 0;
    for (size_t at = log_->text_.find(text.data(), 0, text.size()); at != std::string::npos;
         at = log_->text_.find(text.data(), at + text.size(), text.size())) {
      if (++found >= times) return true;
    }
    return false;
  };
  absl::MutexLock lock(&log_->mutex);
  return log_->mutex.AwaitWithTimeout(absl::Condition(&said), timeout);
}

std::string VerdictdProcess::Logged() {
  absl::MutexLock lock(&log_->mutex);
  return log_->text_;
}

absl::StatusOr<int> VerdictdProcess::AwaitExit(absl::Duration timeout) {
  absl::StatusOr<int> exit_code = AwaitPid(pid_, timeout);
  // Reaped unless it is still running.
  exited_ = exit_code.ok() || exit_code.status().code() == absl::StatusCode::kAborted;
  return exit_code;
}

absl::StatusOr<int> RunToCompletion(const std::vector<std::string>& argv, absl::Duration timeout) {
  absl::StatusOr<pid_t> pid = Spawn(argv, /*stderr_fd=*/-1);
  if (!pid.ok()) return pid.status();
  absl::StatusOr<int> exit_code = AwaitPid(*pid, timeout);
  if (exit_code.status().code() == absl::StatusCode::kDeadlineExceeded) {
    kill(*pid, SIGKILL);
    waitpid(*pid, nullptr, 0);
  }
  return exit_code;
}

}  // namespace verdict
