// verdict's own guard in front of gRPC's HTTP/2 transport, for the limits Debian's gRPC 1.51
// cannot enforce itself (tests/reliability/RELIABILITY.md, "Transport limits"):
//   - request metadata: gRPC checks GRPC_ARG_MAX_METADATA_SIZE against the value the client has
//     acknowledged (16 MiB until it does, and an attacker never does), and only once a header is
//     complete: it buffers a header block whole, copying it again for every CONTINUATION frame.
//     The guard counts each header block's bytes as they arrive and ends the connection as soon
//     as one is over the limit, before gRPC holds it.
//   - unfinished messages: gRPC's memory quota cancels calls holding half-sent messages only as
//     fast as its reclaimer runs, which a client pushing at full speed outruns (peaks of 150 to
//     230 MiB against a 64 MiB quota). The guard ends a connection whose unfinished messages
//     are over its share, and one that asks for more while all connections together hold their
//     limit (client_frame_meter.h says what counts).
//   - connections: gRPC has no limit on how many are open; the guard holds them to one. At the
//     limit a new connection takes the place of the one that has been idle longest (no byte
//     read from it for the longest time), so a client that holds every connection open cannot
//     keep a health probe's new connection out: the probe is the most recent to act, an idle or
//     trickling attacker's connections the least.
//
// gRPC keeps its own listener (its addresses, unix sockets, peer names) and reads each accepted
// socket itself; the guard registers the socket through GRPC_ARG_SOCKET_MUTATOR before gRPC
// reads from it, and meters what gRPC reads in line: server/guarded_socket_calls.cc defines the
// process's recvmsg and close (which libgrpc's TCP endpoint calls), and hands every read of a
// registered socket to the guard on gRPC's own thread. To end a connection the guard shuts its
// socket down and reports the end of the stream to gRPC, which then closes it. No thread of the
// guard's own and no copy stand between the client and gRPC (a relay thread did until issue
// 21: two more thread wake-ups per call, almost half of a call's CPU at one call in flight,
// bench/PERFORMANCE.md).
//
//   std::shared_ptr<ConnectionGuard> guard = ConnectionGuard::Start({.max_connections = 100});
//   builder.SetOption(guard->ServerBuilderOption());
#ifndef VERDICT_SERVER_CONNECTION_GUARD_H_
#define VERDICT_SERVER_CONNECTION_GUARD_H_

#include <grpcpp/grpcpp.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "server/client_frame_meter.h"

namespace verdict {

class ConnectionGuard : public std::enable_shared_from_this<ConnectionGuard> {
 public:
  struct Options {
    // Connections open at once through the guard. One more ends the connection idle longest
    // (see the file comment).
    int max_connections = 100;
    // The largest header block (HEADERS plus CONTINUATION frames, HPACK-encoded) a client may
    // send; one larger ends its connection.
    size_t max_header_block_bytes = 16 << 10;
    // The streams a client may open before it acknowledges the server's SETTINGS (which carry
    // gRPC's own per-connection limit); one more ends its connection.
    uint32_t max_streams_before_ack = 100;
    // Unfinished messages (client_frame_meter.h) one connection may hold; more ends it. At least
    // the largest message a call may send, so that one call sent in many frames passes.
    size_t max_unfinished_bytes_per_connection = 8 << 20;
    // Unfinished messages all connections together may hold: a connection that asks for more
    // beyond it is ended.
    size_t max_unfinished_bytes = 128 << 20;
  };

  static std::shared_ptr<ConnectionGuard> Start(const Options& options);

  ConnectionGuard(const ConnectionGuard&) = delete;
  ConnectionGuard& operator=(const ConnectionGuard&) = delete;

  // A ServerBuilder option that hands every connection the server accepts to this guard. The
  // server keeps the guard alive for as long as it needs it, and so does every connection the
  // guard still meters.
  std::unique_ptr<grpc::ServerBuilderOption> ServerBuilderOption();

  // Meters the accepted socket `fd` from now on (see the file comment), ending the connection
  // idle longest if this one is over max_connections. Thread-safe; called on gRPC's accepting
  // thread, before gRPC reads from `fd`.
  void TakeOver(int fd);

  struct Counters {
    int64_t open = 0;                     // connections metered now
    int64_t refused_over_limit = 0;       // connections ended at once: none could be metered
    int64_t evicted_idle = 0;             // connections ended to make room for a newer one
    int64_t closed_for_header_block = 0;  // ended for a header block (or streams) over the limit
    int64_t closed_for_unfinished = 0;    // ended for unfinished messages over the limit
  };
  Counters counters() const;

  // For server/guarded_socket_calls.cc, on the thread that called recvmsg or close: `read`
  // bytes were just read from `fd` into `message`. Returns what recvmsg returns to its caller:
  // `read`, or 0 (the end of the stream) once the guard has ended the connection.
  static ssize_t AfterRead(int fd, const msghdr& message, ssize_t read);
  // `fd` is about to be closed: the guard forgets it.
  static void BeforeClose(int fd);

 private:
  struct Socket;
  class Registry;

  explicit ConnectionGuard(const Options& options) : options_(options) {}
  ssize_t Meter(Socket& socket, const msghdr& message, size_t read);
  // Marks `socket` the most recently active of this guard's (MakeRoom ends the least).
  void Stamp(Socket& socket);
  // Ends the connections idle longest until fewer than max_connections are open. Registry's
  // mutex held.
  void MakeRoom();
  // Forgets the socket registered under `fd`, if any. Registry's mutex held.
  static void ForgetLocked(int fd);

  static Registry& registry();

  const Options options_;
  std::atomic<int64_t> open_{0};
  std::atomic<int64_t> refused_over_limit_{0};
  std::atomic<int64_t> closed_for_header_block_{0};
  std::atomic<int64_t> closed_for_unfinished_{0};
  std::atomic<int64_t> evicted_idle_{0};
  std::atomic<uint64_t> activity_{0};  // stamps Socket::last_active: higher is more recent
  std::atomic<int64_t> unfinished_bytes_{0};
  // This guard's sockets still open (ended or not); under the registry's mutex.
  std::vector<Socket*> sockets_;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_CONNECTION_GUARD_H_
