#include "server/connection_guard.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "absl/types/optional.h"
#include "common/log.h"

// gRPC's socket mutator, declared as Debian's libgrpc 1.51 defines it in
// src/core/lib/iomgr/socket_mutator.h (a header it does not install). grpc_socket_mutator_init
// is exported (with C++ linkage); GRPC_ARG_SOCKET_MUTATOR takes the struct.
typedef enum {
  GRPC_FD_CLIENT_CONNECTION_USAGE,
  GRPC_FD_SERVER_LISTENER_USAGE,
  GRPC_FD_SERVER_CONNECTION_USAGE,
} grpc_fd_usage;

typedef struct {
  int fd;
  grpc_fd_usage usage;
} grpc_mutate_socket_info;

struct grpc_socket_mutator_vtable {
  bool (*mutate_fd)(int fd, grpc_socket_mutator* mutator);
  int (*compare)(grpc_socket_mutator* a, grpc_socket_mutator* b);
  void (*destroy)(grpc_socket_mutator* mutator);
  bool (*mutate_fd_2)(const grpc_mutate_socket_info* info, grpc_socket_mutator* mutator);
};

struct grpc_socket_mutator {
  const grpc_socket_mutator_vtable* vtable;
  gpr_refcount refcount;
};

void grpc_socket_mutator_init(grpc_socket_mutator* mutator,
                              const grpc_socket_mutator_vtable* vtable);

namespace verdict {
namespace {

constexpr size_t kBufferBytes = 16 << 10;  // per direction and connection
constexpr int kMaxEvents = 64;
// How long a connection gRPC has closed may linger for its client to take the last bytes and
// hang up; closing at once, with the client's bytes unread, would reset it (RST) and could make
// its kernel drop an answer it had not read yet.
constexpr absl::Duration kLinger = absl::Seconds(2);

// HTTP/2 frame types (RFC 9113, section 6).
constexpr uint8_t kHeadersFrame = 0x1;
constexpr uint8_t kContinuationFrame = 0x9;
constexpr uint8_t kSettingsFrame = 0x4;
constexpr uint8_t kAckFlag = 0x1;

// GOAWAY, last stream 0, ENHANCE_YOUR_CALM: sent (best effort) before a connection is closed for
// a header block over the limit.
constexpr char kGoAwayEnhanceYourCalm[] = {0, 0, 8, 0x7, 0, 0, 0, 0, 0,  // frame header
                                           0, 0, 0, 0,                   // last stream id
                                           0, 0, 0, 0xb};                // error code

// The mutator that hands each accepted connection to the guard. It must return true whatever
// happens: on false gRPC stops its listener altogether.
struct GuardMutator {
  grpc_socket_mutator base;  // first: gRPC sees a grpc_socket_mutator*
  std::shared_ptr<ConnectionGuard> guard;
};

bool MutateFd2(const grpc_mutate_socket_info* info, grpc_socket_mutator* mutator) {
  if (info->usage == GRPC_FD_SERVER_CONNECTION_USAGE) {
    reinterpret_cast<GuardMutator*>(mutator)->guard->TakeOver(info->fd);
  }
  return true;
}

bool MutateFd(int, grpc_socket_mutator*) { return true; }  // not called: mutate_fd_2 is set

int Compare(grpc_socket_mutator* a, grpc_socket_mutator* b) {
  return a == b ? 0 : (a < b ? -1 : 1);
}

void Destroy(grpc_socket_mutator* mutator) { delete reinterpret_cast<GuardMutator*>(mutator); }

constexpr grpc_socket_mutator_vtable kGuardMutatorVtable = {MutateFd, Compare, Destroy, MutateFd2};

class GuardBuilderOption : public grpc::ServerBuilderOption {
 public:
  explicit GuardBuilderOption(std::shared_ptr<ConnectionGuard> guard) : guard_(std::move(guard)) {}

  void UpdateArguments(grpc::ChannelArguments* args) override {
    auto* mutator = new GuardMutator{{}, guard_};
    grpc_socket_mutator_init(&mutator->base, &kGuardMutatorVtable);
    args->SetSocketMutator(&mutator->base);  // takes the reference init made
  }
  void UpdatePlugins(std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>*) override {}

