#include "server/connection_guard.h"

#include <sys/socket.h>

#include <algorithm>
#include <cstring>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

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

// GOAWAY, last stream 0, ENHANCE_YOUR_CALM: sent (best effort) before a connection is ended for
// what it sent.
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

struct ConnectionGuard::Socket {
  Socket(std::shared_ptr<ConnectionGuard> guard, int fd, const ClientFrameMeter::Limits& limits)
      : guard(std::move(guard)), fd(fd), meter(limits) {}
  const std::shared_ptr<ConnectionGuard> guard;
  const int fd;
  // Read and written on the thread reading the socket (gRPC reads one socket on one thread at a
  // time), and by BeforeClose once gRPC no longer reads it.
  ClientFrameMeter meter;
  int64_t unfinished_counted = 0;  // this socket's share of guard->unfinished_bytes_
  bool ended_for_what_it_sent = false;
  std::atomic<uint64_t> last_active{0};  // read by MakeRoom on another thread
  bool ended = false;                    // shut down by the guard; under the registry's mutex
};

// Every metered socket by its descriptor number, for every guard of the process: recvmsg finds
// a socket's guard with two loads and no lock. Chunks of the table are allocated as descriptors
// reach them and live as long as the process.
class ConnectionGuard::Registry {
 public:
  static constexpr int kChunkBits = 12;
  static constexpr int kChunks = 1 << 12;  // descriptors up to 2^24
  using Slot = std::atomic<Socket*>;

  Socket* Find(int fd) const {
    if (fd < 0 || (fd >> kChunkBits) >= kChunks) return nullptr;
    const Slot* chunk = chunks_[fd >> kChunkBits].load(std::memory_order_acquire);
    if (chunk == nullptr) return nullptr;
    return chunk[fd & ((1 << kChunkBits) - 1)].load(std::memory_order_acquire);
  }
  // False when `fd` is out of the table's range.
  bool Set(int fd, Socket* socket) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex) {
    if (fd < 0 || (fd >> kChunkBits) >= kChunks) return false;
    Slot* chunk = chunks_[fd >> kChunkBits].load(std::memory_order_acquire);
    if (chunk == nullptr) {
      chunk = new Slot[1 << kChunkBits]();
      chunks_[fd >> kChunkBits].store(chunk, std::memory_order_release);
    }
    chunk[fd & ((1 << kChunkBits) - 1)].store(socket, std::memory_order_release);
    return true;
  }

  absl::Mutex mutex;  // over Set and every guard's sockets_

 private:
  std::atomic<Slot*> chunks_[kChunks] = {};
};

// Never destroyed: gRPC's threads may still read and close sockets while the process exits.
ConnectionGuard::Registry& ConnectionGuard::registry() {
  static Registry* const registry = new Registry;
  return *registry;
}

std::shared_ptr<ConnectionGuard> ConnectionGuard::Start(const Options& options) {
  return std::shared_ptr<ConnectionGuard>(new ConnectionGuard(options));
}

std::unique_ptr<grpc::ServerBuilderOption> ConnectionGuard::ServerBuilderOption() {
  return std::make_unique<GuardBuilderOption>(shared_from_this());
}

ConnectionGuard::Counters ConnectionGuard::counters() const {
  return {open_.load(), refused_over_limit_.load(), evicted_idle_.load(),
          closed_for_header_block_.load(), closed_for_unfinished_.load()};
}

void ConnectionGuard::TakeOver(int fd) {
  auto socket = std::make_unique<Socket>(
      shared_from_this(), fd,
      ClientFrameMeter::Limits{.max_header_block_bytes = options_.max_header_block_bytes,
                               .max_streams_before_ack = options_.max_streams_before_ack});
  Stamp(*socket);
  absl::MutexLock lock(&registry().mutex);
  // A socket still registered under this number was closed without BeforeClose (not through
  // the process's close): it is forgotten first.
  ForgetLocked(fd);
  if (!registry().Set(fd, socket.get())) {
    // Unmetered, it is not served (fails closed).
    refused_over_limit_.fetch_add(1);
    shutdown(fd, SHUT_RDWR);
    return;
  }
  MakeRoom();
  sockets_.push_back(socket.release());
  open_.fetch_add(1);
}

