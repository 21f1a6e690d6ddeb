#include "layers/multi_head_attention.h"

#include <cmath>
#include <stdexcept>

#include "core/ops/attention_layout_ops.h"
#include "core/ops/elementwise.h"
#include "core/ops/layout_op.h"
#include "core/ops/matmul_op.h"
#include "core/ops/unary.h"
#include "layers/attention_row_facts.h"
#include "layers/attention_weights.h"
#include "layers/cached_attention.h"
#include "layers/fused_block_attention.h"
#include "layers/normalizers/normalizer_registry.h"
#include "layers/tiled_attention.h"

namespace sinklab {
namespace {

float logit_scale_for(const AttentionSpec& s) {
  switch (s.config.scale) {
    case ScaleKind::none: return 1.0f;
    case ScaleKind::inv_sqrt_head_dim: return 1.0f / std::sqrt(static_cast<float>(s.head_dim));
    case ScaleKind::temperature: return static_cast<float>(1.0 / s.config.temperature);
  }
  return 1.0f;
}

// rows [N, C] -> [H, N, D]: each head's slice of a PyTorch-layout weight [H*D, C] in one product
// batched over heads (rows shared), so every head's output is a dense [N, D] block.
Tensor project_heads(Graph& g, const Tensor& rows, const Linear& w, int64_t H, int64_t D) {
  const int64_t C = rows.dim(1);
  Tensor y = matmul(g, rows, w.weight().reshape({H, D, C}).transpose(-2, -1));
  const Tensor bias = w.bias();
  return bias.defined() ? add(g, y, bias.reshape({H, 1, D})) : y;
}

}  // namespace

MultiHeadAttention::MultiHeadAttention(ParameterStore& store, std::string prefix, const AttentionSpec& spec,
                                       InitSpec init, int layer_index, const AttentionObservers* observers,
                                       const AttentionAblation* ablation, const ActivationHookSlot* hooks,
                                       const KvCacheSlot* kv_cache)
    : Module(store, std::move(prefix)),
      spec_(spec),
      layer_index_(layer_index),
      observers_(observers),
      ablation_(ablation),
      hooks_(hooks),
      kv_cache_(kv_cache),
      kv_heads_(spec.kv_heads > 0 ? spec.kv_heads : spec.heads),
      normalizer_(normalizer_registry().create(spec.config.normalizer)),
      scale_(logit_scale_for(spec)),
      w_q_(store, child_prefix("w_q"), spec.d_model, spec.heads * spec.head_dim,
           resolved_bias(spec.config.qkv_bias, spec.bias), init),
      w_k_(store, child_prefix("w_k"), spec.d_model, kv_heads_ * spec.head_dim,
           resolved_bias(spec.config.qkv_bias, spec.bias), init),
      w_v_(store, child_prefix("w_v"), spec.d_model, kv_heads_ * spec.head_dim,
           resolved_bias(spec.config.qkv_bias, spec.bias), init),
      w_o_(store, child_prefix("w_o"), spec.heads * spec.head_dim, spec.d_model,
           resolved_bias(spec.config.out_bias, spec.bias), init) {
  if (spec.heads % kv_heads_ != 0)
    throw std::invalid_argument(this->prefix() + ": " + std::to_string(kv_heads_) + " key/value heads do not divide " +
                                std::to_string(spec.heads) + " heads");
  if (spec.rope) {
    const int rotated = spec.rope_config.dims > 0 ? spec.rope_config.dims : spec.head_dim;
    if (rotated % 2 != 0 || rotated > spec.head_dim)
      throw std::invalid_argument(this->prefix() + ": rope turns pairs of coordinates and needs an even number of "
                                  "them, at most the head width (" + std::to_string(spec.head_dim) + "), got " +
                                  std::to_string(rotated));
    rotary_.dims = rotated;
    rotary_.pairing = spec.rope_config.pairing;
    // sinklab's own RoPE (all defaults) keeps the expression its models were trained with.
    if (spec.rope_config != RopeConfig{}) {
      rope_frequencies_ = rope_inverse_frequencies(spec.rope_config, rotated);
      rotary_.inverse_frequencies = &rope_frequencies_;
    }
  }
  add_child(w_q_);
  add_child(w_k_);
  add_child(w_v_);
  add_child(w_o_);
  if (spec.config.qk_norm) {
    q_norm_ =
        std::make_unique<NormLayer>(store, child_prefix("q_norm"), NormKind::rms_norm, spec.head_dim, spec.norm_eps);
    k_norm_ =
        std::make_unique<NormLayer>(store, child_prefix("k_norm"), NormKind::rms_norm, spec.head_dim, spec.norm_eps);
    add_child(*q_norm_);
    add_child(*k_norm_);
  }
  tiled_form_ = normalizer_->tiled_form();
  if (normalizer_->params_per_head() > 0)
    normalizer_params_ = declare(std::string(normalizer_->param_name()), {spec.heads, normalizer_->params_per_head()});
  if (normalizer_->output_gate() != OutputGate::none) {
    const int gates = spec.heads * (normalizer_->output_gate() == OutputGate::elementwise ? spec.head_dim : 1);
    gate_ = std::make_unique<Linear>(store, child_prefix("gate"), spec.d_model, gates, spec.bias, init);
    add_child(*gate_);
  }
  if (spec.config.key_bias) {
    key_bias_ = std::make_unique<KeyBiasToken>(store, this->prefix(), spec.heads, spec.head_dim, spec.d_model, init);
    add_child(*key_bias_);
  }
}

void MultiHeadAttention::initialize_own(Rng&) {
  if (normalizer_params_ < 0) return;
  Tensor p = param(normalizer_params_);
  const int P = normalizer_->params_per_head();
  for (int64_t i = 0; i < p.numel(); ++i) p.data()[i] = normalizer_->initial_param(static_cast<int>(i % P));
}

Tensor MultiHeadAttention::forward(Graph& g, const Tensor& x) const {
  if (x.rank() != 3) throw std::invalid_argument(prefix() + ": expected [B, T, C], got " + x.shape().str());
  if (kv_cache_ && kv_cache_->cache) return forward_cached(g, x, *kv_cache_->cache);
  const int64_t B = x.dim(0), T = x.dim(1), C = x.dim(2), H = spec_.heads, D = spec_.head_dim, K = kv_heads_;
  // Heads are kept head-major, [H, B, T, D]: every (head, sample) block the attention products read
  // or write is dense, which oneDNN streams 1.6-3.4x faster than heads strided inside [B, T, H*D]
  // once out of cache (bench/matmul_bench attention/*).
  const Tensor rows = (x.is_contiguous() ? x : contiguous(g, x)).reshape({B * T, C});
  Tensor q = project_heads(g, rows, w_q_, H, D).reshape({H, B, T, D});
  Tensor k = project_heads(g, rows, w_k_, K, D).reshape({K, B, T, D});
  Tensor v = project_heads(g, rows, w_v_, K, D).reshape({K, B, T, D});
  if (q_norm_) {
    q = q_norm_->forward(g, q);
    k = k_norm_->forward(g, k);
  }
  if (spec_.rope) {
    q = rotary_embedding(g, q, rotary_);
    k = rotary_embedding(g, k, rotary_);
  }
  const bool hooked = hooks_ && hooks_->active();
  if (hooked) {  // as [B, T, H, D]
    hooks_->visit(prefix(), "q", q.permute({1, 2, 0, 3}));
    hooks_->visit(prefix(), "k", k.permute({1, 2, 0, 3}));
    hooks_->visit(prefix(), "v", v.permute({1, 2, 0, 3}));
  }
  if (K != H) {  // every query head gets its group's key and value head
    k = repeat_heads(g, k.is_contiguous() ? k : contiguous(g, k), H / K);
    v = repeat_heads(g, v.is_contiguous() ? v : contiguous(g, v), H / K);
  }
  // The output gate per head and query: [H, B*T, 1] (per_head) or [H, B*T, D] (elementwise).
  const int64_t gate_width = gate_ ? gate_->out_features() / H : 0;
  const Tensor gate =
      gate_ ? sigmoid(g, project_heads(g, rows, *gate_, H, gate_width)).reshape({H, B * T, gate_width}) : Tensor();
  if (hooked && gate_) hooks_->visit(prefix(), "gate", gate.reshape({H, B, T, gate_width}).permute({1, 2, 0, 3}));
  const Tensor head_params = normalizer_params_ >= 0 ? param(normalizer_params_) : Tensor();
  Tensor o;  // [H, B*T, D]
  if (uses_fused_path(T))
    o = fused_block_attention(g, q.is_contiguous() ? q : contiguous(g, q), k.is_contiguous() ? k : contiguous(g, k), v,
                              scale_, *normalizer_, head_params)
            .reshape({H, B * T, D});
  else if (uses_tiled_path(T))
    o = tiled_attention(g, q.is_contiguous() ? q : contiguous(g, q), k.is_contiguous() ? k : contiguous(g, k), v,
                        scale_, *tiled_form_, head_params)
            .reshape({H, B * T, D});
  else
    o = attend_materialized(g, rows, q, k, v, gate, gate_width);
  if (hooked) hooks_->visit(prefix(), "z", o.reshape({H, B, T, D}).permute({1, 2, 0, 3}));
  if (gate_) o = mul(g, o, gate);
  // Concatenating the heads and applying W_O [C, H*D] is the sum over heads of o[h] x W_O[:, h]^T.
  const Tensor w_o_heads = w_o_.weight().reshape({C, H, D}).permute({1, 2, 0});  // [H, D, C]
  Tensor out = matmul_sum_over_batch(g, o, w_o_heads);                          // [B*T, C]
  if (w_o_.bias().defined()) out = add(g, out, w_o_.bias());
  out = out.reshape({B, T, C});
  if (hooked) hooks_->visit(prefix(), "out", out);
  return out;
}

std::string MultiHeadAttention::kv_cache_refusal() const {
  if (normalizer_->name() != "softmax")
    return prefix() + " normalizes with " + std::string(normalizer_->name()) +
           "; the KV-cache path is softmax attention";
  if (gate_) return prefix() + " has an output gate, which the KV-cache path does not apply";
  if (key_bias_) return prefix() + " has a key-bias token, which the KV-cache path does not read";
  return "";
}

// The decode step: the new rows' keys and values join the cache (keys before RoPE), every cached key is
// turned by its index in the cache, and each new query row attends to the keys up to its own position.
Tensor MultiHeadAttention::forward_cached(Graph& g, const Tensor& x, KvCache& cache) const {
  if (const std::string why = kv_cache_refusal(); !why.empty()) throw std::logic_error(why);
  if (g.grad_enabled()) throw std::logic_error(prefix() + ": decoding from a KV cache needs a pass with gradients off");
  if (x.dim(0) != 1)
    throw std::invalid_argument(prefix() + ": a KV cache decodes one sequence, got batch " + std::to_string(x.dim(0)));
  const int64_t T = x.dim(1), C = x.dim(2), H = spec_.heads, D = spec_.head_dim, K = kv_heads_;
  const int64_t first = cache.size(), N = first + T;
  if (cache.appending() != T || cache.kv_heads() != K || cache.head_dim() != D)
    throw std::logic_error(prefix() + ": the KV cache was not set up for this pass");
  const Tensor rows = (x.is_contiguous() ? x : contiguous(g, x)).reshape({T, C});
  Tensor q = project_heads(g, rows, w_q_, H, D).reshape({H, 1, T, D});
  Tensor k = project_heads(g, rows, w_k_, K, D).reshape({K, 1, T, D});
  const Tensor v = project_heads(g, rows, w_v_, K, D);  // [K, T, D]
  if (q_norm_) {
    q = q_norm_->forward(g, q);
    k = k_norm_->forward(g, k);
  }
  float* cached_keys = cache.keys(layer_index_);
  float* cached_values = cache.values(layer_index_);
  const int64_t capacity = cache.capacity();
  for (int64_t h = 0; h < K; ++h)
    for (int64_t t = 0; t < T; ++t) {
      std::copy_n(k.data() + (h * T + t) * D, D, cached_keys + (h * capacity + first + t) * D);
      std::copy_n(v.data() + (h * T + t) * D, D, cached_values + (h * capacity + first + t) * D);
    }
  // Every cached key and value as dense [K, 1, N, D] blocks.
  Tensor keys = g.new_tensor({K, 1, N, D}, false), values = g.new_tensor({K, 1, N, D}, false);
  for (int64_t h = 0; h < K; ++h) {
    std::copy_n(cached_keys + h * capacity * D, N * D, keys.data() + h * N * D);
    std::copy_n(cached_values + h * capacity * D, N * D, values.data() + h * N * D);
  }
  if (spec_.rope) {
    RotarySpec at_queries = rotary_;
    at_queries.position_offset = first;
    q = rotary_embedding(g, q, at_queries);
    keys = rotary_embedding(g, keys, rotary_);
  }
  Tensor o = g.new_tensor({H, T, D}, false);
  const CachedAttentionShape shape{H, K, T, N, D, first, spec_.config.window, scale_};
  cached_softmax_attention(shape, q.data(), keys.data(), values.data(), g.scratch(static_cast<size_t>(H * N)),
                           o.data());
  const Tensor w_o_heads = w_o_.weight().reshape({C, H, D}).permute({1, 2, 0});  // [H, D, C]
  Tensor out = matmul_sum_over_batch(g, o, w_o_heads);                          // [T, C]
  if (w_o_.bias().defined()) out = add(g, out, w_o_.bias());
  return out.reshape({1, T, C});
}

bool MultiHeadAttention::uses_tiled_path(int64_t T) const {
  const bool observed = observers_ && !observers_->empty();
  const bool ablated = ablation_ && ablation_->applies_in_layer(layer_index_);
  const bool hooked = hooks_ && hooks_->active();
  const bool params_tiled = normalizer_params_ < 0 || (tiled_form_ && tiled_form_->learns_head_param());
  return T >= kTiledMinSeqLen && tiled_form_ && params_tiled && !key_bias_ && !ablated && !observed && !hooked &&
         !window_applies(T);
}

bool MultiHeadAttention::uses_fused_path(int64_t T) const {
  const bool observed = observers_ && !observers_->empty();
  const bool ablated = ablation_ && ablation_->applies_in_layer(layer_index_);
  const bool hooked = hooks_ && hooks_->active();
  return T <= kFusedMaxSeqLen && !key_bias_ && !ablated && !observed && !hooked && !window_applies(T);
}

Tensor MultiHeadAttention::attend_materialized(Graph& g, const Tensor& rows, const Tensor& q, const Tensor& k,
                                               const Tensor& v, const Tensor& gate, int64_t gate_width) const {
  const int64_t H = q.dim(0), B = q.dim(1), T = q.dim(2), D = q.dim(3), C = spec_.d_model;
  Tensor scores = matmul(g, q, k.transpose(-2, -1), scale_);  // [H, B, T, T]
  if (window_applies(T)) scores = mask_outside_window(g, scores, spec_.config.window);
  const bool hooked = hooks_ && hooks_->active();
  if (hooked) hooks_->visit(prefix(), "scores", scores.permute({1, 0, 2, 3}));  // as [B, H, T, T]
  const Tensor head_params = normalizer_params_ >= 0 ? param(normalizer_params_) : Tensor();
  const Tensor slot_logits = key_bias_ ? key_bias_->logits(g, q, scale_) : Tensor();  // [H, B, T]
  const bool ablated = ablation_ && ablation_->applies_in_layer(layer_index_);
  const SlotAttentionWeights attention =
      ablated ? ablated_attention_weights(g, scores, *normalizer_, head_params, slot_logits, *ablation_, layer_index_)
              : attention_weights(g, scores, *normalizer_, head_params, slot_logits);
  const Tensor& weights = attention.weights;  // [H, B, T, T]
  if (hooked) hooks_->visit(prefix(), "weights", weights.permute({1, 0, 2, 3}));  // as [B, H, T, T], before observers
  if (observers_ && !observers_->empty()) {
    AttentionView view{layer_index_, B, H, T, weights.data(), observers_->any_wants_scores() ? scores.data() : nullptr,
                       AttentionBlockLayout::head_major(B, T)};
    const float* params = head_params.defined() ? head_params.data() : nullptr;
    float* virtual_mass = g.scratch(static_cast<size_t>(H * B * T));
    if (key_bias_)
      fill_virtual_mass_with_slot(*normalizer_, scores.data(), slot_logits.data(), weights.data(),
                                  attention.slot_weights, params, H, B, T, g.scratch(static_cast<size_t>(2 * (T + 1))),
                                  virtual_mass);
    else
      fill_virtual_mass(*normalizer_, scores.data(), weights.data(), params, H, B, T, virtual_mass);
    if (ablated)
      fill_masked_bos_virtual_mass(*ablation_, layer_index_, *normalizer_, scores.data(),
                                   key_bias_ ? slot_logits.data() : nullptr, weights.data(), attention.slot_weights,
                                   params, H, B, T, g.scratch(static_cast<size_t>(2 * (T + 1))), virtual_mass);
    if (gate_) {
      float* mean_gate = g.scratch(static_cast<size_t>(H * B * T));
      fill_mean_gate(gate.data(), H, B * T, gate_width, mean_gate);
      for (int64_t row = 0; row < H * B * T; ++row)
        virtual_mass[row] = 1.0f - mean_gate[row] * (1.0f - virtual_mass[row]);
      view.gate = mean_gate;
    }
    view.virtual_mass = virtual_mass;
    view.logit_scale = scale_;
    view.head_params = params;
    if (observers_->any_wants_qkv()) {
      view.queries = q.data();
      view.keys = k.data();
      view.values = v.data();
      view.inputs = rows.data();
      view.head_dim = D;
      view.model_dim = C;
    }
    if (observers_->any_wants_value_norms()) {
      float* norms = g.scratch(static_cast<size_t>(2 * H * B * T));
      auto* gram = reinterpret_cast<double*>(g.scratch(static_cast<size_t>(2 * H * D * D)));  // 64-byte aligned
      fill_value_norms(v.data(), w_o_.weight().data(), H, B, T, D, C, gram, norms, norms + H * B * T);
      view.value_norms = norms;
      view.value_norms_v = norms + H * B * T;
    }
    observers_->notify(view);
  }
  return matmul(g, weights, v).reshape({H, B * T, D});
}

}  // namespace sinklab
