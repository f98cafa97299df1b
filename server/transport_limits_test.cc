// The transport limits every verdictd listener holds clients to (server/transport_limits.h),
// seen from a client of a real GrpcServer: what is refused, what is ended, and that an ordinary
// call is untouched. tests/reliability/transport_limits_test.py runs the attacks at full size
// against verdictd itself.
#include "server/transport_limits.h"

#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "server/grpc_server.h"
#include "verdict/v1/decision.grpc.pb.h"

namespace verdict {
namespace {

// Answers every Authorize with an empty response.
class AnsweringService : public v1::DecisionService::CallbackService {
  grpc::ServerUnaryReactor* Authorize(grpc::CallbackServerContext* context,
                                      const v1::AuthorizeRequest*,
                                      v1::AuthorizeResponse*) override {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
};

class TransportLimitsTest : public ::testing::Test {
 protected:
  void StartServer(const TransportLimits& limits,
                   int max_receive_message_bytes = kMaxReceiveMessageBytes) {
    absl::StatusOr<std::unique_ptr<GrpcServer>> server =
        GrpcServer::Start("127.0.0.1:0", {{v1::DecisionService::service_full_name(), &service_}},
                          Reflection::kOff, max_receive_message_bytes, limits);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    server_->SetServing(true);
    ASSERT_TRUE(
        absl::SimpleAtoi(server_->address().substr(server_->address().rfind(':') + 1), &port_));
  }

  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown(absl::ZeroDuration());
  }

  // An Authorize on a channel of its own (no connection shared with another call).
  grpc::Status Authorize(grpc_compression_algorithm compression = GRPC_COMPRESS_NONE) {
    grpc::ChannelArguments args;
    args.SetInt("grpc.use_local_subchannel_pool", 1);
    std::unique_ptr<v1::DecisionService::Stub> stub = v1::DecisionService::NewStub(
        grpc::CreateCustomChannel(server_->address(), grpc::InsecureChannelCredentials(), args));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    context.set_compression_algorithm(compression);
    v1::AuthorizeRequest request;
    request.set_action(std::string(1000, 'a'));  // something to compress
    v1::AuthorizeResponse response;
    return stub->Authorize(&context, request, &response);
  }

  // A raw TCP connection to the server; -1 when it cannot connect.
  int Connect() {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port_));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
      close(fd);
      return -1;
    }
    return fd;
  }

  AnsweringService service_;
  std::unique_ptr<GrpcServer> server_;
  int port_ = 0;
};

std::string Frame(uint8_t type, uint8_t flags, uint32_t stream, const std::string& payload) {
  const size_t n = payload.size();
  return std::string{static_cast<char>(n >> 16),
                     static_cast<char>(n >> 8),
                     static_cast<char>(n),
                     static_cast<char>(type),
                     static_cast<char>(flags),
                     0,
                     0,
                     0,
                     static_cast<char>(stream)} +
         payload;
}

// The preface and an empty SETTINGS frame: what a client sends first (it never acknowledges
// the server's SETTINGS here).
std::string Opening() {
  return std::string("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") + Frame(4, 0, 0, "");
}

// The HPACK block of an Authorize call's headers, each a literal without indexing.
std::string AuthorizeHeaders() {
  std::string block;
  for (const auto& [name, value] : {std::pair<std::string, std::string>{":method", "POST"},
                                    {":scheme", "http"},
                                    {":path", "/verdict.v1.DecisionService/Authorize"},
                                    {":authority", "verdict"},
                                    {"content-type", "application/grpc"},
                                    {"te", "trailers"}}) {
    block += '\0';
    block += static_cast<char>(name.size());
    block += name;
    block += static_cast<char>(value.size());
    block += value;
  }
  return block;
}

bool SendAll(int fd, const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

// Reads (and drops) what the server sends until it closes the connection; false if it is still
// open after `timeout`.
bool ClosedByServerWithin(int fd, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  char buffer[4096];
  while (absl::Now() < deadline) {
    pollfd ready{fd, POLLIN, 0};
    if (poll(&ready, 1, static_cast<int>(absl::ToInt64Milliseconds(deadline - absl::Now()))) <= 0) {
      continue;
    }
    if (recv(fd, buffer, sizeof(buffer), 0) <= 0) return true;
  }
  return false;
}

// Reads the server's frames, handing each frame's type and flags to `wanted`, until it returns
// true. False if the connection ends first or `timeout` passes.
bool ServerFrameWithin(int fd, absl::Duration timeout,
                       const std::function<bool(uint8_t type, uint8_t flags)>& wanted) {
  const absl::Time deadline = absl::Now() + timeout;
  std::string read;
  size_t at = 0;  // the next frame header in `read`
  while (absl::Now() < deadline) {
    while (read.size() >= at + 9) {
      const size_t length = (size_t{static_cast<uint8_t>(read[at])} << 16) |
                            (size_t{static_cast<uint8_t>(read[at + 1])} << 8) |
                            static_cast<uint8_t>(read[at + 2]);
      if (wanted(read[at + 3], read[at + 4])) return true;
      at += 9 + length;
    }
    pollfd ready{fd, POLLIN, 0};
    if (poll(&ready, 1, static_cast<int>(absl::ToInt64Milliseconds(deadline - absl::Now()))) <= 0) {
      continue;
    }
    char buffer[4096];
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n <= 0) return false;
    read.append(buffer, static_cast<size_t>(n));
  }
  return false;
}

