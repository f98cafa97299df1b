// The process's recvmsg and close, through which ConnectionGuard meters the sockets gRPC reads
// (server/connection_guard.h). libgrpc calls both through its PLT, and an executable's
// definitions come first in the dynamic linker's lookup, so these replace libc's for the whole
// process; for any socket the guard does not meter they only forward. A sanitizer's interceptor,
// when one is linked, is forwarded to instead of the system call, so that the sanitizer still
// sees every read and close.
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "server/connection_guard.h"

extern "C" {

ssize_t __interceptor_recvmsg(int fd, struct msghdr* message, int flags) __attribute__((weak));
int __interceptor_close(int fd) __attribute__((weak));

ssize_t recvmsg(int fd, struct msghdr* message, int flags) {
  const ssize_t read = __interceptor_recvmsg != nullptr ? __interceptor_recvmsg(fd, message, flags)
                                                        : syscall(SYS_recvmsg, fd, message, flags);
  // A peek leaves the bytes for the next read; the error queue holds no bytes of the stream.
  if ((flags & (MSG_PEEK | MSG_ERRQUEUE)) != 0) return read;
  return verdict::ConnectionGuard::AfterRead(fd, *message, read);
}

int close(int fd) {
  verdict::ConnectionGuard::BeforeClose(fd);
  return __interceptor_close != nullptr ? __interceptor_close(fd)
                                        : static_cast<int>(syscall(SYS_close, fd));
}

}  // extern "C"
