#pragma once
// What the attention-op tests share (tests/layers/tiled_attention_test.cpp,
// tests/layers/fused_block_attention_test.cpp): an op's output and the gradients of a random
// projection of it, and the materialized path the fused and tiled ops replace
// (scores = scale q k^T -> attention_weights -> weights x v), with the tolerance they are compared at.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "core/graph.h"
#include "core/ops/matmul_op.h"
#include "core/rng.h"
#include "layers/attention_weights.h"
#include "layers/normalizers/normalizer.h"

namespace sinklab::testing {

struct AttentionGrads {
  std::vector<float> o, dq, dk, dv, dparams;
};

// An attention op under test: q, k, v [H, B, T, D] and the head parameters [H, P] (undefined when
// the normalizer has none) -> o [H, B, T, D].
using AttentionOp = std::function<Tensor(Graph&, const Tensor&, const Tensor&, const Tensor&, const Tensor&)>;

inline Tensor materialized_attention(Graph& g, const Tensor& q, const Tensor& k, const Tensor& v, float scale,
                                     const Normalizer& norm, const Tensor& head_params) {
  return matmul(g, attention_weights(g, matmul(g, q, k.transpose(-2, -1), scale), norm, head_params), v);
}

// o and the gradients of sum(o * R) (R uniform in [-1, 1] from `seed`) for q, k, v, taken from qkv
// (three blocks of `shape`), and for head parameters [H, params_per_head] set to 0.8, -0.1, ...
inline AttentionGrads attention_grads(const std::vector<float>& qkv, const Shape& shape, int params_per_head,
                                      const AttentionOp& op, uint64_t seed) {
  const auto n = static_cast<size_t>(shape.numel());
  std::vector<float> data(qkv), grads(3 * n, 0.0f);
  Tensor q(data.data(), grads.data(), shape), k(data.data() + n, grads.data() + n, shape),
      v(data.data() + 2 * n, grads.data() + 2 * n, shape);
  const int64_t H = shape[0], P = params_per_head;
  std::vector<float> params(static_cast<size_t>(H * P)), dparams(params.size(), 0.0f);
  for (size_t i = 0; i < params.size(); ++i) params[i] = 0.8f - 0.9f * static_cast<float>(i);
  const Tensor head_params = P > 0 ? Tensor(params.data(), dparams.data(), Shape{H, P}) : Tensor();
  Graph g;
  const Tensor o = op(g, q, k, v, head_params);
  std::vector<float> r(n);
  Rng rng(seed);
  rng.fill_uniform(r, -1.0f, 1.0f);
  g.backward(o, r);
  const auto at = [&](size_t block) { return grads.begin() + static_cast<int64_t>(block * n); };
  AttentionGrads out;
  out.o.assign(o.data(), o.data() + n);
  out.dq.assign(at(0), at(1));
  out.dk.assign(at(1), at(2));
  out.dv.assign(at(2), at(3));
  out.dparams = dparams;
  return out;
}

// Float32 sums over up to T terms in another order (and exp of a differently shifted logit): 1e-4
// relative to the largest entry is ~100x the round-off seen, while one missing key (a weight of ~1/T)
// or a wrong scale is far above it.
inline ::testing::AssertionResult close_to_materialized(const std::vector<float>& got, const std::vector<float>& want,
                                                        const char* what) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << what << ": sizes differ";
  float largest = 0.0f;
  for (float x : want) largest = std::max(largest, std::fabs(x));
  const float tol = 1e-4f * std::max(largest, 1.0f);
  for (size_t i = 0; i < want.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= tol))
      return ::testing::AssertionFailure() << what << "[" << i << "] = " << got[i] << ", materialized " << want[i]
                                           << " (tolerance " << tol << ")";
  return ::testing::AssertionSuccess();
}

}  // namespace sinklab::testing