 private:
  std::shared_ptr<ConnectionGuard> guard_;
};

}  // namespace

bool HeaderBlockMeter::Read(absl::string_view bytes) {
  while (!bytes.empty() && !over_limit_) {
    if (preface_left_ > 0) {
      const size_t skipped = std::min(preface_left_, bytes.size());
      preface_left_ -= skipped;
      bytes.remove_prefix(skipped);
    } else if (payload_left_ > 0) {
      const size_t skipped = std::min(payload_left_, bytes.size());
      payload_left_ -= skipped;
      bytes.remove_prefix(skipped);
    } else {
      const size_t copied = std::min(kFrameHeaderBytes - frame_header_have_, bytes.size());
      std::memcpy(frame_header_ + frame_header_have_, bytes.data(), copied);
      frame_header_have_ += copied;
      bytes.remove_prefix(copied);
      if (frame_header_have_ < kFrameHeaderBytes) break;
      frame_header_have_ = 0;
      payload_left_ =
          (size_t{frame_header_[0]} << 16) | (size_t{frame_header_[1]} << 8) | frame_header_[2];
      const uint8_t type = frame_header_[3];
      const uint8_t flags = frame_header_[4];
      const uint32_t stream_id = ((uint32_t{frame_header_[5]} & 0x7f) << 24) |
                                 (uint32_t{frame_header_[6]} << 16) |
                                 (uint32_t{frame_header_[7]} << 8) | frame_header_[8];
      if (type == kSettingsFrame && (flags & kAckFlag) != 0) settings_acknowledged_ = true;
      if (type == kHeadersFrame) {
        // A client's streams have rising ids: a HEADERS frame with a higher one opens a stream.
        if (!settings_acknowledged_ && stream_id > last_stream_id_ &&
            ++streams_before_ack_ > max_streams_before_ack_) {
          over_limit_ = true;
          break;
        }
        last_stream_id_ = std::max(last_stream_id_, stream_id);
        block_bytes_ = payload_left_;
      } else if (type == kContinuationFrame) {
        block_bytes_ += payload_left_;
      } else {
        continue;
      }
      over_limit_ = block_bytes_ > max_block_bytes_;
    }
  }
  return !over_limit_;
}

// Bytes read from one side and not yet written to the other.
struct ConnectionGuard::Buffer {
  char data[kBufferBytes];
  size_t begin = 0;
  size_t end = 0;
  bool empty() const { return begin == end; }
};

struct ConnectionGuard::Connection {
  Connection(uint64_t id, int client_fd, int server_fd, size_t max_header_block_bytes,
             uint32_t max_streams_before_ack)
      : id(id),
        client(client_fd),
        server(server_fd),
        meter(max_header_block_bytes, max_streams_before_ack) {}
  uint64_t id;
  int client;  // the accepted socket
  int server;  // our end of the pair gRPC serves; -1 once gRPC has closed it and all is read
  Buffer to_server;
  Buffer to_client;
  HeaderBlockMeter meter;
  bool client_done = false;        // end of stream read from the client
  bool server_write_shut = false;  // the client's end of stream passed on to gRPC
  bool server_hung_up = false;     // gRPC closed its end: what is left is read without epoll
  bool client_write_shut = false;  // gRPC's end of stream passed on to the client
  // When gRPC closed its end: from then on the connection lingers (see Pump) for at most
  // kLinger, then ends whatever the client does.
  absl::optional<absl::Time> closing_since;
  uint32_t client_interest = 0;
  uint32_t server_interest = 0;
  uint64_t last_active = 0;  // ConnectionGuard::activity_ when a byte last moved either way
};

namespace {

// The epoll key of one side of a connection.
uint64_t Key(uint64_t id, bool server_side) { return id * 2 + (server_side ? 1 : 0); }
constexpr uint64_t kWakeKey = ~uint64_t{0};

enum class Io { kProgress, kWouldBlock, kEnd, kError };

Io ReadInto(int fd, char* data, size_t capacity, size_t* read_bytes) {
  const ssize_t n = recv(fd, data, capacity, MSG_DONTWAIT);
  if (n > 0) {
    *read_bytes = static_cast<size_t>(n);
    return Io::kProgress;
  }
  if (n == 0) return Io::kEnd;
  return (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? Io::kWouldBlock : Io::kError;
}

// Writes what `buffer` holds to `fd`; kProgress when it is all written.
template <typename B>
Io Flush(int fd, B& buffer) {
  while (!buffer.empty()) {
    const ssize_t n = send(fd, buffer.data + buffer.begin, buffer.end - buffer.begin,
                           MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return (errno == EAGAIN || errno == EWOULDBLOCK) ? Io::kWouldBlock : Io::kError;
    }
    buffer.begin += static_cast<size_t>(n);
  }
  buffer.begin = buffer.end = 0;
  return Io::kProgress;
}

}  // namespace

std::shared_ptr<ConnectionGuard> ConnectionGuard::Start(const Options& options) {
  const int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  const int wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (epoll_fd < 0 || wake_fd < 0) {
    // Without its thread the guard refuses every connection (fails closed).
    LogError(absl::StrCat("verdictd: connection guard: ", std::strerror(errno)));
  }
  std::shared_ptr<ConnectionGuard> guard(new ConnectionGuard(options, epoll_fd, wake_fd));
  if (epoll_fd >= 0 && wake_fd >= 0) {
    epoll_event wake{};
    wake.events = EPOLLIN;
    wake.data.u64 = kWakeKey;
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, wake_fd, &wake);
    guard->relay_ = std::thread([raw = guard.get()] { raw->Run(); });
  }
  return guard;
}

ConnectionGuard::ConnectionGuard(const Options& options, int epoll_fd, int wake_fd)
    : options_(options), epoll_fd_(epoll_fd), wake_fd_(wake_fd) {}

ConnectionGuard::~ConnectionGuard() {
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
  }
  if (relay_.joinable()) {
    const uint64_t one = 1;
    (void)!write(wake_fd_, &one, sizeof(one));
    relay_.join();
  }
  for (const std::unique_ptr<Connection>& connection : connections_) {
    if (connection == nullptr) continue;
    close(connection->client);
    close(connection->server);
  }
  absl::MutexLock lock(&mutex_);
  for (const auto& [client, server] : to_adopt_) {
    close(client);
    close(server);
  }
  if (epoll_fd_ >= 0) close(epoll_fd_);
  if (wake_fd_ >= 0) close(wake_fd_);
}

