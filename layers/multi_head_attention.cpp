#include "layers/multi_head_attention.h"

#include <cmath>
#include <stdexcept>

#include "core/ops/layout_op.h"
#include "core/ops/matmul_op.h"
#include "layers/attention_weights.h"
#include "layers/normalizers/normalizer_registry.h"
#include "layers/rotary_embedding.h"

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

}  // namespace

MultiHeadAttention::MultiHeadAttention(ParameterStore& store, std::string prefix, const AttentionSpec& spec, InitSpec init,
                                       int layer_index, const AttentionObservers* observers)
    : Module(store, std::move(prefix)),
      spec_(spec),
      layer_index_(layer_index),
      observers_(observers),
      normalizer_(normalizer_registry().create(spec.config.normalizer)),
      scale_(logit_scale_for(spec)),
      w_q_(store, child_prefix("w_q"), spec.d_model, spec.heads * spec.head_dim, spec.bias, init),
      w_k_(store, child_prefix("w_k"), spec.d_model, spec.heads * spec.head_dim, spec.bias, init),
      w_v_(store, child_prefix("w_v"), spec.d_model, spec.heads * spec.head_dim, spec.bias, init),
      w_o_(store, child_prefix("w_o"), spec.heads * spec.head_dim, spec.d_model, spec.bias, init) {
  if (spec.rope && spec.head_dim % 2 != 0) throw std::invalid_argument(this->prefix() + ": rope needs an even head width");
  add_child(w_q_);
  add_child(w_k_);
  add_child(w_v_);
  add_child(w_o_);
  if (normalizer_->params_per_head() > 0) normalizer_params_ = declare("normalizer", {spec.heads, normalizer_->params_per_head()});
}

void MultiHeadAttention::initialize_own(Rng&) {
  if (normalizer_params_ < 0) return;
  Tensor p = param(normalizer_params_);
  const int P = normalizer_->params_per_head();
  for (int64_t i = 0; i < p.numel(); ++i) p.data()[i] = normalizer_->initial_param(static_cast<int>(i % P));
}

Tensor MultiHeadAttention::forward(Graph& g, const Tensor& x) const {
  if (x.rank() != 3) throw std::invalid_argument(prefix() + ": expected [B, T, C], got " + x.shape().str());
  const int64_t B = x.dim(0), T = x.dim(1), H = spec_.heads, D = spec_.head_dim;
  // [B, T, H*D] -> view [B, H, T, D] (strides, no copy)
  auto heads_view = [&](const Tensor& t) { return t.reshape({B, T, H, D}).permute({0, 2, 1, 3}); };
  Tensor q = heads_view(w_q_.forward(g, x));
  Tensor k = heads_view(w_k_.forward(g, x));
  Tensor v = heads_view(w_v_.forward(g, x));
  if (spec_.rope) {
    q = rotary_embedding(g, q);
    k = rotary_embedding(g, k);
  }
  Tensor scores = matmul(g, q, k.transpose(-2, -1), scale_);  // [B, H, T, T]
  Tensor head_params = normalizer_params_ >= 0 ? param(normalizer_params_) : Tensor();
  Tensor weights = attention_weights(g, scores, *normalizer_, head_params);  // [B, H, T, T]
  if (observers_ && !observers_->empty()) {
    AttentionView view{layer_index_, B, H, T, weights.data(), observers_->any_wants_scores() ? scores.data() : nullptr};
    observers_->notify(view);
  }
  Tensor o = matmul(g, weights, v);                                       // [B, H, T, D]
  Tensor merged = contiguous(g, o.permute({0, 2, 1, 3})).reshape({B, T, H * D});
  return w_o_.forward(g, merged);
}

}  // namespace sinklab
