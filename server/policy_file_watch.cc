#include "server/policy_file_watch.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "app/policy_file.h"
#include "common/log.h"
#include "crypto/sha256.h"
#include "decision/admin/policy_plan.h"

namespace verdict {
namespace {

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string FileNameOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The file's content, through its symlinks; no more than a policy file may hold, plus one byte
// so that a larger file is refused by the parser rather than cut.
absl::StatusOr<std::string> ReadBounded(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  }
  std::string content;
  char buffer[1 << 16];
  while (content.size() <= kMaxPolicyFileBytes) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      close(fd);
      return absl::UnavailableError(absl::StrCat("cannot read ", path, ": ", std::strerror(error)));
    }
    if (n == 0) break;
    content.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return content;
}

std::string OneLine(const std::string& plan_text) {
  std::vector<std::string> lines = absl::StrSplit(plan_text, '\n', absl::SkipEmpty());
  return absl::StrJoin(lines, "; ");
}

std::string EscapeLabel(absl::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<PolicyFileWatch>> PolicyFileWatch::Start(std::string path,
                                                                        PolicyAdmin& admin,
                                                                        absl::Duration retry) {
  const int inotify_fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (inotify_fd < 0) {
    return absl::InternalError(absl::StrCat("inotify_init1: ", std::strerror(errno)));
  }
  // Every change of an entry of the directory: written in place, renamed over (an editor's
  // save, a ConfigMap's ..data swap), created or removed.
  const std::string directory = DirectoryOf(path);
  if (inotify_add_watch(inotify_fd, directory.c_str(),
                        IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MODIFY |
                            IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF) < 0) {
    const int error = errno;
    close(inotify_fd);
    return absl::FailedPreconditionError(
        absl::StrCat("cannot watch ", directory, ": ", std::strerror(error)));
  }
  const int stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (stop_fd < 0) {
    const int error = errno;
    close(inotify_fd);
    return absl::InternalError(absl::StrCat("eventfd: ", std::strerror(error)));
  }
  std::unique_ptr<PolicyFileWatch> watch(
      new PolicyFileWatch(std::move(path), admin, retry, inotify_fd, stop_fd));
  // A bad file stops the start. A good file the store's state refuses (an agent it declares
  // active was revoked at run time, and revocation is final) does not: it is counted refused
  // and logged, and the store's policy serves, as after a refused reload.
  absl::Status first = watch->Reload();
  if (!first.ok() && first.code() != absl::StatusCode::kUnavailable &&
      first.code() != absl::StatusCode::kFailedPrecondition) {
    return first;
  }
  watch->thread_ = std::thread([raw = watch.get()] { raw->Run(); });
  return watch;
}

PolicyFileWatch::PolicyFileWatch(std::string path, PolicyAdmin& admin, absl::Duration retry,
                                 int inotify_fd, int stop_fd)
    : path_(std::move(path)),
      admin_(admin),
      retry_(retry),
      inotify_fd_(inotify_fd),
      stop_fd_(stop_fd) {}

PolicyFileWatch::~PolicyFileWatch() {
  if (thread_.joinable()) {
    const uint64_t one = 1;
    while (write(stop_fd_, &one, sizeof(one)) < 0 && errno == EINTR) {
    }
    thread_.join();
  }
  close(inotify_fd_);
  close(stop_fd_);
}

void PolicyFileWatch::Run() {
  for (;;) {
    bool retry_pending;
    {
      absl::MutexLock lock(&mu_);
      retry_pending = retry_pending_;
    }
    pollfd fds[2] = {{inotify_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    const int timeout_ms = retry_pending ? static_cast<int>(absl::ToInt64Milliseconds(retry_)) : -1;
    const int ready = poll(fds, 2, timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) {
      LogError(absl::StrCat("verdictd: --policy_file=", path_,
                            ": the watch stopped: ", std::strerror(errno)));
      return;
    }
    if (fds[1].revents != 0) return;
    if (fds[0].revents != 0) {
      // Drain the events: whatever changed, the file is read again and compared by hash.
      alignas(inotify_event) char buffer[4096];
      while (read(inotify_fd_, buffer, sizeof(buffer)) > 0) {
      }
    } else if (!retry_pending) {
      continue;
    }
    (void)Reload();
  }
}

absl::Status PolicyFileWatch::Reload() {
  auto refuse = [&](const absl::Status& status, const std::string& sha256) {
    {
      absl::MutexLock lock(&mu_);
      ++counts_.refused;
      seen_sha256_ = sha256;
      retry_pending_ = status.code() == absl::StatusCode::kUnavailable;
    }
    LogError(absl::StrCat("verdictd: --policy_file=", path_,
                          " refused; the previous policy keeps serving: ", status.message()));
    return status;
  };
  absl::StatusOr<std::string> text = ReadBounded(path_);
  if (!text.ok()) return refuse(text.status(), "");
  const std::string sha256 = HexEncode(Sha256(*text));
  {
    absl::MutexLock lock(&mu_);
    if (sha256 == seen_sha256_ && !retry_pending_) {
      ++counts_.unchanged;
      return absl::OkStatus();
    }
  }
  absl::StatusOr<PolicyFile> file = ParsePolicyFile(*text, FileNameOf(path_));
  if (!file.ok()) return refuse(file.status(), sha256);
  absl::StatusOr<AppliedPolicy> applied =
      admin_.ApplyPolicy(DeclaredPolicyOf(*file), /*dry_run=*/false);
  if (!applied.ok()) return refuse(applied.status(), sha256);
  // Committed: reported only now.
  {
    absl::MutexLock lock(&mu_);
    ++counts_.applied;
    seen_sha256_ = sha256;
    applied_sha256_ = sha256;
    applied_name_ = file->name;
    retry_pending_ = false;
  }
  LogInfo(absl::StrCat("verdictd: --policy_file=", path_, " applied policy \"", file->name,
                       "\" (sha256 ", sha256, "): ", OneLine(PlanText(applied->steps))));
  return absl::OkStatus();
}

PolicyFileWatch::Counts PolicyFileWatch::counts() const {
  absl::MutexLock lock(&mu_);
  return counts_;
}

std::string PolicyFileWatch::applied_sha256() const {
  absl::MutexLock lock(&mu_);
  return applied_sha256_;
}

bool PolicyFileWatch::WaitUntil(const std::function<bool(const Counts&)>& done,
                                absl::Time deadline) const {
  absl::MutexLock lock(&mu_);
  auto reached = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return done(counts_); };
  return mu_.AwaitWithDeadline(absl::Condition(&reached), deadline);
}

std::string PolicyFileWatch::RenderMetrics() const {
  absl::MutexLock lock(&mu_);
  std::string out =
      "# HELP verdict_policy_reload_total Reads of --policy_file by result: applied (a new "
      "content, written), unchanged (the content last seen), refused (unreadable, invalid or "
      "refused by the store: the previous policy keeps serving).\n"
      "# TYPE verdict_policy_reload_total counter\n";
  absl::StrAppend(&out, "verdict_policy_reload_total{result=\"applied\"} ", counts_.applied, "\n",
                  "verdict_policy_reload_total{result=\"unchanged\"} ", counts_.unchanged, "\n",
                  "verdict_policy_reload_total{result=\"refused\"} ", counts_.refused, "\n");
  if (!applied_sha256_.empty()) {
    absl::StrAppend(&out,
                    "# HELP verdict_policy_file_info The --policy_file content last applied: its "
                    "declared name and SHA-256; the value is always 1.\n"
                    "# TYPE verdict_policy_file_info gauge\n",
                    "verdict_policy_file_info{name=\"", EscapeLabel(applied_name_), "\",sha256=\"",
                    applied_sha256_, "\"} 1\n");
  }
  return out;
}

}  // namespace verdict
