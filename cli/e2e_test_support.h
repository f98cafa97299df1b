// What the cli/ end-to-end tests share: a command line run through the shell, with what it
// printed and how it exited, and the built `verdict` as a quoted command line.
//
//   const Outcome listed = RunCommand(
//       absl::StrCat("VERDICT_ADMIN_SECRET=s ", VerdictCommandLine({"agents", "list"})),
//       "cli-stderr.txt");
//   EXPECT_EQ(listed.exit_code, 0) << listed.err;
#ifndef VERDICT_CLI_E2E_TEST_SUPPORT_H_
#define VERDICT_CLI_E2E_TEST_SUPPORT_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace verdict {

struct Outcome {
  int exit_code = -1;  // -1 when the command did not start or did not exit normally
  std::string out;
  std::string err;
};

// `arg` as one word of a POSIX shell command line, whatever characters it holds.
std::string ShellQuote(absl::string_view arg);

// The contents of the file at `path`; "" when it cannot be read.
std::string ReadFile(const std::string& path);

// The built `verdict` (cli/verdict in the runfiles) with `args`, every word quoted.
std::string VerdictCommandLine(const std::vector<std::string>& args);

// Runs `command` with /bin/sh: its standard output in `out`, its exit status in `exit_code`.
// With a `stderr_path`, the command line ends in `2>stderr_path` (in a pipeline, its last
// command's standard error) and `err` holds what was written there; without, `err` is empty.
Outcome RunCommand(const std::string& command, const std::string& stderr_path = "");

}  // namespace verdict

#endif  // VERDICT_CLI_E2E_TEST_SUPPORT_H_