std::unique_ptr<grpc::ServerBuilderOption> ConnectionGuard::ServerBuilderOption() {
  return std::make_unique<GuardBuilderOption>(shared_from_this());
}

ConnectionGuard::Counters ConnectionGuard::counters() const {
  return {open_.load(), refused_over_limit_.load(), evicted_idle_.load(),
          closed_for_header_block_.load()};
}

void ConnectionGuard::TakeOver(int fd) {
  // Up to max_connections more wait for the relay thread, which then ends as many idle ones.
  if (!relay_.joinable() || open_.fetch_add(1) >= 2 * int64_t{options_.max_connections}) {
    open_.fetch_sub(1);
    refused_over_limit_.fetch_add(1);
    shutdown(fd, SHUT_RDWR);
    return;
  }
  int pair[2];
  const int client = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (client < 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, pair) != 0) {
    if (client >= 0) close(client);
    open_.fetch_sub(1);
    shutdown(fd, SHUT_RDWR);
    return;
  }
  // gRPC's descriptor number now names the pair's first end; the client's socket lives on as
  // `client`, which only the guard holds.
  if (dup3(pair[0], fd, O_CLOEXEC) < 0) {
    close(pair[0]);
    close(pair[1]);
    close(client);
    open_.fetch_sub(1);
    shutdown(fd, SHUT_RDWR);
    return;
  }
  close(pair[0]);
  // Each relayed write goes out at once (a unix socket refuses the option, harmlessly).
  const int no_delay = 1;
  setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &no_delay, sizeof(no_delay));
  {
    absl::MutexLock lock(&mutex_);
    to_adopt_.emplace_back(client, pair[1]);
  }
  const uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof(one));
}

void ConnectionGuard::Adopt(int client_fd, int server_fd) {
  uint64_t id;
  if (!free_ids_.empty()) {
    id = free_ids_.back();
    free_ids_.pop_back();
  } else {
    id = connections_.size();
    connections_.emplace_back();
  }
  connections_[id] = std::make_unique<Connection>(
      id, client_fd, server_fd, options_.max_header_block_bytes, options_.max_streams_before_ack);
  Connection& connection = *connections_[id];
  connection.last_active = ++activity_;
  ++relayed_;
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.u64 = Key(id, false);
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, client_fd, &event);
  event.data.u64 = Key(id, true);
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, server_fd, &event);
  connection.client_interest = connection.server_interest = EPOLLIN;
}

