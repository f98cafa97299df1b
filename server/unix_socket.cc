#include "server/unix_socket.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"

namespace verdict {
namespace {

// Pending connections the kernel holds before accept: the admin plane's callers are few.
constexpr int kListenBacklog = 64;

bool FillAddress(const std::string& path, sockaddr_un& address) {
  if (path.empty() || path.size() >= sizeof(address.sun_path)) return false;
  address = sockaddr_un{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.data(), path.size());
  return true;
}

}  // namespace

std::string UnixSocketPath(absl::string_view listen) {
  if (!absl::ConsumePrefix(&listen, "unix:")) return "";
  absl::ConsumePrefix(&listen, "//");  // unix:///abs/path
  return std::string(listen);
}

absl::StatusOr<int> ClaimUnixSocket(const std::string& listen) {
  const std::string path = UnixSocketPath(listen);
  sockaddr_un address;
  if (!FillAddress(path, address)) return -1;  // not unix:, or gRPC (or the bind) says why
  const auto in_use = [&listen] {
    return absl::AlreadyExistsError(
        absl::StrCat("cannot listen on ", listen, ": another process is serving that socket"));
  };
  const std::string lock_path = path + ".lock";
  const int lock = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock < 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", listen, ": ", lock_path, ": ", std::strerror(errno)));
  }
  if (flock(lock, LOCK_EX | LOCK_NB) != 0) {
    close(lock);
    return in_use();
  }
  struct stat file;
  if (stat(path.c_str(), &file) != 0 || !S_ISSOCK(file.st_mode)) return lock;
  const int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (probe < 0) return lock;
  const bool stale =
      connect(probe, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0 &&
      (errno == ECONNREFUSED || errno == ENOENT);
  close(probe);
  if (stale) return lock;
  close(lock);
  return in_use();
}

absl::StatusOr<std::unique_ptr<UnixListener>> UnixListener::Start(const std::string& listen,
                                                                  const UnixSocketAccess& access,
                                                                  Adopt adopt) {
  const std::string path = UnixSocketPath(listen);
  sockaddr_un address;
  if (!FillAddress(path, address)) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", listen,
                                               ": not a unix: address with a path of at most ",
                                               sizeof(address.sun_path) - 1, " bytes"));
  }
  absl::StatusOr<int> lock = ClaimUnixSocket(listen);
  if (!lock.ok()) return lock.status();
  int listen_fd = -1;
  int stop_fd = -1;
  const auto fail = [&](absl::string_view what) {
    const absl::Status status = absl::UnavailableError(
        absl::StrCat("cannot listen on ", listen, ": ", what, ": ", std::strerror(errno)));
    if (listen_fd >= 0) close(listen_fd);
    if (stop_fd >= 0) close(stop_fd);
    close(*lock);
    return status;
  };
  listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (listen_fd < 0) return fail("socket");
  unlink(path.c_str());  // a stale socket: ClaimUnixSocket found no live server on it
  if (bind(listen_fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    return fail("bind");
  }
  // Nobody can connect before listen(): the file's access is right before anybody may use it.
  if (access.group.has_value() && chown(path.c_str(), static_cast<uid_t>(-1), *access.group) != 0) {
    unlink(path.c_str());
    return fail(absl::StrCat("cannot give the socket to group ", *access.group));
  }
  if (chmod(path.c_str(), access.mode) != 0) {
    unlink(path.c_str());
    return fail("chmod");
  }
  if (::listen(listen_fd, kListenBacklog) != 0) {
    unlink(path.c_str());
    return fail("listen");
  }
  stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (stop_fd < 0) {
    unlink(path.c_str());
    return fail("eventfd");
  }
  return std::unique_ptr<UnixListener>(
      new UnixListener(path, listen_fd, *lock, stop_fd, std::move(adopt)));
}

UnixListener::UnixListener(std::string path, int listen_fd, int lock_fd, int stop_fd, Adopt adopt)
    : path_(std::move(path)),
      listen_fd_(listen_fd),
      lock_fd_(lock_fd),
      stop_fd_(stop_fd),
      adopt_(std::move(adopt)),
      thread_([this] { AcceptUntilStopped(); }) {}

