#pragma once
// The attention normalizer: turns one query row of (scaled, causally visible) logits into weights.
//
// Attention calls forward_block / backward_block once per (head, batch) block of causal rows; their
// defaults call the row functions on the visible keys 0..visible-1 only and zero the masked keys, so
// a normalizer written row by row never sees or has to mask them. A normalizer may override the
// block functions with a kernel over the whole block (softmax and relu do for T <= 16).
//
// Row math is written once per normalizer as a template over the scalar type
// (layers/normalizers/row_normalizer.h): float for training, double for the float64
// central-difference checks of every backward (tests/layers/normalizer_f64_test.cpp).
//
// What a normalizer may need, and where it gets it:
// - learned per-head scalars (gpt-oss sink logit S_h, SSMax's s_h): params_per_head() > 0; the
//   attention module declares them as the parameter `<attn>.<param_name()>` [heads, params_per_head],
//   an ordinary named parameter (optimizer, checkpoint), and passes the head's slice to every row call
//   and a slice of the gradient to backward_row;
// - position-dependent scaling (sigmoid's -log L bias, SSMax's log n_i, the relu divisors): from
//   RowSpec::query and RowSpec::seq_len, never from RowSpec::visible (see RowSpec);
// - row-wise sort / threshold (sparsemax, 1.5-entmax): scratch_per_row() scratch values per row;
// - output gates computed from the layer input (gated attention): output_gate() tells the attention
//   module to build a gate sigmoid(x W_g) per head or per channel and multiply it into the heads'
//   output before W_O; the normalizer itself stays row-wise;
// - reporting: row_mass_kind() says what a row's missing mass means, virtual_mass() gives it exactly
//   for normalizers with a virtual slot (the +n of softmax_n, a learned sink logit).
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>

#include "layers/normalizers/tiled_form.h"

namespace sinklab {

// One query row of one head.
struct RowSpec {
  int query = 0;    // i (0-based); key 0 is BOS. Position facts (divisors, log n_i) come from query.
  int visible = 1;  // length of the row handed over: i + 1 visible keys, plus one leading slot when
                    // the attention module prepends its key-bias logit (model.attention.key_bias)
  int seq_len = 1;  // T of the current batch
  int head = 0;
};

enum class OutputGate { none, per_head, elementwise };

// What 1 - (sum of a row's weights on real keys) means, for the virtual-mass statistic.
enum class RowMass : uint8_t {
  simplex,       // rows sum to 1 over real keys: virtual mass 0 (softmax, sparsemax, ...)
  virtual_slot,  // the rest sits on a slot that is not a key (softmax_n, sink_logit): virtual_mass() exact
  deficit,       // rows may sum below 1 by construction (softpick, clipped): virtual mass = 1 - row sum
  unnormalized,  // rows have free mass (relu, sigmoid): virtual mass undefined (null)
};

class Normalizer {
 public:
  virtual ~Normalizer() = default;

  virtual std::string_view name() const = 0;

  // probs[0..visible) from scores[0..visible).
  virtual void forward_row(const float* scores, float* probs, const RowSpec& row, const float* head_params,
                           float* scratch) const = 0;
  // dscores[0..visible) += J^T dprobs; dhead_params += d/dparams (when params_per_head() > 0).
  virtual void backward_row(const float* scores, const float* probs, const float* dprobs, float* dscores,
                            const RowSpec& row, const float* head_params, float* dhead_params,
                            float* scratch) const = 0;
  // The same row math in double (tests; scratch is scratch_per_row() doubles).
  virtual void forward_row_f64(const double* scores, double* probs, const RowSpec& row, const double* head_params,
                               double* scratch) const = 0;
  virtual void backward_row_f64(const double* scores, const double* probs, const double* dprobs, double* dscores,
                                const RowSpec& row, const double* head_params, double* dhead_params,
                                double* scratch) const = 0;
  // True when the row is within `margin` of a point where the forward is not differentiable (relu's
  // s = 0, sparsemax's support changes, a clip boundary): finite differences are meaningless there.
  virtual bool near_kink(const double* /*scores*/, const RowSpec& /*row*/, const double* /*head_params*/,
                         double /*margin*/) const {
    return false;
  }

  // One (batch, head) block of causal rows: scores, probs, dprobs, dscores are [T, T] row-major and
  // row i sees keys 0..i. forward_block writes every entry of probs (masked keys exactly 0);
  // backward_block adds into the visible entries of dscores only. The defaults loop over the row calls;
  // a normalizer may override them with a kernel over the whole block (softmax does for T <= 16,
  // where per-row calls cost more than the arithmetic). scratch is scratch_per_row(T) floats.
  virtual void forward_block(const float* scores, float* probs, int seq_len, int head, const float* head_params,
                             float* scratch) const;
  virtual void backward_block(const float* scores, const float* probs, const float* dprobs, float* dscores,
                              int seq_len, int head, const float* head_params, float* dhead_params,
                              float* scratch) const;

  virtual int params_per_head() const { return 0; }
  virtual std::string_view param_name() const { return "normalizer"; }
  virtual float initial_param(int /*index*/) const { return 0.0f; }
  // Scratch values per row of `row_length` keys, for forward_row / backward_row.
  virtual int scratch_per_row(int /*row_length*/) const { return 0; }
  virtual OutputGate output_gate() const { return OutputGate::none; }
  // How long rows can be computed tile by tile without a [T, T] block (layers/tiled_attention.h), or
  // none when a row needs all of its keys at once (the default: such rows keep the materialized path).
  virtual std::optional<TiledForm> tiled_form() const { return std::nullopt; }

  virtual RowMass row_mass_kind() const = 0;
  // Mass of one row that went to no key. simplex: 0; virtual_slot: the normalizer's exact slot share
  // (override); deficit: 1 - sum(probs); unnormalized: NaN.
  virtual float virtual_mass(const float* scores, const float* probs, const RowSpec& row,
                             const float* head_params) const;
};

}  // namespace sinklab
