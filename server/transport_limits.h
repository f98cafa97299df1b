// The limits every verdictd gRPC listener (decision, ext_authz, admin) holds a client to, so
// nothing a caller sends, or leaves unsent, costs unbounded memory or holds anything for long
// (issue 16.2; figures in tests/reliability/RELIABILITY.md, "Transport limits"):
//   - memory: a gRPC ResourceQuota over every connection of the listener together; under
//     pressure gRPC shrinks its read buffers and flow-control windows, refuses new connections
//     and cancels calls that hold buffers;
//   - compression: identity only; a compressed message is refused (UNIMPLEMENTED) without being
//     inflated (gRPC 1.51 inflates before its size check);
//   - request metadata: 16 KiB per call, enforced by ConnectionGuard in front of gRPC;
//   - duration: every call and connection ends within max_call_duration of the connection's
//     start (gRPC's connection age: a GOAWAY at half of it, every call still open cancelled at
//     the end), so a call without a deadline, a half-sent message or an answer never read is
//     ended and its memory freed;
//   - concurrency: 100 streams per connection, max_connections connections (ConnectionGuard);
//   - half-sent messages: what gRPC holds of messages not yet whole, per connection and over all
//     of them (ConnectionGuard), below what its memory quota can reclaim in time.
//
//   grpc::ServerBuilder builder;
//   ApplyTransportLimits(TransportLimits{}, /*max_receive_message_bytes=*/4 << 20, builder);
#ifndef VERDICT_SERVER_TRANSPORT_LIMITS_H_
#define VERDICT_SERVER_TRANSPORT_LIMITS_H_

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <limits>
#include <memory>

#include "absl/time/time.h"
#include "server/connection_guard.h"

namespace verdict {

inline constexpr int kMaxConcurrentStreams = 100;
inline constexpr int kMaxMetadataBytes = 16 << 10;
// How long a new connection may take to send its HTTP/2 preface and settings.
inline constexpr int kHandshakeTimeoutMs = 10 * 1000;

struct TransportLimits {
  // The memory gRPC may hold for all of a listener's connections together.
  int64_t max_memory_bytes = int64_t{256} << 20;
  // The longest any call lives (see the file comment); generous, so callers that set no
  // deadline, Envoy's ext_authz among them when configured so, are never cut short.
  absl::Duration max_call_duration = absl::Minutes(5);
  // Connections open at once on a listener.
  int max_connections = 100;
  // Bytes of half-sent messages all connections together may hold (server/client_frame_meter.h
  // says what counts), and never more than half of max_memory_bytes; one connection may hold
  // twice the largest message.
  int64_t max_unfinished_bytes = std::numeric_limits<int64_t>::max();
};

// Sets the limits on `builder` (call before BuildAndStart), with messages of up to
// `max_receive_message_bytes` (a larger one is refused with RESOURCE_EXHAUSTED). Returns the
// listener's connection guard: connections gRPC accepts itself reach it through the socket mutator,
// but one handed to the server from outside (grpc::AddInsecureChannelFromFd) does not, and must be
// given to its TakeOver first (GrpcServer::AdoptConnection does).
std::shared_ptr<ConnectionGuard> ApplyTransportLimits(const TransportLimits& limits,
                                                      int max_receive_message_bytes,
                                                      grpc::ServerBuilder& builder);

}  // namespace verdict

#endif  // VERDICT_SERVER_TRANSPORT_LIMITS_H_
