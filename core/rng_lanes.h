#pragma once
// Eight independent xoshiro256** streams advanced in lockstep, one vector register per state word:
// lane l produces exactly the numbers Rng(seeds[l]) would (same algorithm, same uniform()), about 8x
// faster than drawing them one stream at a time. For bulk data generation where every sample owns
// its stream (data/trigger_conditional_task.cpp). The draws run at the chosen ISA level
// (core/rng_lanes.isa.cpp); every level gives the same bits.
#include <array>
#include <cstdint>

#include "core/rng.h"

namespace sinklab {

// The four state words of every lane.
struct RngLaneState {
  static constexpr int kLanes = 8;
  alignas(64) uint64_t s0[kLanes], s1[kLanes], s2[kLanes], s3[kLanes];
};

// rows[l][k] = the k-th next Rng::uniform(lo, hi) of lane l, for k < count and l < lanes (<= 8: the
// other lanes advance too, their numbers unused). rows: `lanes` pointers to count floats each.
void rng_lanes_uniform(RngLaneState& state, float lo, float hi, int count, float* const* rows, int lanes);

class RngLanes {
 public:
  static constexpr int kLanes = RngLaneState::kLanes;

  explicit RngLanes(const std::array<uint64_t, kLanes>& seeds) {
    for (int l = 0; l < kLanes; ++l) {
      const std::array<uint64_t, 4> w = Rng(seeds[static_cast<size_t>(l)]).state().words;
      state_.s0[l] = w[0];
      state_.s1[l] = w[1];
      state_.s2[l] = w[2];
      state_.s3[l] = w[3];
    }
  }

  // out[l] = the next Rng::uniform(lo, hi) of lane l.
  void uniform(float lo, float hi, float* out) {
    float* rows[kLanes];
    for (int l = 0; l < kLanes; ++l) rows[l] = out + l;
    rng_lanes_uniform(state_, lo, hi, 1, rows, kLanes);
  }
  // rows[l][k] = the k-th next Rng::uniform(lo, hi) of lane l, for k < count and l < lanes.
  void uniform(float lo, float hi, int count, float* const* rows, int lanes) {
    rng_lanes_uniform(state_, lo, hi, count, rows, lanes);
  }

 private:
  RngLaneState state_;
};

}  // namespace sinklab
