// Termination signals (SIGTERM, SIGINT) without a signal handler: the signals are blocked in
// every thread and one thread waits for them with sigwait, so shutdown runs as ordinary code.
//
//   int main() {
//     if (!BlockTerminationSignals().ok()) return 1;  // before any thread starts
//     ... start threads and servers ...
//     int signal = AwaitTerminationSignal();          // returns SIGTERM or SIGINT
//     ... shut down ...
//   }
#ifndef VERDICT_SERVER_SIGNALS_H_
#define VERDICT_SERVER_SIGNALS_H_

#include "absl/status/status.h"

namespace verdict {

// Blocks SIGTERM and SIGINT in the calling thread; threads started afterwards inherit the mask.
// Call it first in main, before anything (gRPC included) starts a thread.
absl::Status BlockTerminationSignals();

// Waits until SIGTERM or SIGINT is pending and returns which one (consuming it).
// The signals must be blocked (BlockTerminationSignals).
int AwaitTerminationSignal();

}  // namespace verdict

#endif  // VERDICT_SERVER_SIGNALS_H_
