// BM_Calibration: a fixed amount of pure CPU work that no project change can touch. The gate
// divides every time by its median from the same run, so a committed baseline measured on one
// machine still means something on a faster or slower one (bench/gate.py).
#include <cstdint>

#include "benchmark/benchmark.h"

namespace verdict::bench {
namespace {

// xorshift64* over a small table that stays in L1: integer work and loads, no allocation.
uint64_t Churn(uint64_t seed) {
  uint64_t table[256];
  uint64_t x = seed | 1;
  for (uint64_t& entry : table) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    entry = x * 0x2545f4914f6cdd1dULL;
  }
  uint64_t sum = 0;
  for (int round = 0; round < 16; ++round) {
    for (int i = 0; i < 256; ++i) sum += table[(sum + static_cast<uint64_t>(i)) & 255] ^ sum >> 7;
  }
  return sum;
}

void BM_Calibration(benchmark::State& state) {
  uint64_t seed = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(seed = Churn(seed));
  }
}
BENCHMARK(BM_Calibration);

}  // namespace
}  // namespace verdict::bench
