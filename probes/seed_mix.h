#pragma once
// The probes' per-row seeds: a splitmix64 step, so seeds that differ in any field differ everywhere.
#include <cstdint>

namespace sinklab::probes {

inline uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

}  // namespace sinklab::probes
