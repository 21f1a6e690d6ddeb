#pragma once
// Normalizations over the last axis with autodiff. x: [..., C] contiguous; weight, bias: [C], or an
// undefined Tensor() for no affine part. The per-row statistics are saved for backward.
#include "core/graph.h"

namespace sinklab {

// (x - mean) / sqrt(var + eps) * weight + bias, biased variance (as PyTorch's LayerNorm).
Tensor layer_norm(Graph& g, const Tensor& x, const Tensor& weight, const Tensor& bias, float eps = 1e-5f);
// x / sqrt(mean(x^2) + eps) * weight.
Tensor rms_norm(Graph& g, const Tensor& x, const Tensor& weight, float eps = 1e-6f);

}  // namespace sinklab
