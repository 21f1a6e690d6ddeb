#include "core/rng.h"

#include <cmath>
#include <numbers>

namespace sinklab {
namespace {

uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

__extension__ typedef unsigned __int128 uint128;

}  // namespace

Rng::Rng(uint64_t seed) {
  uint64_t x = seed;
  for (auto& w : state_.words) w = splitmix64(x);
}

float Rng::normal() {
  if (state_.has_cached_normal) {
    state_.has_cached_normal = false;
    return static_cast<float>(state_.cached_normal);
  }
  const double u1 = (static_cast<double>(next() >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
  const double u2 = static_cast<double>(next() >> 11) * 0x1.0p-53;          // [0, 1)
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double angle = 2.0 * std::numbers::pi * u2;
  state_.cached_normal = r * std::sin(angle);
  state_.has_cached_normal = true;
  return static_cast<float>(r * std::cos(angle));
}

uint64_t Rng::below(uint64_t n) {
  // Lemire: multiply-shift, rejecting the biased low band.
  uint128 m = static_cast<uint128>(next()) * n;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < n) {
    const uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<uint128>(next()) * n;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

float Rng::uniform(float lo, float hi) { return lo + (hi - lo) * uniform(); }

float Rng::normal(float mean, float stddev) { return mean + stddev * normal(); }

void Rng::fill_uniform(std::span<float> out, float lo, float hi) {
  for (float& v : out) v = uniform(lo, hi);
}

void Rng::fill_normal(std::span<float> out, float mean, float stddev) {
  for (float& v : out) v = normal(mean, stddev);
}

Rng Rng::split() { return Rng(next()); }

}  // namespace sinklab
