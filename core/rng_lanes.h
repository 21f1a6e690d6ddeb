#pragma once
// Eight independent xoshiro256** streams advanced in lockstep, one vector register per state word:
// lane l produces exactly the numbers Rng(seeds[l]) would (same algorithm, same uniform()), about 8x
// faster than drawing them one stream at a time. For bulk data generation where every sample owns
// its stream (data/trigger_conditional_task.cpp).
#include <array>
#include <cstdint>

#include "core/rng.h"

namespace sinklab {

class RngLanes {
 public:
  static constexpr int kLanes = 8;

  explicit RngLanes(const std::array<uint64_t, kLanes>& seeds) {
    for (int l = 0; l < kLanes; ++l) {
      const std::array<uint64_t, 4> w = Rng(seeds[static_cast<size_t>(l)]).state().words;
      s0_[l] = w[0];
      s1_[l] = w[1];
      s2_[l] = w[2];
      s3_[l] = w[3];
    }
  }

  // out[l] = the next Rng::uniform(lo, hi) of lane l.
  void uniform(float lo, float hi, float* out) {
    const float width = hi - lo;
#pragma omp simd
    for (int l = 0; l < kLanes; ++l) {
      const uint64_t result = rotl(s1_[l] * 5, 7) * 9;
      const uint64_t t = s1_[l] << 17;
      s2_[l] ^= s0_[l];
      s3_[l] ^= s1_[l];
      s1_[l] ^= s2_[l];
      s0_[l] ^= s3_[l];
      s2_[l] ^= t;
      s3_[l] = rotl(s3_[l], 45);
      // The top 24 bits fit an int32 exactly; converting from int32 vectorizes, from uint64 does not.
      const float unit = static_cast<float>(static_cast<int32_t>(result >> 40)) * 0x1.0p-24f;
      out[l] = lo + width * unit;
    }
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  alignas(64) uint64_t s0_[kLanes], s1_[kLanes], s2_[kLanes], s3_[kLanes];
};

}  // namespace sinklab
