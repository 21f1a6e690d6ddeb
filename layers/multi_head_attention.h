#pragma once
// Causal multi-head self-attention (docs/design.md, layers):
//   projections -> scores (scale: none, 1/sqrt(d_head) or 1/T) -> causal mask + normalizer per row
//   -> weights x V -> (output gate) -> heads concatenated -> W_O.
// Options beyond the normalizer's rows:
// - gated attention (the normalizer's output_gate(), e.g. gated_softmax): g = sigmoid(x W_g^T) per
//   query from the attention input x, one per head ([H, d_model], per_head) or per channel
//   ([H*D, d_model], elementwise), parameter <attn>.gate.weight (PyTorch Linear layout, a bias with
//   model.bias); each head's output is multiplied by its gate before W_O;
// - the key-bias token (model.attention.key_bias, layers/key_bias_token.h): a learned key per head
//   with value 0, normalized as a leading slot of every row;
// - evaluation-only ablations of the BOS key (layers/attention_ablation.h), read from the model's
//   AttentionAblation when it names a head of this layer.
// Hooks (core/observe/activation_hooks.h) see and may edit <prefix>.q, .k, .v [B, T, H, D] (after rope),
// .scores and .weights [B, H, T, T], .z [B, T, H, D] (weights x V), .gate [B, T, H, G] and .out [B, T, C].
// Observers see the gate (mean over a head's channels) and the virtual mass of each row:
// 1 - gate * (1 - v), v the row's own virtual mass (the key-bias slot's weight, plus the
// normalizer's virtual_mass()).
// Grouped-query attention (kv_heads < heads): W_k and W_v give kv_heads heads, each read by heads /
// kv_heads consecutive query heads; hooks see k and v with kv_heads heads. A sliding window
// (config.window) masks scores with -inf before the (softmax) normalizer, on the materialized path.
// qk_norm: RMSNorm over each query and key head (<prefix>.q_norm, .k_norm, gain [D]) before RoPE.
// Heads are head-major [H, B, T, D]: Q/K/V come out of one product per projection batched over heads,
// and W_O sums over heads, so no step copies heads around. Head width is d_model/H (split), d_model
// (full, the paper's) or fixed.
#include <memory>
#include <optional>

#include "core/observe/activation_hooks.h"
#include "core/observe/attention_observer.h"
#include "layers/attention_ablation.h"
#include "layers/key_bias_token.h"
#include "layers/kv_cache.h"
#include "layers/linear.h"
#include "layers/model_config.h"
#include "layers/norm_layer.h"
#include "layers/normalizers/normalizer.h"
#include "layers/rotary_embedding.h"

namespace sinklab {

struct AttentionSpec {
  int d_model = 16;
  int heads = 1;
  int head_dim = 16;
  bool bias = false;  // the output gate's; W_q, W_k, W_v and W_O follow config.qkv_bias / out_bias against it
  bool rope = false;
  AttentionConfig config;
  int kv_heads = 0;  // 0 = heads; else grouped-query attention (layers/model_config.h)
  RopeConfig rope_config;
  float norm_eps = 1e-5f;  // of config.qk_norm
};

class MultiHeadAttention : public Module {
 public:
  // From this sequence length on, a forward pass with no observer, no key-bias token and no ablation
  // runs layers/tiled_attention.h when the normalizer has a tiled form: no [H, B, T, T] arrays. It
  // starts where the fused path ends: the tiled op already beats the materialized one at T = 64
  // and 128 (docs/performance.md, "Long rows").
  static constexpr int64_t kTiledMinSeqLen = 65;
  // Up to this sequence length, a forward pass with no observer, no key-bias token and no ablation
  // runs layers/fused_block_attention.h (any normalizer): each (head, sample) block's products and
  // rows in one pass instead of batched oneDNN calls over [H, B, T, T] (docs/performance.md, "Short
  // rows: fused block attention").
  static constexpr int64_t kFusedMaxSeqLen = 64;

  // `ablation` and `hooks` (the model's, may be null) are read on every forward pass.
  MultiHeadAttention(ParameterStore& store, std::string prefix, const AttentionSpec& spec, InitSpec init,
                     int layer_index, const AttentionObservers* observers, const AttentionAblation* ablation = nullptr,
                     const ActivationHookSlot* hooks = nullptr, const KvCacheSlot* kv_cache = nullptr);
  // x [B, T, d_model] -> [B, T, d_model]. With the model's KV cache set (layers/kv_cache.h): x [1, T, C]
  // holds the T tokens after the cached ones, which are appended to the cache and read with them.
  Tensor forward(Graph& g, const Tensor& x) const;
  // Why this layer cannot decode from a KV cache ("" when it can): the cached path is softmax
  // attention without an output gate or key-bias token.
  std::string kv_cache_refusal() const;
  // True when forward would take the tiled path for rows of length T right now (observers and the
  // ablation are read at call time).
  bool uses_tiled_path(int64_t T) const;
  // Likewise for the fused short-row path.
  bool uses_fused_path(int64_t T) const;

  const Normalizer& normalizer() const { return *normalizer_; }
  float logit_scale() const { return scale_; }
  int heads() const { return spec_.heads; }
  int kv_heads() const { return kv_heads_; }

 protected:
  void initialize_own(Rng& rng) override;

 private:
  // Scores, weights [H, B, T, T] and weights x V, observers notified: q, k, v [H, B, T, D] -> [H, B*T, D].
  // rows [B*T, C] is the attention input (observers that want q/k/v also get it).
  Tensor attend_materialized(Graph& g, const Tensor& rows, const Tensor& q, const Tensor& k, const Tensor& v,
                             const Tensor& gate, int64_t gate_width) const;
  Tensor forward_cached(Graph& g, const Tensor& x, KvCache& cache) const;
  // True when the sliding window drops keys of rows of length T.
  bool window_applies(int64_t T) const { return spec_.config.window > 0 && T > spec_.config.window; }

  AttentionSpec spec_;
  int layer_index_;
  const AttentionObservers* observers_;
  const AttentionAblation* ablation_;
  const ActivationHookSlot* hooks_;
  const KvCacheSlot* kv_cache_;
  int kv_heads_;
  std::unique_ptr<Normalizer> normalizer_;
  std::optional<TiledForm> tiled_form_;  // the normalizer's, when its rows can be tiled
  float scale_;
  std::vector<float> rope_frequencies_;  // [R/2] with spec.rope
  RotarySpec rotary_;
  Linear w_q_, w_k_, w_v_, w_o_;
  std::unique_ptr<NormLayer> q_norm_, k_norm_;  // with config.qk_norm
  ParameterStore::Id normalizer_params_ = -1;  // [H, P] when the normalizer learns per-head scalars
  // Declared (and initialized) after W_O, so turning them on leaves the other parameters' init alone.
  std::unique_ptr<Linear> gate_;               // W_g [H or H*D, d_model] with an output gate
  std::unique_ptr<KeyBiasToken> key_bias_;     // with model.attention.key_bias
};

}  // namespace sinklab
