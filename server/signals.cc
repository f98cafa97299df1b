#include "server/signals.h"

#include <pthread.h>
#include <signal.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace verdict {
namespace {

sigset_t TerminationSignalSet() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  return set;
}

}  // namespace

absl::Status BlockTerminationSignals() {
  const sigset_t set = TerminationSignalSet();
  if (const int error = pthread_sigmask(SIG_BLOCK, &set, nullptr); error != 0) {
    return absl::InternalError(absl::StrCat("pthread_sigmask: ", std::strerror(error)));
  }
  // A write to a pipe or socket whose reader is gone then fails with EPIPE, which the writer
  // handles (a JSON decision log on a closed stdout), instead of ending the process undrained.
  if (signal(SIGPIPE, SIG_IGN) == SIG_ERR) {
    return absl::InternalError(absl::StrCat("ignoring SIGPIPE: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

int AwaitTerminationSignal() {
  const sigset_t set = TerminationSignalSet();
  int signal_number = 0;
  // sigwait fails only for an invalid set, which this is not.
  sigwait(&set, &signal_number);
  return signal_number;
}

}  // namespace verdict
