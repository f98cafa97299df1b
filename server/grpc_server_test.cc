// verdictd's gRPC servers (server/grpc_server.h): where they listen.
#include "server/grpc_server.h"

#include <grpcpp/grpcpp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "gtest/gtest.h"
#include "server/unix_socket.h"
#include "verdict/v1/decision.grpc.pb.h"

namespace verdict {
namespace {

// A socket path in a fresh directory of its own under /tmp: TEST_TMPDIR is longer than a socket
// path may be, and tests run in parallel (in PID namespaces, so a pid is no name).
std::string ShortSocketPath() {
  char directory[] = "/tmp/verdict-gsXXXXXX";
  EXPECT_NE(mkdtemp(directory), nullptr);
  return absl::StrCat(directory, "/s.sock");
}

// Removes the socket, its lock file and their directory.
void RemoveSocketPath(const std::string& path) {
  unlink(path.c_str());
  unlink((path + ".lock").c_str());
  rmdir(path.substr(0, path.rfind('/')).c_str());
}

using grpc::health::v1::Health;
using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

HealthCheckRequest HealthOf(const std::string& service) {
  HealthCheckRequest request;
  request.set_service(service);
  return request;
}

// Health answers from the flags SetServing sets: the server and each service.
TEST(GrpcServerHealthTest, CheckAnswersTheServingFlagOfTheServerAndOfEachService) {
  v1::DecisionService::CallbackService decision;
  absl::StatusOr<std::unique_ptr<GrpcServer>> server =
      GrpcServer::Start("127.0.0.1:0", {{v1::DecisionService::service_full_name(), &decision}});
  ASSERT_TRUE(server.ok()) << server.status();
  auto stub = Health::NewStub(
      grpc::CreateChannel((*server)->address(), grpc::InsecureChannelCredentials()));
  for (const bool serving : {false, true, false}) {
    if (serving) (*server)->SetServing(true);
    if (!serving) (*server)->SetServing(false);
    for (const std::string service : {"", "verdict.v1.DecisionService"}) {
      grpc::ClientContext context;
      HealthCheckResponse response;
      ASSERT_TRUE(stub->Check(&context, HealthOf(service), &response).ok()) << service;
      EXPECT_EQ(response.status(),
                serving ? HealthCheckResponse::SERVING : HealthCheckResponse::NOT_SERVING)
          << service;
    }
  }
  grpc::ClientContext context;
  HealthCheckResponse response;
  EXPECT_EQ(stub->Check(&context, HealthOf("no.such.Service"), &response).error_code(),
            grpc::StatusCode::NOT_FOUND);
  (*server)->Shutdown(absl::ZeroDuration());
}

// Issue 15.7: a client watching health (gRPC's client-side health checking does) held the
// shutdown for its whole grace, 10 s in verdictd. The watch now hears NOT_SERVING and ends, and
// the shutdown is over as soon as the other calls are.
TEST(GrpcServerHealthTest, AnOpenWatchIsToldNotServingAndEndedAtShutdown) {
  v1::DecisionService::CallbackService decision;
  absl::StatusOr<std::unique_ptr<GrpcServer>> server =
      GrpcServer::Start("127.0.0.1:0", {{v1::DecisionService::service_full_name(), &decision}});
  ASSERT_TRUE(server.ok()) << server.status();
  (*server)->SetServing(true);
  auto stub = Health::NewStub(
      grpc::CreateChannel((*server)->address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReader<HealthCheckResponse>> watch =
      stub->Watch(&context, HealthOf(""));
  HealthCheckResponse update;
  ASSERT_TRUE(watch->Read(&update));
  EXPECT_EQ(update.status(), HealthCheckResponse::SERVING);
  (*server)->SetServing(false);
  ASSERT_TRUE(watch->Read(&update));
  EXPECT_EQ(update.status(), HealthCheckResponse::NOT_SERVING);
  (*server)->SetServing(true);
  ASSERT_TRUE(watch->Read(&update));
  EXPECT_EQ(update.status(), HealthCheckResponse::SERVING);

  constexpr absl::Duration kGrace = absl::Seconds(30);
  const absl::Time start = absl::Now();
  (*server)->Shutdown(kGrace);
  const absl::Duration shutdown = absl::Now() - start;
  EXPECT_LT(shutdown, kGrace / 10) << "an open watch held the shutdown";
  ASSERT_TRUE(watch->Read(&update));
  EXPECT_EQ(update.status(), HealthCheckResponse::NOT_SERVING);
  EXPECT_FALSE(watch->Read(&update));
  EXPECT_EQ(watch->Finish().error_code(), grpc::StatusCode::UNAVAILABLE);
}

// Two servers on one port would split its connections between them, each answering from its
// own store: the second is refused.
// Reads what the server sends on `fd` within `wait`: the bytes, "" at end of stream, or "timeout".
std::string FirstBytesOrEnd(int fd, absl::Duration wait) {
  const absl::Time give_up = absl::Now() + wait;
  while (absl::Now() < give_up) {
    char buffer[64];
    const ssize_t n = recv(fd, buffer, sizeof(buffer), MSG_DONTWAIT);
    if (n > 0) return std::string(buffer, static_cast<size_t>(n));
    if (n == 0) return "";
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return "";
    absl::SleepFor(absl::Milliseconds(10));
  }
  return "timeout";
}

// Reads and drops what arrives on `fd` until its end; false if it has not ended after `wait`.
bool EndedWithin(int fd, absl::Duration wait) {
  const absl::Time give_up = absl::Now() + wait;
  while (absl::Now() < give_up) {
    char buffer[4096];
    const ssize_t n = recv(fd, buffer, sizeof(buffer), MSG_DONTWAIT);
    if (n == 0) return true;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return true;
    if (n < 0) absl::SleepFor(absl::Milliseconds(10));
  }
  return false;
}

// The admin unix socket's connections come through AdoptConnection, not gRPC's own listener:
// they are held to the connection guard's limits too (here max_connections).
TEST(GrpcServerTest, AdoptedConnectionsGoThroughTheConnectionGuard) {
  TransportLimits limits;
  limits.max_connections = 1;
  absl::StatusOr<std::unique_ptr<GrpcServer>> server =
      GrpcServer::Start("", {}, Reflection::kOff, kMaxReceiveMessageBytes, limits);
  ASSERT_TRUE(server.ok()) << server.status();
  int first[2];
  int second[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, first), 0);
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, second), 0);
  const int second_server_end = second[0];
  (*server)->AdoptConnection(first[0]);
  // The first is served: gRPC's SETTINGS frame arrives.
  EXPECT_NE(FirstBytesOrEnd(first[1], absl::Seconds(5)), "");
  // The second is over the limit: it is served and the first, idle since, is ended.
  (*server)->AdoptConnection(second[0]);
  EXPECT_NE(FirstBytesOrEnd(second[1], absl::Seconds(5)), "");
  EXPECT_TRUE(EndedWithin(first[1], absl::Seconds(5)));
  // The throttle's key is still the client's uid (here this process's own, so this line only
  // checks that the adopted connection is still named; admin_lockout_test tells two uids apart).
  EXPECT_EQ(CallerIdentity(absl::StrCat("fd:", second_server_end)),
            absl::StrCat("uid:", geteuid()));
  (*server)->Shutdown(absl::ZeroDuration());
  close(first[1]);
  close(second[1]);
}

TEST(GrpcServerTest, APortAnotherServerListensOnIsRefused) {
  v1::DecisionService::CallbackService decision;
  absl::StatusOr<std::unique_ptr<GrpcServer>> first =
      GrpcServer::Start("127.0.0.1:0", {{v1::DecisionService::service_full_name(), &decision}});
  ASSERT_TRUE(first.ok()) << first.status();
  v1::DecisionService::CallbackService other;
  absl::StatusOr<std::unique_ptr<GrpcServer>> second =
      GrpcServer::Start((*first)->address(), {{v1::DecisionService::service_full_name(), &other}});
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  (*first)->Shutdown(absl::ZeroDuration());
}

// gRPC replaces a socket file before binding: a live server's socket must not be taken over,
// while one a dead process left behind may be.
TEST(GrpcServerTest, AUnixSocketALiveServerListensOnIsRefusedAStaleOneIsReplaced) {
  const std::string path = ShortSocketPath();
  const std::string listen = "unix:" + path;
  v1::DecisionService::CallbackService decision;
  absl::StatusOr<std::unique_ptr<GrpcServer>> first =
      GrpcServer::Start(listen, {{v1::DecisionService::service_full_name(), &decision}});
  ASSERT_TRUE(first.ok()) << first.status();
  v1::DecisionService::CallbackService other;
  absl::StatusOr<std::unique_ptr<GrpcServer>> second =
      GrpcServer::Start(listen, {{v1::DecisionService::service_full_name(), &other}});
  EXPECT_EQ(second.status().code(), absl::StatusCode::kAlreadyExists);
  struct stat file;
  EXPECT_EQ(stat(path.c_str(), &file), 0) << "the live server's socket is still there";
  (*first)->Shutdown(absl::ZeroDuration());

  // A socket file nobody listens on, as a crashed process leaves it.
  unlink(path.c_str());
  const int stale = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.data(), path.size());
  ASSERT_EQ(bind(stale, reinterpret_cast<const sockaddr*>(&address), sizeof(address)), 0);
  close(stale);
  absl::StatusOr<std::unique_ptr<GrpcServer>> after_crash =
      GrpcServer::Start(listen, {{v1::DecisionService::service_full_name(), &other}});
  ASSERT_TRUE(after_crash.ok()) << after_crash.status();
  (*after_crash)->Shutdown(absl::ZeroDuration());
  RemoveSocketPath(path);
}

TEST(GrpcServerTest, OfServersStartingTogetherOnOneUnixSocketExactlyOneServes) {
  const std::string path = ShortSocketPath();
  constexpr int kServers = 6;
  std::vector<v1::DecisionService::CallbackService> services(kServers);
  std::vector<absl::StatusOr<std::unique_ptr<GrpcServer>>> started(kServers);
  std::vector<std::thread> starters;
  for (int i = 0; i < kServers; ++i) {
    starters.emplace_back([&, i] {
      started[i] = GrpcServer::Start("unix:" + path,
                                     {{v1::DecisionService::service_full_name(), &services[i]}});
    });
  }
  for (std::thread& starter : starters) starter.join();
  int serving = 0;
  for (auto& server : started) {
    if (!server.ok()) {
      EXPECT_EQ(server.status().code(), absl::StatusCode::kAlreadyExists) << server.status();
      continue;
    }
    ++serving;
    (*server)->Shutdown(absl::ZeroDuration());
  }
  EXPECT_EQ(serving, 1);
  RemoveSocketPath(path);
}

}  // namespace
}  // namespace verdict