void ConnectionGuard::Stamp(Socket& socket) {
  socket.last_active.store(activity_.fetch_add(1, std::memory_order_relaxed) + 1,
                           std::memory_order_relaxed);
}

void ConnectionGuard::MakeRoom() {
  while (open_.load() >= std::max(options_.max_connections, 1)) {
    Socket* idlest = nullptr;
    for (Socket* socket : sockets_) {
      if (socket->ended) continue;
      if (idlest == nullptr || socket->last_active.load(std::memory_order_relaxed) <
                                   idlest->last_active.load(std::memory_order_relaxed)) {
        idlest = socket;
      }
    }
    if (idlest == nullptr) return;
    evicted_idle_.fetch_add(1);
    idlest->ended = true;
    open_.fetch_sub(1);
    shutdown(idlest->fd, SHUT_RDWR);  // still open: its close waits for this mutex
  }
}

ssize_t ConnectionGuard::AfterRead(int fd, const msghdr& message, ssize_t read) {
  if (read <= 0) return read;
  Socket* socket = registry().Find(fd);
  if (socket == nullptr) return read;
  return socket->guard->Meter(*socket, message, static_cast<size_t>(read));
}

ssize_t ConnectionGuard::Meter(Socket& socket, const msghdr& message, size_t read) {
  if (socket.ended_for_what_it_sent) return 0;
  Stamp(socket);
  bool within = true;
  size_t left = read;
  for (size_t i = 0; i < static_cast<size_t>(message.msg_iovlen) && left > 0 && within; ++i) {
    const size_t n = std::min(left, message.msg_iov[i].iov_len);
    within = socket.meter.Read(
        absl::string_view(static_cast<const char*>(message.msg_iov[i].iov_base), n));
    left -= n;
  }
  const int64_t unfinished = static_cast<int64_t>(socket.meter.unfinished_bytes());
  const int64_t more = unfinished - socket.unfinished_counted;
  socket.unfinished_counted = unfinished;
  const int64_t all = unfinished_bytes_.fetch_add(more) + more;
  std::atomic<int64_t>* ended_for = nullptr;
  if (!within) {
    ended_for = &closed_for_header_block_;
  } else if (unfinished > static_cast<int64_t>(options_.max_unfinished_bytes_per_connection) ||
             (more > 0 && all > static_cast<int64_t>(options_.max_unfinished_bytes))) {
    ended_for = &closed_for_unfinished_;
  }
  if (ended_for == nullptr) return static_cast<ssize_t>(read);
  ended_for->fetch_add(1);
  (void)!send(socket.fd, kGoAwayEnhanceYourCalm, sizeof(kGoAwayEnhanceYourCalm),
              MSG_DONTWAIT | MSG_NOSIGNAL);
  // gRPC reads the end of the stream, now and at every later read, and closes the socket.
  socket.ended_for_what_it_sent = true;
  shutdown(socket.fd, SHUT_RDWR);
  return 0;
}

void ConnectionGuard::BeforeClose(int fd) {
  if (registry().Find(fd) == nullptr) return;  // not a metered socket: no lock taken
  absl::MutexLock lock(&registry().mutex);
  ForgetLocked(fd);
}

void ConnectionGuard::ForgetLocked(int fd) {
  Socket* socket = registry().Find(fd);
  if (socket == nullptr) return;
  registry().Set(fd, nullptr);
  ConnectionGuard& guard = *socket->guard;
  guard.sockets_.erase(std::find(guard.sockets_.begin(), guard.sockets_.end(), socket));
  if (!socket->ended) guard.open_.fetch_sub(1);
  guard.unfinished_bytes_.fetch_sub(socket->unfinished_counted);
  delete socket;  // may release the guard itself, which is not used after
}

}  // namespace verdict
