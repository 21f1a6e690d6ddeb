#pragma once
// Distinct floats with the bit patterns a byte-exact file round trip must keep: -0, the smallest denormal and
// a NaN first, then base + 0.25 i. The checkpoint tests fill parameters and moments with it, and
// tests/fixtures/checkpoints/format3_small.bin was written from it.
#include <cstddef>
#include <limits>
#include <span>

namespace sinklab::testing {

inline void fill_awkward_floats(std::span<float> block, float base) {
  for (size_t i = 0; i < block.size(); ++i) block[i] = base + static_cast<float>(i) * 0.25f;
  block[0] = -0.0f;
  block[1] = std::numeric_limits<float>::denorm_min();
  block[2] = std::numeric_limits<float>::quiet_NaN();
}

}  // namespace sinklab::testing