// Whether the server acknowledged the client's SETTINGS, which it does once it has read them:
// gRPC, and the guard in line with its reads, have then read the client's opening.
bool SettingsAcknowledgedWithin(int fd, absl::Duration timeout) {
  return ServerFrameWithin(fd, timeout, [](uint8_t type, uint8_t flags) {
    return type == 4 && (flags & 1) != 0;  // SETTINGS, ACK
  });
}

// Whether `streams` streams ended (a HEADERS or DATA frame with END_STREAM: the calls' trailers).
bool StreamsEndedWithin(int fd, int streams, absl::Duration timeout) {
  int ended = 0;
  return ServerFrameWithin(fd, timeout, [&](uint8_t type, uint8_t flags) {
    return type <= 1 && (flags & 1) != 0 && ++ended == streams;
  });
}

// Whether the server has closed the connection, without waiting.
bool ClosedByServerNow(int fd) {
  char buffer[4096];
  for (;;) {
    const ssize_t n = recv(fd, buffer, sizeof(buffer), MSG_DONTWAIT);
    if (n == 0) return true;
    if (n < 0) return errno != EAGAIN && errno != EWOULDBLOCK;
  }
}

TEST_F(TransportLimitsTest, AnOrdinaryCallIsAnswered) {
  StartServer(TransportLimits());
  EXPECT_TRUE(Authorize().ok());
}

