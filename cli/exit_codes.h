// The exit codes of `verdict`, the promise scripts rely on.
//
//   0  done (for `check`: ALLOW; for `log verify`: the chain is intact)
//   1  usage: an unknown subcommand or option, a missing or malformed value, no admin secret
//   2  a negative answer: `check` was denied (DENY or NEEDS_APPROVAL); `log verify` found the
//      chain broken
//   3  refused by the server: the request is wrong for the data (INVALID_ARGUMENT, NOT_FOUND,
//      ALREADY_EXISTS, FAILED_PRECONDITION, ...)
//   4  no answer: the server cannot be reached or used, or does not accept the credential
//      (UNAVAILABLE, UNAUTHENTICATED, RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED, INTERNAL, ...)
#ifndef VERDICT_CLI_EXIT_CODES_H_
#define VERDICT_CLI_EXIT_CODES_H_

#include <grpcpp/support/status.h>

namespace verdict {

enum ExitCode : int {
  kExitOk = 0,
  kExitUsage = 1,
  kExitNegative = 2,
  kExitRefused = 3,
  kExitNoAnswer = 4,
};

ExitCode ExitCodeForStatus(grpc::StatusCode code);

}  // namespace verdict

#endif  // VERDICT_CLI_EXIT_CODES_H_
