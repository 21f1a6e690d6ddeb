#pragma once
// Seeded random numbers with a documented algorithm, so runs are bit-identical across machines.
//
// Algorithm: xoshiro256** (Blackman & Vigna 2018), state seeded from one 64-bit seed by SplitMix64.
// - uniform(): the top 24 bits of next() times 2^-24, a float in [0, 1).
// - uniform(lo, hi): lo + (hi - lo) * uniform().
// - normal(): Box-Muller in double on two uniforms u1 in (0, 1], u2 in [0, 1); both outputs are used
//   (the second is cached), returned as float.
// - below(n): an integer in [0, n) by Lemire's multiply-shift with rejection (unbiased).
// All generation is single-threaded; the state (four words plus the cached normal) can be saved and
// restored, which checkpoints use to resume a run bit-identically.
#include <array>
#include <cstdint>
#include <span>

namespace sinklab {

struct RngState {
  std::array<uint64_t, 4> words{};
  bool has_cached_normal = false;
  double cached_normal = 0.0;
};

class Rng {
 public:
  explicit Rng(uint64_t seed = 0);

  // Inline: data generation draws tens of thousands of these per training step.
  uint64_t next() {
    auto& s = state_.words;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
  }
  float uniform() { return static_cast<float>(next() >> 40) * 0x1.0p-24f; }
  // Out of line, in core/rng.cpp, which is compiled without FMA contraction: the same bits in every
  // build (a native build would fuse these) and as RngLanes's vector kernels.
  float uniform(float lo, float hi);
  float normal();
  float normal(float mean, float stddev);
  uint64_t below(uint64_t n);

  void fill_uniform(std::span<float> out, float lo, float hi);
  void fill_normal(std::span<float> out, float mean, float stddev);

  // A new generator whose stream is independent of this one's (seeded from next()).
  Rng split();

  const RngState& state() const { return state_; }
  void set_state(const RngState& s) { state_ = s; }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  RngState state_;
};

}  // namespace sinklab
