#include <cstdint>

#include "core/cpu/isa_region.h"
#include "core/rng_lanes.h"

// Compiled once per ISA level (core/cpu/isa_dispatch.h); core/rng_lanes.cpp calls the chosen copy.
// lo + width * unit is never fused into an FMA: the lanes must give Rng::uniform's bits (core/rng.cpp,
// compiled at the baseline, has no FMA) at every level.
SINKLAB_ISA_BEGIN
#if defined(__clang__)
#pragma clang fp contract(off)
#else
#pragma GCC optimize("fp-contract=off")
#endif

namespace sinklab::SINKLAB_ISA_NAMESPACE {
namespace {

inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

// state: 4 words x 8 lanes; out: [count, 8]
void rng_lanes_uniform(RngLaneState& state, float lo, float hi, int count, float* out) {
  constexpr int kLanes = RngLaneState::kLanes;
  uint64_t* s0 = state.s0;
  uint64_t* s1 = state.s1;
  uint64_t* s2 = state.s2;
  uint64_t* s3 = state.s3;
  const float width = hi - lo;
  for (int k = 0; k < count; ++k) {
    float* o = out + k * kLanes;
#pragma omp simd
    for (int l = 0; l < kLanes; ++l) {
      const uint64_t result = rotl(s1[l] * 5, 7) * 9;
      const uint64_t t = s1[l] << 17;
      s2[l] ^= s0[l];
      s3[l] ^= s1[l];
      s1[l] ^= s2[l];
      s0[l] ^= s3[l];
      s2[l] ^= t;
      s3[l] = rotl(s3[l], 45);
      // The top 24 bits fit an int32 exactly; converting from int32 vectorizes, from uint64 does not.
      const float unit = static_cast<float>(static_cast<int32_t>(result >> 40)) * 0x1.0p-24f;
      o[l] = lo + width * unit;
    }
  }
}

}  // namespace sinklab::SINKLAB_ISA_NAMESPACE
SINKLAB_ISA_END
