// Termination signals (SIGTERM, SIGINT, SIGHUP) without a signal handler: the signals are
// blocked in every thread and one thread waits for them with sigwait, so shutdown runs as
// ordinary code, drain included, whichever of them arrives.
//
//   int main() {
//     if (!BlockTerminationSignals().ok()) return 1;  // before any thread starts
//     ... start threads and servers ...
//     int signal = AwaitTerminationSignal();          // SIGTERM, SIGINT or SIGHUP
//     ... shut down ...
//   }
#ifndef VERDICT_SERVER_SIGNALS_H_
#define VERDICT_SERVER_SIGNALS_H_

#include "absl/status/status.h"

namespace verdict {

// Blocks SIGTERM, SIGINT and SIGHUP in the calling thread; threads started afterwards inherit
// the mask. Also ignores SIGPIPE for the process: a write to a closed pipe or socket fails with
// EPIPE instead of ending it. Call it first in main, before anything (gRPC included) starts a
// thread.
absl::Status BlockTerminationSignals();

// Waits until SIGTERM, SIGINT or SIGHUP is pending and returns which one (consuming it).
// The signals must be blocked (BlockTerminationSignals).
int AwaitTerminationSignal();

}  // namespace verdict

#endif  // VERDICT_SERVER_SIGNALS_H_
