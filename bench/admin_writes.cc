// Admin writes per second against a real verdictd on a real SQLite file (issue 18 item 3): the
// same writes -- create an agent, grant it a permission, alternately -- made once with the admin
// secret on every call (one Argon2id check each, at production parameters) and once through one
// session (CreateSession once, then one hash lookup per call), with the same callers in flight,
// in the same run, on a fresh database each run. Prints each run and the median, min and max.
//
//   bazel run -c opt //bench:admin_writes -- --runs=5 --session_writes=4000 --secret_writes=8
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "tests/verdictd_process.h"
#include "verdict/v1/admin.grpc.pb.h"

ABSL_FLAG(int, runs, 5, "Runs, each on a fresh verdictd and database.");
ABSL_FLAG(int, session_writes, 4000, "Writes through the session in each run.");
ABSL_FLAG(int, secret_writes, 8, "Writes with the secret on every call in each run.");
ABSL_FLAG(int, in_flight, 4, "Callers making writes at once, one call at a time each.");

namespace verdict {
namespace {

constexpr char kSecret[] = "admin-writes-benchmark-secret-0123456789";

// Makes `writes` writes with `authorization`, `in_flight` callers at once; writes per second,
// or -1 when a write failed.
double WritesPerSecond(const std::string& address, const std::string& authorization, int writes,
                       int in_flight) {
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  std::atomic<int> next{0};
  std::atomic<bool> failed{false};
  const absl::Time start = absl::Now();
  std::vector<std::thread> callers;
  for (int c = 0; c < in_flight; ++c) {
    callers.emplace_back([&, c] {
      auto stub = v1::AdminService::NewStub(channel);
      std::string agent_id;
      for (int i = next++; i < writes && !failed; i = next++) {
        grpc::ClientContext context;
        context.AddMetadata("authorization", authorization);
        context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(60)));
        grpc::Status status;
        if (agent_id.empty()) {
          v1::CreateAgentRequest request;
          request.set_owner("bench");
          request.set_name(absl::StrCat("agent-", c, "-", i));
          v1::CreateAgentResponse response;
          status = stub->CreateAgent(&context, request, &response);
          agent_id = response.agent().id();
        } else {
          v1::GrantPermissionRequest request;
          request.set_agent_id(agent_id);
          request.mutable_permission()->set_resource(absl::StrCat("docs:", i, ":*"));
          request.mutable_permission()->add_actions("read");
          request.mutable_permission()->set_effect(v1::EFFECT_ALLOW);
          v1::GrantPermissionResponse response;
          status = stub->GrantPermission(&context, request, &response);
          agent_id.clear();
        }
        if (!status.ok()) {
          std::fprintf(stderr, "write failed: %d %s\n", status.error_code(),
                       status.error_message().c_str());
          failed = true;
        }
      }
    });
  }
  for (std::thread& caller : callers) caller.join();
  if (failed) return -1;
  return writes / absl::ToDoubleSeconds(absl::Now() - start);
}

struct Stats {
  double median, min, max;
};

Stats Summarise(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  const double median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  return {median, values.front(), values.back()};
}

int Run() {
  const int runs = absl::GetFlag(FLAGS_runs);
  const int in_flight = absl::GetFlag(FLAGS_in_flight);
  std::vector<double> by_secret, by_session;
  for (int run = 1; run <= runs; ++run) {
    ShortTempDirectory directory("admin-writes");
    const std::string secret_file = absl::StrCat(directory.path(), "/secret");
    std::ofstream(secret_file) << kSecret << "\n";
    // Production Argon2id parameters: no --test_only_weak_admin_hash.
    absl::StatusOr<std::unique_ptr<VerdictdProcess>> server =
        VerdictdProcess::Start({absl::StrCat("--db=", directory.path(), "/bench.db"),
                                absl::StrCat("--admin_secret_file=", secret_file)});
    if (!server.ok()) {
      std::fprintf(stderr, "verdictd: %s\n", server.status().ToString().c_str());
      return 1;
    }
    const std::string address = (*server)->admin_address();
    const double secret_rate = WritesPerSecond(address, absl::StrCat("Bearer ", kSecret),
                                               absl::GetFlag(FLAGS_secret_writes), in_flight);
    auto stub =
        v1::AdminService::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    context.AddMetadata("authorization", absl::StrCat("Bearer ", kSecret));
    v1::CreateSessionResponse session;
    const grpc::Status created =
        stub->CreateSession(&context, v1::CreateSessionRequest(), &session);
    if (!created.ok()) {
      std::fprintf(stderr, "CreateSession: %s\n", created.error_message().c_str());
      return 1;
    }
    const double session_rate = WritesPerSecond(address, absl::StrCat("Bearer ", session.token()),
                                                absl::GetFlag(FLAGS_session_writes), in_flight);
    (*server)->Signal(SIGTERM);
    (void)(*server)->AwaitExit(absl::Seconds(30));
    if (secret_rate < 0 || session_rate < 0) return 1;
    std::printf("run %d: secret on every call %.2f writes/s, one session %.0f writes/s (%.0fx)\n",
                run, secret_rate, session_rate, session_rate / secret_rate);
    std::fflush(stdout);
    by_secret.push_back(secret_rate);
    by_session.push_back(session_rate);
  }
  const Stats secret = Summarise(by_secret);
  const Stats session = Summarise(by_session);
  std::printf(
      "%d runs, %d callers in flight:\n"
      "  secret on every call: median %.2f, min %.2f, max %.2f writes/s\n"
      "  one session:          median %.0f, min %.0f, max %.0f writes/s\n"
      "  ratio of medians: %.0fx\n",
      runs, in_flight, secret.median, secret.min, secret.max, session.median, session.min,
      session.max, session.median / secret.median);
  return 0;
}

}  // namespace
}  // namespace verdict

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  // Under `bazel run` the runfiles sit beside the binary; tests/verdictd_process.h looks for them
  // where `bazel test` puts them.
  if (std::getenv("TEST_SRCDIR") == nullptr) {
    const char* runfiles = std::getenv("RUNFILES_DIR");
    const std::string dir = runfiles != nullptr ? runfiles : absl::StrCat(argv[0], ".runfiles");
    setenv("TEST_SRCDIR", dir.c_str(), 1);
  }
  return verdict::Run();
}
