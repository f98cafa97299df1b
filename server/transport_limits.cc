#include "server/transport_limits.h"

#include <grpc/compression.h>
#include <grpcpp/resource_quota.h>

#include <algorithm>
#include <memory>

#include "server/connection_guard.h"

namespace verdict {
namespace {

// Keepalive: ping an idle client every minute so a dead peer (a pod gone without FIN) frees
// its connection; let clients ping as often as every 10 s, with or without calls in flight.
constexpr int kKeepaliveTimeMs = 60 * 1000;
constexpr int kKeepaliveTimeoutMs = 20 * 1000;
constexpr int kMinClientPingIntervalMs = 10 * 1000;

}  // namespace

std::shared_ptr<ConnectionGuard> ApplyTransportLimits(const TransportLimits& limits,
                                                      int max_receive_message_bytes,
                                                      grpc::ServerBuilder& builder) {
  builder.SetMaxReceiveMessageSize(max_receive_message_bytes);
  grpc::ResourceQuota quota("verdict-transport");
  quota.Resize(static_cast<size_t>(limits.max_memory_bytes));
  builder.SetResourceQuota(quota);

  // Identity only. Without the decompression filter a compressed message is never inflated;
  // with the algorithms disabled the call is refused as soon as its headers name one.
  builder.SetCompressionAlgorithmSupportStatus(GRPC_COMPRESS_DEFLATE, false);
  builder.SetCompressionAlgorithmSupportStatus(GRPC_COMPRESS_GZIP, false);
  builder.AddChannelArgument(GRPC_ARG_ENABLE_PER_MESSAGE_DECOMPRESSION, 0);

  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, kMaxConcurrentStreams);
  // Announced to clients, and enforced by gRPC once a client acknowledges it; the guard below
  // enforces it from the first byte.
  builder.AddChannelArgument(GRPC_ARG_MAX_METADATA_SIZE, kMaxMetadataBytes);
  builder.AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS, kHandshakeTimeoutMs);

  // A connection gets a GOAWAY at half of max_call_duration (gRPC adds up to 10% of jitter)
  // and is closed, with every call still on it, at the other half.
  const int half_ms = static_cast<int>(std::clamp<int64_t>(
      absl::ToInt64Milliseconds(limits.max_call_duration) / 2, 1, int64_t{1} << 30));
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_MS, half_ms);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_GRACE_MS, half_ms);

  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, kKeepaliveTimeMs);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, kKeepaliveTimeoutMs);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
                             kMinClientPingIntervalMs);

  ConnectionGuard::Options guard;
  guard.max_connections = limits.max_connections;
  guard.max_header_block_bytes = kMaxMetadataBytes;
  guard.max_streams_before_ack = kMaxConcurrentStreams;
  // A message arrives frame after frame: the largest one a call may send passes whole.
  guard.max_unfinished_bytes_per_connection = 2 * static_cast<size_t>(max_receive_message_bytes);
  // Half of the memory quota: the other half serves the calls that do complete.
  guard.max_unfinished_bytes =
      static_cast<size_t>(std::min(limits.max_unfinished_bytes, limits.max_memory_bytes / 2));
  std::shared_ptr<ConnectionGuard> started = ConnectionGuard::Start(guard);
  builder.SetOption(started->ServerBuilderOption());
  return started;
}

}  // namespace verdict
