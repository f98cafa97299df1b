// verdictd's --policy_file (issue 19 item 3): a policy file applied at start and again whenever
// it changes, as Cerbos and OPA reload theirs.
//
// The file's directory is watched (inotify), not the file: a Kubernetes ConfigMap volume
// replaces its files by swapping a `..data` symlink atomically, which changes nothing about the
// file's own inode that a watch on it would see. On any event the file is read again through
// its path (and so through the symlinks), and applied only when its SHA-256 changed. An apply
// commits before it is reported (counters, log line, WaitUntil), and decisions read the
// store fresh, so the next decision after a reported apply sees it. A file that cannot be read,
// parsed or applied is refused: nothing of it is written, the previous policy keeps serving,
// and the refusal is counted and logged.
//
//   absl::StatusOr<std::unique_ptr<PolicyFileWatch>> watch =
//       PolicyFileWatch::Start("/etc/verdict/policy.yaml", store->admin());
//   if (!watch.ok()) return watch.status();  // the first apply failed: do not serve
//   metrics.AddExternalText([&] { return (*watch)->RenderMetrics(); });
#ifndef VERDICT_SERVER_POLICY_FILE_WATCH_H_
#define VERDICT_SERVER_POLICY_FILE_WATCH_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "app/policy_admin.h"

namespace verdict {

class PolicyFileWatch {
 public:
  struct Counts {
    uint64_t applied = 0;    // a new content applied (its steps written, or none needed)
    uint64_t unchanged = 0;  // read again with the content last seen: nothing done
    uint64_t refused = 0;    // unreadable, unparsable or refused by the store: nothing written
  };

  // Applies the file at `path` once, then watches it on a thread of its own. The first apply's
  // error when the file cannot be read or is invalid (verdictd then refuses to start). A store
  // not yet reachable (UNAVAILABLE) is tried again every `retry` until it applies; a file the
  // store's state refuses (FAILED_PRECONDITION: say, an agent revoked at run time that the file
  // declares active) is counted refused and the store's policy keeps serving. `admin` must
  // outlive the watch.
  static absl::StatusOr<std::unique_ptr<PolicyFileWatch>> Start(
      std::string path, PolicyAdmin& admin, absl::Duration retry = absl::Seconds(1));

  // Stops the thread.
  ~PolicyFileWatch();

  Counts counts() const;
  // The SHA-256 (hex) of the content last applied; "" before the first.
  std::string applied_sha256() const;
  // verdict_policy_reload_total{result="applied|unchanged|refused"} and, once a file has been
  // applied, verdict_policy_file_info{name, sha256} 1, in Prometheus text.
  std::string RenderMetrics() const;
  // Waits until `done` holds of the counts or `deadline` passes; true when it held.
  bool WaitUntil(const std::function<bool(const Counts&)>& done, absl::Time deadline) const;

  // Reads the file and applies it when its content changed since the last read: what each event
  // does. The status of the apply (OK when unchanged).
  absl::Status Reload();

 private:
  PolicyFileWatch(std::string path, PolicyAdmin& admin, absl::Duration retry, int inotify_fd,
                  int stop_fd);
  void Run();

  const std::string path_;
  PolicyAdmin& admin_;
  const absl::Duration retry_;
  const int inotify_fd_;
  const int stop_fd_;  // an eventfd: written to stop the thread

  mutable absl::Mutex mu_;
  Counts counts_ ABSL_GUARDED_BY(mu_);
  std::string seen_sha256_ ABSL_GUARDED_BY(mu_);  // the content last read, applied or refused
  std::string applied_sha256_ ABSL_GUARDED_BY(mu_);
  std::string applied_name_ ABSL_GUARDED_BY(mu_);
  bool retry_pending_ ABSL_GUARDED_BY(mu_) = false;  // the store was unavailable

  std::thread thread_;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_POLICY_FILE_WATCH_H_
