#pragma once
// Small helpers shared by the tests in tests/core: random arrays and element-wise comparisons that
// name the first mismatch.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "core/tensor.h"
#include "tests/support/gradcheck.h"

namespace sinklab::testing {

inline std::vector<float> random_floats(size_t n, uint64_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::vector<float> v(n);
  Rng rng(seed);
  rng.fill_uniform(v, lo, hi);
  return v;
}

// |got - want| <= atol + rtol * |want| everywhere (NaN never matches).
inline ::testing::AssertionResult all_close(std::span<const float> got, std::span<const float> want, double rtol = 1e-5,
                                            double atol = 1e-6) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "sizes differ: " << got.size() << " vs " << want.size();
  int bad = 0;
  size_t first = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], w = want[i];
    if (!(std::abs(g - w) <= atol + rtol * std::abs(w))) {
      if (bad++ == 0) first = i;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << got.size() << " entries differ; first at " << first
                                       << ": got " << got[first] << ", want " << want[first];
}

// A gradient-check leaf that requires grad; empty values are filled U(-1, 1) by the checker.
inline Leaf leaf(const Shape& shape, std::vector<float> values = {}) { return Leaf{shape, std::move(values), true}; }

inline bool same_bits(std::span<const float> a, std::span<const float> b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::bit_cast<uint32_t>(a[i]) != std::bit_cast<uint32_t>(b[i])) return false;
  return true;
}

// The elements (or gradient entries) of a tensor in row-major order of its shape, any strides.
inline std::vector<float> gather(const Tensor& t, const float* base) {
  std::vector<float> out(static_cast<size_t>(t.numel()));
  for (int64_t flat = 0; flat < t.numel(); ++flat) {
    int64_t rest = flat, off = 0;
    for (int i = t.rank() - 1; i >= 0; --i) {
      off += (rest % t.dim(i)) * t.stride(i);
      rest /= t.dim(i);
    }
    out[static_cast<size_t>(flat)] = base[off];
  }
  return out;
}
inline std::vector<float> values(const Tensor& t) { return gather(t, t.data()); }
inline std::vector<float> grads(const Tensor& t) { return gather(t, t.grad()); }

}  // namespace sinklab::testing
