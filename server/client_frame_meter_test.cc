// The guard's HTTP/2 frame meter (server/client_frame_meter.h): what a client may send as request
// metadata and leave unfinished before its connection is closed. The guard itself is covered
// through a real server in server/transport_limits_test.cc.
#include "server/client_frame_meter.h"

#include <cstdint>
#include <string>

#include "gtest/gtest.h"

namespace verdict {
namespace {

constexpr char kPreface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
constexpr uint8_t kData = 0x0, kHeaders = 0x1, kResetStream = 0x3, kSettings = 0x4,
                  kContinuation = 0x9;
constexpr uint8_t kEndStream = 0x1, kEndHeaders = 0x4, kSettingsAck = 0x1;

std::string Frame(uint8_t type, uint8_t flags, uint32_t stream, size_t payload_bytes) {
  std::string frame = {static_cast<char>(payload_bytes >> 16),
                       static_cast<char>(payload_bytes >> 8),
                       static_cast<char>(payload_bytes),
                       static_cast<char>(type),
                       static_cast<char>(flags),
                       static_cast<char>(stream >> 24),
                       static_cast<char>(stream >> 16),
                       static_cast<char>(stream >> 8),
                       static_cast<char>(stream)};
  return frame + std::string(payload_bytes, 'x');
}

std::string Opening() { return std::string(kPreface) + Frame(kSettings, 0, 0, 12); }

TEST(ClientFrameMeterTest, HeaderBlocksUpToTheLimitPass) {
  ClientFrameMeter meter({.max_header_block_bytes = 1000});
  EXPECT_TRUE(meter.Read(Opening()));
  EXPECT_TRUE(meter.Read(Frame(kHeaders, kEndHeaders, 1, 1000)));
  // The limit is per block: each stream's headers start a new one.
  EXPECT_TRUE(meter.Read(Frame(kHeaders, 0, 3, 600) + Frame(kContinuation, kEndHeaders, 3, 400)));
  EXPECT_TRUE(meter.Read(Frame(kHeaders, kEndHeaders, 5, 1000)));
}

TEST(ClientFrameMeterTest, OtherFramesDoNotCount) {
  ClientFrameMeter meter({.max_header_block_bytes = 1000});
  EXPECT_TRUE(meter.Read(Opening() + Frame(kHeaders, kEndHeaders, 1, 900)));
  EXPECT_TRUE(meter.Read(Frame(kData, 0, 1, 16384) + Frame(kData, 0, 1, 16384)));
  EXPECT_TRUE(meter.Read(Frame(kHeaders, kEndHeaders, 3, 900)));
}

TEST(ClientFrameMeterTest, AHeadersFrameOverTheLimitIsRefusedFromItsFrameHeader) {
  ClientFrameMeter meter({.max_header_block_bytes = 1000});
  EXPECT_TRUE(meter.Read(Opening()));
  // Only the 9-byte frame header has arrived: its announced length is enough.
  EXPECT_FALSE(meter.Read(Frame(kHeaders, kEndHeaders, 1, 1001).substr(0, 9)));
  EXPECT_EQ(meter.verdict(), ClientFrameMeter::Verdict::kHeaderBlockOverLimit);
}

TEST(ClientFrameMeterTest, ContinuationFramesAddUpToOneBlock) {
  ClientFrameMeter meter({.max_header_block_bytes = 16384});
  EXPECT_TRUE(meter.Read(Opening() + Frame(kHeaders, 0, 1, 8192)));
  EXPECT_TRUE(meter.Read(Frame(kContinuation, 0, 1, 8192)));
  EXPECT_FALSE(meter.Read(Frame(kContinuation, 0, 1, 1)));
  // Refused for good: nothing after it is judged again.
  EXPECT_FALSE(meter.Read(Frame(kHeaders, kEndHeaders, 3, 1)));
}

TEST(ClientFrameMeterTest, FramesSplitAcrossReadsAreCountedTheSame) {
  const std::string bytes =
      Opening() + Frame(kHeaders, 0, 1, 700) + Frame(kContinuation, kEndHeaders, 1, 301);
  for (size_t piece : {1, 2, 5, 9, 10, 33}) {
    ClientFrameMeter meter({.max_header_block_bytes = 1000});
    bool accepted = true;
    for (size_t offset = 0; offset < bytes.size(); offset += piece) {
      accepted = meter.Read(bytes.substr(offset, piece)) && accepted;
    }
    EXPECT_FALSE(accepted) << "read " << piece << " bytes at a time";
  }
}

TEST(ClientFrameMeterTest, StreamsOpenedBeforeTheSettingsAcknowledgementAreCapped) {
  ClientFrameMeter meter({.max_header_block_bytes = 1000, .max_streams_before_ack = 3});
  EXPECT_TRUE(meter.Read(Opening()));
  EXPECT_TRUE(meter.Read(Frame(kHeaders, kEndHeaders, 1, 10) + Frame(kHeaders, kEndHeaders, 3, 10) +
                         Frame(kHeaders, kEndHeaders, 5, 10)));
  // A second HEADERS frame on an open stream (trailers) opens nothing.
  EXPECT_TRUE(meter.Read(Frame(kHeaders, kEndHeaders, 5, 10)));
  EXPECT_FALSE(meter.Read(Frame(kHeaders, kEndHeaders, 7, 10)));
  EXPECT_FALSE(meter.Read(Frame(kData, 0, 1, 1)));  // and from then on
  EXPECT_EQ(meter.verdict(), ClientFrameMeter::Verdict::kTooManyStreamsBeforeAck);
}

TEST(ClientFrameMeterTest, OnceTheClientAcknowledgesSettingsGrpcCountsItsStreams) {
  ClientFrameMeter meter({.max_header_block_bytes = 1000, .max_streams_before_ack = 2});
  EXPECT_TRUE(meter.Read(Opening() + Frame(kHeaders, kEndHeaders, 1, 10)));
  EXPECT_TRUE(meter.Read(Frame(kSettings, kSettingsAck, 0, 0)));
  for (uint32_t stream = 3; stream < 400; stream += 2) {
    ASSERT_TRUE(meter.Read(Frame(kHeaders, kEndHeaders, stream, 10))) << stream;
  }
}

// Unfinished messages: the DATA a stream has sent and not yet ended, which gRPC holds.

TEST(ClientFrameMeterTest, AStreamsDataIsUnfinishedUntilTheStreamEnds) {
  ClientFrameMeter meter({});
  EXPECT_TRUE(meter.Read(Opening() + Frame(kHeaders, kEndHeaders, 1, 10)));
  EXPECT_TRUE(meter.Read(Frame(kData, 0, 1, 16384) + Frame(kData, 0, 1, 100)));
  EXPECT_EQ(meter.unfinished_bytes(), 16484u);
  EXPECT_TRUE(meter.Read(Frame(kData, kEndStream, 1, 0)));
  EXPECT_EQ(meter.unfinished_bytes(), 0u);
}

TEST(ClientFrameMeterTest, AMessageSentWholeInTheFrameThatEndsItsStreamIsNeverUnfinished) {
  ClientFrameMeter meter({});
  EXPECT_TRUE(meter.Read(Opening() + Frame(kHeaders, kEndHeaders, 1, 10) +
                         Frame(kData, kEndStream, 1, 300)));
  EXPECT_EQ(meter.unfinished_bytes(), 0u);
}

TEST(ClientFrameMeterTest, AFrameCountsWholeFromItsHeader) {
  ClientFrameMeter meter({});
  EXPECT_TRUE(meter.Read(Opening() + Frame(kHeaders, kEndHeaders, 1, 10)));
  EXPECT_TRUE(meter.Read(Frame(kData, 0, 1, 16384).substr(0, 9)));
  EXPECT_EQ(meter.unfinished_bytes(), 16384u);
}

TEST(ClientFrameMeterTest, EachStreamEndsOnItsOwn) {
  ClientFrameMeter meter({});
  EXPECT_TRUE(meter.Read(Opening() + Frame(kHeaders, kEndHeaders, 1, 10) +
                         Frame(kHeaders, kEndHeaders, 3, 10) +
                         Frame(kHeaders, kEndHeaders, 5, 10)));
  EXPECT_TRUE(
      meter.Read(Frame(kData, 0, 5, 500) + Frame(kData, 0, 1, 100) + Frame(kData, 0, 3, 30)));
  EXPECT_EQ(meter.unfinished_bytes(), 630u);
  EXPECT_TRUE(meter.Read(Frame(kData, kEndStream, 3, 1)));
  EXPECT_EQ(meter.unfinished_bytes(), 600u);
  // A reset stream is over too; trailers (HEADERS ending the stream) end it as well.
  EXPECT_TRUE(meter.Read(Frame(kResetStream, 0, 5, 4)));
  EXPECT_EQ(meter.unfinished_bytes(), 100u);
  EXPECT_TRUE(meter.Read(Frame(kHeaders, kEndHeaders | kEndStream, 1, 10)));
  EXPECT_EQ(meter.unfinished_bytes(), 0u);
}

TEST(ClientFrameMeterTest, PastTheTrackedStreamsTheOldestNoLongerCounts) {
  ClientFrameMeter meter({.max_tracked_streams = 3});
  EXPECT_TRUE(meter.Read(Opening()));
  for (uint32_t stream = 1; stream <= 7; stream += 2) {
    EXPECT_TRUE(
        meter.Read(Frame(kHeaders, kEndHeaders, stream, 10) + Frame(kData, 0, stream, stream)));
  }
  // Streams 3, 5 and 7 are tracked; stream 1 (the oldest) was let go.
  EXPECT_EQ(meter.unfinished_bytes(), 3u + 5u + 7u);
}

}  // namespace
}  // namespace verdict
