#include "server/unix_socket.h"

#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

// A fresh directory under /tmp: a socket's path holds at most 107 bytes.
std::string FreshSocketPath() {
  char dir[] = "/tmp/verdict-unix-socket-XXXXXX";
  EXPECT_NE(mkdtemp(dir), nullptr);
  return absl::StrCat(dir, "/s.sock");
}

// A client connection to `path`, or -1.
int Connect(const std::string& path) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.data(), path.size());
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

TEST(UnixSocketTest, UnixAddressesNameTheirPath) {
  EXPECT_EQ(UnixSocketPath("unix:/run/v.sock"), "/run/v.sock");
  EXPECT_EQ(UnixSocketPath("unix:///run/v.sock"), "/run/v.sock");
  EXPECT_EQ(UnixSocketPath("unix:v.sock"), "v.sock");
  EXPECT_EQ(UnixSocketPath("127.0.0.1:5"), "");
}

// The admin throttle's key: each local user is a caller of its own.
TEST(UnixSocketTest, AnAdoptedUnixConnectionIsKnownByItsPeersUid) {
  int pair[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
  EXPECT_EQ(PeerUid(pair[0]), geteuid());
  EXPECT_EQ(CallerIdentity(absl::StrCat("fd:", pair[0])), absl::StrCat("uid:", geteuid()));
  close(pair[0]);
  close(pair[1]);
  // What is not an adopted unix connection stays as gRPC names it.
  EXPECT_EQ(CallerIdentity("ipv4:127.0.0.2:4000"), "ipv4:127.0.0.2:4000");
  EXPECT_EQ(CallerIdentity("unix:"), "unix:");
  const int tcp = socket(AF_INET, SOCK_STREAM, 0);
  EXPECT_EQ(PeerUid(tcp), std::nullopt);
  EXPECT_EQ(CallerIdentity(absl::StrCat("fd:", tcp)), absl::StrCat("fd:", tcp));
  close(tcp);
}

// A call whose connection closed while it waited must not be keyed by the uid of the connection
// adopted under the same descriptor number before (or of whatever holds the number now).
TEST(UnixSocketTest, ADescriptorNumberReusedByAnotherSocketNamesNoUid) {
  int adopted[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, adopted), 0);
  const int number = adopted[0];
  RememberAdoptedPeer(number, uid_t{4242});  // as if a local user 4242 had connected
  EXPECT_EQ(CallerIdentity(absl::StrCat("fd:", number)), "uid:4242");
  close(adopted[0]);
  // The lowest free number goes to the next socket opened: the one just closed.
  int other[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, other), 0);
  ASSERT_EQ(other[0], number);
  EXPECT_EQ(CallerIdentity(absl::StrCat("fd:", number)), absl::StrCat("gone:fd:", number));
  close(other[0]);
  close(other[1]);
  close(adopted[1]);
}

TEST(UnixSocketTest, TheListenerHandsOnEachConnectionAndItsFileHasTheAccessAskedFor) {
  const std::string path = FreshSocketPath();
  const mode_t umask_before = umask(0);
  absl::Mutex mu;
  int adopted = 0;
  absl::StatusOr<std::unique_ptr<UnixListener>> listener =
      UnixListener::Start(absl::StrCat("unix:", path), {.mode = 0600}, [&](int fd) {
        EXPECT_EQ(PeerUid(fd), geteuid());
        close(fd);
        absl::MutexLock lock(&mu);
        ++adopted;
      });
  umask(umask_before);
  ASSERT_TRUE(listener.ok()) << listener.status();
  struct stat file;
  ASSERT_EQ(stat(path.c_str(), &file), 0);
  EXPECT_TRUE(S_ISSOCK(file.st_mode));
  EXPECT_EQ(file.st_mode & 0777, 0600u);

  for (int i = 0; i < 3; ++i) {
    const int client = Connect(path);
    ASSERT_GE(client, 0) << i;
    close(client);
  }
  {
    absl::MutexLock lock(&mu);
    mu.Await(absl::Condition(
        +[](int* n) { return *n == 3; }, &adopted));
  }

  // A second listener on the path is refused while the first serves it.
  absl::StatusOr<std::unique_ptr<UnixListener>> second =
      UnixListener::Start(absl::StrCat("unix:", path), {}, [](int fd) { close(fd); });
  EXPECT_EQ(second.status().code(), absl::StatusCode::kAlreadyExists);

  (*listener)->Stop();
  EXPECT_NE(stat(path.c_str(), &file), 0) << "the socket file is removed";
  EXPECT_LT(Connect(path), 0);
  // And the path can be served again.
  absl::StatusOr<std::unique_ptr<UnixListener>> again =
      UnixListener::Start(absl::StrCat("unix:", path), {}, [](int fd) { close(fd); });
  EXPECT_TRUE(again.ok()) << again.status();
}

}  // namespace
}  // namespace verdict
