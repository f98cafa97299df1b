#include "server/metrics_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

int Connect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  return fd;
}

// Sends `request` and reads until the server closes the connection.
std::string Exchange(int port, const std::string& request) {
  const int fd = Connect(port);
  EXPECT_EQ(send(fd, request.data(), request.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(request.size()));
  std::string response;
  char buffer[4096];
  ssize_t n;
  while ((n = recv(fd, buffer, sizeof(buffer), 0)) > 0) response.append(buffer, n);
  close(fd);
  return response;
}

class MetricsHttpServerTest : public testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<MetricsHttpServer>> server =
        MetricsHttpServer::Start("127.0.0.1:0", [this] {
          ++scrapes_;
          return std::string("verdict_up 1\n");
        });
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    ASSERT_GT(server_->port(), 0);
  }

  std::atomic<int> scrapes_{0};
  std::unique_ptr<MetricsHttpServer> server_;
};

TEST_F(MetricsHttpServerTest, GetMetricsAnswersTheRenderedText) {
  const std::string response =
      Exchange(server_->port(), "GET /metrics HTTP/1.1\r\nHost: localhost\r\nAccept: */*\r\n\r\n");
  EXPECT_THAT(response, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_THAT(response, HasSubstr("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"));
  EXPECT_THAT(response, HasSubstr("Content-Length: 13\r\n"));
  EXPECT_THAT(response, HasSubstr("\r\n\r\nverdict_up 1\n"));
  EXPECT_EQ(scrapes_, 1);
}

TEST_F(MetricsHttpServerTest, QueryStringIsIgnoredAndEachScrapeRendersAfresh) {
  Exchange(server_->port(), "GET /metrics?name[]=x HTTP/1.1\r\n\r\n");
  const std::string response = Exchange(server_->port(), "GET /metrics HTTP/1.0\r\n\r\n");
  EXPECT_THAT(response, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_EQ(scrapes_, 2);
}

TEST_F(MetricsHttpServerTest, OnlyGetMetricsIsServed) {
  struct Case {
    std::string request;
    std::string status_line;
  };
  const Case cases[] = {
      {"GET / HTTP/1.1\r\n\r\n", "HTTP/1.1 404 Not Found\r\n"},
      {"GET /metrics/extra HTTP/1.1\r\n\r\n", "HTTP/1.1 404 Not Found\r\n"},
      {"GET /debug HTTP/1.1\r\n\r\n", "HTTP/1.1 404 Not Found\r\n"},
      {"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
       "HTTP/1.1 405 Method Not Allowed\r\n"},
      {"HEAD /metrics HTTP/1.1\r\n\r\n", "HTTP/1.1 405 Method Not Allowed\r\n"},
      {"GET /metrics\r\n\r\n", "HTTP/1.1 400 Bad Request\r\n"},
      {"GET /metrics SPDY/3\r\n\r\n", "HTTP/1.1 400 Bad Request\r\n"},
      {"\x16\x03\x01\x02\x01\r\n\r\n", "HTTP/1.1 400 Bad Request\r\n"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.request);
    EXPECT_THAT(Exchange(server_->port(), c.request), StartsWith(c.status_line));
  }
  EXPECT_EQ(scrapes_, 0);
}

TEST_F(MetricsHttpServerTest, OversizedRequestIsRefused) {
  const std::string request = "GET /metrics HTTP/1.1\r\nX-Filler: " +
                              std::string(MetricsHttpServer::kMaxRequestBytes, 'a') + "\r\n\r\n";
  EXPECT_THAT(Exchange(server_->port(), request),
              StartsWith("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
  EXPECT_EQ(scrapes_, 0);
}

TEST_F(MetricsHttpServerTest, ClientThatNeverFinishesDoesNotBlockShutdown) {
  const int idle = Connect(server_->port());
  ASSERT_EQ(send(idle, "GET /met", 8, MSG_NOSIGNAL), 8);
  absl::SleepFor(absl::Milliseconds(50));  // the server is now waiting on this connection
  const absl::Time start = absl::Now();
  server_.reset();
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
  close(idle);
}

TEST(MetricsHttpServerStartTest, BadAddressesAreRefused) {
  auto render = [] { return std::string(); };
  for (const char* listen : {"", "9464", "127.0.0.1:", "127.0.0.1:99999", ":9464", "[::1]:x"}) {
    SCOPED_TRACE(listen);
    EXPECT_EQ(MetricsHttpServer::Start(listen, render).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
}

TEST(MetricsHttpServerStartTest, PortInUseIsUnavailable) {
  auto render = [] { return std::string(); };
  absl::StatusOr<std::unique_ptr<MetricsHttpServer>> first =
      MetricsHttpServer::Start("127.0.0.1:0", render);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(MetricsHttpServer::Start(absl::StrCat("127.0.0.1:", (*first)->port()), render)
                .status()
                .code(),
            absl::StatusCode::kUnavailable);
}

TEST(MetricsHttpServerStartTest, ListensOnIpv6Loopback) {
  absl::StatusOr<std::unique_ptr<MetricsHttpServer>> server =
      MetricsHttpServer::Start("[::1]:0", [] { return std::string("x 1\n"); });
  if (!server.ok()) GTEST_SKIP() << "no IPv6 loopback here: " << server.status();
  const int fd = socket(AF_INET6, SOCK_STREAM, 0);
  sockaddr_in6 address{};
  address.sin6_family = AF_INET6;
  address.sin6_port = htons((*server)->port());
  address.sin6_addr = in6addr_loopback;
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  const std::string request = "GET /metrics HTTP/1.1\r\n\r\n";
  send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string response;
  char buffer[1024];
  ssize_t n;
  while ((n = recv(fd, buffer, sizeof(buffer), 0)) > 0) response.append(buffer, n);
  close(fd);
  EXPECT_THAT(response, StartsWith("HTTP/1.1 200 OK\r\n"));
}

}  // namespace
}  // namespace verdict
