// What a client's HTTP/2 byte stream asks the server to hold, counted from the frame headers
// alone (payloads are skipped, never decoded), so that ConnectionGuard can end a connection
// before gRPC 1.51 holds more than verdict allows (tests/reliability/RELIABILITY.md, "Transport
// limits"):
//   - header blocks: a HEADERS frame and the CONTINUATION frames after it, counted as they are
//     announced; gRPC buffers a block whole before it checks its size.
//   - streams opened before the client acknowledges the server's SETTINGS: gRPC holds a client to
//     its stream limit only from that acknowledgement on (a client that never sends it opened
//     thousands of streams on one connection in tests/reliability/transport_limits_test.py). A
//     client that reads the server's first frame, as every HTTP/2 client does before it may know
//     the limit, acknowledges long before.
//   - unfinished messages: the DATA bytes of streams the client has neither ended nor reset,
//     which gRPC holds until the message is whole. A unary call's request ends with its last
//     DATA frame, so an ordinary call holds them for a frame or two; a half-sent message holds
//     them until the call's deadline.
//
//   ClientFrameMeter meter({.max_header_block_bytes = 16 << 10});
//   if (!meter.Read(bytes_just_read)) { /* meter.verdict() says why; end the connection */ }
#ifndef VERDICT_SERVER_CLIENT_FRAME_METER_H_
#define VERDICT_SERVER_CLIENT_FRAME_METER_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace verdict {

class ClientFrameMeter {
 public:
  struct Limits {
    size_t max_header_block_bytes = 16 << 10;
    uint32_t max_streams_before_ack = 100;
    // Streams whose unfinished bytes are kept apart. gRPC serves at most its stream limit at
    // once; a stream it ended itself (a deadline, a refusal) is never ended by the client, so
    // past this many the oldest (lowest id) is taken to be over and its bytes no longer count.
    uint32_t max_tracked_streams = 200;
  };
  enum class Verdict { kWithinLimits, kHeaderBlockOverLimit, kTooManyStreamsBeforeAck };

  explicit ClientFrameMeter(const Limits& limits) : limits_(limits) {}

  // Takes the next bytes the client sent. False once a header block is over the limit, judged
  // from the frame header that announces its length (before its payload is read), or once the
  // client has opened more streams than allowed before acknowledging SETTINGS; and from then on.
  bool Read(absl::string_view bytes);
  Verdict verdict() const { return verdict_; }

  // The DATA bytes announced on streams the client has not ended or reset (a frame counts whole
  // from its header on, whatever of its payload has arrived).
  size_t unfinished_bytes() const { return unfinished_bytes_; }

 private:
  static constexpr size_t kPrefaceBytes = 24;  // "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
  static constexpr size_t kFrameHeaderBytes = 9;

  // One frame header read whole; false once over a limit.
  bool OnFrameHeader();
  // Where `stream_id` is, or would go, in unfinished_.
  std::vector<std::pair<uint32_t, size_t>>::iterator PlaceOf(uint32_t stream_id);
  void AddUnfinished(uint32_t stream_id, size_t bytes);
  void EndStream(uint32_t stream_id);

  const Limits limits_;
  Verdict verdict_ = Verdict::kWithinLimits;
  bool settings_acknowledged_ = false;
  uint32_t streams_before_ack_ = 0;
  uint32_t last_stream_id_ = 0;
  size_t preface_left_ = kPrefaceBytes;
  uint8_t frame_header_[kFrameHeaderBytes] = {};
  size_t frame_header_have_ = 0;
  size_t payload_left_ = 0;
  size_t block_bytes_ = 0;
  std::vector<std::pair<uint32_t, size_t>> unfinished_;  // {stream id, bytes}, by rising id
  size_t unfinished_bytes_ = 0;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_CLIENT_FRAME_METER_H_
