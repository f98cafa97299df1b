#include "cli/e2e_test_support.h"

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "tests/verdictd_process.h"

namespace verdict {

std::string ShellQuote(absl::string_view arg) {
  return absl::StrCat("'", absl::StrReplaceAll(arg, {{"'", "'\\''"}}), "'");
}

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::ostringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

std::string VerdictCommandLine(const std::vector<std::string>& args) {
  std::vector<std::string> words = {ShellQuote(RunfilePath("cli/verdict"))};
  for (const std::string& arg : args) words.push_back(ShellQuote(arg));
  return absl::StrJoin(words, " ");
}

Outcome RunCommand(const std::string& command, const std::string& stderr_path) {
  Outcome outcome;
  const std::string line =
      stderr_path.empty() ? command : absl::StrCat(command, " 2>", stderr_path);
  FILE* pipe = popen(line.c_str(), "r");
  if (pipe == nullptr) return outcome;
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) outcome.out.append(buffer, n);
  const int status = pclose(pipe);
  outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (!stderr_path.empty()) outcome.err = ReadFile(stderr_path);
  return outcome;
}

}  // namespace verdict
