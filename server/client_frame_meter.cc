#include "server/client_frame_meter.h"

#include <algorithm>
#include <cstring>

namespace verdict {
namespace {

// HTTP/2 frame types and flags (RFC 9113, section 6).
constexpr uint8_t kDataFrame = 0x0;
constexpr uint8_t kHeadersFrame = 0x1;
constexpr uint8_t kResetStreamFrame = 0x3;
constexpr uint8_t kSettingsFrame = 0x4;
constexpr uint8_t kContinuationFrame = 0x9;
constexpr uint8_t kAckFlag = 0x1;        // on SETTINGS
constexpr uint8_t kEndStreamFlag = 0x1;  // on DATA and HEADERS

}  // namespace

bool ClientFrameMeter::Read(absl::string_view bytes) {
  while (!bytes.empty() && verdict_ == Verdict::kWithinLimits) {
    if (preface_left_ > 0) {
      const size_t skipped = std::min(preface_left_, bytes.size());
      preface_left_ -= skipped;
      bytes.remove_prefix(skipped);
    } else if (payload_left_ > 0) {
      const size_t skipped = std::min(payload_left_, bytes.size());
      payload_left_ -= skipped;
      bytes.remove_prefix(skipped);
    } else {
      const size_t copied = std::min(kFrameHeaderBytes - frame_header_have_, bytes.size());
      std::memcpy(frame_header_ + frame_header_have_, bytes.data(), copied);
      frame_header_have_ += copied;
      bytes.remove_prefix(copied);
      if (frame_header_have_ < kFrameHeaderBytes) break;
      frame_header_have_ = 0;
      if (!OnFrameHeader()) break;
    }
  }
  return verdict_ == Verdict::kWithinLimits;
}

bool ClientFrameMeter::OnFrameHeader() {
  payload_left_ =
      (size_t{frame_header_[0]} << 16) | (size_t{frame_header_[1]} << 8) | frame_header_[2];
  const uint8_t type = frame_header_[3];
  const uint8_t flags = frame_header_[4];
  const uint32_t stream_id = ((uint32_t{frame_header_[5]} & 0x7f) << 24) |
                             (uint32_t{frame_header_[6]} << 16) |
                             (uint32_t{frame_header_[7]} << 8) | frame_header_[8];
  switch (type) {
    case kSettingsFrame:
      if ((flags & kAckFlag) != 0) settings_acknowledged_ = true;
      return true;
    case kDataFrame:
      // The frame that ends the stream completes its message: gRPC hands it on whole.
      if ((flags & kEndStreamFlag) != 0) {
        EndStream(stream_id);
      } else {
        AddUnfinished(stream_id, payload_left_);
      }
      return true;
    case kResetStreamFrame:
      EndStream(stream_id);
      return true;
    case kHeadersFrame:
      // A client's streams have rising ids: a HEADERS frame with a higher one opens a stream.
      if (!settings_acknowledged_ && stream_id > last_stream_id_ &&
          ++streams_before_ack_ > limits_.max_streams_before_ack) {
        verdict_ = Verdict::kTooManyStreamsBeforeAck;
        return false;
      }
      last_stream_id_ = std::max(last_stream_id_, stream_id);
      if ((flags & kEndStreamFlag) != 0) EndStream(stream_id);
      block_bytes_ = payload_left_;
      break;
    case kContinuationFrame:
      block_bytes_ += payload_left_;
      break;
    default:
      return true;
  }
  if (block_bytes_ > limits_.max_header_block_bytes) {
    verdict_ = Verdict::kHeaderBlockOverLimit;
    return false;
  }
  return true;
}

std::vector<std::pair<uint32_t, size_t>>::iterator ClientFrameMeter::PlaceOf(uint32_t stream_id) {
  return std::lower_bound(
      unfinished_.begin(), unfinished_.end(), stream_id,
      [](const std::pair<uint32_t, size_t>& held, uint32_t id) { return held.first < id; });
}

void ClientFrameMeter::AddUnfinished(uint32_t stream_id, size_t bytes) {
  if (bytes == 0) return;
  auto at = PlaceOf(stream_id);
  if (at == unfinished_.end() || at->first != stream_id) {
    at = unfinished_.insert(at, {stream_id, 0});
  }
  at->second += bytes;
  unfinished_bytes_ += bytes;
  if (unfinished_.size() > limits_.max_tracked_streams) {
    unfinished_bytes_ -= unfinished_.front().second;
    unfinished_.erase(unfinished_.begin());
  }
}

void ClientFrameMeter::EndStream(uint32_t stream_id) {
  auto at = PlaceOf(stream_id);
  if (at == unfinished_.end() || at->first != stream_id) return;
  unfinished_bytes_ -= at->second;
  unfinished_.erase(at);
}

}  // namespace verdict