// gRPC 1.51 would inflate a compressed message whole before checking its size (a 2 MB request
// inflating to gigabytes): compression is not accepted at all.
TEST_F(TransportLimitsTest, ACompressedRequestIsRefused) {
  StartServer(TransportLimits());
  EXPECT_EQ(Authorize(GRPC_COMPRESS_GZIP).error_code(), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(Authorize(GRPC_COMPRESS_DEFLATE).error_code(), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_TRUE(Authorize().ok());
}

// Sent before the client acknowledged the server's SETTINGS, where gRPC 1.51 alone would take a
// header block of up to 16 MiB (and buffer a longer one whole).
TEST_F(TransportLimitsTest, RequestMetadataOverTheLimitClosesTheConnection) {
  StartServer(TransportLimits());
  const int fd = Connect();
  ASSERT_GE(fd, 0);
  std::string block = AuthorizeHeaders();
  block += '\0';
  block += "\x05x-big";
  block += "\x7f";  // a value of 127 + 32768 bytes (HPACK integer, 7-bit prefix)
  block += "\x80\x80\x02";
  block += std::string(32768 + 127, 'a');
  std::string frames = Opening() + Frame(1, 0, 1, block.substr(0, 16384));
  for (size_t offset = 16384; offset < block.size(); offset += 16384) {
    const bool last = offset + 16384 >= block.size();
    frames += Frame(9, last ? 4 : 0, 1, block.substr(offset, 16384));
  }
  SendAll(fd, frames);  // the server may close before it has taken everything
  EXPECT_TRUE(ClosedByServerWithin(fd, absl::Seconds(10)));
  close(fd);
  EXPECT_TRUE(Authorize().ok());
  // Ended by the guard, which meters what gRPC reads from the client's own socket.
  EXPECT_EQ(server_->connection_guard()->counters().closed_for_header_block, 1);
}

TEST_F(TransportLimitsTest, RequestMetadataWithinTheLimitIsServed) {
  StartServer(TransportLimits());
  const int fd = Connect();
  ASSERT_GE(fd, 0);
  std::string block = AuthorizeHeaders();
  block += '\0';
  block += "\x07x-small";
  block += "\x7f\x81\x3f";  // 127 + 1 + 63 * 128 = 8192
  block += std::string(8192, 'a');
  ASSERT_TRUE(SendAll(fd, Opening() + Frame(1, 4, 1, block.substr(0, 16384)) +
                              Frame(0, 1, 1, std::string(5, '\0'))));
  std::string answer;
  char buffer[4096];
  while (answer.find("grpc-status") == std::string::npos) {
    pollfd ready{fd, POLLIN, 0};
    ASSERT_GT(poll(&ready, 1, 10000), 0) << "no answer";
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    ASSERT_GT(n, 0) << "closed without an answer";
    answer.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
}

// A message sent in part waits in gRPC's memory for the rest. A connection may leave twice the
// largest message unfinished (here 2 x 16 KiB); past that it is ended.
TEST_F(TransportLimitsTest, AConnectionHoldingTooMuchOfHalfSentMessagesIsEnded) {
  StartServer(TransportLimits(), /*max_receive_message_bytes=*/16 << 10);
  const int fd = Connect();
  ASSERT_GE(fd, 0);
  // Three streams, each 12 KiB into a 16 KiB message: 36 KiB unfinished.
  std::string frames = Opening();
  for (uint8_t stream = 1; stream <= 5; stream += 2) {
    frames += Frame(1, 4, stream, AuthorizeHeaders()) +
              Frame(0, 0, stream, std::string("\0\0\0\x40\0", 5) + std::string(12 << 10, 'a'));
  }
  SendAll(fd, frames);
  EXPECT_TRUE(ClosedByServerWithin(fd, absl::Seconds(10)));
  close(fd);
  EXPECT_EQ(server_->connection_guard()->counters().closed_for_unfinished, 1);
}

// Messages that end are no longer unfinished: a connection may send any number of them.
TEST_F(TransportLimitsTest, MessagesThatEndNoLongerCount) {
  StartServer(TransportLimits(), /*max_receive_message_bytes=*/16 << 10);
  const int fd = Connect();
  ASSERT_GE(fd, 0);
  // Each message 12 KiB, sent in two frames, the second ending the stream: 60 KiB in all.
  std::string frames = Opening();
  for (uint8_t stream = 1; stream <= 9; stream += 2) {
    frames += Frame(1, 4, stream, AuthorizeHeaders()) +
              Frame(0, 0, stream, std::string("\0\0\0\x30\0", 5) + std::string(6 << 10, 'a')) +
              Frame(0, 1, stream, std::string(6 << 10, 'a'));
  }
  ASSERT_TRUE(SendAll(fd, frames));
  EXPECT_TRUE(StreamsEndedWithin(fd, 5, absl::Seconds(10)));
  close(fd);
  EXPECT_EQ(server_->connection_guard()->counters().closed_for_unfinished, 0);
}

// Over all connections together: each may hold its share, but one that asks for more once they
// hold the listener's limit is ended, and the others are kept.
TEST_F(TransportLimitsTest, HalfSentMessagesOverTheListenersLimitEndTheConnectionAskingForMore) {
  TransportLimits limits;
  limits.max_unfinished_bytes = 40 << 10;
  StartServer(limits, /*max_receive_message_bytes=*/16 << 10);
  const std::string half_sent =
      Frame(1, 4, 1, AuthorizeHeaders()) +
      Frame(0, 0, 1, std::string("\0\0\0\x40\0", 5) + std::string(12 << 10, 'a')) +
      Frame(0, 0, 1, std::string(12 << 10, 'a'));  // 24 KiB unfinished, under 32
  const int first = Connect();
  ASSERT_GE(first, 0);
  ASSERT_TRUE(SendAll(first, Opening() + half_sent));
  ASSERT_TRUE(SettingsAcknowledgedWithin(first, absl::Seconds(10)));
  const int second = Connect();
  ASSERT_GE(second, 0);
  SendAll(second, Opening() + half_sent);  // 48 KiB together
  EXPECT_TRUE(ClosedByServerWithin(second, absl::Seconds(10)));
  EXPECT_FALSE(ClosedByServerNow(first));
  EXPECT_EQ(server_->connection_guard()->counters().closed_for_unfinished, 1);
  close(first);
  close(second);
}

// A call whose message never completes (and that set no deadline) is ended with its connection.
TEST_F(TransportLimitsTest, AHalfSentCallIsEndedWithinTheMaximumCallDuration) {
  TransportLimits limits;
  limits.max_call_duration = absl::Seconds(2);
  StartServer(limits);
  const int fd = Connect();
  ASSERT_GE(fd, 0);
  const absl::Time start = absl::Now();
  // A message announced as 1,000 bytes, of which 10 are sent.
  ASSERT_TRUE(
      SendAll(fd, Opening() + Frame(1, 4, 1, AuthorizeHeaders()) +
                      Frame(0, 0, 1, std::string("\0\0\0\x03\xe8", 5) + std::string(10, 'a'))));
  EXPECT_TRUE(ClosedByServerWithin(fd, absl::Seconds(10)));
  // Half of it for the GOAWAY (with gRPC's 10% jitter), the other half of grace.
  EXPECT_GE(absl::Now() - start, absl::Seconds(1.8));
  close(fd);
}

// A client that holds every connection open must not keep a new one (a health probe's) out:
// at the limit the new connection takes the place of the one idle longest (issue 16).
TEST_F(TransportLimitsTest, AtTheLimitANewConnectionEndsTheOneIdleLongest) {
  TransportLimits limits;
  limits.max_connections = 2;
  StartServer(limits);
  const int idle = Connect();
  ASSERT_GE(idle, 0);
  ASSERT_TRUE(SendAll(idle, Opening()));
  ASSERT_TRUE(SettingsAcknowledgedWithin(idle, absl::Seconds(10)));
  const int recent = Connect();  // acts after `idle` last did
  ASSERT_GE(recent, 0);
  ASSERT_TRUE(SendAll(recent, Opening()));
  ASSERT_TRUE(SettingsAcknowledgedWithin(recent, absl::Seconds(10)));

  grpc::Status status = Authorize();  // a third connection
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(ClosedByServerWithin(idle, absl::Seconds(10)));
  EXPECT_FALSE(ClosedByServerNow(recent));
  close(idle);
  close(recent);
}

}  // namespace
}  // namespace verdict
