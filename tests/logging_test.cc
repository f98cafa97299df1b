// verdictd's logs (issue 20): its own lines, and gRPC's, go to stderr, each with a time and a
// level, as text or JSON (--log_format); stdout carries only the decision JSON lines
// (--decision_json_log=-); start-up says what it seeded; a --db whose directory is missing
// fails the start, saying so.
#include <arpa/inet.h>
#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/verdictd_process.h"
#include "verdict/v1/decision.grpc.pb.h"

extern char** environ;

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

// verdictd with its stdout and stderr in two files of `directory`.
class Verdictd {
 public:
  Verdictd(const std::string& directory, const std::vector<std::string>& flags)
      : out_(directory + "/stdout"), err_(directory + "/stderr") {
    std::vector<std::string> argv = {RunfilePath("server/verdictd")};
    argv.insert(argv.end(), flags.begin(), flags.end());
    std::vector<char*> c_argv;
    for (const std::string& arg : argv) c_argv.push_back(const_cast<char*>(arg.c_str()));
    c_argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    EXPECT_EQ(posix_spawn(&pid_, c_argv[0], &actions, nullptr, c_argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
  }

  ~Verdictd() {
    if (pid_ > 0 && !exited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  // The address of its "verdictd serving on ADDRESS" line, once logged (up to 30 s); empty if
  // the process ended first.
  std::string AwaitServing() {
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    const std::string kServing = "verdictd serving on ";
    while (absl::Now() < deadline) {
      const std::string err = ReadFile(err_);
      if (const size_t at = err.find(kServing); at != std::string::npos) {
        const size_t start = at + kServing.size();
        return err.substr(start, err.find(' ', start) - start);
      }
      if (waitpid(pid_, &status_, WNOHANG) == pid_) {
        exited_ = true;
        return "";
      }
      absl::SleepFor(absl::Milliseconds(20));
    }
    return "";
  }

  // The exit code, waiting up to 30 s; -1 when it did not exit normally in time.
  int AwaitExit() {
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (!exited_ && absl::Now() < deadline) {
      if (waitpid(pid_, &status_, WNOHANG) == pid_) exited_ = true;
      if (!exited_) absl::SleepFor(absl::Milliseconds(20));
    }
    return exited_ && WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
  }

  void Stop() { kill(pid_, SIGTERM); }
  std::string out() const { return ReadFile(out_); }
  std::string err() const { return ReadFile(err_); }

 private:
  const std::string out_;
  const std::string err_;
  pid_t pid_ = -1;
  int status_ = 0;
  bool exited_ = false;
};

// Fails the test unless `line` has a time and a level in `format`; for JSON, returns the object.
void ExpectTimeAndLevel(const std::string& format, const std::string& line) {
  if (format == "json") {
    absl::StatusOr<JsonValue> parsed = ParseJson(line);
    ASSERT_TRUE(parsed.ok() && parsed->is_object()) << "not a JSON object: " << line;
    const JsonValue* time = parsed->Find("time");
    const JsonValue* level = parsed->Find("level");
    ASSERT_TRUE(time != nullptr && time->is_string()) << line;
    EXPECT_TRUE(std::regex_match(time->as_string(),
                                 std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)")))
        << line;
    ASSERT_TRUE(level != nullptr && level->is_string()) << line;
    EXPECT_THAT(level->as_string(), ::testing::AnyOf("DEBUG", "INFO", "WARNING", "ERROR")) << line;
    EXPECT_NE(parsed->Find("msg"), nullptr) << line;
  } else {
    EXPECT_TRUE(std::regex_search(
        line,
        std::regex(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z (DEBUG|INFO|WARNING|ERROR) \S)")))
        << "no time and level: " << line;
  }
}

class LoggingTest : public ::testing::TestWithParam<std::string> {};

TEST_P(LoggingTest, StdoutHoldsOnlyDecisionsAndEveryStderrLineHasATimeAndALevel) {
  const std::string format = GetParam();
  const std::string directory = TestDirectory("logs-" + format);
  Verdictd verdictd(directory,
                    {"--listen=127.0.0.1:0", "--db=" + directory + "/verdict.db",
                     "--seed=" + RunfilePath("deploy/demo-policy.json"), "--decision_json_log=-",
                     "--metrics_listen=127.0.0.1:0", "--log_format=" + format});
  const std::string address = verdictd.AwaitServing();
  ASSERT_FALSE(address.empty()) << verdictd.err();

  auto stub = v1::DecisionService::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  int decisions = 0;
  for (const char* resource : {"docs:guide:1", "docs:secret:1", "docs:guide:2"}) {
    v1::AuthorizeRequest request;
    request.mutable_subject()->set_agent_id("agt_demo_reader");
    request.set_action("read");
    request.set_resource(resource);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    v1::AuthorizeResponse response;
    ASSERT_TRUE(stub->Authorize(&context, request, &response).ok());
    ++decisions;
  }
  verdictd.Stop();
  ASSERT_EQ(verdictd.AwaitExit(), 0) << verdictd.err();

  const std::vector<std::string> out = Lines(verdictd.out());
  EXPECT_EQ(out.size(), static_cast<size_t>(decisions)) << verdictd.out();
  for (const std::string& line : out) {
    absl::StatusOr<JsonValue> decision = ParseJson(line);
    ASSERT_TRUE(decision.ok()) << "stdout line is not JSON: " << line;
    EXPECT_NE(decision->Find("verdict"), nullptr) << line;
  }

  const std::string err = verdictd.err();
  const std::vector<std::string> lines = Lines(err);
  ASSERT_FALSE(lines.empty());
  for (const std::string& line : lines) ExpectTimeAndLevel(format, line);
  // Start-up says what it did: the seed's contents (deploy/demo-policy.json), the addresses.
  EXPECT_THAT(err, HasSubstr("demo-policy.json imported: "));
  EXPECT_THAT(err, HasSubstr(" agents, "));
  EXPECT_THAT(err, HasSubstr(" permissions, "));
  EXPECT_THAT(err, HasSubstr("verdictd metrics on "));
  EXPECT_THAT(err, HasSubstr("verdictd: stopped"));
}

INSTANTIATE_TEST_SUITE_P(BothFormats, LoggingTest, ::testing::Values("text", "json"));

TEST(LoggingFlagsTest, AnUnknownLogFormatIsRefused) {
  const std::string directory = TestDirectory("bad-format");
  Verdictd verdictd(directory, {"--listen=127.0.0.1:0", "--db=" + directory + "/verdict.db",
                                "--log_format=yaml"});
  EXPECT_EQ(verdictd.AwaitExit(), 2);
  EXPECT_THAT(verdictd.err(), HasSubstr("\"yaml\" is neither text nor json"));
  struct stat info;
  EXPECT_NE(stat((directory + "/verdict.db").c_str(), &info), 0) << "nothing is created";
}

// A misspelt flag is reported in verdictd's log, in the format asked for even after it, not by
// abseil's parser with a bare line.
TEST(LoggingFlagsTest, AnUnknownFlagIsReportedWithATimeAndALevel) {
  const std::string directory = TestDirectory("unknown-flag");
  Verdictd verdictd(directory, {"--listen=127.0.0.1:0", "--db=" + directory + "/verdict.db",
                                "--wrokers=4", "--log_format=json"});
  EXPECT_EQ(verdictd.AwaitExit(), 2);
  const std::vector<std::string> lines = Lines(verdictd.err());
  ASSERT_EQ(lines.size(), 1u) << verdictd.err();
  ExpectTimeAndLevel("json", lines[0]);
  EXPECT_THAT(lines[0], HasSubstr("\"level\":\"ERROR\""));
  EXPECT_THAT(lines[0], HasSubstr("unknown flag --wrokers"));
}

TEST(DatabaseDirectoryTest, AMissingDirectoryFailsTheStartSayingWhich) {
  const std::string directory = TestDirectory("missing-db-directory");
  const std::string missing = directory + "/no-such-volume";
  Verdictd verdictd(directory, {"--listen=127.0.0.1:0", "--db=" + missing + "/verdict.db",
                                "--seed=" + RunfilePath("deploy/demo-policy.json")});
  EXPECT_EQ(verdictd.AwaitServing(), "") << "it must not serve";
  EXPECT_EQ(verdictd.AwaitExit(), 1);
  const std::string err = verdictd.err();
  EXPECT_THAT(err, HasSubstr(absl::StrCat("its directory ", missing, " does not exist")));
  EXPECT_THAT(err, HasSubstr(" ERROR "));
  EXPECT_THAT(verdictd.out(), IsEmpty());
  struct stat info;
  EXPECT_NE(stat(missing.c_str(), &info), 0) << "nothing is created";
}

// A port another process holds: gRPC's own complaint comes through verdict's sink (a JSON line
// with "source": "grpc"), then verdictd's, and the start fails.
TEST(GrpcLogTest, ABusyPortIsReportedThroughTheSameSink) {
  const int holder = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(holder, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(holder, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(listen(holder, 1), 0);
  socklen_t length = sizeof address;
  ASSERT_EQ(getsockname(holder, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const int port = ntohs(address.sin_port);

  const std::string directory = TestDirectory("busy-port");
  Verdictd verdictd(directory,
                    {absl::StrCat("--listen=127.0.0.1:", port), "--db=" + directory + "/verdict.db",
                     "--admin_listen=off", "--log_format=json"});
  EXPECT_EQ(verdictd.AwaitExit(), 1);
  close(holder);
  const std::string err = verdictd.err();
  bool grpc_line = false;
  for (const std::string& line : Lines(err)) {
    ExpectTimeAndLevel("json", line);
    absl::StatusOr<JsonValue> parsed = ParseJson(line);
    if (!parsed.ok()) continue;
    const JsonValue* source = parsed->Find("source");
    if (source != nullptr && source->is_string() && source->as_string() == "grpc") {
      grpc_line = true;
      EXPECT_NE(parsed->Find("file"), nullptr) << line;
    }
  }
  EXPECT_TRUE(grpc_line) << "no line of gRPC's own:\n" << err;
  EXPECT_THAT(err, HasSubstr(absl::StrCat("cannot listen on 127.0.0.1:", port)));
  EXPECT_THAT(verdictd.out(), IsEmpty());
}

}  // namespace
}  // namespace verdict
