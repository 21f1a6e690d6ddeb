#include <algorithm>
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

// state: 4 words x 8 lanes; rows: `lanes` pointers to [count] floats
void rng_lanes_uniform(RngLaneState& state, float lo, float hi, int count, float* const* rows, int lanes) {
  constexpr int kLanes = RngLaneState::kLanes;
  // The state in locals for the whole call: stores through `rows` cannot alias them, so it stays in
  // registers instead of being reloaded after every row store.
  alignas(64) uint64_t s0[kLanes], s1[kLanes], s2[kLanes], s3[kLanes];
  std::copy_n(state.s0, kLanes, s0);
  std::copy_n(state.s1, kLanes, s1);
  std::copy_n(state.s2, kLanes, s2);
  std::copy_n(state.s3, kLanes, s3);
  const float width = hi - lo;
  for (int k = 0; k < count; ++k) {
    alignas(32) float v[kLanes];
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
      v[l] = lo + width * unit;
    }
    if (lanes == kLanes) {  // eight plain stores (a loop over `lanes` became a slow scatter instruction)
      rows[0][k] = v[0], rows[1][k] = v[1], rows[2][k] = v[2], rows[3][k] = v[3];
      rows[4][k] = v[4], rows[5][k] = v[5], rows[6][k] = v[6], rows[7][k] = v[7];
    } else {
      for (int l = 0; l < lanes; ++l) rows[l][k] = v[l];
    }
  }
  std::copy_n(s0, kLanes, state.s0);
  std::copy_n(s1, kLanes, state.s1);
  std::copy_n(s2, kLanes, state.s2);
  std::copy_n(s3, kLanes, state.s3);
}

}  // namespace sinklab::SINKLAB_ISA_NAMESPACE
SINKLAB_ISA_END
