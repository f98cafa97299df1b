// verdict's own guard in front of gRPC's HTTP/2 transport, for the limits Debian's gRPC 1.51
// cannot enforce itself (tests/reliability/RELIABILITY.md, "Transport limits"):
//   - request metadata: gRPC checks GRPC_ARG_MAX_METADATA_SIZE against the value the client has
//     acknowledged (16 MiB until it does, and an attacker never does), and only once a header is
//     complete: it buffers a header block whole, copying it again for every CONTINUATION frame.
//     The guard counts each header block's bytes as they arrive and closes the connection as
//     soon as one is over the limit, before gRPC holds it.
//   - connections: gRPC has no limit on how many are open; the guard holds them to one. At the
//     limit a new connection takes the place of the one that has been idle longest (no byte
//     either way for the longest time), so a client that holds every connection open cannot keep
//     a health probe's new connection out: the probe is the most recent to act, an idle or
//     trickling attacker's connections the least.
//
// gRPC keeps its own listener (its addresses, unix sockets, peer names); the guard takes each
// accepted socket over through GRPC_ARG_SOCKET_MUTATOR, before gRPC reads from it: the socket's
// descriptor number then names one end of a socket pair that gRPC serves, and the guard relays
// the bytes between the client and the pair's other end on a thread of its own.
//
//   std::shared_ptr<ConnectionGuard> guard = ConnectionGuard::Start({.max_connections = 100});
//   builder.SetOption(guard->ServerBuilderOption());
#ifndef VERDICT_SERVER_CONNECTION_GUARD_H_
#define VERDICT_SERVER_CONNECTION_GUARD_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace verdict {

// Counts the bytes of every HTTP/2 header block a client sends (a HEADERS frame and the
// CONTINUATION frames after it), reading the client's byte stream from its connection preface on.
// A pure parser of frame headers: payloads are skipped, not decoded.
//
// It also counts the streams a client opens before it acknowledges the server's SETTINGS: gRPC
// holds a client to its stream limit only from that acknowledgement on (a client that never
// sends it, or sends it late, opened thousands of streams on one connection in
// tests/reliability/transport_limits_test.py), so more than `max_streams_before_ack` by then
// closes the connection. A client that reads the server's first frame, as every HTTP/2 client
// does before it may know the limit, acknowledges long before.
class HeaderBlockMeter {
 public:
  explicit HeaderBlockMeter(size_t max_block_bytes, uint32_t max_streams_before_ack = 100)
      : max_block_bytes_(max_block_bytes), max_streams_before_ack_(max_streams_before_ack) {}

  // Takes the next bytes the client sent. False once a header block is over the limit, judged
  // from the frame header that announces its length (before its payload is read), or once the
  // client has opened more streams than allowed before acknowledging SETTINGS; and from then on.
  bool Read(absl::string_view bytes);

 private:
  static constexpr size_t kPrefaceBytes = 24;  // "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
  static constexpr size_t kFrameHeaderBytes = 9;

  const size_t max_block_bytes_;
  const uint32_t max_streams_before_ack_;
  bool settings_acknowledged_ = false;
  uint32_t streams_before_ack_ = 0;
  uint32_t last_stream_id_ = 0;
  size_t preface_left_ = kPrefaceBytes;
  uint8_t frame_header_[kFrameHeaderBytes] = {};
  size_t frame_header_have_ = 0;
  size_t payload_left_ = 0;
  size_t block_bytes_ = 0;
  bool over_limit_ = false;
};

class ConnectionGuard : public std::enable_shared_from_this<ConnectionGuard> {
 public:
  struct Options {
    // Connections open at once through the guard. One more ends the connection idle longest
    // (see the file comment); while the relay has not caught up, accepted connections past
    // twice this are closed at once.
    int max_connections = 100;
    // The largest header block (HEADERS plus CONTINUATION frames, HPACK-encoded) a client may
    // send; one larger closes its connection.
    size_t max_header_block_bytes = 16 << 10;
    // The streams a client may open before it acknowledges the server's SETTINGS (which carry
    // gRPC's own per-connection limit); one more closes its connection.
    uint32_t max_streams_before_ack = 100;
  };

  // Starts the relay thread.
  static std::shared_ptr<ConnectionGuard> Start(const Options& options);
  // Stops the relay thread and closes every connection it still relays.
  ~ConnectionGuard();

  ConnectionGuard(const ConnectionGuard&) = delete;
  ConnectionGuard& operator=(const ConnectionGuard&) = delete;

  // A ServerBuilder option that hands every connection the server accepts to this guard. The
  // server keeps the guard alive for as long as it needs it.
  std::unique_ptr<grpc::ServerBuilderOption> ServerBuilderOption();

  // Takes over the accepted socket `fd` before gRPC reads from it (see the file comment); past
  // twice max_connections, or when no socket pair can be made, shuts the socket down instead, so
  // gRPC sees the connection end at once. Thread-safe; called on gRPC's accepting thread.
  void TakeOver(int fd);

  struct Counters {
    int64_t open = 0;                     // connections relayed now
    int64_t refused_over_limit = 0;       // connections closed at once: max_connections reached
    int64_t evicted_idle = 0;             // connections ended to make room for a newer one
    int64_t closed_for_header_block = 0;  // connections closed for a header block over the limit
  };
  Counters counters() const;

 private:
  struct Buffer;
  struct Connection;

  explicit ConnectionGuard(const Options& options, int epoll_fd, int wake_fd);
  void Run();
  void Adopt(int client_fd, int server_fd);
  void OnReady(uint64_t key, uint32_t events);
  // Moves bytes both ways as far as the sockets allow, reading only the sides epoll reported
  // readable (`read_client`, `read_server`): a read that would block costs a system call, and
  // epoll reports a side again as long as it has bytes. False when the connection is over.
  bool Pump(Connection& connection, bool read_client, bool read_server);
  void UpdateInterest(Connection& connection);
  // Closes the connections gRPC ended whose clients have had long enough to hang up.
  void EndLingering();
  // Ends the connections idle longest until no more than max_connections are relayed.
  void EvictIdlest();
  void Close(uint64_t id);

  const Options options_;
  const int epoll_fd_;
  const int wake_fd_;  // an eventfd: new connections to adopt, or stop
  std::atomic<int64_t> open_{0};
  std::atomic<int64_t> refused_over_limit_{0};
  std::atomic<int64_t> closed_for_header_block_{0};
  std::atomic<int64_t> evicted_idle_{0};

  absl::Mutex mutex_;
  std::vector<std::pair<int, int>> to_adopt_ ABSL_GUARDED_BY(mutex_);  // {client, server}
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;

  // Owned by the relay thread alone.
  std::vector<std::unique_ptr<Connection>> connections_;  // by id; null once closed
  std::vector<uint64_t> free_ids_;
  std::vector<uint64_t> closing_;  // ids of connections gRPC ended, lingering
  int64_t relayed_ = 0;            // connections in connections_
  uint64_t activity_ = 0;          // stamps Connection::last_active: higher is more recent
  std::thread relay_;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_CONNECTION_GUARD_H_
