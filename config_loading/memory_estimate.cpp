#include "config_loading/memory_estimate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "data/eval_set.h"
#include "data/task_registry.h"
#include "stats/attention_maps.h"
#include "stats/attention_snapshots.h"  // kSnapshotFullSide

namespace sinklab {
namespace {

constexpr double kFloat = 4, kDouble = 8;
// The process before any config-sized buffer: code and data of the binary, oneDNN, OpenMP and yaml-cpp,
// thread stacks, oneDNN's primitive caches. A 1-step 1x1 paper run peaks at 15 MiB of RSS; doubled.
constexpr double kProcessBytes = 32.0 * 1024 * 1024;

struct Sizes {
  double B, T, d, L, H, D, mlp, in, out, eval;
  double eval_T;  // length of the evaluation set's sequences: task.eval_seq_len, else T
  double io;  // floats of inputs and targets per position (a token id or class id counts as one)
  bool bias, norm, rope;
  std::string width_key;  // the task key that sets in and out
  double KV;              // key/value heads (grouped-query attention)
  double gated;           // 1 with a gated MLP (its third matrix)
};

Sizes sizes_of(const RunConfig& c) {
  const ModelConfig& m = c.model;
  const TaskShape t = task_shape_of(c.task, m.residual);
  const double in = t.input_dim, out = t.output_dim;
  const double io = (t.input == TaskInput::tokens ? 1 : in) + (t.loss == TaskLoss::cross_entropy ? 1 : out);
  // The evaluation set's length in the same units as t.seq_len (BOS included, as task.seq_len).
  const double eval_T = c.task.eval_seq_len > 0 ? static_cast<double>(t.seq_len) - c.task.seq_len + c.task.eval_seq_len
                                                : static_cast<double>(t.seq_len);
  return {static_cast<double>(c.train.batch_size), static_cast<double>(t.seq_len), static_cast<double>(m.d_model),
          static_cast<double>(m.layers), static_cast<double>(m.heads), static_cast<double>(resolved_head_dim(m)),
          static_cast<double>(m.mlp_hidden), in, out, static_cast<double>(c.task.eval_samples), eval_T, io, m.bias,
          m.norm != NormKind::none, m.positional == Positional::rope, t.width_key,
          static_cast<double>(resolved_kv_heads(m)), m.mlp_gated ? 1.0 : 0.0};
}

// Floats of learnable parameters (layers/transformer.cpp and the blocks it builds).
double parameter_floats(const RunConfig& c, const Sizes& s) {
  const ModelConfig& m = c.model;
  const double b = s.bias || m.attention.qkv_bias == BiasSwitch::on || m.mlp_bias == BiasSwitch::on ? 1 : 0,
               hd = s.H * s.D, kvd = s.KV * s.D;
  double per_layer = 2 * s.d * hd + 2 * s.d * kvd + b * (hd + 2 * kvd + s.d);  // W_q, W_k, W_v, W_o
  if (m.attention.qk_norm) per_layer += 2 * s.D;
  per_layer += 4 * s.H;                                 // normalizer parameters, if any (a few per head)
  if (s.norm) per_layer += 2 * s.d;
  if (s.mlp > 0) per_layer += (2 + s.gated) * s.d * s.mlp + b * ((1 + s.gated) * s.mlp + s.d) + (s.norm ? 2 * s.d : 0);
  double p = s.L * per_layer;
  if (m.input == InputKind::tokens) p += static_cast<double>(m.vocab_size) * s.d;
  if (m.input == InputKind::vectors && m.input_projection) p += s.in * s.d + b * s.d;
  if (m.positional == Positional::learned || m.positional == Positional::sinusoidal)
    p += (std::max(s.T, s.eval_T) + m.position_offset) * s.d;
  if (s.norm) p += 2 * s.d;
  if (m.output_head && !m.tie_embeddings) p += s.d * s.out + b * s.out;  // tied: the embedding's rows
  return p;
}

// Arena floats of one forward pass over `n` sequences of length T, counting each intermediate tensor
// once (layers/multi_head_attention.cpp, transformer_block.cpp, transformer.cpp).
double forward_floats(const RunConfig& c, const Sizes& s, double n, double T) {
  const double N = n * T, hd = s.H * s.D, b = s.bias ? 1 : 0;
  double attn = 3 * N * hd * (1 + b);             // q, k, v (+ their bias adds); grouped k, v repeated to H heads
  if (s.KV < s.H) attn += 2 * N * s.KV * s.D * (1 + b);
  if (s.rope) attn += 2 * N * hd;                 // rotated q, k
  attn += 2 * s.H * n * T * T;                    // scores and weights, [H, B, T, T]
  attn += N * hd + N * s.d * (1 + b);             // per-head outputs, the W_o product (+ bias)
  double block = attn + N * s.d;                  // residual add
  if (s.norm) block += N * s.d + 2 * N;           // pre-norm output and its statistics
  if (s.mlp > 0) {
    block += 2 * N * s.mlp * (1 + b) + N * s.d * (1 + b) + N * s.d;  // hidden, activation, output, residual
    block += s.gated * 3 * N * s.mlp * (1 + b);                      // up, silu's sigmoid and the two products
    if (s.norm) block += N * s.d + 2 * N;
  }
  double total = s.L * block;
  const ModelConfig& m = c.model;
  total += N * s.d;                                // input projection, embedding or positional add
  if (m.positional != Positional::none) total += N * s.d;
  if (s.norm) total += N * s.d + 2 * N;
  if (m.output_head) total += N * s.out;
  total += 2 * N * s.out;                          // loss and error terms
  return total;
}

std::string key_value(const std::string& key, double v) {
  return key + "=" + std::to_string(static_cast<long long>(v));
}

}  // namespace

double snapshot_count(const RunConfig& c) {
  const AnalysisConfig& a = c.analysis;
  if (a.snapshot_every <= 0) return 0;
  // Multiples of the interval from step 0 below max_steps, and the final step.
  const double taken = std::floor(static_cast<double>(c.train.max_steps) / a.snapshot_every) + 2;
  return a.snapshot_limit > 0 ? std::min(taken, a.snapshot_limit + 1.0) : taken;
}

MemoryEstimate estimate_memory(const RunConfig& c) {
  const Sizes s = sizes_of(c);
  MemoryEstimate e;
  // Value, gradient and Adam's two moments (SGD keeps at most one buffer: still covered).
  e.parameters = 4 * kFloat * parameter_floats(c, s);
  // A training step keeps every forward tensor and a gradient of the same size; evaluation runs chunks
  // without gradients. The arena keeps the larger high-water mark.
  const double train = 2 * forward_floats(c, s, s.B, s.T);
  // Evaluation runs forward passes of evaluation_chunk inputs (data/eval_set.h) at its own length.
  const int eval_len = static_cast<int>(std::min(s.eval_T, 1e9));
  const double eval = forward_floats(c, s, std::min<double>(evaluation_chunk(eval_len), s.eval), s.eval_T);
  e.activations = kFloat * std::max(train, eval);
  // Inputs and targets of the evaluation set and of the training batch, plus a role byte per token.
  e.eval_set = (s.eval * s.eval_T + s.B * s.T) * (kFloat * s.io + 1);
  // Mean and M2 in double, sample0 in float, for each (layer, head) map of the evaluation: the whole
  // T x T up to T 256, a grid of at most 256 x 256 positions beyond (stats/attention_maps.h).
  const double side = attention_map_side(eval_len);
  e.attention_maps = s.L * s.H * side * side * (2 * kDouble + kFloat);
  // Each snapshot keeps a mean and an example map per (layer, head), at most kSnapshotFullSide positions
  // a side. Writing the file holds them three times over: the kept maps, their .npy entries and the
  // archive. The accumulator keeps two doubles a cell and hands out two float copies.
  const double snapshot_side = std::min<double>(s.eval_T, kSnapshotFullSide);
  const double cells = s.L * s.H * snapshot_side * snapshot_side;
  const double kept = snapshot_count(c);
  if (kept > 0) e.snapshots = cells * (3 * kept * 2 * kFloat + 2 * kDouble + 2 * kFloat);
  e.process = kProcessBytes;
  return e;
}

void check_memory(const RunConfig& c, const KeyLocations& where, std::optional<double> available_bytes) {
  const MemoryEstimate e = estimate_memory(c);
  if (!available_bytes || e.total() <= *available_bytes) return;
  const Sizes s = sizes_of(c);
  const ModelConfig& m = c.model;
  // The keys that drive the largest part, in the order a user would shrink them.
  std::vector<std::string> keys;
  std::vector<std::string> shown;
  const auto add = [&](const std::string& key, double value) {
    keys.emplace_back(key);
    shown.push_back(key_value(key, value));
  };
  const double largest = std::max({e.parameters, e.activations, e.eval_set, e.attention_maps, e.snapshots});
  const bool eval_longer = s.eval_T > s.T;
  if (largest == e.activations) {
    if (eval_longer) add("task.eval_seq_len", c.task.eval_seq_len);
    add("train.batch_size", s.B);
    add("task.seq_len", s.T);
    add("model.heads", s.H);
    add("model.d_model", s.d);
    add("model.layers", s.L);
    if (m.head_dim.mode != HeadDimMode::full) add("model.head_dim", s.D);
    if (s.mlp > 0) add("model.mlp_hidden", s.mlp);
  } else if (largest == e.eval_set) {
    add("task.eval_samples", s.eval);
    if (eval_longer) add("task.eval_seq_len", c.task.eval_seq_len);
    add("task.seq_len", s.T);
    add(s.width_key, s.in);
  } else if (largest == e.snapshots) {
    if (c.analysis.snapshot_limit == 0) add("analysis.snapshot_limit", 0);  // 0 = never thinned: the usual cause
    add("analysis.snapshot_every", c.analysis.snapshot_every);
    if (c.analysis.snapshot_limit == 0) add("train.max_steps", c.train.max_steps);
    else add("analysis.snapshot_limit", c.analysis.snapshot_limit);
    add("model.layers", s.L);
    add("model.heads", s.H);
  } else if (largest == e.attention_maps) {
    add("model.layers", s.L);
    add("model.heads", s.H);
    add(eval_longer ? "task.eval_seq_len" : "task.seq_len", eval_longer ? c.task.eval_seq_len : s.T);
  } else {
    add("model.d_model", s.d);
    add("model.layers", s.L);
    add("model.heads", s.H);
    if (s.mlp > 0) add("model.mlp_hidden", s.mlp);
    if (m.input == InputKind::tokens) add("model.vocab_size", m.vocab_size);
  }
  std::string drivers;
  for (const auto& text : shown) drivers += (drivers.empty() ? "" : ", ") + text;
  const std::string message =
      "estimated memory " + format_bytes(e.total()) + " exceeds the " + format_bytes(*available_bytes) +
      " available (MemAvailable, or the cgroup's limit when lower): " + drivers + " (per-step activations " +
      format_bytes(e.activations) + ", evaluation set " + format_bytes(e.eval_set) +
      ", parameters and optimizer state " + format_bytes(e.parameters) + ", attention maps " +
      format_bytes(e.attention_maps) + ", " + std::to_string(static_cast<long long>(snapshot_count(c))) +
      " attention snapshots " + format_bytes(e.snapshots) + ")";
  throw where.error_at_first_set(keys, message);
}

std::string format_bytes(double bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  std::size_t unit = 0;
  while (bytes >= 1024 && unit + 1 < std::size(kUnits)) {
    bytes /= 1024;
    ++unit;
  }
  char buf[64];
  if (unit == 0 || bytes >= 100) {
    std::snprintf(buf, sizeof buf, "%.0f %s", bytes, kUnits[unit]);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f %s", bytes, kUnits[unit]);
  }
  return buf;
}

}  // namespace sinklab
