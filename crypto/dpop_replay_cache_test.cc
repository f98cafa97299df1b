#include "crypto/dpop_replay_cache.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace verdict {
namespace {

using Result = DpopReplayCache::Result;

const absl::Time kNow = absl::FromUnixSeconds(1800000000);

TEST(DpopReplayCacheTest, AnIdIsUsedOnceUntilItExpires) {
  DpopReplayCache cache;
  const absl::Time expires_at = kNow + absl::Seconds(60);
  EXPECT_EQ(cache.Record("a", expires_at, kNow), Result::kFirstUse);
  EXPECT_EQ(cache.Record("a", expires_at, kNow + absl::Seconds(59)), Result::kReplay);
  EXPECT_EQ(cache.Record("b", expires_at, kNow), Result::kFirstUse);
  // Still remembered at the last instant the proof itself is accepted...
  EXPECT_EQ(cache.Record("a", expires_at, expires_at), Result::kReplay);
  // ...and forgotten after it, when the proof is too old to be accepted anyway.
  EXPECT_EQ(cache.Record("a", expires_at + absl::Seconds(60), expires_at + absl::Nanoseconds(1)),
            Result::kFirstUse);
}

TEST(DpopReplayCacheTest, ForgetsExpiredIdsOnTheNextRecord) {
  DpopReplayCache cache;
  cache.Record("early", kNow + absl::Seconds(1), kNow);
  cache.Record("late", kNow + absl::Seconds(100), kNow);
  EXPECT_EQ(cache.size(), 2u);
  cache.Record("next", kNow + absl::Seconds(100), kNow + absl::Seconds(50));
  EXPECT_EQ(cache.size(), 2u);  // "late" and "next".
  EXPECT_EQ(cache.Record("late", kNow + absl::Seconds(100), kNow + absl::Seconds(50)),
            Result::kReplay);
}

TEST(DpopReplayCacheTest, WhenFullOfLiveIdsRefusesRatherThanForgets) {
  DpopReplayCache cache(/*capacity=*/2);
  EXPECT_EQ(cache.Record("a", kNow + absl::Seconds(10), kNow), Result::kFirstUse);
  EXPECT_EQ(cache.Record("b", kNow + absl::Seconds(20), kNow), Result::kFirstUse);
  EXPECT_EQ(cache.Record("c", kNow + absl::Seconds(20), kNow), Result::kFull);
  // Still remembered: being full did not evict a live id.
  EXPECT_EQ(cache.Record("a", kNow + absl::Seconds(10), kNow), Result::kReplay);
  // Once "a" has expired there is room again.
  EXPECT_EQ(cache.Record("c", kNow + absl::Seconds(30), kNow + absl::Seconds(11)),
            Result::kFirstUse);
}

TEST(DpopReplayCacheTest, ConcurrentUsesOfOneIdLetExactlyOneThrough) {
  DpopReplayCache cache;
  constexpr int kThreads = 8;
  constexpr int kIds = 200;
  std::atomic<int> first_uses{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&cache, &first_uses] {
      for (int id = 0; id < kIds; ++id) {
        if (cache.Record(std::to_string(id), kNow + absl::Seconds(60), kNow) == Result::kFirstUse) {
          first_uses.fetch_add(1);
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(first_uses.load(), kIds);
  EXPECT_EQ(cache.size(), static_cast<size_t>(kIds));
}

}  // namespace
}  // namespace verdict
