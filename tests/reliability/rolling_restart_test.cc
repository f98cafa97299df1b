// Rolling restart (issue 5.2): two verdictd processes serve one database file, //bench:loadgen
// drives both (round robin over their two Unix sockets) and checks every answer, and each
// process in turn is stopped with SIGTERM and started again while the traffic runs. The load
// generator must see no failed call and no wrong answer: a stopping verdictd first drains
// (health NOT_SERVING, which the client watches), then finishes the calls it has (no connection
// reset under them) while the client moves to the other one.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/verdictd_process.h"

extern char** environ;

namespace verdict {
namespace {

constexpr int kAgents = 1000;  // the benchmark dataset both servers serve
// The load must last until both restarts are done. A ThreadSanitizer build (--config=tsan) runs
// verdictd and the load generator 5 to 15 times slower (TSan's own documentation): a restart
// there took up to 15 s on a loaded 2-core machine, so the load lasts 4 times as long.
#if defined(__SANITIZE_THREAD__)
constexpr absl::Duration kTraffic = absl::Seconds(100);
#else
constexpr absl::Duration kTraffic = absl::Seconds(25);
#endif
constexpr absl::Duration kShutdownTimeout = absl::Seconds(20);
constexpr absl::Duration kReachTimeout = absl::Seconds(15);

// Runs `argv` with stdout and stderr into `output_path`; the pid.
pid_t SpawnInto(const std::vector<std::string>& argv, const std::string& output_path) {
  std::vector<char*> c_argv;
  for (const std::string& arg : argv) c_argv.push_back(const_cast<char*>(arg.c_str()));
  c_argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = -1;
  if (posix_spawn(&pid, c_argv[0], &actions, nullptr, c_argv.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

std::string ReadAll(const std::string& path) {
  std::ifstream file(path);
  std::stringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

// The benchmark dataset's database for kAgents, copied to `db_path`.
void MakeDatabase(const std::string& directory, const std::string& db_path) {
  const std::string output = directory + "/make_dataset.out";
  const pid_t pid =
      SpawnInto({RunfilePath("bench/make_dataset"), absl::StrCat("--agents=", kAgents),
                 "--bench_dir=" + directory + "/bench"},
                output);
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << ReadAll(output);
  const std::string dataset(absl::StripTrailingAsciiWhitespace(ReadAll(output)));
  std::ifstream source(dataset, std::ios::binary);
  std::ofstream(db_path, std::ios::binary) << source.rdbuf();
}

// Unix socket paths are limited to 107 bytes, which TEST_TMPDIR can exceed.
std::string ShortDirectory() {
  char path[] = "/tmp/verdict-rolling.XXXXXX";
  return mkdtemp(path) == nullptr ? "" : path;
}

class Server {
 public:
  Server(std::string name, std::string directory, std::string db_path, std::string socket)
      : name_(std::move(name)),
        directory_(std::move(directory)),
        db_path_(std::move(db_path)),
        socket_(std::move(socket)) {}

  const std::string& socket() const { return socket_; }

  // Starts it; each start writes its own JSON decision log, so the test can see when the load
  // generator has reached this start.
  void Start() {
    ++starts_;
    absl::StatusOr<std::unique_ptr<VerdictdProcess>> started = VerdictdProcess::Start(
        {"--listen=unix:" + socket(), "--db=" + db_path_, "--admin_listen=off", "--workers=2",
         "--decision_json_log=" + DecisionLog()});
    ASSERT_TRUE(started.ok()) << started.status();
    process_ = *std::move(started);
  }

  // SIGTERM, and the graceful stop must end with exit code 0.
  void Stop() {
    process_->Signal(SIGTERM);
    absl::StatusOr<int> exit_code = process_->AwaitExit(kShutdownTimeout);
    ASSERT_TRUE(exit_code.ok()) << name_ << ": " << exit_code.status();
    EXPECT_EQ(*exit_code, 0) << name_;
  }

  // True once this start has decided a call.
  bool AwaitTraffic() {
    const absl::Time deadline = absl::Now() + kReachTimeout;
    struct stat log;
    while (absl::Now() < deadline) {
      if (stat(DecisionLog().c_str(), &log) == 0 && log.st_size > 0) return true;
      absl::SleepFor(absl::Milliseconds(50));
    }
    return false;
  }

 private:
  std::string DecisionLog() const {
    return absl::StrCat(directory_, "/", name_, "-", starts_, ".jsonl");
  }

  std::string name_;
  std::string directory_;
  std::string db_path_;
  std::string socket_;
  int starts_ = 0;
  std::unique_ptr<VerdictdProcess> process_;
};

TEST(RollingRestartTest, RestartingEachServerInTurnFailsNoCallAndAnswersNoneWrong) {
  const std::string directory = TestDirectory("rolling");
  const std::string db_path = directory + "/verdict.db";
  ASSERT_NO_FATAL_FAILURE(MakeDatabase(directory, db_path));
  const std::string sockets = ShortDirectory();
  ASSERT_FALSE(sockets.empty());
  Server servers[] = {{"a", directory, db_path, sockets + "/a.sock"},
                      {"b", directory, db_path, sockets + "/b.sock"}};
  for (Server& server : servers) ASSERT_NO_FATAL_FAILURE(server.Start());

  const std::string loadgen_output = directory + "/loadgen.out";
  const pid_t loadgen =
      SpawnInto({RunfilePath("bench/loadgen"),
                 absl::StrCat("--target=unix:", servers[0].socket(), ",", servers[1].socket()),
                 "--round_robin", absl::StrCat("--agents=", kAgents), "--in_flight=8",
                 "--warmup=0s", absl::StrCat("--duration=", absl::FormatDuration(kTraffic)),
                 "--mix=direct:40,delegated:20,denied:20,token:20"},
                loadgen_output);
  ASSERT_GT(loadgen, 0);

  for (Server& server : servers) {
    ASSERT_TRUE(server.AwaitTraffic()) << "the load generator never reached a server";
  }
  // One at a time, as a rolling update does: the next stops only once the restarted one
  // decides calls again.
  int restarts = 0;
  for (Server& server : servers) {
    ASSERT_NO_FATAL_FAILURE(server.Stop());
    ASSERT_NO_FATAL_FAILURE(server.Start());
    ++restarts;
    ASSERT_TRUE(server.AwaitTraffic()) << "a restarted server got no traffic";
  }

  int status = 0;
  ASSERT_EQ(waitpid(loadgen, &status, 0), loadgen);
  const std::string report = ReadAll(loadgen_output);
  std::printf("rolling restart: %d restarts under load\n%s", restarts, report.c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "the load generator saw failed calls or wrong answers:\n"
      << report;
  EXPECT_NE(report.find(" errors 0  wrong 0"), std::string::npos) << report;
  for (Server& server : servers) server.Stop();
  rmdir(sockets.c_str());
}

}  // namespace
}  // namespace verdict
