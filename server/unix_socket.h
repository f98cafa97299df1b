// Unix-socket listeners: claiming a socket path for one live server, and accepting connections
// verdict serves itself so that it knows each peer's uid (SO_PEERCRED), which gRPC 1.51 does not
// tell a callback service.
//
//   absl::StatusOr<std::unique_ptr<UnixListener>> listener = UnixListener::Start(
//       "unix:/run/verdict/admin.sock", {.mode = 0600},
//       [&server](int fd) { server->AdoptConnection(fd); });
//   ...
//   (*listener)->Stop();  // before the server shuts down
#ifndef VERDICT_SERVER_UNIX_SOCKET_H_
#define VERDICT_SERVER_UNIX_SOCKET_H_

#include <sys/types.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace verdict {

// The path of a "unix:PATH" or "unix://PATH" address; "" for any other address.
std::string UnixSocketPath(absl::string_view listen);

// gRPC removes whatever socket file is at a unix: address before it binds, so a second
// verdictd would take over a running one's socket (and remove it when it exits). Each server
// holds an flock on "<path>.lock" for as long as it runs, which makes the check and the bind
// one step for verdictd processes starting together, and the lock dies with its process. A
// socket that still answers a connect, or that cannot be probed, belongs to some other live
// server: ALREADY_EXISTS. One that does not answer is stale, left by a process that died, and may
// be replaced. Returns the lock's descriptor (close it to give the socket up), or -1 for an
// address that is not a unix: one or a path too long for one (the bind says why).
absl::StatusOr<int> ClaimUnixSocket(const std::string& listen);

struct UnixSocketAccess {
  // The socket file's permissions: connecting takes write permission on it.
  mode_t mode = 0600;
  // The group the socket file is given, when set.
  std::optional<gid_t> group;
};

// A listening unix socket whose connections a thread of its own accepts and hands on.
class UnixListener {
 public:
  // Receives each accepted connection (non-blocking, close-on-exec) and owns it from then on.
  using Adopt = std::function<void(int fd)>;

  // Claims the path (ClaimUnixSocket), binds, gives the file `access`, and only then listens, so
  // no peer connects while the socket is open to more than `access` allows, whatever the
  // umask. UNAVAILABLE when it cannot be bound or given `access`, ALREADY_EXISTS as above.
  static absl::StatusOr<std::unique_ptr<UnixListener>> Start(const std::string& listen,
                                                             const UnixSocketAccess& access,
                                                             Adopt adopt);
  // Stops accepting, removes the socket file and gives the path up. Idempotent; connections
  // already handed on are their owner's.
  void Stop();
  ~UnixListener();

  UnixListener(const UnixListener&) = delete;
  UnixListener& operator=(const UnixListener&) = delete;

 private:
  UnixListener(std::string path, int listen_fd, int lock_fd, int stop_fd, Adopt adopt);
  void AcceptUntilStopped();

  const std::string path_;
  const int listen_fd_;
  const int lock_fd_;
  const int stop_fd_;  // an eventfd: readable once Stop is called
  const Adopt adopt_;
  bool stopped_ = false;
  std::thread thread_;  // last: starts once everything it uses is initialised
};

// The uid of the process at the other end of a connected unix socket, or nullopt.
std::optional<uid_t> PeerUid(int fd);

// Records the peer uid of a connection handed to GrpcServer::AdoptConnection as descriptor `fd`,
// together with that socket's identity (device and inode): CallerIdentity("fd:N") answers the
// uid only while N still names that very socket.
void RememberAdoptedPeer(int fd, std::optional<uid_t> uid);

// Who a call's peer (gRPC's ServerContext::peer()) is, for throttling: "uid:1000" for a
// connection a UnixListener handed to GrpcServer::AdoptConnection ("fd:N"), whose peer's uid is
// read from the socket; the peer string as it is otherwise ("ipv4:10.0.0.1:5555"). A number
// whose connection has closed may have been given to another socket since: the call then answers
// no one, and is keyed "gone:fd:N", never by the uid of whoever holds the number now (or held it
// before). A caller checks that its call is still awaited after asking, so that the number was
// its connection's when it asked (server/admin_service.cc).
std::string CallerIdentity(absl::string_view peer);

}  // namespace verdict

#endif  // VERDICT_SERVER_UNIX_SOCKET_H_
