#include "server/metrics_http_server.h"

#include <netdb.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"

namespace verdict {
namespace {

// How long a closing connection may keep sending before it is cut.
constexpr absl::Duration kLinger = absl::Milliseconds(500);

struct HostPort {
  std::string host;
  std::string port;
};

absl::StatusOr<HostPort> SplitHostPort(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("metrics address \"", listen, "\" is not host:port"));
  }
  HostPort address{listen.substr(0, colon), listen.substr(colon + 1)};
  if (address.host.size() >= 2 && address.host.front() == '[' && address.host.back() == ']') {
    address.host = address.host.substr(1, address.host.size() - 2);
  }
  int port = 0;
  if (address.host.empty() || !absl::SimpleAtoi(address.port, &port) || port < 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("metrics address \"", listen, "\" is not host:port"));
  }
  return address;
}

absl::StatusOr<int> BindListener(const std::string& listen) {
  absl::StatusOr<HostPort> address = SplitHostPort(listen);
  if (!address.ok()) return address.status();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (int error = getaddrinfo(address->host.c_str(), address->port.c_str(), &hints, &found);
      error != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("metrics address \"", listen, "\": ", gai_strerror(error)));
  }
  std::string last_error = "no address";
  int fd = -1;
  for (addrinfo* candidate = found; candidate != nullptr && fd < 0;
       candidate = candidate->ai_next) {
    fd =
        socket(candidate->ai_family, candidate->ai_socktype | SOCK_CLOEXEC, candidate->ai_protocol);
    if (fd < 0) {
      last_error = std::strerror(errno);
      continue;
    }
    const int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
    if (bind(fd, candidate->ai_addr, candidate->ai_addrlen) != 0 || ::listen(fd, 64) != 0) {
      last_error = std::strerror(errno);
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen for metrics on ", listen, ": ", last_error));
  }
  return fd;
}

int BoundPort(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return 0;
  if (address.ss_family == AF_INET) {
    return ntohs(reinterpret_cast<sockaddr_in*>(&address)->sin_port);
  }
  return ntohs(reinterpret_cast<sockaddr_in6*>(&address)->sin6_port);
}

// Waits until `fd` is ready for `events`, the deadline passes or the server is stopping.
bool WaitFor(int fd, int wake_fd, short events, absl::Time deadline) {
  pollfd fds[2] = {{fd, events, 0}, {wake_fd, POLLIN, 0}};
  while (true) {
    const int64_t remaining_ms = absl::ToInt64Milliseconds(deadline - absl::Now());
    if (remaining_ms <= 0) return false;
    const int ready = poll(fds, 2, static_cast<int>(remaining_ms));
    if (ready < 0 && errno == EINTR) continue;
    return ready > 0 && fds[1].revents == 0 && (fds[0].revents & events) != 0;
  }
}

std::string HttpResponse(absl::string_view status, absl::string_view extra_headers,
                         absl::string_view content_type, absl::string_view body) {
  return absl::StrCat("HTTP/1.1 ", status, "\r\nContent-Type: ", content_type,
                      "\r\nContent-Length: ", body.size(), "\r\n", extra_headers,
                      "Connection: close\r\n\r\n", body);
}

std::string PlainResponse(absl::string_view status, absl::string_view extra_headers = "") {
  return HttpResponse(status, extra_headers, "text/plain; charset=utf-8",
                      absl::StrCat(status, "\n"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<MetricsHttpServer>> MetricsHttpServer::Start(
    const std::string& listen, std::function<std::string()> render) {
  absl::StatusOr<int> listen_fd = BindListener(listen);
  if (!listen_fd.ok()) return listen_fd.status();
  const int wake_fd = eventfd(0, EFD_CLOEXEC);
  if (wake_fd < 0) {
    close(*listen_fd);
    return absl::InternalError(absl::StrCat("eventfd: ", std::strerror(errno)));
  }
  return std::unique_ptr<MetricsHttpServer>(
      new MetricsHttpServer(*listen_fd, wake_fd, BoundPort(*listen_fd), std::move(render)));
}

MetricsHttpServer::MetricsHttpServer(int listen_fd, int wake_fd, int port,
                                     std::function<std::string()> render)
    : listen_fd_(listen_fd), wake_fd_(wake_fd), port_(port), render_(std::move(render)) {
  thread_ = std::thread([this] { Serve(); });
}

MetricsHttpServer::~MetricsHttpServer() {
  const uint64_t one = 1;
  // An eventfd write of 8 bytes cannot be short; the thread exits on the first poll after it.
  (void)!write(wake_fd_, &one, sizeof(one));
  thread_.join();
  close(listen_fd_);
  close(wake_fd_);
}

void MetricsHttpServer::Serve() {
  pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
  while (true) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) continue;  // the peer left before accept, or out of descriptors for now
    ServeConnection(fd);
    close(fd);
  }
}

void MetricsHttpServer::ServeConnection(int fd) {
  const absl::Time deadline = absl::Now() + kIoTimeout;
  std::string request;
  size_t head_end = std::string::npos;
  while (head_end == std::string::npos) {
    if (request.size() >= kMaxRequestBytes) {
      request.clear();
      break;
    }
    if (!WaitFor(fd, wake_fd_, POLLIN, deadline)) return;
    char buffer[2048];
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) return;
    request.append(buffer, static_cast<size_t>(n));
    head_end = request.find("\r\n\r\n");
  }

  std::string response;
  if (head_end == std::string::npos || head_end > kMaxRequestBytes) {
    response = PlainResponse("431 Request Header Fields Too Large");
  } else {
    const absl::string_view request_line =
        absl::string_view(request).substr(0, request.find("\r\n"));
    const std::vector<absl::string_view> parts = absl::StrSplit(request_line, ' ');
    if (parts.size() != 3 || !absl::StartsWith(parts[2], "HTTP/1.")) {
      response = PlainResponse("400 Bad Request");
    } else if (parts[1].substr(0, parts[1].find('?')) != "/metrics") {
      response = PlainResponse("404 Not Found");
    } else if (parts[0] != "GET") {
      response = PlainResponse("405 Method Not Allowed", "Allow: GET\r\n");
    } else {
      response = HttpResponse("200 OK", "", "text/plain; version=0.0.4; charset=utf-8", render_());
    }
  }

  size_t sent = 0;
  while (sent < response.size()) {
    if (!WaitFor(fd, wake_fd_, POLLOUT, deadline)) return;
    const ssize_t n = send(fd, response.data() + sent, response.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) return;
    sent += static_cast<size_t>(n);
  }
  // A lingering close: half-close, then read what the client still sends, so that closing with
  // unread input (an oversized request) does not reset the connection before it reads the answer.
  shutdown(fd, SHUT_WR);
  const absl::Time linger_deadline = std::min(deadline, absl::Now() + kLinger);
  char discard[4096];
  while (WaitFor(fd, wake_fd_, POLLIN, linger_deadline) &&
         recv(fd, discard, sizeof(discard), 0) > 0) {
  }
}

}  // namespace verdict
