#pragma once
// Rotary position embedding (RoPE, Su et al. 2021) on attention heads.
#include <vector>

#include "core/graph.h"
#include "layers/model_config.h"

namespace sinklab {

// Which coordinates turn and how fast. The default is sinklab's own: every coordinate of the head,
// pairs (2j, 2j+1), angle t * base^(-2j/D).
struct RotarySpec {
  int64_t dims = 0;  // R, the leading coordinates that turn (even); 0 = the whole head; the rest pass through
  RopePairing pairing = RopePairing::interleaved;
  // inv_freq[j] for j < R/2, the angle of pair j at position t being t * inv_freq[j]; empty = base^(-2j/R).
  const std::vector<float>* inverse_frequencies = nullptr;
  float base = 10000.0f;
  int64_t position_offset = 0;  // row t of x sits at position position_offset + t (a KV-cache decode)
};

// x [G0, G1, T, D] (any strides; attention passes head-major [H, B, T, D]) -> contiguous, same shape;
// the pairs of the first R coordinates at position t (dim 2) turned by their angles.
Tensor rotary_embedding(Graph& g, const Tensor& x, const RotarySpec& spec);
// sinklab's own RoPE: the whole head, interleaved pairs, base^(-2j/D).
Tensor rotary_embedding(Graph& g, const Tensor& x, float base = 10000.0f);

// The inverse frequencies of model.rope for R = rotated coordinates: theta^(-2j/R) in float32 (as the
// checkpoints' own code computes them), then scaled as model.rope.scaling says.
std::vector<float> rope_inverse_frequencies(const RopeConfig& rope, int64_t rotated_dims);

}  // namespace sinklab