UnixListener::~UnixListener() { Stop(); }

void UnixListener::Stop() {
  if (stopped_) return;
  stopped_ = true;
  const uint64_t one = 1;
  while (write(stop_fd_, &one, sizeof(one)) < 0 && errno == EINTR) {
  }
  thread_.join();
  unlink(path_.c_str());
  close(listen_fd_);
  close(stop_fd_);
  close(lock_fd_);  // the path may be claimed by another server now
}

void UnixListener::AcceptUntilStopped() {
  while (true) {
    pollfd events[2] = {{stop_fd_, POLLIN, 0}, {listen_fd_, POLLIN, 0}};
    if (poll(events, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (events[0].revents != 0) return;
    if (events[1].revents == 0) continue;
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      // EAGAIN: another wake-up took it; EMFILE and the like: wait for the next poll rather
      // than spin (the pending connection stays in the backlog).
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED) {
        poll(events, 1, 100);
      }
      continue;
    }
    adopt_(fd);
  }
}

std::optional<uid_t> PeerUid(int fd) {
  // Only a unix socket carries its peer's credentials (another socket answers an overflow uid).
  int domain = 0;
  socklen_t domain_length = sizeof(domain);
  if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &domain_length) != 0 || domain != AF_UNIX) {
    return std::nullopt;
  }
  ucred credentials{};
  socklen_t length = sizeof(credentials);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0 ||
      length != sizeof(credentials)) {
    return std::nullopt;
  }
  return credentials.uid;
}

namespace {

// A socket, as long as it is open: its device and inode.
struct SocketIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  bool operator==(const SocketIdentity& other) const {
    return device == other.device && inode == other.inode;
  }
};

std::optional<SocketIdentity> IdentityOf(int fd) {
  struct stat status {};
  if (fstat(fd, &status) != 0) return std::nullopt;
  return SocketIdentity{status.st_dev, status.st_ino};
}

struct AdoptedPeer {
  std::optional<uid_t> uid;
  std::optional<SocketIdentity> socket;  // what the number named when it was adopted
};

absl::Mutex adopted_peers_mu(absl::kConstInit);
absl::flat_hash_map<int, AdoptedPeer>& AdoptedPeers()
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(adopted_peers_mu) {
  static auto* peers = new absl::flat_hash_map<int, AdoptedPeer>();
  return *peers;
}

}  // namespace

void RememberAdoptedPeer(int fd, std::optional<uid_t> uid) {
  const std::optional<SocketIdentity> socket = IdentityOf(fd);
  absl::MutexLock lock(&adopted_peers_mu);
  AdoptedPeers()[fd] = AdoptedPeer{uid, socket};
}

std::string CallerIdentity(absl::string_view peer) {
  absl::string_view fd_text = peer;
  int fd = -1;
  if (!absl::ConsumePrefix(&fd_text, "fd:") || !absl::SimpleAtoi(fd_text, &fd) || fd < 0) {
    return std::string(peer);
  }
  // The descriptor is the connection's while the call runs; one that has closed meanwhile may
  // name another socket, or none, but then this call's connection is gone and it answers no one.
  std::optional<uid_t> uid;
  bool adopted = false;
  {
    absl::MutexLock lock(&adopted_peers_mu);
    if (auto it = AdoptedPeers().find(fd); it != AdoptedPeers().end()) {
      adopted = true;
      // The number names another socket than the one adopted under it: that connection closed.
      const std::optional<SocketIdentity> now = IdentityOf(fd);
      if (!it->second.socket.has_value() || !now.has_value() || !(*now == *it->second.socket)) {
        return absl::StrCat("gone:", peer);
      }
      uid = it->second.uid;
    }
  }
  if (!adopted) uid = PeerUid(fd);
  return uid.has_value() ? absl::StrCat("uid:", *uid) : std::string(peer);
}

}  // namespace verdict
