#pragma once
// The attention normalizer: turns one query row of (scaled, causally visible) logits into weights.
//
// Attention calls forward_block / backward_block once per (head, batch) block of causal rows; their
// defaults call the row functions on the visible keys 0..visible-1 only and zero the masked keys, so
// a normalizer written row by row never sees or has to mask them. A normalizer may override the
// block functions with a kernel over the whole block (softmax and relu do for T <= 16).
// One interface for the whole planned zoo of normalizers:
// - learned per-head scalars (gpt-oss sink logit S_h, SSMax's s_h): params_per_head() > 0; the
//   attention module declares them as `<attn>.normalizer` [heads, params_per_head] and passes the
//   head's slice to every row call, and a slice of the gradient to backward_row;
// - position-dependent scaling (sigmoid's -log n bias, SSMax's log n_i): RowSpec carries the query
//   index, the visible count and the training sequence length;
// - row-wise sort / threshold (sparsemax, 1.5-entmax): scratch_per_row() floats of per-thread
//   scratch are handed to both row calls;
// - output gates computed from the layer input (gated attention): output_gate() tells the attention
//   module to build a gate sigmoid(x W_g) per head or per channel and multiply it into the heads'
//   output before W_O; the normalizer itself stays row-wise;
// - reporting: row_mass() (sum of weights on real keys; 1 for softmax, free for relu/sigmoid) is
//   computed by the caller; virtual_sink_mass() reports mass sent to something that is not a key
//   (the +1 of softmax1, a learned sink logit, a closed gate).
// Planned variants and how they plug in:
//   sigmoid(+/- bias -log n)   forward_row only; bias from RowSpec::train_seq_len.
//   softmax1 / softmax_n        virtual_sink_mass = n e^{-m} / (n e^{-m} + sum e^{s-m}).
//   learned sink logit          params_per_head = 1 (S_h); S_h joins the row max.
//   key-bias token              params_per_head = head_dim (k*); the row gets one extra logit q.k*,
//                               which needs the query: RowSpec::query_vector (reserved, null today).
//   softpick, relu2, relu/L     forward_row/backward_row only.
//   Scalable-Softmax            params_per_head = 1 (s_h), scale s_h * log(visible).
//   sparsemax / 1.5-entmax      scratch_per_row = visible (sorted copy).
//   clipped softmax             forward/backward with two constants from the config.
//   gated attention             output_gate() = per_head or elementwise; softmax rows unchanged.
#include <memory>
#include <string_view>

namespace sinklab {

// One query row of one head.
struct RowSpec {
  int query = 0;          // i (0-based); key 0 is BOS
  int visible = 1;        // keys 0..visible-1 are visible (causal: i + 1)
  int seq_len = 1;        // T of the current batch
  int head = 0;
  const float* query_vector = nullptr;  // reserved for normalizers that need q (key-bias token)
};

enum class OutputGate { none, per_head, elementwise };

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
  virtual float initial_param(int /*index*/) const { return 0.0f; }
  virtual int scratch_per_row(int /*seq_len*/) const { return 0; }
  virtual OutputGate output_gate() const { return OutputGate::none; }
  virtual float virtual_sink_mass(const float* /*scores*/, const float* /*probs*/, const RowSpec& /*row*/,
                                  const float* /*head_params*/) const {
    return 0.0f;
  }
};

}  // namespace sinklab