void ConnectionGuard::Run() {
  epoll_event events[kMaxEvents];
  for (;;) {
    // While connections linger, wake up to end those that lingered long enough.
    const int timeout_ms = closing_.empty() ? -1 : 250;
    const int ready = epoll_wait(epoll_fd_, events, kMaxEvents, timeout_ms);
    if (ready < 0 && errno != EINTR) {
      LogError(absl::StrCat("verdictd: connection guard: epoll_wait: ", std::strerror(errno)));
      return;
    }
    bool woken = false;
    for (int i = 0; i < ready; ++i) {
      if (events[i].data.u64 == kWakeKey) {
        woken = true;
      } else {
        OnReady(events[i].data.u64, events[i].events);
      }
    }
    EndLingering();
    // New connections only after the batch: an id closed in it may be given to one of them,
    // and a later event of the batch must not reach the newcomer.
    if (!woken) continue;
    uint64_t count;
    (void)!read(wake_fd_, &count, sizeof(count));
    std::vector<std::pair<int, int>> adopted;
    {
      absl::MutexLock lock(&mutex_);
      if (stopping_) return;
      adopted.swap(to_adopt_);
    }
    for (const auto& [client, server] : adopted) Adopt(client, server);
    EvictIdlest();
  }
}

void ConnectionGuard::EvictIdlest() {
  while (relayed_ > std::max(options_.max_connections, 1)) {
    // A connection gRPC has already ended goes first; then the one idle longest.
    Connection* idlest = nullptr;
    for (const std::unique_ptr<Connection>& connection : connections_) {
      if (connection == nullptr) continue;
      const bool ending = connection->closing_since.has_value();
      if (idlest == nullptr || (ending && !idlest->closing_since.has_value()) ||
          (ending == idlest->closing_since.has_value() &&
           connection->last_active < idlest->last_active)) {
        idlest = connection.get();
      }
    }
    if (idlest == nullptr) return;
    evicted_idle_.fetch_add(1);
    Close(idlest->id);
  }
}

void ConnectionGuard::OnReady(uint64_t key, uint32_t events) {
  const uint64_t id = key / 2;
  const bool server_side = key % 2 == 1;
  if (id >= connections_.size() || connections_[id] == nullptr) return;  // closed in this batch
  Connection& connection = *connections_[id];
  if ((events & (EPOLLHUP | EPOLLERR)) != 0) {
    // The client is gone both ways: nothing more can reach it.
    if (!server_side) {
      Close(id);
      return;
    }
    // gRPC closed its end. A hung-up socket stays ready for good, so it leaves the epoll set;
    // what it still holds is read as the client takes it.
    if (!connection.server_hung_up) {
      epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, connection.server, nullptr);
      connection.server_hung_up = true;
      connection.server_interest = 0;
    }
  }
  // Both sides' pending bytes are written whichever is ready, but only a side that epoll reports
  // readable (or ended) is read: at one call in flight, each way is then one epoll_wait, one
  // recv and one send. gRPC's end, once hung up, is out of the epoll set and read on every event.
  const bool readable = (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) != 0;
  if (!Pump(connection, readable && !server_side,
            (readable && server_side) || connection.server_hung_up)) {
    Close(id);
    return;
  }
  UpdateInterest(connection);
}

