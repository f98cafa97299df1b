// The pool's connection attempts against a server that accepts connections and never answers
// (a frozen PostgreSQL: the kernel completes the TCP handshake, the postmaster never replies).
// Needs libpq, not a PostgreSQL server.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "store/postgres/postgres_source.h"

namespace verdict {
namespace {

// A loopback listener that accepts and then says nothing.
class SilentServer {
 public:
  SilentServer() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address));
    listen(fd_, 8);
    socklen_t length = sizeof(address);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
  }
  ~SilentServer() {
    if (accepted_ >= 0) close(accepted_);
    close(fd_);
  }
  std::string url() const {
    return absl::StrCat("postgresql://verdict@127.0.0.1:", port_, "/verdict?sslmode=disable");
  }
  // Waits for a client's connection: the client is then waiting for an answer.
  void AcceptOne() { accepted_ = accept(fd_, nullptr, nullptr); }

 private:
  int fd_ = -1;
  int accepted_ = -1;
  int port_ = 0;
};

TEST(PostgresPoolTest, AConnectionAttemptEndsAsSoonAsTheServerIsGivenUpOn) {
  absl::StatusOr<const LibPq*> pq = LoadLibPq();
  if (!pq.ok()) GTEST_SKIP() << "no libpq here: " << pq.status();
  SilentServer server;
  PostgresConnectionOptions options;
  options.connect_timeout = absl::Seconds(10);
  ConnectionPool pool(PostgresSource(**pq, server.url(), options), PostgresPoolOptions(options, 2));

  absl::Notification ended;
  absl::Status outcome;
  std::thread caller([&] {
    absl::StatusOr<ConnectionPool::Lease> lease = pool.Checkout();
    outcome = lease.status();
    ended.Notify();
  });
  server.AcceptOne();  // the attempt is under way, waiting for the server
  const absl::Time given_up = absl::Now();
  pool.BreakLeased();  // what verdictd does when its store check gets no answer
  const bool in_time = ended.WaitForNotificationWithTimeout(absl::Seconds(1));
  const absl::Duration took = absl::Now() - given_up;
  caller.join();
  EXPECT_TRUE(in_time) << "the attempt ended " << took << " after BreakLeased";
  EXPECT_EQ(outcome.code(), absl::StatusCode::kUnavailable) << outcome;
}

TEST(PostgresPoolTest, AServerThatNeverAnswersIsGivenUpOnAtTheConnectTimeout) {
  absl::StatusOr<const LibPq*> pq = LoadLibPq();
  if (!pq.ok()) GTEST_SKIP() << "no libpq here: " << pq.status();
  SilentServer server;
  PostgresConnectionOptions options;
  options.connect_timeout = absl::Seconds(1);
  ConnectionPool pool(PostgresSource(**pq, server.url(), options), PostgresPoolOptions(options, 1));
  const absl::Time start = absl::Now();
  absl::StatusOr<ConnectionPool::Lease> lease = pool.Checkout();
  EXPECT_EQ(lease.status().code(), absl::StatusCode::kUnavailable) << lease.status();
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

}  // namespace
}  // namespace verdict
