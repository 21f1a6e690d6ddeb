#pragma once
// Matmul FLOPs of one training step of a config, for the benchmarks' GFLOP/s counters: forward x 3
// (backward costs two products per forward one: the input's gradient and the weight's). Attention
// products are counted over the full T x T blocks, as oneDNN executes them (and as the PyTorch twin
// does); about half of those entries are masked (causal), so the useful work is a little over half.
#include "config_loading/run_config.h"
#include "data/task_registry.h"
#include "layers/model_config.h"

namespace sinklab::bench {

inline double training_step_flops(const RunConfig& c) {
  const TaskShape shape = task_shape_of(c.task, c.model.residual);
  const double B = c.train.batch_size, T = c.task.seq_len, d = c.model.d_model, H = c.model.heads;
  const double D = resolved_head_dim(c.model), hidden = c.model.mlp_hidden;
  double forward = c.model.layers * (4 * 2 * B * T * d * H * D      // Q, K, V, O projections
                                     + 2 * 2 * B * H * T * T * D    // scores Q K^T and weights x V, full blocks
                                     + 2 * 2 * B * T * d * hidden);  // MLP
  // Token input is an embedding lookup, not a product; learned or sinusoidal positions are an add.
  if (shape.input != TaskInput::tokens && c.model.input_projection) forward += 2 * B * T * shape.input_dim * d;
  // Tied embeddings (GPT-2's lm_head) are still a product, h E^T [d x vocab]: the same count as an own head,
  // and its backward is two products as well (into h and into E; the lookup's gradient is a scatter-add).
  if (c.model.output_head) forward += 2 * B * T * d * shape.output_dim;
  return 3 * forward;
}

}  // namespace sinklab::bench