bool ConnectionGuard::Pump(Connection& connection, bool read_client, bool read_server) {
  // Client to gRPC, through the header block meter. Once gRPC is gone, what the client sends is
  // read and dropped until it hangs up.
  const bool to_grpc = connection.server >= 0 && !connection.server_hung_up;
  while (!connection.client_done) {
    if (to_grpc && Flush(connection.server, connection.to_server) == Io::kError) return false;
    if (to_grpc && !connection.to_server.empty()) break;  // gRPC is not reading
    // Read once more only after a full buffer: a shorter read took all the socket held.
    if (!read_client) break;
    size_t n = 0;
    const Io read = ReadInto(connection.client, connection.to_server.data, kBufferBytes, &n);
    read_client = n == kBufferBytes;
    if (read == Io::kWouldBlock) break;
    if (read == Io::kError) return false;
    if (read == Io::kEnd) {
      connection.client_done = true;
      break;
    }
    connection.last_active = ++activity_;
    if (!to_grpc) continue;  // gRPC is gone: dropped
    if (!connection.meter.Read(absl::string_view(connection.to_server.data, n))) {
      closed_for_header_block_.fetch_add(1);
      (void)!send(connection.client, kGoAwayEnhanceYourCalm, sizeof(kGoAwayEnhanceYourCalm),
                  MSG_DONTWAIT | MSG_NOSIGNAL);
      return false;
    }
    connection.to_server.end = n;
  }
  if (connection.client_done && to_grpc) {
    if (Flush(connection.server, connection.to_server) == Io::kError) return false;
    if (connection.to_server.empty() && !connection.server_write_shut) {
      shutdown(connection.server, SHUT_WR);  // gRPC reads the end of the stream
      connection.server_write_shut = true;
    }
  }
  // gRPC to client.
  while (connection.server >= 0) {
    if (Flush(connection.client, connection.to_client) == Io::kError) return false;
    if (!connection.to_client.empty()) break;  // the client is not reading: wait for it
    if (!read_server) break;
    size_t n = 0;
    const Io read = ReadInto(connection.server, connection.to_client.data, kBufferBytes, &n);
    // Once gRPC has hung up, epoll no longer reports its end: read it to the end now.
    read_server = n == kBufferBytes || connection.server_hung_up;
    if (read == Io::kWouldBlock) break;
    if (read == Io::kProgress) {
      connection.to_client.end = n;
      connection.last_active = ++activity_;
      continue;
    }
    // gRPC closed the connection (or failed): its end is done with.
    close(connection.server);
    connection.server = -1;
    connection.server_interest = 0;
  }
  if (connection.server_hung_up && !connection.closing_since.has_value()) {
    connection.closing_since = absl::Now();
    closing_.push_back(connection.id);
  }
  if (connection.server < 0) {
    if (!connection.closing_since.has_value()) {
      connection.closing_since = absl::Now();
      closing_.push_back(connection.id);
    }
    if (Flush(connection.client, connection.to_client) == Io::kError) return false;
    if (connection.to_client.empty() && !connection.client_write_shut) {
      shutdown(connection.client, SHUT_WR);  // the client reads the end of the stream
      connection.client_write_shut = true;
    }
    // Ends once the client has hung up too.
    if (connection.client_done && connection.to_client.empty()) return false;
  }
  return true;
}

void ConnectionGuard::UpdateInterest(Connection& connection) {
  uint32_t client = 0;
  uint32_t server = 0;
  const bool server_open = connection.server >= 0;
  if (!connection.client_done && (!server_open || connection.to_server.empty())) {
    client |= EPOLLIN;
  }
  if (!connection.to_client.empty()) client |= EPOLLOUT;
  if (server_open && !connection.server_hung_up) {
    if (connection.to_client.empty()) server |= EPOLLIN;
    if (!connection.to_server.empty()) server |= EPOLLOUT;
  }
  epoll_event event{};
  if (client != connection.client_interest) {
    event.events = client;
    event.data.u64 = Key(connection.id, false);
    epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, connection.client, &event);
    connection.client_interest = client;
  }
  if (server_open && !connection.server_hung_up && server != connection.server_interest) {
    event.events = server;
    event.data.u64 = Key(connection.id, true);
    epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, connection.server, &event);
    connection.server_interest = server;
  }
}

void ConnectionGuard::EndLingering() {
  if (closing_.empty()) return;
  const absl::Time now = absl::Now();
  std::vector<uint64_t> still_closing;
  for (const uint64_t id : closing_) {
    const std::unique_ptr<Connection>& connection = connections_[id];
    // Ids of closed connections may have been given to newer ones: only a connection that is
    // closing itself counts.
    if (connection == nullptr || !connection->closing_since.has_value()) continue;
    if (now - *connection->closing_since >= kLinger) {
      Close(id);
    } else {
      still_closing.push_back(id);
    }
  }
  closing_.swap(still_closing);
}

void ConnectionGuard::Close(uint64_t id) {
  Connection& connection = *connections_[id];
  // Closing removes them from the epoll set. gRPC sees its end close and ends the connection's
  // calls, freeing what they held.
  close(connection.client);
  if (connection.server >= 0) close(connection.server);
  connections_[id].reset();
  free_ids_.push_back(id);
  --relayed_;
  open_.fetch_sub(1);
}

}  // namespace verdict
